public import Foundation
import MockdPlatform

/// The front door of the core: turns a request into a planned response, as data.
///
/// Thread-safe: scenarios are immutable, cursors and sessions sit behind small locks, so libmicrohttpd's
/// worker threads call `handle(_:)` concurrently. Control API requests (`/__mockd/…`) are answered here too.
public final class MockEngine: Sendable {
    let sessions: SessionRegistry
    let catalog: ScenarioCatalog
    public let options: EngineOptions
    let startedAt = DispatchTime.now().uptimeNanoseconds
    /// Monotonic milliseconds, injectable for tests.
    let clock: @Sendable () -> Double
    /// Loads the startup scenario afresh from disk, for `POST /__mockd/reload` (as SIGHUP does).
    let loader: (@Sendable () throws -> Scenario)?
    /// The use of scenarios replaced by a reload (coverage over the daemon's life; see `CoverageReport`).
    let coverage = CoverageLedger()
    /// Open WebSockets, provided by the server bridge once it runs.
    private let hub = Mutex<(any WebSocketHub)?>(nil)
    /// Carries out pushes (`emit`), provided by the server bridge once it runs.
    let pushHub = Mutex<(any PushHub)?>(nil)

    /// - Parameters:
    ///   - root: Where `configs/` and `mocks/` live, for switching scenarios and runtime stubs' `bodyFile`.
    ///   - loader: Reloads the startup scenario from disk; `nil` disables `POST /__mockd/reload`.
    public init(
        scenario: Scenario,
        root: MockdRoot? = nil,
        options: EngineOptions = EngineOptions(),
        loader: (@Sendable () throws -> Scenario)? = nil,
        clock: @escaping @Sendable () -> Double = MonotonicClock.milliseconds
    ) {
        self.options = options
        self.loader = loader
        self.catalog = ScenarioCatalog(initial: scenario, root: root)
        self.sessions = SessionRegistry(
            scenario: scenario,
            maxSessions: options.maxSessions,
            idleTimeoutMs: options.sessionIdleTimeoutMs,
            journalLimit: options.journalLimit,
            clock: clock,
            onEvicted: options.onSessionEvicted
        )
        self.clock = clock
    }

    /// The default session's scenario.
    public var scenario: Scenario { sessions.defaultSession.scenario }

    /// Replaces the startup scenario (SIGHUP): every session switches to the fresh copy of its scenario, or to
    /// the new startup one when its own no longer loads; sequences start over, runtime stubs and journals
    /// are kept.
    public func reload(_ scenario: Scenario) {
        let replaced = catalog.reload(startup: scenario)
        for session in sessions.all {
            let name = session.scenario.name
            session.reload((try? catalog.scenario(named: name)) ?? scenario)
        }
        // What the replaced copies served stays counted (coverage over the daemon's life).
        coverage.retire(replaced)
    }

    /// Puts the default session's state back to the start: sequences, rate-limit windows, state machines, WebSocket
    /// connection counts.
    public func resetSequences() {
        sessions.defaultSession.change { $0.state = SessionState() }
    }

    /// The default session's response for `request`, without delivery details.
    public func respond(to request: HTTPRequest) -> MockResponse {
        handle(request).plan.response
    }

    /// The default session's plan for `request` (sessions and the control API aside).
    public func plan(_ request: HTTPRequest) -> PlannedResponse {
        RegexBudget.startRequest()
        switch answer(request, in: sessions.defaultSession) {
        case .stub(let stub): return EngineOutcome.Exchange.plan(sending: stub)
        case .planned(let plan, _): return plan
        }
    }

    /// Routes `request` to the control API or to its session, and plans the answer.
    public func handle(_ request: consuming HTTPRequest) -> EngineOutcome {
        // This request's regular expressions share one budget (`BoundedRegex`), whatever the last one spent.
        RegexBudget.startRequest()
        // A large body's canonical forms live while the request is matched, not in its journal entry.
        let canonicalBodies = request.canonicalBodies
        defer { canonicalBodies?.removeAll() }
        let arrival = WallClock.now()
        // Routed in place: the request is not copied on its way to the answer (neither is a routing result holding it).
        switch route(&request) {
        case .control:
            return EngineOutcome(
                plan: PlannedResponse(response: ControlAPI(engine: self).handle(request)),
                request: request,
                session: .none,
                arrival: arrival,
                nearMisses: []
            )
        case .refusedSession(let response):
            return EngineOutcome(
                plan: PlannedResponse(response: response),
                request: request,
                session: .none,
                arrival: arrival,
                nearMisses: []
            )
        case .session(let reference)
        where request.headers.mayContain(anyOf: RequestContentCoding.header)
            && request.headers.contains("content-encoding"):
            // A coded body is matched decoded; one that does not decode is a miss that says so.
            if let refusal = RequestContentCoding.decode(&request) {
                return EngineOutcome(
                    plan: PlannedResponse(response: refusal),
                    request: request,
                    session: reference,
                    arrival: arrival,
                    nearMisses: []
                )
            }
            return outcome(
                deliveredAnswer(request, in: session(of: reference)),
                request: request,
                in: reference,
                arrival: arrival
            )
        case .session(.defaultSession):
            // Borrowed from the registry, which owns it for the engine's life: no reference count changes (see
            // `SessionReference`). The default session never expires, so it needs no clock read.
            let answer = sessions.borrowedDefaultSession._withUnsafeGuaranteedRef {
                self.deliveredAnswer(request, in: $0)
            }
            return outcome(answer, request: request, in: .defaultSession, arrival: arrival)
        case .session(let reference):
            guard case .named(let session) = reference else { preconditionFailure("routing names a session") }
            return outcome(
                deliveredAnswer(request, in: session),
                request: request,
                in: reference,
                arrival: arrival
            )
        }
    }

    /// Where a request goes, decided once for `handle(_:)` and for the bridge's fixed answers (`reject(_:_:)`).
    enum Routing {
        /// `/__mockd` and `/__mockd/…`: the control API; not journaled.
        case control
        /// A session id that is not a valid name (`/__session/ID`, `X-Mockd-Session`, the cookie), or one evicted by
        /// `--max-sessions` (`SessionEviction`): answered with this error, not journaled.
        case refusedSession(MockResponse)
        /// A session's traffic, with its `/__session/ID` and `/__host/NAME` prefixes removed from the request.
        case session(EngineOutcome.SessionReference)
    }

    /// Decides where `request` goes and strips the session and host prefixes in place; a named session is created
    /// (or found) and marked as used.
    @inline(__always)
    func route(_ request: inout HTTPRequest) -> Routing {
        // Asked once: a target without `/__` (most) has no prefix for the routers below to strip.
        let reserved = request.hasReservedPrefix
        if reserved, request.target.hasPrefix(ControlAPI.prefix) || request.target == "/__mockd" {
            return .control
        }
        // `/__host/NAME/__session/ID/…` and `/__session/ID/__host/NAME/…` alike.
        if reserved { HostRouting.strip(&request) }
        switch SessionRouting.route(&request) {
        case .failure(let error):
            return .refusedSession(MockEngine.invalidSession(error.id))
        case .success(let id):
            if reserved, request.routedHost == nil { HostRouting.strip(&request) }
            if reserved, request.hasReservedPrefix, request.target.hasPrefix(HostRouting.pathPrefix) {
                return .refusedSession(
                    .jsonError(
                        status: 400,
                        code: "bad_request",
                        message: "the path names a host twice (/__host/NAME/ once, before or after /__session/ID/)"
                    )
                )
            }
            guard let id, id != SessionRegistry.defaultID else { return .session(.defaultSession) }
            if let eviction = sessions.eviction(of: id) { return .refusedSession(eviction.response) }
            let session = sessions.session(id) { catalog.startup }
            sessions.touch(session)
            return .session(.named(session))
        }
    }

    /// The 400 for a session id that is not a valid name.
    static func invalidSession(_ id: String) -> MockResponse {
        .jsonError(
            status: 400,
            code: "invalid_session",
            message: "session id '\(id)' must be 1–128 letters, digits, '-', '.', '_' or '~'"
        )
    }

    @inline(__always)
    private func outcome(
        _ answer: Answer,
        request: consuming HTTPRequest,
        in reference: EngineOutcome.SessionReference,
        arrival: Date
    ) -> EngineOutcome {
        switch answer {
        case .stub(let stub):
            return EngineOutcome(stub: stub, request: consume request, session: reference, arrival: arrival)
        case .planned(let plan, let misses):
            return EngineOutcome(
                plan: plan,
                request: consume request,
                session: reference,
                arrival: arrival,
                nearMisses: misses
            )
        }
    }

    /// The session a routed request goes to.
    private func session(of reference: EngineOutcome.SessionReference) -> Session {
        switch reference {
        case .none, .defaultSession: return sessions.defaultSession
        case .named(let session): return session
        }
    }

    /// The session `outcome` is journaled in, or `nil` for control requests.
    private func session(of outcome: EngineOutcome) -> Session? {
        switch outcome.session {
        case .none: return nil
        case .defaultSession: return sessions.defaultSession
        case .named(let session): return session
        }
    }

    /// Lets the control API reach open WebSockets (`/__mockd/ws…`).
    public func attach(_ webSockets: any WebSocketHub) {
        hub.withLock { $0 = webSockets }
    }

    var webSocketHub: (any WebSocketHub)? { hub.withLock { $0 } }

    /// Requests held by long-poll stubs, provided by the server bridge.
    private let heldHub = Mutex<(any HeldRequestHub)?>(nil)

    /// Lets the control API release held long-poll requests (`POST /__mockd/release`).
    public func attach(_ held: any HeldRequestHub) {
        heldHub.withLock { $0 = held }
    }

    var heldRequests: (any HeldRequestHub)? { heldHub.withLock { $0 } }

    /// The server's counters, provided by the server bridge.
    private let statusSlot = Mutex<(any ServerStatus)?>(nil)

    /// Lets `GET /__mockd/health` report the server's counters.
    public func attach(_ status: any ServerStatus) {
        statusSlot.withLock { $0 = status }
    }

    var serverStatus: (any ServerStatus)? { statusSlot.withLock { $0 } }

    /// The recording of `mockd record` or `--record-misses`, flushed by `POST /__mockd/record/flush`.
    private let recorderSlot = Mutex<Recorder?>(nil)

    /// Lets the control API show and flush the recording (`/__mockd/record`).
    public func attach(_ recorder: Recorder) {
        recorderSlot.withLock { $0 = recorder }
    }

    var recorder: Recorder? { recorderSlot.withLock { $0 } }

    /// Counts a new WebSocket connection to `path` in the outcome's session.
    /// - Returns: its 1-based number among the session's connections to that path (reset with the session).
    public func openWebSocket(_ outcome: EngineOutcome, path: String) -> Int {
        guard let session = session(of: outcome) else { return 1 }
        return session.core.withLock { $0.state }.webSocketConnections.take(path) + 1
    }

    /// Journals one WebSocket frame of `session`: method `WS-IN` (from the client) or `WS-OUT`, the endpoint
    /// path as target, the payload as body, and `Opcode: text|binary|close` as a header, with
    /// `Connection-Number: N` (the connection's number among the session's connections to `path`) when given.
    /// - Parameters:
    ///   - causedBy: For a pushed frame: the journal entry that caused it (`JournalRecord.causedBy`).
    ///   - note: Said in the entry (`JournalRecord.note`).
    /// - Returns: The entry's sequence number in the session's journal.
    @discardableResult
    public func recordWebSocketFrame(
        session id: String,
        path: String,
        incoming: Bool,
        opcode: String,
        payload: Data,
        stubID: String?,
        connection: Int? = nil,
        causedBy: Int? = nil,
        note: String? = nil
    ) -> Int {
        // WebSocket traffic is session activity; a session reset or expired meanwhile gets a fresh journal.
        let session = sessions.session(id == SessionRegistry.defaultID ? nil : id) { catalog.startup }
        if id != SessionRegistry.defaultID { sessions.touch(session) }
        return session.journal.append(
            time: Date(),
            request: HTTPRequest(
                method: incoming ? "WS-IN" : "WS-OUT",
                target: path,
                headers: HTTPHeaders(
                    [("Opcode", opcode)] + (connection.map { [("Connection-Number", "\($0)")] } ?? [])
                ),
                body: payload
            ),
            stubID: stubID,
            status: nil,
            fault: nil,
            durationMs: 0,
            response: MockResponse(status: 101),
            nearMisses: [],
            causedBy: causedBy,
            note: note
        )
    }

    /// The outcome of a request the server bridge answers without matching it (`FixedAnswer`), journaled in the
    /// request's session like any other (control requests and invalid session ids are not journaled).
    /// - Parameter closing: Close the connection after the answer (`Connection: close`): the bridge answers before
    ///   reading the body, which then cannot be skipped safely.
    public func reject(_ request: consuming HTTPRequest, _ answer: FixedAnswer, closing: Bool = false) -> EngineOutcome
    {
        var response = answer.response
        if closing { response.headers.add(name: "Connection", value: "close") }
        let plan = PlannedResponse(response: response)
        switch route(&request) {
        case .control, .refusedSession:
            return EngineOutcome(plan: plan, request: request, session: .none, arrival: Date(), nearMisses: [])
        case .session(let reference):
            return EngineOutcome(plan: plan, request: request, session: reference, arrival: Date(), nearMisses: [])
        }
    }

    /// Writes the exchange to its session's journal (control requests are not journaled).
    /// - Returns: The entry's sequence number (`nil` for a control request): what the pushes the answer causes link to.
    @discardableResult
    public func journal(_ outcome: EngineOutcome, durationMs: Double) -> Int? {
        // A stub's own body is shared, not copied; a body made for this request (rendered, patched) is kept
        // only up to the journal's body limit (see `RequestJournal.append(_:durationMs:)`).
        switch outcome.session {
        case .none: return nil
        case .defaultSession:
            return sessions.borrowedDefaultSession._withUnsafeGuaranteedRef { session in
                session.borrowedJournal._withUnsafeGuaranteedRef { $0.append(outcome.exchange, durationMs: durationMs) }
            }
        case .named(let session): return session.journal.append(outcome.exchange, durationMs: durationMs)
        }
    }
}
