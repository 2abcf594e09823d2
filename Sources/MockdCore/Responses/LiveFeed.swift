public import Foundation

/// A response body with no end of its own: bytes produced while the client stays (the live journal,
/// `JournalFeed`). The server bridge asks `next(now:)` whenever the connection may send and, on `nil`, suspends the
/// connection for `pollMilliseconds` (no worker thread waits); the feed ends when the client leaves or the daemon
/// stops.
public protocol LiveFeed: AnyObject, Sendable {
    /// How long to wait before asking again after `next(now:)` had nothing, in ms.
    var pollMilliseconds: Double { get }

    /// The bytes to send now, or `nil` when there is nothing yet.
    /// - Parameter now: Monotonic time in ns (`DispatchTime.now().uptimeNanoseconds`).
    func next(now: UInt64) -> Data?
}
