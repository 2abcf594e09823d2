import Synchronization

/// Where the server bridge keeps a prebuilt native response (a libmicrohttpd `MHD_Response`) for one static
/// stub response, so serving it neither copies the body nor re-adds headers per request.
///
/// The core never looks inside: it only hands the slot out with responses it returns unchanged
/// (`PlannedResponse.nativeSlot`). A stub is the slot of its own first response (a separate object was 32
/// bytes per stub of idle memory); later sequence steps use `NativeResponseBox`.
public protocol NativeResponseSlot: AnyObject, Sendable {
    /// The stored native response, if any.
    func load() -> UnsafeMutableRawPointer?
    /// Stores `pointer` unless another thread stored one first.
    /// - Returns: the pointer now in the slot (`pointer` or the earlier one).
    func store(_ pointer: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer
}

/// How a slot's pointer is kept: one atomic word, 0 while empty.
enum NativeResponseBits {
    /// Releases a stored native response; set once by the server bridge before it serves.
    nonisolated(unsafe) static var release: (@Sendable (UnsafeMutableRawPointer) -> Void)?

    static func load(_ bits: borrowing Atomic<UInt>) -> UnsafeMutableRawPointer? {
        UnsafeMutableRawPointer(bitPattern: bits.load(ordering: .acquiring))
    }

    static func store(_ pointer: UnsafeMutableRawPointer, in bits: borrowing Atomic<UInt>) -> UnsafeMutableRawPointer {
        let (exchanged, original) = bits.compareExchange(
            expected: 0, desired: UInt(bitPattern: pointer), successOrdering: .acquiringAndReleasing, failureOrdering: .acquiring
        )
        return exchanged ? pointer : UnsafeMutableRawPointer(bitPattern: original)!
    }

    /// Called from the owner's `deinit`.
    static func releaseStored(_ bits: borrowing Atomic<UInt>) {
        if let pointer = load(bits) { release?(pointer) }
    }
}

/// The slot of one later step of a stub's sequence.
public final class NativeResponseBox: NativeResponseSlot {
    private let bits = Atomic<UInt>(0)

    public init() {}

    public func load() -> UnsafeMutableRawPointer? { NativeResponseBits.load(bits) }

    public func store(_ pointer: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer { NativeResponseBits.store(pointer, in: bits) }

    deinit { NativeResponseBits.releaseStored(bits) }
}

/// Set once by the server bridge before it serves: how a stored native response is released.
public enum NativeResponseRelease {
    public static func install(_ release: @escaping @Sendable (UnsafeMutableRawPointer) -> Void) {
        NativeResponseBits.release = release
    }
}
