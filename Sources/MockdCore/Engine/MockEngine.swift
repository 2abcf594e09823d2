public import Foundation
import Synchronization

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
    private let clock: @Sendable () -> Double
    /// Loads the startup scenario afresh from disk, for `POST /__mockd/reload` (as SIGHUP does).
    let loader: (@Sendable () throws -> Scenario)?
    /// Open WebSockets, provided by the server bridge once it runs.
    private let hub = Mutex<(any WebSocketHub)?>(nil)

    /// - Parameters:
    ///   - root: Where `configs/` and `mocks/` live, for switching scenarios and runtime stubs' `bodyFile`.
    ///   - loader: Reloads the startup scenario from disk; `nil` disables `POST /__mockd/reload`.
    public init(
        scenario: Scenario, root: MockdRoot? = nil, options: EngineOptions = EngineOptions(),
        loader: (@Sendable () throws -> Scenario)? = nil,
        clock: @escaping @Sendable () -> Double = MockEngine.monotonicMilliseconds
    ) {
        self.options = options
        self.loader = loader
        self.catalog = ScenarioCatalog(initial: scenario, root: root)
        self.sessions = SessionRegistry(
            scenario: scenario, maxSessions: options.maxSessions, idleTimeoutMs: options.sessionIdleTimeoutMs,
            journalLimit: options.journalLimit
        )
        self.clock = clock
    }

    /// The default session's scenario.
    public var scenario: Scenario { sessions.defaultSession.scenario }

    /// Replaces the startup scenario (SIGHUP): every session switches to the fresh copy of its scenario, or to
    /// the new startup one when its own no longer loads; sequences start over, runtime stubs and journals
    /// are kept.
    public func reload(_ scenario: Scenario) {
        catalog.reload(startup: scenario)
        for session in sessions.all {
            let name = session.scenario.name
            session.reload((try? catalog.scenario(named: name)) ?? scenario)
        }
    }

    /// Sets every sequence and rate-limit window of the default session back to the start.
    public func resetSequences() {
        sessions.defaultSession.core.withLock { $0.state = SessionState() }
    }

    /// The default session's response for `request`, without delivery details.
    public func respond(to request: HTTPRequest) -> MockResponse {
        handle(request).plan.response
    }

    /// The default session's plan for `request` (sessions and the control API aside).
    public func plan(_ request: HTTPRequest) -> PlannedResponse {
        switch answer(request, in: sessions.defaultSession) {
        case .stub(let stub): return EngineOutcome.Exchange.plan(sending: stub)
        case .planned(let plan, _): return plan
        }
    }

    /// Routes `request` to the control API or to its session, and plans the answer.
    public func handle(_ request: consuming HTTPRequest) -> EngineOutcome {
        let arrival = Date()
        if request.hasReservedPrefix, request.target.hasPrefix(ControlAPI.prefix) || request.target == "/__mockd" {
            return EngineOutcome(plan: PlannedResponse(response: ControlAPI(engine: self).handle(request)), request: request, session: .none, arrival: arrival, nearMisses: [])
        }
        // Routed in place: copies of the request (and of a routing result holding one) showed in the profile.
        switch SessionRouting.route(&request) {
        case .failure(let error):
            let response = ControlAPI.error(400, "invalid_session", "session id '\(error.id)' must be 1–128 letters, digits, '-', '.', '_' or '~'")
            return EngineOutcome(plan: PlannedResponse(response: response), request: request, session: .none, arrival: arrival, nearMisses: [])
        case .success(let id):
            HostRouting.strip(&request)
            guard let id, id != SessionRegistry.defaultID else {
                // Borrowed from the registry, which owns it for the engine's life: no reference count changes (see
                // `SessionReference`). The default session never expires, so it needs no clock read.
                let answer = sessions.borrowedDefaultSession._withUnsafeGuaranteedRef { self.answer(request, in: $0) }
                return outcome(answer, request: request, in: .defaultSession, arrival: arrival)
            }
            let session = sessions.session(id) { catalog.startup }
            session.touch()
            return outcome(answer(request, in: session), request: request, in: .named(session), arrival: arrival)
        }
    }

    @inline(__always)
    private func outcome(_ answer: Answer, request: consuming HTTPRequest, in reference: EngineOutcome.SessionReference, arrival: Date) -> EngineOutcome {
        switch answer {
        case .stub(let stub):
            return EngineOutcome(stub: stub, request: consume request, session: reference, arrival: arrival)
        case .planned(let plan, let misses):
            return EngineOutcome(plan: plan, request: consume request, session: reference, arrival: arrival, nearMisses: misses)
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
    /// path as target, the payload as body, and `Opcode: text|binary|close` as a header.
    public func recordWebSocketFrame(session id: String, path: String, incoming: Bool, opcode: String, payload: Data, stubID: String?) {
        // WebSocket traffic is session activity; a session reset or expired meanwhile gets a fresh journal.
        let session = sessions.session(id == SessionRegistry.defaultID ? nil : id) { catalog.startup }
        if id != SessionRegistry.defaultID { session.touch() }
        session.journal.append(
            time: Date(), request: HTTPRequest(method: incoming ? "WS-IN" : "WS-OUT", target: path, headers: HTTPHeaders([("Opcode", opcode)]), body: payload),
            stubID: stubID, status: nil, fault: nil, durationMs: 0, response: MockResponse(status: 101), nearMisses: []
        )
    }

    /// An outcome with a fixed answer (e.g. 413 from the bridge), journaled in the request's session.
    public func outcome(_ request: HTTPRequest, answer: MockResponse) -> EngineOutcome {
        if request.target.hasPrefix(ControlAPI.prefix) {
            return EngineOutcome(plan: PlannedResponse(response: answer), request: request, session: .none, arrival: Date(), nearMisses: [])
        }
        var routed = request
        let id: String?
        switch SessionRouting.route(&routed) {
        case .success(let routedID): id = routedID
        case .failure:
            id = nil
            routed = request
        }
        let reference: EngineOutcome.SessionReference
        if let id, id != SessionRegistry.defaultID {
            let session = sessions.session(id) { catalog.startup }
            session.touch()
            reference = .named(session)
        } else {
            reference = .defaultSession
        }
        return EngineOutcome(plan: PlannedResponse(response: answer), request: routed, session: reference, arrival: Date(), nearMisses: [])
    }

    /// Writes the exchange to its session's journal (control requests are not journaled).
    public func record(_ outcome: EngineOutcome, durationMs: Double) {
        // A stub's own body is shared, not copied; a body made for this request (rendered, patched) is kept
        // only up to the journal's body limit (see `RequestJournal.append(_:durationMs:)`).
        switch outcome.session {
        case .none: return
        case .defaultSession:
            sessions.borrowedDefaultSession._withUnsafeGuaranteedRef { session in
                session.borrowedJournal._withUnsafeGuaranteedRef { $0.append(outcome.exchange, durationMs: durationMs) }
            }
        case .named(let session): session.journal.append(outcome.exchange, durationMs: durationMs)
        }
    }

    /// The stub of the scenario's mock sets that matches `request` (a `HEAD` without a stub of its own: the `GET`
    /// one, RFC 9110 §9.3.2), with the request's key; `nil` when none does.
    private static func baseMatch(_ request: HTTPRequest, in scenario: Scenario) -> (key: RequestKey, ordinal: Int)? {
        let key = scenario.index.key(for: request)
        if let ordinal = scenario.index.match(request, key: key) { return (key, ordinal) }
        if request.method == "HEAD", let ordinal = scenario.index.match(request, key: key.with(method: "GET")) { return (key, ordinal) }
        return nil
    }

    /// The answer of a static stub (one response, no sequence) where nothing else applies (no override, runtime
    /// stub, scenario defaults or conditional requests): the general path of `answer(_:in:)` with every step a
    /// no-op, taken directly. A plain response is the stub itself (see `EngineOutcome.StubExchange`).
    /// - Returns: `nil` for a stub with a sequence.
    private static func asLoaded(_ stub: Stub) -> Answer? {
        guard stub.isStatic else { return nil }
        if stub.firstResponse.isPlain { return .stub(stub) }
        var plan = PlannedResponse(response: stub.firstResponse, fault: stub.firstResponse.fault)
        plan.nativeSlot = plan.response.eventStream == nil && plan.fault == nil ? stub.nativeSlot(0) : nil
        return .planned(plan, nearMisses: [])
    }

    /// What a thread's cached scenario made of a request (see `answer(_:in:)`).
    private enum CachedMatch {
        case answer(Answer)
        /// A stub that needs more than its response as loaded (a sequence), in the scenario with that identity.
        case matched(ObjectIdentifier, key: RequestKey, ordinal: Int)
        case unmatched
    }

    /// How `answer(_:in:)` answers: a static stub's first response as loaded, or a plan made for this request.
    enum Answer {
        case stub(Stub)
        case planned(PlannedResponse, nearMisses: [NearMiss])
    }

    /// What to answer `request` with in `session`, and how to deliver it.
    ///
    /// Order: the session's runtime stubs (latest first), the scenario's overrides (highest priority first,
    /// ties to the later one), then the mock sets' stubs. A `HEAD` request without its own stub is answered by
    /// the `GET` stub (RFC 9110 §9.3.2). An override without its own body edits the response the stub would
    /// give. With `conditionalRequests`, a response with an `ETag` answers a matching `If-None-Match` with 304.
    /// Placeholders are rendered last.
    /// The common case — a static, plain stub, no override, no scenario defaults or conditional requests — is
    /// answered by the stub itself (see `EngineOutcome.StubExchange`).
    /// - Complexity: O(overrides) + one hash lookup for a match; O(stubs) for a miss (near-miss search).
    func answer(_ request: HTTPRequest, in session: Session) -> Answer {
        // The common case first, through this thread's copy of the scenario: no lock, no shared reference count.
        // A match found there that needs more (a sequence) is kept for the path below, under the same scenario.
        let cached = ScenarioCache.withScenarioServingAsLoaded(of: session) { scenario -> CachedMatch in
            guard let base = MockEngine.baseMatch(request, in: scenario) else { return .unmatched }
            if let answer = MockEngine.asLoaded(scenario.index.stubs[base.ordinal]) { return .answer(answer) }
            return .matched(ObjectIdentifier(scenario), key: base.key, ordinal: base.ordinal)
        }
        if case .answer(let answer) = cached { return answer }
        // Only what matching needs is taken under the lock (a copy of the whole core showed in the profile); when
        // stubs are served as loaded, not even the state, whose reference count every worker thread shares.
        let (scenario, taken, runtime) = session.core.withLock { core -> (Scenario, SessionState?, [Override]) in
            core.runtime.isEmpty && core.scenario.servesStubsAsLoaded ? (core.scenario, nil, []) : (core.scenario, core.state, core.runtimeOrder)
        }
        // The thread's cache still holds the scenario it matched against, so an equal identity is that scenario.
        let base: (key: RequestKey, ordinal: Int)?
        if case .matched(let matched, let key, let ordinal) = cached, matched == ObjectIdentifier(scenario) {
            base = (key, ordinal)
        } else {
            base = MockEngine.baseMatch(request, in: scenario)
        }
        let key = base?.key ?? scenario.index.key(for: request)
        let baseOrdinal = base?.ordinal
        if let baseOrdinal, taken == nil, let answer = MockEngine.asLoaded(scenario.index.stubs[baseOrdinal]) {
            return answer
        }
        // The state of this scenario; if the session switched scenarios meanwhile, the request is answered afresh
        // (a state paired with another scenario's stubs would move the wrong cursors).
        guard let state = taken ?? session.core.withLock({ $0.scenario === scenario ? $0.state : nil }) else {
            return answer(request, in: session)
        }
        // An override with a state rule matches only in its required state; `admits` checks and moves the
        // state machine atomically, and runs only for the override that otherwise matches.
        let matchedOverride =
            runtime.first { $0.pattern.matches(request, key: key) && state.admits($0) }
            ?? scenario.overrides.first { $0.pattern.matches(request, key: key) && state.admits($0) }

        var call = 0
        var response: MockResponse
        var recipe: ResponseRecipe?
        // Stays set only while the response is a stub's step exactly as loaded.
        var slot: (any NativeResponseSlot)?
        if let override = matchedOverride {
            if let rule = override.rateLimit, let retryAfter = state.rateLimited(override.serial, rule: rule, nowMs: clock()) {
                return .planned(PlannedResponse(response: rateLimitResponse(override, retryAfter: rule.retryAfter ?? retryAfter)), nearMisses: [])
            }
            call = state.overrideCursors.take(override.serial)
            guard let step = override.afterLast.step(forCall: call, count: override.steps.count) else {
                return unmatched(
                    request, scenario: scenario, runtime: runtime,
                    reason: "override '\(override.id)' answered all \(override.steps.count) responses of its sequence (afterLast: notFound)"
                )
            }
            recipe = override.steps[step].withDefaults(scenario.defaults)
            // A step with its own body is a whole response: the stub's sequence does not advance under it.
            let base =
                recipe!.replacesResponse
                ? nil : baseOrdinal.flatMap { stubResponse(scenario.index.stubs[$0], ordinal: $0, state: state).response }
            if base == nil && !recipe!.standsAlone {
                return unmatched(
                    request, scenario: scenario, runtime: [],
                    reason: "override '\(override.id)' matches but only edits a stub's response, and no stub matches \(request.method) \(request.target)",
                    overridesToo: false
                )
            }
            do {
                response = try recipe!.apply(to: base)
            } catch {
                response = ControlAPI.error(500, "override_failed", "override '\(override.id)': \(error.message)")
            }
            response.stubID = override.id
        } else if let baseOrdinal {
            let stub = scenario.index.stubs[baseOrdinal]
            let taken = stubResponse(stub, ordinal: baseOrdinal, state: state)
            guard let stubResponse = taken.response else {
                return unmatched(
                    request, scenario: scenario, runtime: runtime,
                    reason: "stub '\(stub.id)' answered all \(stub.responseCount) responses of its sequence (afterLast: notFound)"
                )
            }
            call = taken.call
            response = stubResponse
            slot = response.template == nil ? taken.slot : nil
            if let defaults = scenario.defaults {
                recipe = defaults
                if defaults.literal { response.disableTemplate() }
                if !defaults.headerEdits.isEmpty || !defaults.addHeaders.isEmpty || defaults.status != nil {
                    response = (try? defaults.apply(to: response)) ?? response
                    response.stubID = stub.id
                    slot = nil
                }
            }
        } else if scenario.cors, let preflight = CORSPreflight.response(to: request) {
            return .planned(PlannedResponse(response: preflight), nearMisses: [])
        } else {
            return unmatched(request, scenario: scenario, runtime: runtime, reason: nil, states: state)
        }

        if scenario.conditionalRequests, ConditionalRequest.isNotModified(request, response) {
            response = ConditionalRequest.notModified(response)
            slot = nil
        }
        let context = TemplateContext(request: request, call: call + 1)
        var plan = PlannedResponse(
            response: response.rendered(context),
            delayMs: recipe?.latency?.delay(call: call, recordedTimeMs: response.recordedTimeMs) ?? 0,
            throttleBytesPerSecond: recipe?.throttle,
            fault: recipe?.fault ?? response.fault
        )
        plan.nativeSlot = response.eventStream == nil && plan.fault == nil ? slot : nil
        plan.holdMs = recipe?.holdMs
        return .planned(plan, nearMisses: [])
    }

    /// The stub's next sequence step (nil when exhausted with `notFound`), the 0-based call number, and the
    /// step's native-response slot.
    private func stubResponse(_ stub: Stub, ordinal: Int, state: SessionState)
        -> (response: MockResponse?, call: Int, slot: (any NativeResponseSlot)?)
    {
        if stub.isStatic { return (stub.firstResponse, 0, stub) }
        let call = state.stubCursors.take(ordinal)
        guard let step = stub.afterLast.step(forCall: call, count: stub.responseCount) else { return (nil, call, nil) }
        return (stub.response(step), call, stub.nativeSlot(step))
    }

    private func rateLimitResponse(_ override: Override, retryAfter: Int) -> MockResponse {
        MockResponse(
            status: 429,
            headers: HTTPHeaders([("Content-Type", "application/json; charset=utf-8"), ("Retry-After", String(retryAfter))]),
            body: Data(#"{"error":"rate_limited","message":"Too many requests; retry after \#(retryAfter) s."}"#.utf8),
            stubID: override.id
        )
    }

    /// A 404 naming the nearest stubs (and overrides, unless `overridesToo` is false).
    private func unmatched(
        _ request: HTTPRequest, scenario: Scenario, runtime: [Override], reason: String?, overridesToo: Bool = true, states: SessionState? = nil
    ) -> Answer {
        if options.missesGoUpstream { return .planned(PlannedResponse(response: MockResponse(status: 404)), nearMisses: []) }
        let misses =
            reason == nil || !overridesToo
            ? (overridesToo
                ? NearMissCalculator.nearest(to: request, in: scenario, runtime: runtime, states: states)
                : NearMissCalculator.nearest(to: request, in: scenario.index))
            : []
        let body = UnmatchedReport(request: request, reason: reason, nearMisses: misses).jsonData()
        let response = MockResponse(
            status: 404,
            headers: HTTPHeaders([("Content-Type", "application/json; charset=utf-8")]),
            body: body,
            stubID: nil
        )
        return .planned(PlannedResponse(response: response), nearMisses: misses)
    }

    public static let monotonicMilliseconds: @Sendable () -> Double = {
        Double(DispatchTime.now().uptimeNanoseconds) / 1_000_000
    }
}
