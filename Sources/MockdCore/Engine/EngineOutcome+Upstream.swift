/// Outcomes answered by the upstream instead of a stub (`--on-miss proxy`, `mockd record`).
extension EngineOutcome {
    /// Whether nothing answered the request: no runtime stub, override or stub matched (or a sequence was
    /// exhausted with `afterLast: notFound`), so the engine planned its 404. Control API requests, CORS
    /// preflights it answered and rate-limit answers are not unmatched.
    public var isUnmatched: Bool {
        isJournaled && borrowedServedStub == nil && plan.response.stubID == nil && plan.fault == nil
            && plan.holdMs == nil && plan.response.status == 404
            && plan.response.webSocket == nil && plan.response.eventStream == nil
    }

    /// The same request answered by the upstream instead: journaled with `proxied: true`.
    /// - Parameter proxied: `false` for an answer mockd gave instead of sending the request (a refused target).
    public func answered(byUpstream response: MockResponse, proxied: Bool = true) -> EngineOutcome {
        EngineOutcome(
            plan: PlannedResponse(response: response),
            request: request,
            session: session,
            arrival: arrival,
            nearMisses: nearMisses,
            proxied: proxied
        )
    }
}
