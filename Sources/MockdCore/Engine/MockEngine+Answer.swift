import Foundation
import MockdControl
import MockdFormat
import MockdPlatform

/// How the engine answers a request in a session: from the thread's cached scenario when a stub answers exactly as
/// loaded (most requests), else by planning an override, a stub's sequence step or the miss.
extension MockEngine {
    /// How `answer(_:in:)` answers: a static stub's first response as loaded, or a plan made for this request.
    /// One word: the plan is boxed (`indirect`), so the common `.stub` answer is not copied through a plan-sized
    /// value on its way out (a memcpy per hop).
    enum Answer {
        case stub(Stub)
        indirect case planned(PlannedResponse, nearMisses: [NearMiss])
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
        let cached = answerFromThreadCache(request, in: session)
        if case .answer(let answer) = cached { return answer }
        // Only what matching needs is taken under the lock, never a copy of the whole core; when stubs are served as
        // loaded, not even the state, whose reference count every worker thread shares.
        let (scenario, taken, runtime) = session.core.withLock { core -> (Scenario, SessionState?, [Override]) in
            core.servesStubsAsLoaded ? (core.scenario, nil, []) : (core.scenario, core.state, core.runtimeOrder)
        }
        let base = MockEngine.baseMatch(request, in: scenario, reusing: cached)
        if let base, taken == nil, let answer = MockEngine.asLoaded(scenario.index.stubs[base.ordinal]) {
            scenario.stubUsage.set(base.ordinal)
            return answer
        }
        // The state of this scenario; if the session switched scenarios meanwhile, the request is answered afresh
        // (a state paired with another scenario's stubs would move the wrong cursors).
        guard let state = taken ?? session.core.withLock({ $0.scenario === scenario ? $0.state : nil }) else {
            return answer(request, in: session)
        }
        let key = base?.key ?? scenario.index.key(for: request)
        let host =
            scenario.overridesNameHosts || runtime.contains(where: { $0.pattern.host != nil })
            ? MockEngine.requestHost(request, key: key, in: scenario.index) : nil
        // An override with a state rule matches only in its required state; `allows` checks it, and runs only for
        // the override that otherwise matches.
        let now = { state.clock.milliseconds(self.clock()) }
        // A HEAD is answered by whatever answers the GET (RFC 9110 §9.3.2), overrides and runtime stubs included.
        let asGet =
            request.method == "HEAD"
            ? HTTPRequest(method: "GET", target: request.target, headers: request.headers, body: request.body) : nil
        // A pattern whose regular expression ran out of its budget (`BoundedRegex`) may or may not match: nothing
        // below it may answer in its place, so the request becomes a miss that says which one.
        var undecided: String?
        func fits(_ override: Override) -> Bool {
            guard undecided == nil else { return false }
            for (candidate, candidateKey) in [(request, key)] + (asGet.map { [($0, key.with(method: "GET"))] } ?? []) {
                switch override.pattern.verdict(candidate, key: candidateKey, host: host) {
                case .matches: return true
                case .differs: continue
                case .undecided(let difference):
                    undecided = difference.undecidedReason(of: override.id)
                    return false
                }
            }
            return false
        }
        // Switches come last: a `chance` rule draws only for a call it would otherwise answer.
        let matchedOverride =
            runtime.first { fits($0) && state.allows($0, nowMs: now) && state.switches.admits($0) }
            ?? scenario.overrides.first { fits($0) && state.allows($0, nowMs: now) && state.switches.admits($0) }
        if matchedOverride == nil, let undecided {
            return unmatched(request, scenario: scenario, runtime: runtime, reason: undecided)
        }
        if let override = matchedOverride {
            // What the override edits when its step only edits: see `editTarget`. Found without changing anything, so
            // an override that edits nothing answers nothing: it must not count against a limit, move a state
            // machine or use up a step either.
            let target = editTarget(
                below: override,
                request,
                scenario: scenario,
                state: state,
                runtime: runtime,
                baseOrdinal: base?.ordinal,
                fits: fits,
                now: now
            )
            if target == nil, let undecided {
                return unmatched(request, scenario: scenario, runtime: runtime, reason: undecided)
            }
            if target == nil, !override.steps.contains(where: { $0.replacesResponse || $0.standsAlone }) {
                return unmatched(
                    request,
                    scenario: scenario,
                    runtime: [],
                    reason:
                        "override '\(override.id)' matches but only edits a stub's response, and no stub matches \(request.method) \(request.target)",
                    overridesToo: false
                )
            }
            // A request refused by a limit never moves the state machine or the sequence.
            if let refusal = refusal(by: override, request, state: state) {
                override.markUsed()
                return refusal
            }
            // Another request moved the machine out of the required state since `allows`: answer afresh.
            guard state.enter(override, nowMs: now) else { return answer(request, in: session) }
            return planOverride(
                override,
                request,
                scenario: scenario,
                state: state,
                runtime: runtime,
                target: target,
                host: host ?? MockEngine.requestHost(request, key: key, in: scenario.index),
                now: now
            )
        }
        if !scenario.resources.isEmpty,
            let response = MockEngine.resourceAnswer(request, scenario: scenario, store: state.resources)
        {
            return .planned(PlannedResponse(response: response), nearMisses: [])
        }
        if let ordinal = base?.ordinal {
            return planStub(ordinal, request, scenario: scenario, state: state, runtime: runtime)
        }
        if scenario.cors, let preflight = CORSPreflight.response(to: request) {
            return .planned(PlannedResponse(response: preflight), nearMisses: [])
        }
        return unmatched(request, scenario: scenario, runtime: runtime, reason: nil, states: state)
    }

    /// The recorded host `request` is for: the one it names (`StubIndex.namedHost(of:)`), else the only host whose
    /// stubs have its key, else `nil`.
    static func requestHost(_ request: HTTPRequest, key: RequestKey, in index: StubIndex) -> String? {
        index.namedHost(of: request) ?? index.soleRecordedHost(of: key)
    }

    /// The scheme `request` reached the daemon with: `X-Forwarded-Proto`, else what the port it names serves.
    func clientScheme(of request: HTTPRequest) -> String {
        if let forwarded = request.headers["x-forwarded-proto"]?.split(separator: ",").first {
            let scheme = String(forwarded).trimming([" ", "\t"]).asciiLowercased
            if scheme == "https" || scheme == "http" { return scheme }
        }
        if options.allHTTPS { return "https" }
        guard let httpsPort = options.httpsPort, let host = request.headers["host"],
            let colon = host.lastIndex(of: ":"), Int(host[host.index(after: colon)...]) == httpsPort
        else { return "http" }
        return "https"
    }

    /// What a thread's cached scenario made of a request (see `answer(_:in:)`).
    enum CachedMatch {
        case answer(Answer)
        /// A stub that needs more than its response as loaded (a sequence), in the scenario with that identity.
        /// Boxed, like `Answer.planned`: the common `.answer(.stub)` stays a word or two.
        indirect case matched(ObjectIdentifier, key: RequestKey, ordinal: Int)
        case unmatched
    }

    /// The common case first, through this thread's copy of the scenario: no lock, no shared reference count. A
    /// match found there that needs more (a sequence) is kept for the general path, under the same scenario.
    /// - Returns: `nil` when the session's scenario does not serve stubs as loaded (overrides, defaults…).
    private func answerFromThreadCache(_ request: HTTPRequest, in session: Session) -> CachedMatch? {
        ScenarioCache.withScenarioServingAsLoaded(of: session) { scenario, answers -> CachedMatch in
            // A repeat of a request a stub answered as loaded: that stub again, without routing (`AnswerCache`).
            if let ordinal = answers.ordinal(for: request) {
                let stub = scenario.index.stubs[ordinal]
                stub.prefetchNativeResponse()
                scenario.stubUsage.set(ordinal)
                return .answer(.stub(stub))
            }
            guard let base = MockEngine.baseMatch(request, in: scenario) else { return .unmatched }
            let stub = scenario.index.stubs[base.ordinal]
            stub.prefetchNativeResponse()
            if let answer = MockEngine.asLoaded(stub) {
                if case .stub = answer, stub.answersAsLoadedForGood { answers.remember(base.ordinal, for: request) }
                scenario.stubUsage.set(base.ordinal)
                return .answer(answer)
            }
            return .matched(ObjectIdentifier(scenario), key: base.key, ordinal: base.ordinal)
        }
    }

    /// The stub of the scenario's mock sets that matches `request` (a `HEAD` without a stub of its own: the `GET`
    /// one, RFC 9110 §9.3.2), with the request's key; `nil` when none does.
    private static func baseMatch(_ request: HTTPRequest, in scenario: Scenario) -> (key: RequestKey, ordinal: Int)? {
        let key = scenario.index.key(for: request)
        if let ordinal = scenario.index.match(request, key: key) { return (key, ordinal) }
        if request.method == "HEAD", let ordinal = scenario.index.match(request, key: key.with(method: "GET")) {
            return (key, ordinal)
        }
        return nil
    }

    /// `baseMatch`, or the match the thread's cache found when it matched against this very scenario (the cache
    /// still holds it, so an equal identity is that scenario).
    private static func baseMatch(
        _ request: HTTPRequest,
        in scenario: Scenario,
        reusing cached: CachedMatch?
    ) -> (key: RequestKey, ordinal: Int)? {
        if case .matched(let matched, let key, let ordinal) = cached, matched == ObjectIdentifier(scenario) {
            return (key, ordinal)
        }
        return baseMatch(request, in: scenario)
    }

    /// The answer of a static stub (one response, no sequence) where nothing else applies (no override, runtime
    /// stub, scenario defaults or conditional requests): the general path of `answer(_:in:)` with every step a
    /// no-op, taken directly. A plain response is the stub itself (see `EngineOutcome.StubExchange`).
    /// - Returns: `nil` for a stub with a sequence.
    private static func asLoaded(_ stub: Stub) -> Answer? {
        if stub.answersAsLoadedForGood { return .stub(stub) }
        guard let first = stub.staticFirstResponse else { return nil }
        if first.isPlain { return .stub(stub) }
        var plan = PlannedResponse(response: first, fault: first.fault)
        plan.nativeSlot = plan.response.eventStream == nil && plan.fault == nil ? stub.nativeSlot(0) : nil
        plan.host = stub.host.isEmpty ? nil : stub.host
        return .planned(plan, nearMisses: [])
    }

    /// What an override edits when its step only edits (a pass-through `{}`, a `bodyPatch`, headers, a status, a
    /// latency): for a runtime stub, the next runtime stub below it that gives a whole response, else the scenario
    /// override that would answer without runtime stubs (so a test's patch goes on top of the scenario's); then the
    /// stateful resource that answers the path; then the mock set's stub. `nil` when there is nothing to edit.
    ///
    /// Found without changing anything: no cursor moves and no `chance` rule draws (`EditTarget.take` does that once
    /// the override answers).
    private func editTarget(
        below override: Override,
        _ request: HTTPRequest,
        scenario: Scenario,
        state: SessionState,
        runtime: [Override],
        baseOrdinal: Int?,
        fits: (Override) -> Bool,
        now: () -> Double
    ) -> EditTarget? {
        if let position = runtime.firstIndex(where: { $0 === override }) {
            if let below = runtime[(position + 1)...].first(where: {
                $0.steps.contains(where: \.replacesResponse) && fits($0) && state.allows($0, nowMs: now)
                    && state.switches.isOn($0)
            }) {
                return .runtimeStub(below)
            }
            if let inner = scenario.overrides.first(where: {
                fits($0) && state.allows($0, nowMs: now) && state.switches.isOn($0)
            }) {
                return .scenarioOverride(inner)
            }
        }
        if MockEngine.addressesResource(request, in: scenario) { return .resource }
        return baseOrdinal.map(EditTarget.stub)
    }

    /// An override's answer (once `refusal(by:_:state:)` let it through): its sequence step (with the scenario
    /// defaults), applied to what it edits (`editTarget`) unless the step is a whole response of its own.
    private func planOverride(
        _ override: Override,
        _ request: HTTPRequest,
        scenario: Scenario,
        state: SessionState,
        runtime: [Override],
        target: EditTarget?,
        host: String?,
        now: () -> Double
    ) -> Answer {
        let call = state.overrideCursors.take(override.serial)
        guard let step = override.afterLast.step(forCall: call, count: override.steps.count) else {
            return unmatched(
                request,
                scenario: scenario,
                runtime: runtime,
                reason:
                    "override '\(override.id)' answered all \(override.steps.count) responses of its sequence (afterLast: notFound)"
            )
        }
        override.markUsed()
        var recipe = override.steps[step].withDefaults(scenario.defaults)
        // A step with its own body is a whole response: what is below does not answer (a stub's sequence does not
        // advance, a resource does not change). A step that refuses (an error status, a fault) never reaches a
        // resource, whose answer would change the session's items.
        var edited: Edited?
        if !recipe.replacesResponse, let target,
            !(target.isResource && (recipe.fault != nil || (recipe.status ?? 0) >= 400))
        {
            switch take(target, request, scenario: scenario, state: state, now: now) {
            case .refused(let refusal): return refusal
            case .edited(let below): edited = below
            case .nothing: break
            }
        }
        if edited == nil && !recipe.standsAlone {
            return unmatched(
                request,
                scenario: scenario,
                runtime: [],
                reason:
                    "override '\(override.id)' matches but only edits a stub's response, and no stub matches \(request.method) \(request.target)",
                overridesToo: false
            )
        }
        if let behaviour = edited?.recipe { recipe = recipe.behaving(like: behaviour) }
        var response: MockResponse
        do {
            response = try recipe.apply(to: edited?.response)
        } catch {
            response = .jsonError(
                status: 500,
                code: "override_failed",
                message: "override '\(override.id)': \(error.message)"
            )
        }
        response.stubID = override.id
        return finishPlan(
            response,
            request,
            scenario: scenario,
            recipe: recipe,
            call: call,
            slot: nil,
            host: host,
            state: state,
            edited: edited?.ids ?? []
        )
    }

    /// What an editing override works on (`editTarget`).
    enum EditTarget {
        /// A runtime stub below it that gives a whole response.
        case runtimeStub(Override)
        /// The scenario override that answers when no runtime stub does.
        case scenarioOverride(Override)
        /// The stateful resource that answers the path.
        case resource
        /// The mock set's stub (its ordinal in the scenario's index).
        case stub(Int)

        var isResource: Bool {
            if case .resource = self { return true }
            return false
        }
    }

    /// The response an editing override starts from, unrendered, with the ids of the answers it came through
    /// (nearest first) and, for an override below, its recipe (whose latency, throttle, fault and hold apply unless
    /// the editing step sets its own).
    struct Edited {
        var response: MockResponse
        var ids: [String]
        var recipe: ResponseRecipe?
    }

    enum Taken {
        case edited(Edited)
        /// The override below refused the request (a rate limit): that refusal is the answer.
        case refused(Answer)
        /// Nothing below answers after all (an exhausted sequence).
        case nothing
    }

    /// Takes `target`'s answer for this call: its cursor moves, a scenario override's limit and state machine count
    /// it, a resource changes, and each is marked used (coverage).
    private func take(
        _ target: EditTarget,
        _ request: HTTPRequest,
        scenario: Scenario,
        state: SessionState,
        now: () -> Double
    ) -> Taken {
        switch target {
        case .runtimeStub(let below):
            guard let response = MockEngine.step(of: below, state: state, defaults: scenario.defaults) else {
                return .nothing
            }
            below.markUsed()
            return .edited(Edited(response: response, ids: [below.id], recipe: nil))
        case .scenarioOverride(let inner):
            guard state.switches.admits(inner) else {
                // Its `chance` draw says no: what answers without it.
                guard let below = MockEngine.belowOverrides(request, in: scenario) else { return .nothing }
                return take(below, request, scenario: scenario, state: state, now: now)
            }
            if let refusal = refusal(by: inner, request, state: state) {
                inner.markUsed()
                return .refused(refusal)
            }
            _ = state.enter(inner, nowMs: now)
            let call = state.overrideCursors.take(inner.serial)
            guard let step = inner.afterLast.step(forCall: call, count: inner.steps.count) else { return .nothing }
            inner.markUsed()
            let recipe = inner.steps[step].withDefaults(scenario.defaults)
            var below: Edited?
            if !recipe.replacesResponse, let target = MockEngine.belowOverrides(request, in: scenario),
                !(target.isResource && (recipe.fault != nil || (recipe.status ?? 0) >= 400)),
                case .edited(let taken) = take(target, request, scenario: scenario, state: state, now: now)
            {
                below = taken
            }
            guard below != nil || recipe.standsAlone, let response = try? recipe.apply(to: below?.response) else {
                return .nothing
            }
            return .edited(Edited(response: response, ids: [inner.id] + (below?.ids ?? []), recipe: recipe))
        case .resource:
            guard let response = MockEngine.resourceAnswer(request, scenario: scenario, store: state.resources) else {
                return .nothing
            }
            return .edited(Edited(response: response, ids: [response.stubID ?? "resource"], recipe: nil))
        case .stub(let ordinal):
            let stub = scenario.index.stubs[ordinal]
            guard let response = stubStep(stub, ordinal: ordinal, state: state).response else { return .nothing }
            scenario.stubUsage.set(ordinal)
            return .edited(Edited(response: response, ids: [stub.id], recipe: nil))
        }
    }

    /// What answers `request` below the overrides: the stateful resource of its path, else the mock set's stub.
    private static func belowOverrides(_ request: HTTPRequest, in scenario: Scenario) -> EditTarget? {
        if addressesResource(request, in: scenario) { return .resource }
        return baseMatch(request, in: scenario).map { EditTarget.stub($0.ordinal) }
    }

    /// The response `override` gives at its next step (its cursor moves: it answered this call too), when that
    /// step is a whole response.
    static func step(of override: Override, state: SessionState, defaults: ResponseRecipe?) -> MockResponse? {
        let call = state.overrideCursors.take(override.serial)
        guard let index = override.afterLast.step(forCall: call, count: override.steps.count),
            override.steps[index].replacesResponse
        else { return nil }
        return try? override.steps[index].withDefaults(defaults).apply(to: nil)
    }

    /// A stub's answer: its next sequence step, with the scenario defaults' header and status edits.
    private func planStub(
        _ ordinal: Int,
        _ request: HTTPRequest,
        scenario: Scenario,
        state: SessionState,
        runtime: [Override]
    ) -> Answer {
        let stub = scenario.index.stubs[ordinal]
        // A HEAD answered by the GET stub (RFC 9110 §9.3.2) gets the GET's next step without using it up.
        let taken = stubStep(
            stub,
            ordinal: ordinal,
            state: state,
            advancing: !(request.method == "HEAD" && stub.hasMethod("GET"))
        )
        guard var response = taken.response else {
            return unmatched(
                request,
                scenario: scenario,
                runtime: runtime,
                reason:
                    "stub '\(stub.id)' answered all \(stub.responseCount) responses of its sequence (afterLast: notFound)"
            )
        }
        var takenSlot = taken.slot
        if let unjustified = response.unjustified {
            switch MockEngine.gatedStep(unjustified, response, request, stub: stub) {
            case .asRecorded:
                break
            case .representation(let step):
                response = stub.response(step)
                takenSlot = stub.nativeSlot(step)
            case .cachedCopy(let mediaType):
                response = MockEngine.cachedCopy(response, mediaType: mediaType)
                takenSlot = nil
            case .miss(let why):
                return unmatched(
                    request,
                    scenario: scenario,
                    runtime: runtime,
                    reason: "stub '\(stub.id)' has no answer the recording can justify: \(why)"
                )
            }
        }
        scenario.stubUsage.set(ordinal)
        // Stays set only while the response is the stub's step exactly as loaded.
        var slot = response.template == nil && response.dateShift == nil ? takenSlot : nil
        let defaults = scenario.defaults
        if let defaults {
            if defaults.literal { response.disableTemplate() }
            if !defaults.headerEdits.isEmpty || !defaults.addHeaders.isEmpty || defaults.status != nil {
                response = (try? defaults.apply(to: response)) ?? response
                response.stubID = stub.id
                slot = nil
            }
        }
        let host = scenario.index.routeKey(ordinal).host
        return finishPlan(
            response,
            request,
            scenario: scenario,
            recipe: defaults,
            call: taken.call,
            slot: slot,
            host: host.isEmpty ? scenario.index.namedHost(of: request) : host,
            state: state
        )
    }

    /// The plan for a response: a 304 for a matching conditional request, placeholders rendered (`{{now}}`: the
    /// session's clock; `{{resources…}}`: its resources), the recipe's
    /// delay, throttle, fault and hold, and the native slot while the response is a stub's step as loaded.
    private func finishPlan(
        _ response: MockResponse,
        _ request: HTTPRequest,
        scenario: Scenario,
        recipe: ResponseRecipe?,
        call: Int,
        slot: (any NativeResponseSlot)?,
        host: String?,
        state: SessionState,
        edited: [String] = []
    ) -> Answer {
        var response = response
        var slot = slot
        if scenario.conditionalRequests, ConditionalRequest.isNotModified(request, response) {
            response = ConditionalRequest.notModified(response)
            slot = nil
        }
        if response.template != nil, let failure = response.templateFailure {
            // Refused at load; a body read on first use, or made by a patch, is checked here: never sent as written.
            return .planned(PlannedResponse(response: failure), nearMisses: [])
        }
        let context = TemplateContext(request: request, call: call + 1, now: state.clock.date())
        context.stubID = response.stubID ?? ""
        context.seed = { state.switches.seed.seed }
        if !scenario.resources.isEmpty {
            context.resourceValue = { MockEngine.resourcePlaceholder($0, scenario: scenario, store: state.resources) }
        }
        context.scheme = clientScheme(of: request)
        var rendered = response.rendered(context)
        // A session whose clock was moved answers with its own `Date` (RFC 9110 §6.6.1) rather than the host's, so an
        // app that reads `Date` against the body's (rebased or `{{now}}`) dates sees one clock.
        if state.clock.offsetMs != 0, !rendered.headers.contains(name: "date") {
            let now = Int64((state.clock.date().timeIntervalSince1970 * 1000).rounded(.down))
            rendered.headers.add(name: "Date", value: DateText(milliseconds: now, layout: .http(zone: "GMT")).text)
            slot = nil
        }
        var plan = PlannedResponse(
            response: rendered,
            delayMs: min(
                TimeLimits.maxDelayMs,
                (recipe?.latency?.delay(call: call, recordedTimeMs: response.recordedTimeMs) ?? 0)
                    * state.switches.latencyScale
            ),
            throttleBytesPerSecond: recipe?.throttle,
            fault: recipe?.fault ?? response.fault
        )
        plan.nativeSlot = response.eventStream == nil && plan.fault == nil ? slot : nil
        plan.holdMs = recipe?.holdMs
        plan.host = host
        plan.edited = edited
        // Pushes follow an answer that was sent: none after a fault (the app got no answer), and none for a HEAD, which
        // is the GET without its body and has no effects of its own (RFC 9110 §9.3.2).
        if let emissions = response.emissions, plan.fault == nil, request.method != "HEAD" {
            let scheme = context.scheme
            let resources = context.resourceValue
            plan.pushes = PushBatch(
                emissions.render(request: request, call: call + 1, now: context.now) {
                    $0.scheme = scheme
                    $0.resourceValue = resources
                },
                emittedBy: response.stubID
            )
        }
        return .planned(plan, nearMisses: [])
    }

    /// The stub's next sequence step (nil when exhausted with `notFound`), the 0-based call number, and the
    /// step's native-response slot.
    private func stubStep(
        _ stub: Stub,
        ordinal: Int,
        state: SessionState,
        advancing: Bool = true
    ) -> (response: MockResponse?, call: Int, slot: (any NativeResponseSlot)?) {
        if let first = stub.staticFirstResponse { return (first, 0, stub) }
        let call = advancing ? state.stubCursors.take(ordinal) : state.stubCursors.peek(ordinal)
        guard let step = stub.afterLast.step(forCall: call, count: stub.responseCount) else { return (nil, call, nil) }
        return (stub.response(step), call, stub.nativeSlot(step))
    }

    /// The 404 of a request nothing answers. Without a `reason`, it names the nearest stubs and overrides. With one
    /// (an exhausted sequence), it gives the reason and names nothing, unless `overridesToo` is false (an override
    /// that only edits a stub matched, and no stub did): then it names the nearest stubs.
    private func unmatched(
        _ request: HTTPRequest,
        scenario: Scenario,
        runtime: [Override],
        reason: String?,
        overridesToo: Bool = true,
        states: SessionState? = nil
    ) -> Answer {
        if options.missesGoUpstream {
            return .planned(PlannedResponse(response: MockResponse(status: 404)), nearMisses: [])
        }
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
}
