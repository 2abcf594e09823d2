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

/// A slot's storage: one atomic word, 0 while empty, then the native response's own address.
///
/// One word per stub (a second word in every stub was 1.6 MiB at 100,000 stubs, in malloc's size classes), and
/// serving reads no other memory to find the response: the release function, the same for every response a process
/// stores (the server bridge's), is kept once for the process by the first store. (A two-word cell per stub, made at
/// first use, was one more line to fetch from memory on every request, 3.5% of the pinned core at 100,000 stubs asked
/// at random.) A store with another function, or an odd address, gets such a cell, marked by the word's lowest bit.
/// The word is published with a compare-and-exchange; the loser of a race uses the winner's response.
struct NativeResponseStorage: ~Copyable, Sendable {
    private typealias Cell = (response: UnsafeMutableRawPointer, release: NativeResponseRelease)

    private let cell = Atomic<UInt>(0)
    /// The release function of the responses stored directly (their words' lowest bit clear), as an address; 0 until
    /// the first store. Set once, never changed.
    private static let directRelease = Atomic<UInt>(0)
    private static let cellMark: UInt = 1

    init() {}

    @inline(__always)
    func load() -> UnsafeMutableRawPointer? {
        let word = cell.load(ordering: .acquiring)
        if word & Self.cellMark == 0 { return UnsafeMutableRawPointer(bitPattern: word) }
        return UnsafeMutablePointer<Cell>(bitPattern: word & ~Self.cellMark)!.pointee.response
    }

    func store(_ new: UnsafeMutableRawPointer, release function: NativeResponseRelease) -> UnsafeMutableRawPointer {
        let functionAddress = UInt(bitPattern: unsafeBitCast(function, to: UnsafeRawPointer.self))
        var direct = Self.directRelease.load(ordering: .acquiring)
        if direct == 0 {
            let (exchanged, original) = Self.directRelease.compareExchange(
                expected: 0,
                desired: functionAddress,
                successOrdering: .acquiringAndReleasing,
                failureOrdering: .acquiring
            )
            direct = exchanged ? functionAddress : original
        }
        var made: UnsafeMutablePointer<Cell>?
        let word: UInt
        if direct == functionAddress, UInt(bitPattern: new) & Self.cellMark == 0 {
            word = UInt(bitPattern: new)
        } else {
            let boxed = UnsafeMutablePointer<Cell>.allocate(capacity: 1)
            boxed.initialize(to: (new, function))
            made = boxed
            word = UInt(bitPattern: boxed) | Self.cellMark
        }
        let (exchanged, _) = cell.compareExchange(
            expected: 0,
            desired: word,
            successOrdering: .acquiringAndReleasing,
            failureOrdering: .acquiring
        )
        guard exchanged else {
            made?.deallocate()
            return load()!
        }
        return new
    }

    /// Releases the stored native response; called from the owner's `deinit`, when no other thread can hold the
    /// owner any more.
    func releaseStored() {
        let word = cell.load(ordering: .acquiring)
        guard word != 0 else { return }
        if word & Self.cellMark == 0 {
            // A direct word exists only after `directRelease` was set (before the word was published).
            let release = unsafeBitCast(
                UnsafeRawPointer(bitPattern: Self.directRelease.load(ordering: .acquiring))!,
                to: NativeResponseRelease.self
            )
            release(UnsafeMutableRawPointer(bitPattern: word)!)
            return
        }
        let stored = UnsafeMutablePointer<Cell>(bitPattern: word & ~Self.cellMark)!
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
