import Synchronization

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

/// A slot's storage: the pointer and its release function, one atomic word each, 0 while empty.
///
/// The pointer is published with a compare-and-exchange; the release function is written by the thread that won it
/// and read only in `deinit`, when no other thread can hold the owner any more.
struct NativeResponseStorage: ~Copyable, Sendable {
    private let pointer = Atomic<UInt>(0)
    private let release = Atomic<UInt>(0)

    init() {}

    @inline(__always)
    func load() -> UnsafeMutableRawPointer? {
        UnsafeMutableRawPointer(bitPattern: pointer.load(ordering: .acquiring))
    }

    func store(_ new: UnsafeMutableRawPointer, release function: NativeResponseRelease) -> UnsafeMutableRawPointer {
        let (exchanged, original) = pointer.compareExchange(
            expected: 0,
            desired: UInt(bitPattern: new),
            successOrdering: .acquiringAndReleasing,
            failureOrdering: .acquiring
        )
        guard exchanged else { return UnsafeMutableRawPointer(bitPattern: original)! }
        release.store(UInt(bitPattern: unsafeBitCast(function, to: UnsafeRawPointer.self)), ordering: .releasing)
        return new
    }

    /// Releases the stored native response; called from the owner's `deinit`.
    func releaseStored() {
        guard let stored = load(), let function = UnsafeRawPointer(bitPattern: release.load(ordering: .acquiring))
        else { return }
        unsafeBitCast(function, to: NativeResponseRelease.self)(stored)
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
