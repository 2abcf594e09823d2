public import Foundation
import Synchronization

/// One request as the session saw it: what came in, what answered, what went out.
public struct JournalEntry: Sendable {
    /// 1-based position in the session's journal.
    public let sequence: Int
    /// When the request arrived.
    public let time: Date
    public let method: String
    /// The raw request-target (after a `/__session/ID` prefix was stripped).
    public let target: String
    public let headers: HTTPHeaders
    /// The request body, at most `RequestJournal.bodyLimit` bytes of it.
    public let body: Data
    /// The full request body size in bytes.
    public let bodySize: Int
    /// The stub or override that answered, or `nil` when nothing matched.
    public let stubID: String?
    /// The status sent, or `nil` when a fault broke the exchange.
    public let status: Int?
    public let fault: Fault?
    /// From arrival to the response being queued (including simulated latency), in ms.
    public let durationMs: Double
    /// What was sent (for `journal.har`).
    public let response: MockResponse
    /// Why nothing matched, for unmatched requests: the nearest stubs and overrides.
    public let nearMisses: [NearMiss]
    /// Whether the upstream answered (capture-on-miss, `mockd record`) rather than a stub.
    public var proxied = false

    public var matched: Bool { stubID != nil }
}

/// A session's journal: every request in arrival order, bounded by `limit` entries.
///
/// When the limit is reached the oldest entries are dropped and counted in `dropped`, so memory stays
/// bounded and the loss is never silent.
public final class RequestJournal: Sendable {
    /// Request bodies are kept up to this many bytes (64 KiB).
    public static let bodyLimit = 64 * 1024

    private struct State {
        var entries: [JournalEntry] = []
        var start = 0
        var nextSequence = 1
        var dropped = 0
    }

    public let limit: Int
    private let state = Mutex(State())

    public init(limit: Int) {
        self.limit = max(1, limit)
    }

    func append(
        time: Date, request: HTTPRequest, stubID: String?, status: Int?, fault: Fault?, durationMs: Double,
        response: MockResponse, nearMisses: [NearMiss], proxied: Bool = false
    ) {
        state.withLock { state in
            let entry = JournalEntry(
                sequence: state.nextSequence, time: time, method: request.method, target: request.target,
                // A copy: a slice would keep the whole (possibly huge) request body alive.
                headers: request.headers, body: Data(request.body.prefix(RequestJournal.bodyLimit)), bodySize: request.body.count,
                stubID: stubID, status: status, fault: fault, durationMs: durationMs, response: response, nearMisses: nearMisses,
                proxied: proxied
            )
            state.nextSequence += 1
            if state.entries.count - state.start >= limit {
                state.start += 1
                state.dropped += 1
            }
            state.entries.append(entry)
            // Compact now and then so dropped entries do not pin memory.
            if state.start > limit {
                state.entries.removeFirst(state.start)
                state.start = 0
            }
        }
    }

    /// The entries in arrival order, and how many were dropped for the limit.
    public func snapshot() -> (entries: [JournalEntry], dropped: Int) {
        state.withLock { (Array($0.entries[$0.start...]), $0.dropped) }
    }

    /// Empties the journal; numbering starts over.
    public func clear() {
        state.withLock { $0 = State() }
    }
}
