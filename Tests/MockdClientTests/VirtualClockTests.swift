import Foundation
import MockdClient
import MockdTestSupport
import Testing

/// The session's virtual clock: rate-limit windows and `{{now}}` follow `POST /__mockd/clock`, so a 30 s resend
/// rule is tested without waiting 30 s.
@Suite("Virtual clock per session")
struct VirtualClockTests {
    static func send(_ harness: Harness, phone: String = "+15555550100") -> CurlRequest {
        harness.request("POST", "/v1/auth/sms/send", json: #"{"phone": "\#(phone)"}"#)
    }

    static func verify(_ harness: Harness, _ code: String) -> CurlRequest {
        harness.request("POST", "/v1/auth/sms/verify", json: #"{"phone": "+15555550100", "code": "\#(code)"}"#)
    }

    /// `Retry-After` of a refusal in a window of `windowSeconds` opened after `opened`: the whole seconds left,
    /// rounded up, of which the real time since `opened` may have used any part.
    static func expectRetryAfter(
        _ response: CurlResponse,
        windowSeconds: Double,
        opened: Date,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let elapsed = Date().timeIntervalSince(opened)
        let fewest = max(0, Int((windowSeconds - elapsed).rounded(.up)))
        let seconds = Int(response.header("Retry-After") ?? "") ?? -1
        #expect(
            (fewest...Int(windowSeconds)).contains(seconds),
            "Retry-After \(seconds) after \(elapsed) s",
            sourceLocation: sourceLocation
        )
    }

    /// That `stamp` is `from` seconds after `start` plus at most the real time since `realStart` (the virtual clock
    /// runs on with real time).
    static func expectVirtual(
        _ stamp: String?,
        secondsAfter start: Date,
        from seconds: Double,
        realSince realStart: Date,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let real = Date().timeIntervalSince(realStart)
        guard let stamp, let date = ControlAPIDates.parse(stamp) else {
            Issue.record("not a timestamp: \(stamp ?? "nil")", sourceLocation: sourceLocation)
            return
        }
        let offset = date.timeIntervalSince(start)
        #expect(
            offset >= seconds && offset <= seconds + real,
            "\(stamp) is \(offset) s after the start, \(real) s of real time since",
            sourceLocation: sourceLocation
        )
    }

    static func error(_ response: CurlResponse) -> String? {
        ((try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any])?["error"] as? String
    }

    /// Send, resend refused until the clock is 30 s on, three wrong codes lock (the right one too, and a refused
    /// resend keeps the lock), a new code unlocks: the whole OTP flow in far less than the 30 s it models.
    @Test func otpFlowResendsAfterThirtyVirtualSecondsAndANewCodeUnlocks() async throws {
        try await withDaemon { harness in
            let client = harness.client
            try await client.useScenario("auth_sms_code")
            let start = try #require(ControlAPIDates.parse("2030-01-01T09:00:00Z"))
            let clockSet = Date()
            #expect(try await client.setClock(to: start).now.hasPrefix("2030-01-01T09:00:00."))
            let send = Self.send(harness)
            let verify = { (code: String) in Self.verify(harness, code) }
            // The resend window opens at the first send, somewhere after this instant.
            let windowOpened = Date()
            let locked = try Curl.batch([
                send, verify("000000"), verify("111111"), verify("222222"), verify("482916"), send, verify("482916"),
            ])
            #expect(locked.map(\.status) == [200, 422, 422, 429, 429, 429, 429])
            #expect(
                locked.map(Self.error) == [
                    nil, "invalid_code", "invalid_code", "too_many_attempts", "too_many_attempts", "rate_limited",
                    "too_many_attempts",
                ]
            )
            // The virtual clock runs on with real time (an offset, not a frozen instant), so what is left of the
            // window is 30 s less the real time since the send, rounded up: bounded by the real time measured here
            // (on a loaded machine the calls take seconds; no fixed guess of it holds).
            Self.expectRetryAfter(locked[5], windowSeconds: 30, opened: windowOpened)

            try await client.advanceClock(byMs: 25_000)
            let tooSoon = try Curl.send(send)
            if Date().timeIntervalSince(windowOpened) < 5 {
                #expect(tooSoon.status == 429)
                Self.expectRetryAfter(tooSoon, windowSeconds: 5, opened: windowOpened)
            } else {
                // More than 5 real seconds since the send: with the 25 virtual ones, the window has passed.
                #expect([200, 429].contains(tooSoon.status))
            }

            // 30 virtual seconds on, plus the real time since the clock was set (seconds on a loaded machine).
            let clock = try await client.advanceClock(byMs: 5_000)
            Self.expectVirtual(clock.now, secondsAfter: start, from: 30, realSince: clockSet)
            let unlocked = try Curl.batch([send, verify("482916")])
            #expect(unlocked.map(\.status) == [200, 200])
            let token = (try JSONSerialization.jsonObject(with: unlocked[1].body)) as? [String: Any]
            Self.expectVirtual(token?["issuedAt"] as? String, secondsAfter: start, from: 30, realSince: clockSet)
        }
    }

    /// The lock of three wrong codes expires after 5 minutes of the session's clock (`state.timeout`).
    @Test func theLockExpiresAfterFiveVirtualMinutes() async throws {
        try await withDaemon { harness in
            try await harness.client.useScenario("auth_sms_code")
            let verify = { (code: String) in Self.verify(harness, code) }
            let locked = try Curl.batch([verify("000000"), verify("111111"), verify("222222"), verify("482916")])
            #expect(locked.map(\.status) == [422, 422, 429, 429])
            try await harness.client.advanceClock(byMs: 240_000)
            #expect(try Curl.send(verify("482916")).status == 429)
            let scenario = try Curl.send(harness.request("/__mockd/scenario"))
            let states = ((try JSONSerialization.jsonObject(with: scenario.body)) as? [String: Any])?["states"]
            #expect(states as? [String: String] == ["sms-code": "Locked"])
            try await harness.client.advanceClock(byMs: 60_000)
            let expired = try Curl.batch([harness.request("/__mockd/scenario"), verify("000000"), verify("482916")])
            let after = ((try JSONSerialization.jsonObject(with: expired[0].body)) as? [String: Any])?["states"]
            #expect(after as? [String: String] == ["sms-code": "Started"])
            #expect(expired[1...].map(\.status) == [422, 200])
            #expect(Self.error(expired[1]) == "invalid_code")
        }
    }

    @Test func eachSessionHasItsOwnClockAndResetReturnsToRealTime() async throws {
        try await withDaemon { harness in
            let other = harness.client(session: "other-clock")
            // Real time bracketed around the call: under a loaded parallel run one call can take a minute.
            let before = Date().timeIntervalSince1970 * 1000
            let advanced = try await harness.client.advanceClock(byMs: 86_400_000)
            let after = Date().timeIntervalSince1970 * 1000
            #expect(advanced.offsetMs == 86_400_000)
            #expect(try await other.clock().offsetMs == 0)
            let virtualNowAsReal = Double(advanced.epochMs) - 86_400_000
            #expect(
                virtualNowAsReal >= before - 1000 && virtualNowAsReal <= after + 1000,
                "\(before) \(virtualNowAsReal) \(after)"
            )
            try await harness.client.reset()
            #expect(try await harness.client.clock().offsetMs == 0)
        }
    }

    @Test func aClockBodyThatIsNeitherAdvanceNorSetIs400() async throws {
        try await withDaemon { harness in
            let answers = try Curl.batch(
                [#"{"advanceMs": -5}"#, #"{"set": "tomorrow"}"#, #"{"advanceMs": 1, "set": "2030-01-01T00:00:00Z"}"#]
                    .map { harness.request("POST", "/__mockd/clock", json: $0) }
            )
            #expect(answers.map(\.status) == [400, 400, 400])
            let messages = answers.map {
                ((try? JSONSerialization.jsonObject(with: $0.body)) as? [String: Any])?["message"] as? String
            }
            #expect(
                messages == [
                    "advanceMs must be a whole number of ms, 0…10⁹",
                    "set must be an ISO-8601 date and time with a zone, e.g. 2026-12-01T09:00:00Z; got 'tomorrow'",
                    #"send {"advanceMs": N} or {"set": "2026-12-01T09:00:00Z"}"#,
                ]
            )
        }
    }
}

/// RFC 3339 dates for the tests, with or without fractional seconds (the clock answers milliseconds).
enum ControlAPIDates {
    static func parse(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}
