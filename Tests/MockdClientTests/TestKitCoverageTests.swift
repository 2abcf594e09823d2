import Foundation
import MockdClient
import MockdTestKit
import MockdTestSupport
import Testing

/// A test run as a team runs it: several tests, each in its own `MockdTestKit` session that is dropped when the test
/// ends, against one daemon started with `--summary`. The summary must name exactly the stubs no test used.
@Suite("Coverage of a TestKit run")
struct TestKitCoverageTests {
    @Test func theSummaryOfARunOfSeveralTestsNamesExactlyTheStubsTheyDidNotUse() async throws {
        let folder = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let summary = folder.appendingPathComponent("coverage.json")
        let daemon = try RunningDaemon([
            "--config", "chat_happy_path", "--root", Paths.packageRoot.path, "--port", "0", "--quiet",
            "--summary", summary.path,
        ])
        let base = try #require(URL(string: daemon.baseURL))
        func app(_ session: MockdTestSession, _ method: String, _ path: String, json: String? = nil) throws -> Int {
            try Curl.send(
                CurlRequest(
                    method: method,
                    url: daemon.baseURL + path,
                    headers: [(MockdClient.sessionHeader, session.session)]
                        + (json == nil ? [] : [("Content-Type", "application/json")]),
                    body: json.map { Data($0.utf8) }
                )
            ).status
        }
        let journals = folder.appendingPathComponent("journals")
        // Each "test": a session from `start`, the app's requests, then `finish` (the journal saved, the session
        // dropped), as MockdTestCase does in setUp and tearDown.
        func test(
            _ name: String,
            scenario: String? = nil,
            _ body: (MockdTestSession) async throws -> Void
        ) async throws {
            let session = try await MockdTestSession.start(testName: name, baseURL: base, scenario: scenario)
            try await body(session)
            try await session.finish(directory: journals)
        }
        try await test("SignInTests.testSignIn") { session async throws in
            #expect(
                try app(
                    session,
                    "POST",
                    "/v1/auth/sign-in",
                    json: #"{"email":"anna@example.com","password":"correct horse"}"#
                )
                    == 200
            )
        }
        try await test("InboxTests.testOpensTheConversation") { session async throws in
            #expect(try app(session, "GET", "/v1/conversations") == 200)
            #expect(try app(session, "GET", "/v1/conversations/c_1001/messages?limit=20") == 200)
        }
        try await test("InboxTests.testRetriesASendThatFailed", scenario: "chat_send_fails") { session async throws in
            let message = #"{"text": "hello", "clientMessageId": "cm-1"}"#
            #expect(try app(session, "POST", "/v1/conversations/c_1001/messages", json: message) == 503)
            #expect(try app(session, "POST", "/v1/conversations/c_1001/messages", json: message) == 201)
        }
        try await test("ProfileTests.testUnreadBadgeIsHiddenAtZero") { session async throws in
            // A runtime patch over the set's stub: the stub still counts as used.
            try await session.client.addStub(
                StubDefinition(method: "GET", path: "/v1/me", bodyPatch: ["unreadTotal": 0])
            )
            #expect(try app(session, "GET", "/v1/me") == 200)
        }
        #expect(try daemon.health()["sessions"] as? Int == 1)
        let stopped = daemon.stop()
        #expect(stopped.status == 0)

        let written = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: summary)) as? [String: Any])
        let overall = try #require(written["overall"] as? [String: Any])
        let scenarios = try #require(overall["scenarios"] as? [[String: Any]])
        try #require(scenarios.map { $0["scenario"] as? String } == ["chat_happy_path", "chat_send_fails"])
        func unusedStubs(_ report: [String: Any]) -> [String] {
            ((report["stubs"] as? [String: Any])?["unused"] as? [[String: String]] ?? []).map { $0["id"] ?? "" }
        }
        func unusedOverrides(_ report: [String: Any]) -> [String] {
            (report["overrides"] as? [String: Any])?["unused"] as? [String] ?? []
        }
        #expect(
            unusedStubs(scenarios[0]) == [
                "GET_v1_conversations_c_1001_messages__before-m_0990_limit-20", "POST_v1_conversations_c_1001_messages",
                "GET_v1_conversations_c_1001_updates__after-m_1003", "GET_v1_users_u_olga_avatar", "GET_v1_orders",
                "GET_v1_orders_4521",
            ]
        )
        #expect(unusedOverrides(scenarios[0]) == ["chat-events", "chat-socket"])
        #expect(
            unusedStubs(scenarios[1]) == [
                "POST_v1_auth_sign-in", "GET_v1_me", "GET_v1_conversations",
                "GET_v1_conversations_c_1001_messages__limit-20",
                "GET_v1_conversations_c_1001_messages__before-m_0990_limit-20",
                "GET_v1_conversations_c_1001_updates__after-m_1003", "GET_v1_users_u_olga_avatar", "GET_v1_orders",
                "GET_v1_orders_4521",
            ]
        )
        #expect(unusedOverrides(scenarios[1]) == ["chat-events", "chat-socket"])
        // Per set, pooled over the scenarios: the send through chat_send_fails counts for the chat set.
        let sets = try #require(overall["sets"] as? [[String: Any]])
        #expect(sets.map { $0["set"] as? String } == ["chat", "shop"])
        #expect(
            sets.map { $0["unused"] as? [String] ?? [] } == [
                [
                    "GET_v1_conversations_c_1001_messages__before-m_0990_limit-20",
                    "GET_v1_conversations_c_1001_updates__after-m_1003", "GET_v1_users_u_olga_avatar",
                ],
                ["GET_v1_orders", "GET_v1_orders_4521"],
            ]
        )
        #expect(
            stopped.stderr.contains(
                "coverage written to \(summary.path): chat_happy_path: 6 of 10 stubs and 2 of 2 overrides never used; chat_send_fails: 9 of 10 stubs and 2 of 3 overrides never used"
            ),
            "\(stopped.stderr)"
        )
        // Each test's journal was saved before its session went.
        let saved = try FileManager.default.contentsOfDirectory(atPath: journals.path)
        #expect(saved.count == 4)
    }
}
