import Foundation
import MockdClient
import MockdTestSupport
import Testing

/// The client against the real `mockd` binary (each test starts its own daemon on a free port).
@Suite("MockdClient against a running daemon")
struct LiveDaemonTests {
    static let messageBody = #"{"text": "Hi, my order #4521 has not arrived yet", "clientMessageId": "cm-1"}"#

    @Test func health() async throws {
        try await withDaemon { harness in
            let health = try await harness.client.health()
            #expect(health.status == "ok")
            #expect(health.version == "0.1.0")
            #expect(health.scenario == "chat_happy_path")
            // Only the default session: reading health never creates the client's session.
            #expect(health.sessions == 1)
            #expect(health.uptimeSeconds >= 0 && health.uptimeSeconds < 30)
        }
    }

    @Test func scenariosListsTheBundledOnesWithTheStartupScenarioActive() async throws {
        try await withDaemon { harness in
            let scenarios = try await harness.client.scenarios()
            #expect(
                scenarios.map(\.name) == [
                    "auth_sms_code", "chat_connection_drops", "chat_happy_path", "chat_live_receipts",
                    "chat_operator_slow", "chat_send_fails", "order_status_error_500",
                ]
            )
            #expect(scenarios.filter(\.active).map(\.name) == ["chat_happy_path"])
            #expect(scenarios.allSatisfy { $0.problem == nil })
            #expect(
                scenarios.first { $0.name == "chat_send_fails" }?.description
                    == "Sending a message fails once with 503 (Retry-After: 5); the app's retry then succeeds."
            )
        }
    }

    @Test func useScenarioMakesTheFirstSendFailThenSucceed() async throws {
        try await withDaemon { harness in
            let active = try await harness.client.useScenario("chat_send_fails")
            #expect(active == ActiveScenario(session: "client-tests", name: "chat_send_fails", sets: ["chat", "shop"]))
            let send = harness.request("POST", "/v1/conversations/c_1001/messages", json: Self.messageBody)
            let responses = try Curl.batch([send, send])
            #expect(responses.map(\.status) == [503, 201])
            #expect(responses[0].header("Retry-After") == "5")
            #expect(try await harness.client.scenarios().filter(\.active).map(\.name) == ["chat_send_fails"])
            let journal = try await harness.client.journal()
            #expect(journal.map(\.stub) == ["send-503-then-ok", "send-503-then-ok"])
            #expect(journal.map(\.body) == [Self.messageBody, Self.messageBody])
        }
    }

    @Test func unknownScenarioThrows404() async throws {
        try await withDaemon { harness in
            let error = await caught { try await harness.client.useScenario("no_such_scenario") }
            #expect(
                error
                    == .server(
                        status: 404,
                        code: "unknown_scenario",
                        message: "no scenario 'no_such_scenario' (GET /__mockd/scenarios lists them)"
                    )
            )
        }
    }

    @Test func addListAndRemoveAStub() async throws {
        try await withDaemon { harness in
            let client = harness.client
            let id = try await client.addStub(
                StubDefinition(
                    id: "me-teapot",
                    method: "GET",
                    path: "/v1/me",
                    status: 418,
                    headers: ["X-Mock": "yes"],
                    body: ["name": "Teapot", "unread": 2]
                )
            )
            #expect(id == "me-teapot")
            let stubbed = try harness.app("/v1/me")
            #expect(stubbed.status == 418)
            #expect(stubbed.text == #"{"name":"Teapot","unread":2}"#)
            #expect(stubbed.header("Content-Type") == "application/json; charset=utf-8")
            #expect(stubbed.header("X-Mock") == "yes")
            #expect(try await client.stubs() == ["me-teapot"])
            #expect(
                try await client.stubDefinitions()
                    == [
                        RuntimeStub(
                            id: "me-teapot",
                            definition: [
                                "id": "me-teapot", "match": ["method": "GET", "path": "/v1/me"], "status": 418,
                                "headers": ["X-Mock": "yes"], "body": ["name": "Teapot", "unread": 2],
                            ]
                        )
                    ]
            )
            try await client.removeStub(id: "me-teapot")
            #expect(try await client.stubs() == [])
            let original = try harness.app("/v1/me")
            #expect(original.status == 200)
            #expect(original.header("X-Mock") == nil)
            let error = await caught { try await client.removeStub(id: "me-teapot") }
            #expect(
                error
                    == .server(
                        status: 404,
                        code: "unknown_stub",
                        message: "session 'client-tests' has no runtime stub 'me-teapot'"
                    )
            )
        }
    }

    @Test func daemonAssignedIdsAndRemoveStubs() async throws {
        try await withDaemon { harness in
            let client = harness.client
            let first = try await client.addStub(StubDefinition(method: "GET", path: "/a", status: 204))
            let second = try await client.addStub(StubDefinition(method: "GET", path: "/b", body: "bee"))
            #expect([first, second] == ["runtime-1", "runtime-2"])
            let b = try harness.app("/b")
            #expect(b.status == 200)
            #expect(b.text == "bee")
            #expect(b.header("Content-Type")?.hasPrefix("text/plain") == true)
            try await client.removeStubs()
            #expect(try await client.stubs() == [])
            #expect(try harness.app("/b").status == 404)
        }
    }

    @Test func sequenceMatchersAndAfterLast() async throws {
        try await withDaemon { harness in
            try await harness.client.addStub(
                StubDefinition(
                    method: "POST",
                    path: "/v1/search",
                    query: ["q": "tea"],
                    requestBody: .init(json: ["kind": "all"]),
                    responses: [.init(status: 200, body: "first"), .init(serverUnavailable: .init(retryAfter: 7))],
                    afterLast: .notFound
                )
            )
            let search = harness.request("POST", "/v1/search?q=tea", json: #"{"kind": "all", "page": 1}"#)
            let other = harness.request("POST", "/v1/search?q=coffee", json: #"{"kind": "all"}"#)
            let responses = try Curl.batch([search, other, search, search])
            #expect(responses.map(\.status) == [200, 404, 503, 404])
            #expect(responses[0].text == "first")
            #expect(responses[2].header("Retry-After") == "7")
            let journal = try await harness.client.journal()
            // After the last step (`notFound`) the daemon journals the 404 as unmatched.
            #expect(journal.map(\.stub) == ["runtime-1", nil, "runtime-1", nil])
            #expect(journal.map(\.matched) == [true, false, true, false])
        }
    }

    @Test func invalidStubThrows400NamingTheField() async throws {
        try await withDaemon { (harness: Harness) async throws in
            let error = await caught {
                _ = try await harness.client.addStub(StubDefinition(method: "GET", path: "/x", status: 42))
            }
            #expect(
                error
                    == .server(
                        status: 400,
                        code: "invalid_stub",
                        message: "stub: status: 42 is not an HTTP status code (100–999)"
                    )
            )
            #expect(try await harness.client.stubs() == [])
        }
    }

    @Test func journalListsTheAppsRequestsInOrder() async throws {
        try await withDaemon { harness in
            let client = harness.client
            _ = try Curl.batch([
                harness.request("/v1/me"), harness.request("/v1/conversations"), harness.request("/v1/nothing?x=1"),
            ])
            let journal = try await client.journal()
            #expect(journal.map(\.sequence) == [1, 2, 3])
            #expect(journal.map(\.method) == ["GET", "GET", "GET"])
            #expect(journal.map(\.target) == ["/v1/me", "/v1/conversations", "/v1/nothing?x=1"])
            #expect(journal.map(\.path) == ["/v1/me", "/v1/conversations", "/v1/nothing"])
            #expect(journal.map(\.status) == [200, 200, 404])
            #expect(journal.map(\.stub) == ["GET_v1_me", "GET_v1_conversations", nil])
            #expect(journal.map(\.matched) == [true, true, false])
            #expect(journal.map(\.bodySize) == [0, 0, 0])
            #expect(journal.map { $0.header("x-mockd-session") } == ["client-tests", "client-tests", "client-tests"])
            #expect(journal.allSatisfy { $0.date != nil && $0.fault == nil && $0.durationMs >= 0 })
            #expect(try await client.journal(unmatchedOnly: true).map(\.target) == ["/v1/nothing?x=1"])
            #expect(try await client.journal(path: "/v1/me").map(\.sequence) == [1])
            #expect(try await client.journal(method: "POST") == [])
        }
    }

    @Test func unmatchedCarriesNearMisses() async throws {
        try await withDaemon { harness in
            _ = try harness.app("/v1/me")
            #expect(try harness.app("/v1/mee").status == 404)
            let unmatched = try await harness.client.unmatched()
            #expect(unmatched.count == 1)
            let request = try #require(unmatched.first)
            #expect(request.method == "GET")
            #expect(request.target == "/v1/mee")
            #expect(request.sequence == 2)
            #expect(request.status == 404)
            let best = try #require(request.nearMisses.first)
            #expect(best.stub == "GET_v1_me")
            #expect(best.set == "chat")
            #expect(best.differs == [Difference(part: "path", expected: "/v1/me", actual: "/v1/mee")])
            #expect(best.distance > 0 && best.distance < 1)
        }
    }

    @Test func verifyPassesAndFails() async throws {
        try await withDaemon { harness in
            let client = harness.client
            _ = try Curl.batch([harness.request("/v1/me"), harness.request("/v1/me"), harness.request("/v1/orders")])
            #expect(try await client.verify(method: "GET", path: "/v1/me", count: 2) == 2)
            #expect(try await client.verify(path: "/v1/orders", count: 1) == 1)
            #expect(try await client.verify(path: "/v1/me", atLeast: 1) == 2)
            let exactly = await caught { try await client.verify(method: "GET", path: "/v1/me", count: 3) }
            #expect(
                exactly
                    == .verificationFailed(
                        message: "expected exactly 3 GET /v1/me, journal has 2",
                        expected: 3,
                        actual: 2
                    )
            )
            let atLeast = await caught { try await client.verify(method: "POST", path: "/v1/me", atLeast: 1) }
            #expect(
                atLeast
                    == .verificationFailed(
                        message:
                            "expected at least 1 POST /v1/me, journal has 0; closest: GET /v1/me (method: expected POST, got GET)",
                        expected: 1,
                        actual: 0
                    )
            )
        }
    }

    @Test func journalHAR() async throws {
        try await withDaemon { harness in
            _ = try harness.app("/v1/me")
            let har = try JSONValue(parsing: try await harness.client.journalHAR())
            #expect(har["log"]?["version"] == "1.2")
            #expect(har["log"]?["creator"]?["name"] == "mockd")
            #expect(har["log"]?["entries"]?[0]?["request"]?["method"] == "GET")
            #expect(har["log"]?["entries"]?[0]?["response"]?["status"] == 200)
            #expect(har["log"]?["entries"]?[1] == nil)
        }
    }

    @Test func resetClearsJournalAndStubsButKeepsTheScenario() async throws {
        try await withDaemon { harness in
            let client = harness.client
            try await client.useScenario("chat_send_fails")
            try await client.addStub(StubDefinition(method: "GET", path: "/v1/me", status: 500))
            #expect(try harness.app("/v1/me").status == 500)
            #expect(try harness.app("POST", "/v1/conversations/c_1001/messages", json: Self.messageBody).status == 503)
            try await client.reset()
            #expect(try await client.journal() == [])
            #expect(try await client.stubs() == [])
            #expect(try await client.scenarios().filter(\.active).map(\.name) == ["chat_send_fails"])
            // Sequences start over: the first send fails again.
            #expect(try harness.app("POST", "/v1/conversations/c_1001/messages", json: Self.messageBody).status == 503)
            #expect(try harness.app("/v1/me").status == 200)
        }
    }

    @Test func sessionsInParallelAreIsolated() async throws {
        try await withDaemon(session: "unused") { harness in
            let a = harness.client(session: "session-a")
            let b = harness.client(session: "session-b")
            async let setUpA: String = {
                try await a.useScenario("chat_send_fails")
                return try await a.addStub(StubDefinition(id: "only-a", method: "GET", path: "/v1/me", status: 418))
            }()
            async let setUpB: String = {
                try await b.useScenario("order_status_error_500")
                return try await b.addStub(StubDefinition(id: "only-b", method: "GET", path: "/v1/me", status: 451))
            }()
            #expect(try await [setUpA, setUpB] == ["only-a", "only-b"])
            let send = Self.messageBody
            let responses = try Curl.parallel([
                harness.request("/v1/me", as: a), harness.request("/v1/me", as: b),
                harness.request("POST", "/v1/conversations/c_1001/messages", json: send, as: a),
                harness.request("POST", "/v1/conversations/c_1001/messages", json: send, as: b),
                harness.request("/v1/orders/4521", as: a), harness.request("/v1/orders/4521", as: b),
            ])
            #expect(responses.map(\.status) == [418, 451, 503, 201, 200, 500])
            async let stubsA = a.stubs()
            async let stubsB = b.stubs()
            async let journalA = a.journal()
            async let journalB = b.journal()
            #expect(try await stubsA == ["only-a"])
            #expect(try await stubsB == ["only-b"])
            let entriesA = try await journalA
            let entriesB = try await journalB
            #expect(Set(entriesA.map(\.stub)) == ["only-a", "send-503-then-ok", "GET_v1_orders_4521"])
            #expect(Set(entriesB.map(\.stub)) == ["only-b", "POST_v1_conversations_c_1001_messages", "order-500"])
            #expect(entriesA.allSatisfy { $0.header("X-Mockd-Session") == "session-a" })
            #expect(entriesB.allSatisfy { $0.header("X-Mockd-Session") == "session-b" })
            #expect(try await a.scenarios().filter(\.active).map(\.name) == ["chat_send_fails"])
            #expect(try await b.scenarios().filter(\.active).map(\.name) == ["order_status_error_500"])
            #expect(try await harness.client(session: "session-c").journal() == [])
        }
    }

    @Test func invalidSessionIdIsRejected() async throws {
        try await withDaemon(session: "no spaces allowed") { harness in
            let error = await caught { _ = try await harness.client.health() }
            guard case .server(let status, let code, _) = error else {
                Issue.record("expected a server error, got \(String(describing: error))")
                return
            }
            #expect(status == 400)
            #expect(code == "invalid_session")
        }
    }

    @Test func controlTokenIsRequiredWhenTheDaemonHasOne() async throws {
        try await withDaemon(["--control-token", "secret-0123456789"], token: "secret-0123456789") {
            (harness: Harness) async throws in
            let message = "the control API needs the header Authorization: Bearer <token> (--control-token)"
            let anonymous = harness.client(session: "client-tests")
            #expect(
                await caught { _ = try await anonymous.health() }
                    == .server(status: 401, code: "unauthorized", message: message)
            )
            let wrong = harness.client(session: "client-tests", token: "guess")
            #expect(
                await caught { try await wrong.reset() } == .server(status: 401, code: "unauthorized", message: message)
            )
            #expect(try await harness.client.health().status == "ok")
            #expect(
                try await harness.client.addStub(StubDefinition(method: "GET", path: "/t", status: 204)) == "runtime-1"
            )
            #expect(try harness.app("/t").status == 204)
        }
    }
}
