import Synchronization

/// Where the server bridge keeps a prebuilt native response (a libmicrohttpd `MHD_Response`) for one static
/// stub response, so serving it neither copies the body nor re-adds headers per request.
///
/// The core never looks inside: it only hands the slot out with responses it returns unchanged
/// (`PlannedResponse.nativeSlot`).
public final class NativeResponseSlot: Sendable {
    /// Releases a stored native response; set once by the server bridge before it serves.
    nonisolated(unsafe) public static var release: (@Sendable (UnsafeMutableRawPointer) -> Void)?

    private let bits = Atomic<UInt>(0)

    public init() {}

    /// The stored native response, if any.
    public func load() -> UnsafeMutableRawPointer? {
        UnsafeMutableRawPointer(bitPattern: bits.load(ordering: .acquiring))
    }

    /// Stores `pointer` unless another thread stored one first.
    /// - Returns: the pointer now in the slot (`pointer` or the earlier one).
    public func store(_ pointer: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer {
        let (exchanged, original) = bits.compareExchange(
            expected: 0, desired: UInt(bitPattern: pointer), successOrdering: .acquiringAndReleasing, failureOrdering: .acquiring
        )
        return exchanged ? pointer : UnsafeMutableRawPointer(bitPattern: original)!
    }

    deinit {
        if let pointer = load() { NativeResponseSlot.release?(pointer) }
    }
}
