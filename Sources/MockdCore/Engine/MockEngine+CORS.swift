/// With CORS on (`"cors": true` in a mock set or scenario), every answer of the session allows the request's origin.
extension MockEngine {
    /// `answer(_:in:)`, with the answer's CORS headers rewritten for the request's `Origin` when the session's
    /// scenario has CORS on (see `CORSActualResponse`).
    ///
    /// A stub served as loaded (`.stub`) never needs it: a scenario with CORS on does not serve stubs as loaded
    /// (`Scenario.servesStubsAsLoaded`), so the common path pays one enum check and nothing else; a planned answer
    /// pays a header lookup, and the scenario's lock only when the request has an `Origin`.
    @inline(__always)
    func answerAllowingOrigin(_ request: HTTPRequest, in session: Session) -> Answer {
        let answer = answer(request, in: session)
        guard case .planned(var plan, let misses) = answer, request.headers.contains(name: "origin"),
            session.scenario.cors
        else { return answer }
        if CORSActualResponse.allowOrigin(of: request, in: &plan.response) { plan.nativeSlot = nil }
        return .planned(plan, nearMisses: misses)
    }
}
