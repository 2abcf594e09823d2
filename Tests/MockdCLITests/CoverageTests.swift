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
        #expect(overall.count == 1)
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
