public import Foundation
public import MockdControl
public import MockdFormat
import MockdPlatform

/// One request as the session saw it: what came in, what answered, what went out.
public struct JournalRecord: Sendable {
    /// 1-based position in the session's journal.
    public let sequence: Int
    /// When the request arrived.
    public let time: Date
    public let method: String
    /// The raw request-target (after a `/__session/ID` prefix was stripped).
    public let target: String
    /// The recorded host the request was for (`HostName.normalized`): the one it named (`/__host/NAME/`,
    /// `X-Forwarded-Host`, `Host`), else the host of the stub or override that answered; `nil` when neither says.
    public let host: String?
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
    /// Whether `response.body` was kept cut (a body made for the request over `RequestJournal.bodyLimit`).
    public var responseBodyCut = false
    /// What `stubID`'s answer edited, nearest first (`PlannedResponse.edited`): a scenario override under a runtime
    /// stub, the mock set's stub, a resource. Empty when the answer is `stubID`'s own.
    public var edited: [String] = []
    /// For what an answer or an app's message caused (a push: `WS-OUT`, `SSE-OUT`, `WEBHOOK`; a `STATE` change): the
    /// sequence number of the entry that caused it.
    public var causedBy: Int?
    /// What the entry's fields alone do not say: how a client fault reached the app (raised by `MockdAppRedirect`, or
    /// its wire fallback), why a push reached no connection, why a webhook got no answer.
    public var note: String?

    public var matched: Bool { stubID != nil }

    /// Whether mockd wrote it for what a request or a socket message caused, rather than the app sending it: a pushed
    /// event (`SSE-OUT`), a webhook mockd sent (`WEBHOOK`), a state change (`STATE`). `verify` does not count these and
    /// the HAR export leaves them out; WebSocket frames (`WS-IN`, `WS-OUT`) are the connection's traffic and stay.
    public var isEffect: Bool { method == "SSE-OUT" || method == "WEBHOOK" || method == "STATE" }
}

/// A session's journal: every request in arrival order, bounded by `limit` entries.
///
/// When the limit is reached the oldest entries are dropped and counted in `dropped`, so memory stays
/// bounded and the loss is never silent.
public final class RequestJournal: Sendable {
    /// Request bodies are kept up to this many bytes (64 KiB).
    public static let bodyLimit = 64 * 1024

    /// One journaled request. An exchange answered by the engine is kept as the engine's own immutable
    /// record, never copied field by field on the request's way; its `JournalRecord` is built when the journal is read.
    private enum Record: Sendable {
        case exchange(EngineOutcome.Exchange, sequence: Int, durationMs: Double)
        case entry(EntryBox)

        var sequence: Int {
            switch self {
            case .entry(let box): return box.entry.sequence
            case .exchange(_, let sequence, _): return sequence
            }
        }

        /// The record's object, without a reference count, and its size in bytes (for `Prefetch`).
        var object: (address: UnsafeRawPointer, bytes: Int) {
            switch self {
            case .entry(let box): return (UnsafeRawPointer(Unmanaged.passUnretained(box).toOpaque()), EntryBox.bytes)
            case .exchange(let exchange, _, _): return exchange.object
            }
        }

        /// What the record's object owns beyond itself (`EngineOutcome.Exchange.owned`); an entry's fields are
        /// released with its box.
        var owned: (stub: UnsafeRawPointer?, headers: UnsafeRawPointer?) {
            guard case .exchange(let exchange, _, _) = self else { return (nil, nil) }
            return exchange.owned
        }

        var entry: JournalRecord {
            switch self {
            case .entry(let box):
                return box.entry
            case .exchange(let exchange, let sequence, let durationMs):
                let plan = exchange.plan
                let request = exchange.request
                return JournalRecord(
                    sequence: sequence,
                    time: exchange.arrival,
                    method: request.method,
                    target: request.target,
                    host: plan.host ?? exchange.stub.flatMap { $0.host.isEmpty ? nil : $0.host }
                        ?? HostRouting.explicitHost(of: request),
                    headers: request.headers,
                    body: request.body,
                    bodySize: request.body.count,
                    stubID: plan.response.stubID,
                    status: plan.fault == nil ? plan.response.status : nil,
                    fault: plan.fault,
                    durationMs: durationMs,
                    response: plan.response,
                    nearMisses: exchange.nearMisses,
                    proxied: exchange.proxied,
                    edited: plan.edited,
                    note: plan.fault.flatMap { ClientFaultDelivery.note($0, request: request) }
                )
            }
        }
    }

    private final class EntryBox: Sendable {
        /// Its header and the record, in bytes.
        static let bytes = 16 + MemoryLayout<JournalRecord>.stride

        let entry: JournalRecord
        init(_ entry: JournalRecord) { self.entry = entry }
    }

    /// A ring of at most `limit` records: each append past the limit replaces the oldest. (An array trimmed from
    /// the front released `limit` records at once, under the lock, every `limit` requests: a p99 spike for every
    /// request waiting on the lock meanwhile.)
    private struct State {
        /// Arrival order once full: `records[oldest...]`, then `records[..<oldest]`.
        var records: [Record] = []
        var oldest = 0
        var nextSequence = 1
        var dropped = 0
        /// How many times the journal was cleared: a reader holding a cursor sees numbering start over.
        var clears = 0

        /// Appends the record built for the next sequence number.
        /// - Returns: the record it replaced (the oldest) once the journal is full, to be released after the lock.
        mutating func append(limit: Int, _ record: (Int) -> Record) -> Record? {
            let entry = record(nextSequence)
            nextSequence += 1
            guard records.count >= limit else {
                // The ring's slots at once (up to `reservedRecords`, a word each and two numbers): grown by doubling,
                // every record so far was copied again each time, under the lock.
                if records.capacity == 0 { records.reserveCapacity(min(limit, RequestJournal.reservedRecords)) }
                records.append(entry)
                return nil
            }
            dropped += 1
            var evicted = entry
            swap(&records[oldest], &evicted)
            oldest = (oldest + 1) % records.count
            prefetchUpcomingEvictions()
            return evicted
        }

        /// Brings in, ahead of time, what the next two evictions release (see `EngineOutcome+Prefetch`): the record
        /// evicted after next has its object hinted now, the next one (hinted one append ago, so its object is in)
        /// what it owns. Each lands while a request is served in between, instead of stalling the eviction.
        private func prefetchUpcomingEvictions() {
            let count = records.count
            guard count > 2 else { return }
            let owned = records[oldest].owned
            let object = records[(oldest + 1) % count].object
            if let stub = owned.stub { Prefetch.forWrite(stub, bytes: 16) }
            if let headers = owned.headers { Prefetch.forWrite(headers, bytes: 16) }
            Prefetch.forWrite(object.address, bytes: object.bytes)
        }

        var inArrivalOrder: [Record] { Array(records[oldest...]) + records[..<oldest] }
    }

    public let limit: Int
    private let state = Mutex(State())
    /// The records a journal makes room for at its first entry: the default `--journal-limit`, ~320 KB of address
    /// space, which memory holds only as the journal fills.
    static let reservedRecords = 10_000

    public init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Journals one entry; a `causedBy` names the sequence number of the entry that caused it (a push, a state
    /// change).
    /// - Returns: The entry's sequence number, for the entries it causes.
    @discardableResult
    func append(
        time: Date,
        request: HTTPRequest,
        stubID: String?,
        status: Int?,
        fault: Fault?,
        durationMs: Double,
        response: MockResponse,
        nearMisses: [NearMiss],
        proxied: Bool = false,
        host: String? = nil,
        edited: [String] = [],
        responseBodyCut: Bool = false,
        causedBy: Int? = nil,
        note: String? = nil
    ) -> Int {
        // The replaced record is released here, after the lock.
        let (sequence, _) = state.withLock { state in
            let sequence = state.nextSequence
            return (
                sequence,
                state.append(limit: limit) { sequence in
                    .entry(
                        EntryBox(
                            JournalRecord(
                                sequence: sequence,
                                time: time,
                                method: request.method,
                                target: request.target,
                                host: host ?? HostRouting.explicitHost(of: request),
                                // A copy when cut: a slice would keep the whole (possibly huge) request body alive.
                                headers: request.headers,
                                body: request.body.count <= RequestJournal.bodyLimit
                                    ? request.body : Data(request.body.prefix(RequestJournal.bodyLimit)),
                                bodySize: request.body.count,
                                stubID: stubID,
                                status: status,
                                fault: fault,
                                durationMs: durationMs,
                                response: response,
                                nearMisses: nearMisses,
                                proxied: proxied,
                                responseBodyCut: responseBodyCut,
                                edited: edited,
                                causedBy: causedBy,
                                note: note
                            )
                        )
                    )
                }
            )
        }
        return sequence
    }

    /// Journals an exchange as the engine planned it; one whose request or made-up response body is over
    /// `bodyLimit` is journaled cut (as `append(time:…)` does).
    /// - Returns: The entry's sequence number.
    @discardableResult
    func append(_ exchange: EngineOutcome.Exchange, durationMs: Double) -> Int {
        // The payloads are read directly: through the enum's accessors each read copied the request.
        let fits: Bool
        switch exchange {
        case .stub(let answered):
            fits = answered.request.body.count <= RequestJournal.bodyLimit
        case .planned(let planned):
            fits =
                planned.request.body.count <= RequestJournal.bodyLimit
                && (planned.plan.nativeSlot != nil || planned.plan.response.body.count <= RequestJournal.bodyLimit)
        }
        guard fits else {
            let plan = exchange.plan
            var response = plan.response
            let cut = plan.nativeSlot == nil && response.body.count > RequestJournal.bodyLimit
            if cut { response.body = Data(response.body.prefix(RequestJournal.bodyLimit)) }
            return append(
                time: exchange.arrival,
                request: exchange.request,
                stubID: response.stubID,
                status: plan.fault == nil ? response.status : nil,
                fault: plan.fault,
                durationMs: durationMs,
                response: response,
                nearMisses: exchange.nearMisses,
                proxied: exchange.proxied,
                host: plan.host ?? exchange.stub.flatMap { $0.host.isEmpty ? nil : $0.host },
                edited: plan.edited,
                responseBodyCut: cut,
                note: plan.fault.flatMap { ClientFaultDelivery.note($0, request: exchange.request) }
            )
        }
        // The replaced record is released here, after the lock.
        let (sequence, _) = state.withLock { state in
            (
                state.nextSequence,
                state.append(limit: limit) { .exchange(exchange, sequence: $0, durationMs: durationMs) }
            )
        }
        return sequence
    }

    /// The entries in arrival order, and how many were dropped for the limit.
    public func snapshot() -> (entries: [JournalRecord], dropped: Int) {
        let (records, dropped) = state.withLock { ($0.inArrivalOrder, $0.dropped) }
        return (records.map(\.entry), dropped)
    }

    /// One page of the journal: the entries after sequence number `after` that pass `include`, at most `limit`
    /// of them, in arrival order; whether more such entries follow; and how many were dropped for the limit.
    ///
    /// Only the records after `after` are turned into entries, and only until the page is full (plus one, to
    /// know whether more follow), so reading a page of a full journal costs the page, not the journal.
    /// - Complexity: O(n) in the journal's length for the copy of its record list under the lock, then
    ///   O(`limit`) entries built when no filter drops any.
    public func page(
        after: Int,
        limit: Int,
        where include: (JournalRecord) -> Bool
    ) -> (entries: [JournalRecord], more: Bool, dropped: Int) {
        let (records, dropped) = state.withLock { ($0.inArrivalOrder, $0.dropped) }
        // Sequence numbers grow in arrival order: find the first record after the cursor by bisection.
        var low = 0
        var high = records.count
        while low < high {
            let middle = (low + high) / 2
            if records[middle].sequence <= after { low = middle + 1 } else { high = middle }
        }
        var entries: [JournalRecord] = []
        entries.reserveCapacity(min(limit, records.count - low))
        for record in records[low...] {
            let entry = record.entry
            guard include(entry) else { continue }
            if entries.count == limit { return (entries, true, dropped) }
            entries.append(entry)
        }
        return (entries, false, dropped)
    }

    /// How many entries the journal holds and when the newest arrived (`nil` when empty), without building the
    /// entries: what the sessions list shows.
    /// - Complexity: O(1).
    public var summary: (count: Int, newestTime: Date?) {
        let (count, newest): (Int, Record?) = state.withLock { state in
            guard !state.records.isEmpty else { return (0, nil) }
            // Once full, the newest is just before the oldest in the ring.
            let index = (state.oldest + state.records.count - 1) % state.records.count
            return (state.records.count, state.records[index])
        }
        return (count, newest?.entry.time)
    }

    /// How many times the journal was cleared, and the sequence number of its newest entry (0 when empty): what a
    /// reader following the journal (`JournalFeed`) checks before reading a page.
    public var position: (clears: Int, newest: Int) {
        state.withLock { ($0.clears, $0.nextSequence - 1) }
    }

    /// Empties the journal; numbering starts over.
    public func clear() {
        // The old records are swapped out and released after the lock.
        _ = state.withLock { state in
            var old = State()
            old.clears = state.clears + 1
            swap(&old, &state)
            return old
        }
    }
}
