import Foundation

/// `/__mockd/clock`: the session's virtual clock (`SessionClock`).
extension ControlAPI {
    /// `GET /__mockd/clock`: `{"session", "now" (RFC 3339 UTC with ms), "epochMs", "offsetMs"}`; `offsetMs` is how
    /// far the session's clock is ahead of real time (0 = real time).
    func readClock(_ call: Call) -> MockResponse {
        clockAnswer(call.session)
    }

    /// `POST /__mockd/clock` with `{"advanceMs": N}` (N ≥ 0 ms, added to the clock) or `{"set": ISO-8601}`
    /// (RFC 3339 with a zone, fractional seconds allowed): 200 with the clock as `GET` shows it, 400 `invalid_clock`
    /// for any other body. The clock runs on with real time from there.
    func moveClock(_ call: Call) -> MockResponse {
        let object = ControlAPI.object(call.request.body)
        let clock = call.session.clock
        if let object, object.count == 1, let advance = object["advanceMs"] {
            guard let milliseconds = ControlAPI.count(advance) else {
                return ControlAPI.error(400, "invalid_clock", "advanceMs must be a whole number of ms, 0…10⁹")
            }
            clock.advance(byMs: Int64(milliseconds))
            return clockAnswer(call.session)
        }
        if let object, object.count == 1, let text = object["set"] as? String {
            guard let date = ControlAPI.iso8601(text) else {
                return ControlAPI.error(
                    400,
                    "invalid_clock",
                    "set must be an ISO-8601 date and time with a zone, e.g. 2026-12-01T09:00:00Z; got '\(text)'"
                )
            }
            clock.set(to: date)
            return clockAnswer(call.session)
        }
        return ControlAPI.error(
            400,
            "invalid_clock",
            #"send {"advanceMs": N} or {"set": "2026-12-01T09:00:00Z"}"#
        )
    }

    private func clockAnswer(_ session: Session) -> MockResponse {
        let clock = session.clock
        let now = clock.date()
        return ControlAPI.json(
            200,
            [
                "session": session.id, "now": DateFormats.rfc3339Milliseconds(now),
                "epochMs": Int64((now.timeIntervalSince1970 * 1000).rounded()), "offsetMs": clock.offsetMs,
            ]
        )
    }

    /// An RFC 3339 date-time with a zone (`Z` or `±hh:mm`), with or without fractional seconds.
    static func iso8601(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
