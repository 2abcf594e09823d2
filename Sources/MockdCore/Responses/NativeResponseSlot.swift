import MockdPlatform

/// How the server releases a native response it stored in a slot: a C function (no context), so that it fits one
/// word next to the pointer. libmicrohttpd's `MHD_destroy_response` behind a capture-free closure.
public typealias NativeResponseRelease = @convention(c) (UnsafeMutableRawPointer) -> Void

/// Where the server bridge keeps a prebuilt native response (a libmicrohttpd `MHD_Response`) for one static
/// stub response, so serving it neither copies the body nor re-adds headers per request.
///
/// The core never looks inside: it only hands the slot out with responses it returns unchanged
/// (`PlannedResponse.nativeSlot`), and calls the release function stored with the pointer when the slot goes away
/// (a reload or a scenario switch drops the stubs). A stub is the slot of its own first response (a separate object
/// was 32 bytes per stub of idle memory); later sequence steps use `NativeResponseBox`.
public protocol NativeResponseSlot: AnyObject, Sendable {
    /// The stored native response, if any.
    func load() -> UnsafeMutableRawPointer?
    /// Stores `pointer` and the function that releases it, unless another thread stored one first.
    /// - Returns: the pointer now in the slot: `pointer`, or the earlier one (the caller then releases its own).
    func store(_ pointer: UnsafeMutableRawPointer, release: NativeResponseRelease) -> UnsafeMutableRawPointer
}

/// A slot's storage: one atomic word, 0 while empty, then the address of a two-word cell holding the native
/// response and its release function.
///
/// One word per stub while idle (a second word in every stub was 1.6 MiB at 100,000 stubs, in malloc's size
/// classes); the cell is made when a response is first served. It is published with a compare-and-exchange; the
/// loser of a race frees its own cell and uses the winner's.
struct NativeResponseStorage: ~Copyable, Sendable {
    private typealias Cell = (response: UnsafeMutableRawPointer, release: NativeResponseRelease)

    private let cell = Atomic<UInt>(0)

    init() {}

    @inline(__always)
    func load() -> UnsafeMutableRawPointer? {
        UnsafeMutablePointer<Cell>(bitPattern: cell.load(ordering: .acquiring))?.pointee.response
    }

    func store(_ new: UnsafeMutableRawPointer, release function: NativeResponseRelease) -> UnsafeMutableRawPointer {
        let made = UnsafeMutablePointer<Cell>.allocate(capacity: 1)
        made.initialize(to: (new, function))
        let (exchanged, original) = cell.compareExchange(
            expected: 0,
            desired: UInt(bitPattern: made),
            successOrdering: .acquiringAndReleasing,
            failureOrdering: .acquiring
        )
        guard exchanged else {
            made.deallocate()
            return UnsafeMutablePointer<Cell>(bitPattern: original)!.pointee.response
        }
        return new
    }

    /// Releases the stored native response; called from the owner's `deinit`, when no other thread can hold the
    /// owner any more.
    func releaseStored() {
        guard let stored = UnsafeMutablePointer<Cell>(bitPattern: cell.load(ordering: .acquiring)) else { return }
        stored.pointee.release(stored.pointee.response)
        stored.deallocate()
    }
}

/// The slot of one later step of a stub's sequence.
public final class NativeResponseBox: NativeResponseSlot {
    private let storage = NativeResponseStorage()

    public init() {}

    public func load() -> UnsafeMutableRawPointer? { storage.load() }

    public func store(_ pointer: UnsafeMutableRawPointer, release: NativeResponseRelease) -> UnsafeMutableRawPointer {
        storage.store(pointer, release: release)
    }

    deinit { storage.releaseStored() }
}
