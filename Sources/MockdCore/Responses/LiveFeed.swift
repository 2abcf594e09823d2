public import Foundation

/// A response body produced while it is sent, a piece per write: the live journal (`JournalFeed`), which has no end
/// of its own, and large control answers (`StreamedJSON`), which end. The server bridge asks `next(now:)` whenever
/// the connection may send; on `nil` it ends the body when `isFinished`, else suspends the connection for
/// `pollMs` (no worker thread waits). A feed without an end stops when the client leaves or the daemon
/// drains; one with an end is sent whole unless the daemon stops outright.
public protocol LiveFeed: AnyObject, Sendable {
    /// How long to wait before asking again after `next(now:)` had nothing, in ms.
    var pollMs: Double { get }

    /// The bytes to send now, or `nil` when there is nothing yet (or nothing more, once `isFinished`).
    /// - Parameter now: Monotonic time in ns (`DispatchTime.now().uptimeNanoseconds`).
    func next(now: UInt64) -> Data?

    /// Whether the body has an end and `next(now:)` has given all of it.
    var isFinished: Bool { get }

    /// Whether the body has an end (it is then sent whole while the daemon drains).
    var hasEnd: Bool { get }
}

extension LiveFeed {
    public var isFinished: Bool { false }
    public var hasEnd: Bool { false }
}
