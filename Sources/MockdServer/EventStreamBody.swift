import CMicroHTTPD
import Dispatch
import Foundation
import MockdCore
import MockdFormat

/// Streams Server-Sent Events through a libmicrohttpd callback response: each event when it is due, the
/// connection suspended in between (no worker waits), then the end of the stream — or, with `keepOpen`, a
/// hold until the client leaves or the hold time passes.
final class EventStreamBody: StreamingBody {
    private let events: [ServerSentEvent]
    private let keepOpen: Bool
    private let holdMilliseconds: Double
    private let connection: OpaquePointer
    private let suspensions: Suspensions
    private var next = 0
    private var pending = Data()
    private var dueNanoseconds: UInt64?
    private var holding = false

    init(
        events: [ServerSentEvent],
        keepOpen: Bool,
        holdMilliseconds: Double,
        connection: OpaquePointer,
        suspensions: Suspensions
    ) {
        self.events = events
        self.keepOpen = keepOpen
        self.holdMilliseconds = holdMilliseconds
        self.connection = connection
        self.suspensions = suspensions
    }

    /// Bytes for libmicrohttpd: pending event bytes, 0 after suspending until the next event, -1 at the end
    /// (`MHD_CONTENT_READER_END_OF_STREAM`, also for a kept-open stream once a graceful shutdown begins), -2
    /// when the daemon stops.
    override func read(position: UInt64, into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
        if suspensions.isStopping { return -2 }
        if pending.isEmpty {
            guard next < events.count else {
                // A graceful shutdown ends a kept-open stream cleanly once its events are sent.
                if keepOpen && !holding && !suspensions.isDraining {
                    holding = true
                    if suspensions.suspend(connection, resumeAfter: holdMilliseconds, endsAtDrain: true) { return 0 }
                    return suspensions.isStopping ? -2 : -1
                }
                return -1
            }
            let now = DispatchTime.now().uptimeNanoseconds
            let due = dueNanoseconds ?? now + UInt64(min(max(0, events[next].after ?? 0), 3_600_000) * 1_000_000)
            dueNanoseconds = due
            if due > now {
                return suspensions.suspend(connection, resumeAfter: Double(due - now) / 1_000_000) ? 0 : -2
            }
            pending = events[next].encoded
            next += 1
            // The next event's delay counts from the moment this one is sent.
            dueNanoseconds =
                next < events.count ? now + UInt64(min(max(0, events[next].after ?? 0), 3_600_000) * 1_000_000) : nil
        }
        let count = min(capacity, pending.count)
        pending.withUnsafeBytes { UnsafeMutableRawPointer(buffer).copyMemory(from: $0.baseAddress!, byteCount: count) }
        pending.removeFirst(count)
        return count
    }
}
