import Foundation

/// Limits that refuse a request before its override answers: a refused request gets the limit's answer and
/// changes nothing else (no state transition, no sequence step).
extension MockEngine {
    /// The answer of a limit that refuses `request` for `override`, or `nil` when the override may answer.
    ///
    /// A `rateLimit` counts the call in the window of its key's value (RFC 6585 §4: 429 with `Retry-After`).
    func refusal(by override: Override, _ request: HTTPRequest, state: SessionState) -> Answer? {
        guard let rule = override.rateLimit else { return nil }
        guard
            let retryAfter = state.rateLimited(
                override.serial,
                key: rule.keyValue(of: request),
                rule: rule,
                nowMs: state.clock.milliseconds(clock())
            )
        else { return nil }
        let response = rule.response(
            to: request,
            retryAfter: rule.retryAfter ?? retryAfter,
            overrideID: override.id,
            now: state.clock.date()
        )
        return .planned(PlannedResponse(response: response), nearMisses: [])
    }
}
