import CMicroHTTPD
import Dispatch
import Foundation
import MockdCore
import MockdFormat
import MockdPlatform

/// Streams Server-Sent Events through a libmicrohttpd callback response: each event when it is due, the
/// connection suspended in between (no worker waits), then the end of the stream — or, with `keepOpen`, a
/// hold until the client leaves or the hold time passes.
///
/// Events pushed by other requests' answers (`emit[].events`, `EventStreamHub`) are sent as soon as they arrive: the
/// push resumes the waiting connection early, and the scripted events and the hold keep their own deadlines.
final class EventStreamBody: StreamingBody, @unchecked Sendable {
    private let events: [ServerSentEvent]
    private let keepOpen: Bool
    private let holdMs: Double
    private let connection: OpaquePointer
    private let suspensions: Suspensions
    // Touched only from libmicrohttpd's calls of `read`, one at a time.
    private var next = 0
    private var pending = Data()
    private var dueNanoseconds: UInt64?
    /// When a kept-open stream's hold ends (uptime ns), once its scripted events are sent.
    private var holdDeadline: UInt64?
    /// Pushed events waiting to be sent, and the suspension a push ends early.
    private let inbox = Mutex<(events: [Data], waiting: UInt64?)>(([], nil))
    /// The registration with the hub pushes come through, removed when libmicrohttpd frees the response.
    var registration: (hub: EventStreamHub, id: Int)?

    init(
        events: [ServerSentEvent],
        keepOpen: Bool,
        holdMs: Double,
        connection: OpaquePointer,
        suspensions: Suspensions
    ) {
        self.events = events
        self.keepOpen = keepOpen
        self.holdMs = holdMs
        self.connection = connection
        self.suspensions = suspensions
    }

    deinit {
        if let registration { registration.hub.unregister(registration.id) }
    }

    /// Queues a pushed event (bytes as on the wire) and ends the stream's wait for its next event or its hold, so the
    /// event goes out now. Called from the push thread.
    func push(_ event: Data) {
        let waiting = inbox.withLock { inbox -> UInt64? in
            inbox.events.append(event)
            defer { inbox.waiting = nil }
            return inbox.waiting
        }
        if let waiting { suspensions.resume(token: waiting) }
    }

    /// Bytes for libmicrohttpd: pending event bytes, 0 after suspending until the next event, -1 at the end
    /// (`MHD_CONTENT_READER_END_OF_STREAM`, also for a kept-open stream once a graceful shutdown begins), -2
    /// when the daemon stops.
    override func read(position: UInt64, into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
        if suspensions.isStopping { return -2 }
        if pending.isEmpty {
            let pushed = inbox.withLock { inbox -> [Data] in
                defer { inbox.events.removeAll() }
                return inbox.events
            }
            if !pushed.isEmpty {
                pending = pushed.reduce(Data(), +)
            } else if next < events.count {
                let now = DispatchTime.now().uptimeNanoseconds
                let due = dueNanoseconds ?? now + Self.nanoseconds(events[next].after)
                dueNanoseconds = due
                if due > now { return wait(milliseconds: Double(due - now) / 1_000_000, endsAtDrain: false) }
                pending = events[next].encoded
                next += 1
                // The next event's delay counts from the moment this one is sent.
                dueNanoseconds = next < events.count ? now + Self.nanoseconds(events[next].after) : nil
            } else {
                // A graceful shutdown ends a kept-open stream cleanly once its events are sent.
                guard keepOpen, !suspensions.isDraining else { return -1 }
                let now = DispatchTime.now().uptimeNanoseconds
                let deadline = holdDeadline ?? now + UInt64(holdMs * 1_000_000)
                holdDeadline = deadline
                guard deadline > now else { return -1 }
                return wait(milliseconds: Double(deadline - now) / 1_000_000, endsAtDrain: true)
            }
        }
        let count = min(capacity, pending.count)
        pending.withUnsafeBytes { UnsafeMutableRawPointer(buffer).copyMemory(from: $0.baseAddress!, byteCount: count) }
        pending.removeFirst(count)
        return count
    }

    /// Suspends the connection for `milliseconds` or until a push arrives: 0, or the end (-1, -2) when it cannot be
    /// suspended (draining, stopping).
    private func wait(milliseconds: Double, endsAtDrain: Bool) -> Int {
        // A client that left ends the stream now, not at its next event or the end of the hold (up to ten minutes
        // of a connection slot): nothing written in between could fail.
        if Self.clientLeft(connection) { return -2 }
        guard
            let token = suspensions.suspendResumable(
                connection,
                resumeAfter: milliseconds,
                endsAtDrain: endsAtDrain
            )
        else { return suspensions.isStopping ? -2 : -1 }
        // A push that arrived since the inbox was read found no suspension to end: end it here.
        let arrived = inbox.withLock { inbox -> Bool in
            if !inbox.events.isEmpty { return true }
            inbox.waiting = token
            return false
        }
        if arrived { suspensions.resume(token: token) }
        return 0
    }

    private static func nanoseconds(_ milliseconds: Double?) -> UInt64 {
        UInt64(min(max(0, milliseconds ?? 0), 3_600_000) * 1_000_000)
    }
}

/// The open Server-Sent Events streams, by session and path, for pushes (`emit[].events`): a stream is registered when
/// its response is queued and removed when libmicrohttpd frees it (the client left, the stream ended, the daemon
/// stopped).
final class EventStreamHub: @unchecked Sendable {
    private struct Stream {
        let session: String
        let path: String
        let stubID: String?
        weak var body: EventStreamBody?
    }

    /// One stream a push reached.
    struct Reached {
        let path: String
        let stubID: String?
        /// The hub's number of the stream, as the journal's `Connection-Number`.
        let id: Int
    }

    private let streams = Mutex<(byID: [Int: Stream], next: Int)>(([:], 0))

    func register(_ body: EventStreamBody, session: String, path: String, stubID: String?) {
        let id = streams.withLock { streams -> Int in
            streams.next += 1
            streams.byID[streams.next] = Stream(session: session, path: path, stubID: stubID, body: body)
            return streams.next
        }
        body.registration = (self, id)
    }

    func unregister(_ id: Int) {
        _ = streams.withLock { $0.byID.removeValue(forKey: id) }
    }

    /// Sends `event` (bytes as on the wire) to the open streams of `session` the selector matches.
    func push(_ event: Data, session: String, selector: ConnectionSelector) -> [Reached] {
        let targets = streams.withLock { streams in
            streams.byID.filter { $0.value.session == session && selector.matches($0.value.path) }
                .sorted { $0.key < $1.key }
                .compactMap { id, stream in
                    stream.body.map { (Reached(path: stream.path, stubID: stream.stubID, id: id), $0) }
                }
        }
        for (_, body) in targets { body.push(event) }
        return targets.map(\.0)
    }

    /// How many open streams of `session` the selector matches.
    func count(session: String, selector: ConnectionSelector) -> Int {
        streams.withLock { $0.byID.values.filter { $0.session == session && selector.matches($0.path) }.count }
    }
}
