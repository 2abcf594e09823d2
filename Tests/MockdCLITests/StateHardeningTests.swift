import Foundation
import MockdTestSupport
import Testing

/// After a hostile review of issue 20: no crash from paging values, ids that can name an item, a `Location` that is
/// one path segment, a clock that refuses impossible dates, switches that refuse unknown rule ids, and an override
/// that answers nothing (no stub to edit) leaving the lock where it was. Real daemon, curl.
@Suite(.serialized)
struct StateHardeningTests {
    @Test func resourcesClockAndSwitchesRefuseHostileInput() throws {
        let root = try Paths.makeRoot(
            scenario: #"""
                {"sets": ["chat"],
                 "resources": [{"name": "things", "path": "/v1/things", "seed": [{"id": 1, "name": "a"}],
                                "paging": {"page": "page", "limit": "limit"}}],
                 "overrides": [{"id": "flaky", "match": {"path": "/v1/me"}, "status": 503, "chance": 0.5}]}
                """#
        )
        defer { try? FileManager.default.removeItem(at: root) }
        let daemon = try RunningDaemon(["--config", "s", "--root", root.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        let base = daemon.baseURL
        func post(_ path: String, _ body: String) -> CurlRequest {
            CurlRequest(
                method: "POST",
                url: base + path,
                headers: [("Content-Type", "application/json")],
                body: Data(body.utf8)
            )
        }
        let answers = try Curl.batch([
            CurlRequest(url: base + "/v1/things?page=9223372036854775807&limit=9223372036854775807"),
            post("/v1/things", #"{"id": true}"#),
            post("/v1/things", #"{"id": ""}"#),
            post("/v1/things", #"{"id": 1.5}"#),
            post("/v1/things", #"{"id": "sp ace/x?y"}"#),
            post("/__mockd/clock", #"{"set": "2030-02-30T09:00:00Z"}"#),
            post("/__mockd/clock", #"{"set": "2030-01-01T09:00:00+99:00"}"#),
            post("/__mockd/clock", #"{"set": "0000-01-01T00:00:00Z"}"#),
            post("/__mockd/clock", #"{"set": "2030-01-01T09:00:00+02:00"}"#),
            post("/__mockd/switches", #"{"rules": {"flakey": false}}"#),
            post("/__mockd/switches", #"{"rules": {"flaky": false}}"#),
        ])
        #expect(answers.map(\.status) == [200, 422, 422, 422, 201, 400, 400, 400, 200, 400, 200])
        #expect(answers[1].text.contains("id must be a non-empty string or a whole number (got true)"))
        #expect(answers[4].header("Location") == "/v1/things/sp%20ace%2Fx%3Fy")
        #expect(
            answers[9].text.contains(
                "rules.flakey: no override or runtime stub of this session has that id (known: flaky)"
            )
        )
        #expect(daemon.process.isRunning)
    }

    @Test func anOverrideWithNothingToEditLeavesTheLockAlone() throws {
        let root = try Paths.makeRoot(scenario: "{}")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.copyItem(
            at: Paths.packageRoot.appendingPathComponent("configs/auth_sms_code.json"),
            to: root.appendingPathComponent("configs/auth_sms_code.json")
        )
        let daemon = try RunningDaemon(["--config", "auth_sms_code", "--root", root.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        let base = daemon.baseURL
        let json = [("Content-Type", "application/json")]
        func verify(_ code: String) -> CurlRequest {
            CurlRequest(
                method: "POST",
                url: base + "/v1/auth/sms/verify",
                headers: json,
                body: Data(#"{"phone": "+15555550100", "code": "\#(code)"}"#.utf8)
            )
        }
        let answers = try Curl.batch([
            CurlRequest(
                method: "POST",
                url: base + "/v1/auth/sms/send",
                headers: json,
                body: Data(#"{"phone": "+15555550100"}"#.utf8)
            ),
            verify("000000"), verify("000001"), verify("000002"),
            // Not JSON: no stub for the override to edit, so nothing answers it, and nothing changes.
            CurlRequest(
                method: "POST",
                url: base + "/v1/auth/sms/send",
                headers: [("Content-Type", "text/plain")],
                body: Data("x".utf8)
            ),
            verify("482916"),
        ])
        #expect(answers.map(\.status) == [200, 422, 422, 429, 404, 429], "\(answers.map(\.text))")
    }
}

/// The new control routes under parallel clients: every clock advance counts, switches and coverage answer while
/// they race.
struct ParallelControlRouteTests {
    @Test func parallelClockAdvancesAllCountAndSwitchesAndCoverageAnswerMeanwhile() throws {
        let root = try Paths.makeRoot(
            scenario:
                #"{"sets": ["chat"], "overrides": [{"id": "flaky", "match": {"path": "/v1/me"}, "status": 503, "chance": 0.5}]}"#
        )
        defer { try? FileManager.default.removeItem(at: root) }
        let daemon = try RunningDaemon(["--config", "s", "--root", root.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        let session = [("X-Mockd-Session", "p1"), ("Content-Type", "application/json")]
        func post(_ route: String, _ body: String) -> CurlRequest {
            CurlRequest(
                method: "POST",
                url: daemon.baseURL + "/__mockd/" + route,
                headers: session,
                body: Data(body.utf8)
            )
        }
        let requests =
            (0..<60).map { _ in post("clock", #"{"advanceMs": 1000}"#) }
            + (0..<20).map { index in post("switches", #"{"rules": {"flaky": \#(index % 2 == 0)}}"#) }
            + (0..<20).map { _ in CurlRequest(url: daemon.baseURL + "/__mockd/coverage", headers: session) }
        let answers = try Curl.parallel(requests)
        #expect(answers.map(\.status) == Array(repeating: 200, count: 100))
        let clock = try Curl.send(CurlRequest(url: daemon.baseURL + "/__mockd/clock", headers: session))
        let object = try JSONSerialization.jsonObject(with: clock.body) as? [String: Any]
        #expect(object?["offsetMs"] as? Int == 60_000)
    }

    @Test func journalEntriesAnswersSessionsAndSessionDropsAnswerWhileRequestsRace() throws {
        let daemon = try RunningDaemon(["--set", "chat", "--root", Paths.packageRoot.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        func get(_ path: String, session: String) -> CurlRequest {
            CurlRequest(url: daemon.baseURL + path, headers: [("X-Mockd-Session", session)])
        }
        func drop(session: String) -> CurlRequest {
            CurlRequest(
                method: "DELETE",
                url: daemon.baseURL + "/__mockd/session",
                headers: [("X-Mockd-Session", session)]
            )
        }
        let first = try Curl.send(get("/v1/me", session: "watched"))
        #expect(first.status == 200)
        let entry = try Curl.send(get("/__mockd/journal/entries/1", session: "watched"))
        let object = try JSONSerialization.jsonObject(with: entry.body) as? [String: Any]
        let stub = try #require(object?["stub"] as? String)
        // App traffic in the watched session and in sessions being dropped, against the read routes, all at once.
        var requests: [CurlRequest] = []
        requests += (0..<40).map { _ in get("/v1/me", session: "watched") }
        requests += (0..<20).map { _ in get("/__mockd/journal/entries/1", session: "watched") }
        requests += (0..<20).map { _ in get("/__mockd/scenario/answers/\(stub)", session: "watched") }
        requests += (0..<20).map { _ in get("/__mockd/sessions", session: "watched") }
        for index in 0..<20 {
            requests.append(get("/v1/me", session: "gone-\(index)"))
            requests.append(drop(session: "gone-\(index)"))
        }
        let answers = try Curl.parallel(requests)
        let statuses: [Int] = answers.map { $0.status }
        #expect(statuses == Array(repeating: 200, count: requests.count))
        // Every request of the watched session is in its journal, once.
        let journal = try Curl.send(get("/__mockd/journal", session: "watched"))
        let count = (try JSONSerialization.jsonObject(with: journal.body) as? [String: Any])?["count"] as? Int
        #expect(count == 41)
    }
}
