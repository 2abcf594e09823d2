import Foundation
import MockdClient
import MockdTestSupport
import Testing

/// Seeded chaos: a `chance` rule answers a share of calls drawn from the session's seeded generator, so the calls hit
/// are reproduced by the seed; switches turn a rule off and scale latency without a scenario file.
@Suite("Seeded chance rules and per-session switches")
struct ChanceAndSwitchesTests {
    static let flaky = StubDefinition(
        .init(
            id: "flaky-me",
            match: .init(method: "GET", path: "/v1/me"),
            step: .init(status: 503, body: ["error": "flaky"]),
            chance: 0.3
        )
    )

    /// Which of 40 calls of `/v1/me` the flaky rule answered (503), as a string of `x` (hit) and `.` (passed on).
    static func hits(_ harness: Harness, _ client: MockdClient) throws -> String {
        let responses = try Curl.batch((0..<40).map { _ in harness.request("/v1/me", as: client) })
        #expect(responses.allSatisfy { $0.status == 503 || $0.status == 200 })
        return String(responses.map { $0.status == 503 ? "x" : "." })
    }

    @Test func twoSessionsWithDifferentSeedsDifferAndTheSameSeedReproducesTheCallsHit() async throws {
        try await withDaemon { harness in
            let first = harness.client(session: "chaos-a")
            let second = harness.client(session: "chaos-b")
            let again = harness.client(session: "chaos-c")
            for (client, seed) in [(first, 7), (second, 8), (again, 7)] as [(MockdClient, UInt64)] {
                try await client.addStub(Self.flaky)
                #expect(try await client.setSwitches(seed: seed).seed == seed)
            }
            let a = try Self.hits(harness, first)
            let b = try Self.hits(harness, second)
            let c = try Self.hits(harness, again)
            #expect(a == c)
            #expect(a != b)
            // A share near 0.3 of 40, neither none nor all.
            for run in [a, b] { #expect((4...20).contains(run.filter { $0 == "x" }.count), "\(run)") }
            // Every call the rule matched took one draw; the journal names the rule on exactly the calls hit.
            #expect(try await first.switches().draws == 40)
            let journal = try await first.journal()
            #expect(String(journal.map { $0.stub == "flaky-me" ? "x" : "." }) == a)
            // Setting the seed again replays the same calls.
            try await first.setSwitches(seed: 7)
            #expect(try Self.hits(harness, first) == a)
        }
    }

    @Test func aRuleTurnedOffAnswersNothingUntilTurnedOnAndResetRestoresTheDefaults() async throws {
        try await withDaemon { harness in
            let client = harness.client
            try await client.addStub(Self.flaky)
            let off = try await client.setSwitches(rules: ["flaky-me": false])
            #expect(off.disabledRules == ["flaky-me"])
            #expect(try Self.hits(harness, client) == String(repeating: ".", count: 40))
            #expect(try await client.switches().draws == 0)
            try await client.setSwitches(rules: ["flaky-me": true])
            #expect(try Self.hits(harness, client).contains("x"))
            try await client.setSwitches(latencyScale: 0, seed: 99)
            try await client.reset()
            let defaults = try await client.switches()
            #expect(defaults == .init(session: "client-tests", latencyScale: 1, seed: 1, draws: 0, disabledRules: []))
        }
    }

    @Test func badSwitchesAre400NamingTheField() async throws {
        try await withDaemon { harness in
            let answers = try Curl.batch(
                [#"{"latencyScale": -1}"#, #"{"seed": 1.5}"#, #"{"rules": {"x": 1}}"#, #"{"speed": 2}"#].map {
                    harness.request("POST", "/__mockd/switches", json: $0)
                }
            )
            #expect(answers.map(\.status) == [400, 400, 400, 400])
            let messages = answers.map {
                ((try? JSONSerialization.jsonObject(with: $0.body)) as? [String: Any])?["message"] as? String
            }
            #expect(
                messages == [
                    "latencyScale must be a number from 0 (no latency) to 1000",
                    "seed must be a whole number from 0 to 2⁵³", "rules.x must be true (on) or false (off)",
                    "unknown field 'speed' (known: latencyScale, seed, rules)",
                ]
            )
        }
    }
}

/// `latencyScale: 0` turns a 5 s latency off (asserts a wall-clock bound, hence the name).
@Suite("Timing: latency scale switch")
struct TimingLatencyScaleTests {
    @Test func latencyScaleZeroAnswersAFiveSecondStubAtOnce() async throws {
        try await withDaemon { harness in
            try await harness.client.addStub(
                StubDefinition(method: "GET", path: "/v1/slow", status: 200, body: "late", latencyMs: 5_000)
            )
            try await harness.client.setSwitches(latencyScale: 0)
            let started = Date()
            let response = try harness.app("/v1/slow")
            #expect(response.status == 200)
            #expect(Date().timeIntervalSince(started) < 2)
        }
    }
}
