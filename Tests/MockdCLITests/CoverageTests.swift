import Foundation
import MockdTestSupport
import Testing

/// Coverage (issue 22): the stubs and overrides a test run never used, per session and overall, from
/// `GET /__mockd/coverage` and from `--summary FILE` at shutdown. Real daemon, curl.
struct CoverageTests {
    @Test func coverageNamesWhatNoRequestUsed() throws {
        let root = try Paths.makeRoot(
            scenario:
                #"{"sets": ["chat"], "overrides": [{"id": "me-down", "match": {"path": "/v1/me", "headers": {"X-Down": "1"}}, "status": 503}, {"id": "never", "match": {"path": "/nowhere"}, "status": 500}]}"#
        )
        defer { try? FileManager.default.removeItem(at: root) }
        let summary = root.appendingPathComponent("coverage.json")
        let daemon = try RunningDaemon([
            "--config", "s", "--root", root.path, "--port", "0", "--quiet", "--summary", summary.path,
        ])
        let base = daemon.baseURL
        let answers = try Curl.batch([
            CurlRequest(url: base + "/v1/me", headers: [("X-Mockd-Session", "t1")]),
            CurlRequest(url: base + "/v1/me", headers: [("X-Mockd-Session", "t1"), ("X-Down", "1")]),
            CurlRequest(url: base + "/v1/conversations", headers: [("X-Mockd-Session", "t2")]),
        ])
        #expect(answers.map(\.status) == [200, 503, 200])
        let coverage = try Curl.send(CurlRequest(url: base + "/__mockd/coverage", headers: [("X-Mockd-Session", "t1")]))
        let object = try #require(try JSONSerialization.jsonObject(with: coverage.body) as? [String: Any])
        let session = try #require(object["session"] as? [String: Any])
        let stubs = try #require(session["stubs"] as? [String: Any])
        #expect(stubs["total"] as? Int == 8)
        #expect(stubs["used"] as? Int == 1)
        #expect(
            (stubs["unused"] as? [[String: String]])?.map { $0["id"] ?? "" } == [
                "POST_v1_auth_sign-in", "GET_v1_conversations", "GET_v1_conversations_c_1001_messages__limit-20",
                "GET_v1_conversations_c_1001_messages__before-m_0990_limit-20", "POST_v1_conversations_c_1001_messages",
                "GET_v1_conversations_c_1001_updates__after-m_1003", "GET_v1_users_u_olga_avatar",
            ]
        )
        let overrides = try #require(session["overrides"] as? [String: Any])
        #expect(overrides["used"] as? Int == 1)
        #expect(overrides["unused"] as? [String] == ["never"])
        #expect(session["complete"] as? Bool == true)
        let overall = try #require((object["overall"] as? [String: Any])?["scenarios"] as? [[String: Any]])
        try #require(overall.count == 1)
        #expect(overall[0]["sessions"] as? [String] == ["default", "t1", "t2"])
        #expect((overall[0]["stubs"] as? [String: Any])?["used"] as? Int == 2)

        let stopped = daemon.stop()
        #expect(stopped.status == 0)
        #expect(
            stopped.stderr.contains(
                "mockd: coverage written to \(summary.path): s: 6 of 8 stubs and 1 of 2 overrides never used\n"
            ),
            "\(stopped.stderr)"
        )
        let written = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: summary)) as? [String: Any])
        #expect((written["sessions"] as? [[String: Any]])?.map { $0["session"] as? String } == ["default", "t1", "t2"])
    }

    /// Use is counted for the daemon's life: a session deleted, reset or left idle takes nothing away, a reload keeps
    /// what the replaced copy served, and a stub answered through an override that edits (a pass-through `{}`, a
    /// `bodyPatch`, a latency alone) counts as used, with the journal naming both.
    @Test func useOutlivesSessionsAndCountsStubsServedThroughOverrides() throws {
        let root = try Paths.makeRoot(
            scenario: #"""
                {"sets": ["chat"], "overrides": [
                  {"id": "pass", "match": {"method": "GET", "path": "/v1/conversations"}, "responses": [{}]},
                  {"id": "patch", "match": {"method": "GET", "path": "/v1/me"}, "bodyPatch": {"unreadTotal": 0}},
                  {"id": "slow", "match": {"method": "GET", "path": "/v1/conversations/c_1001/messages", "query": {"limit": "20"}},
                   "latency": 5},
                  {"id": "never", "match": {"path": "/nowhere"}, "status": 500}
                ]}
                """#
        )
        defer { try? FileManager.default.removeItem(at: root) }
        let summary = root.appendingPathComponent("coverage.json")
        let daemon = try RunningDaemon([
            "--config", "s", "--root", root.path, "--port", "0", "--quiet", "--summary", summary.path,
        ])
        let base = daemon.baseURL
        func session(_ id: String) -> [(String, String)] { [("X-Mockd-Session", id)] }
        let answers = try Curl.batch([
            CurlRequest(url: base + "/v1/conversations", headers: session("t1")),
            CurlRequest(method: "DELETE", url: base + "/__mockd/session", headers: session("t1")),
            CurlRequest(method: "POST", url: base + "/__mockd/reload"),
            CurlRequest(url: base + "/v1/me", headers: session("t2")),
            CurlRequest(method: "POST", url: base + "/__mockd/reset", headers: session("t2")),
            CurlRequest(url: base + "/v1/conversations/c_1001/messages?limit=20", headers: session("t3")),
        ])
        #expect(answers.map(\.status) == [200, 200, 200, 200, 200, 200])
        #expect(
            (try JSONSerialization.jsonObject(with: answers[3].body) as? [String: Any])?["unreadTotal"] as? Int == 0
        )

        let journal = try Curl.send(CurlRequest(url: base + "/__mockd/journal", headers: session("t3")))
        let entries = try #require(
            (try JSONSerialization.jsonObject(with: journal.body) as? [String: Any])?["entries"] as? [[String: Any]]
        )
        #expect(entries.map { $0["stub"] as? String } == ["slow"])
        #expect(entries.map { $0["edited"] as? [String] } == [["GET_v1_conversations_c_1001_messages__limit-20"]])

        let coverage = try Curl.send(CurlRequest(url: base + "/__mockd/coverage", headers: session("t3")))
        let object = try #require(try JSONSerialization.jsonObject(with: coverage.body) as? [String: Any])
        let own = try #require(object["session"] as? [String: Any])
        #expect((own["stubs"] as? [String: Any])?["used"] as? Int == 1)
        #expect((own["overrides"] as? [String: Any])?["unused"] as? [String] == ["never", "patch", "pass"])
        let overall = try #require(object["overall"] as? [String: Any])
        let scenarios = try #require(overall["scenarios"] as? [[String: Any]])
        #expect(scenarios.map { $0["scenario"] as? String } == ["s"])
        #expect(scenarios.first?["sessions"] as? [String] == ["default", "t2", "t3"])
        let stubs = try #require(scenarios.first?["stubs"] as? [String: Any])
        #expect(stubs["used"] as? Int == 3)
        #expect(
            (stubs["unused"] as? [[String: String]])?.map { $0["id"] ?? "" } == [
                "POST_v1_auth_sign-in", "GET_v1_conversations_c_1001_messages__before-m_0990_limit-20",
                "POST_v1_conversations_c_1001_messages", "GET_v1_conversations_c_1001_updates__after-m_1003",
                "GET_v1_users_u_olga_avatar",
            ]
        )
        #expect((scenarios.first?["overrides"] as? [String: Any])?["unused"] as? [String] == ["never"])
        let sets = try #require(overall["sets"] as? [[String: Any]])
        #expect(sets.map { $0["set"] as? String } == ["chat"])
        #expect(sets.first?["used"] as? Int == 3)
        #expect(sets.first?["total"] as? Int == 8)

        let stopped = daemon.stop()
        #expect(stopped.status == 0)
        #expect(
            stopped.stderr.contains(
                "mockd: coverage written to \(summary.path): s: 5 of 8 stubs and 1 of 4 overrides never used\n"
            ),
            "\(stopped.stderr)"
        )
    }

    @Test func anUnwritableSummaryIsRefusedAtStart() throws {
        let result = try ProcessRunner.mockd([
            "--set", "chat", "--root", Paths.packageRoot.path, "--port", "0", "--summary", "/nonexistent/dir/c.json",
        ])
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "mockd: --summary /nonexistent/dir/c.json: cannot write in /nonexistent/dir (No such file or directory)\n"
        )
    }
}
