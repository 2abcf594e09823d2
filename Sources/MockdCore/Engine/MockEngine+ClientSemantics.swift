import MockdControl

/// What every answer gets after planning, whatever planned it: byte ranges of its body for a `Range` request
/// (RFC 9110 §14), and with CORS on (`"cors": true` in a mock set or scenario) the request's origin allowed.
extension MockEngine {
    /// `answer(_:in:)`, then `RangeResponse` for a `GET` with `Range`, then `CORSActualResponse` when the session's
    /// scenario has CORS on.
    ///
    /// The common path (no `Range`, no `Origin`) pays one test of the request headers' names signature. A
    /// planned answer to a request with an `Origin` takes the scenario's lock for its CORS flag (a scenario with
    /// CORS on does not serve stubs as loaded, `Scenario.servesStubsAsLoaded`). A changed response loses its native slot (the shared native response is the
    /// stub's response as loaded).
    @inline(__always)
    func deliveredAnswer(_ request: HTTPRequest, in session: Session) -> Answer {
        // Neither applies without these headers: the answer as planned, through the very call it was before.
        guard request.headers.mayContain(anyOf: MockEngine.rangeOrOrigin) else {
            return answer(request, in: session)
        }
        return MockEngine.adjusted(answer(request, in: session), request, in: session)
    }

    /// `Range` and `Origin`, the headers that make `deliveredAnswer` look at an answer again.
    private static let rangeOrOrigin = HTTPHeaders.NameSignature("range", "origin")

    /// The ranges and CORS steps of `deliveredAnswer`, out of line.
    @inline(never)
    private static func adjusted(_ answer: Answer, _ request: HTTPRequest, in session: Session) -> Answer {
        var answer = answer
        if request.headers.contains("range") { answer = servingRanges(answer, request) }
        guard case .planned(var plan, let misses) = answer, request.headers.contains("origin"), session.scenario.cors
        else { return answer }
        if CORSActualResponse.allowOrigin(of: request, in: &plan.response) { plan.nativeSlot = nil }
        return .planned(plan, nearMisses: misses)
    }

    /// `answer` with its body cut to the request's ranges (206, 416); unchanged when the whole response stands, or
    /// when it is a fault, a WebSocket or an event stream.
    private static func servingRanges(_ answer: Answer, _ request: HTTPRequest) -> Answer {
        guard request.method == "GET" else { return answer }
        var plan: PlannedResponse
        let misses: [NearMiss]
        switch answer {
        case .stub(let stub): (plan, misses) = (EngineOutcome.Exchange.plan(sending: stub), [])
        case .planned(let planned, let nearMisses): (plan, misses) = (planned, nearMisses)
        }
        guard plan.fault == nil, plan.response.webSocket == nil, plan.response.eventStream == nil,
            let partial = RangeResponse.answer(request, plan.response)
        else { return answer }
        plan.response = partial
        plan.nativeSlot = nil
        return .planned(plan, nearMisses: misses)
    }
}
