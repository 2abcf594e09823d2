import Foundation
import MockdTestSupport
import Testing

/// Features that compose (issue 35): an override that edits hands the request on to a stateful resource, a keyed
/// rate limit wraps a resource, a test's runtime patch goes on top of the scenario's, and a placeholder that is a
/// whole JSON value keeps its type. Real daemon, curl.
struct ComposingFeaturesTests {
    static let orders =
        #""resources": [{"name": "orders", "path": "/v1/orders", "seed": {"stub": "GET_v1_orders", "items": "/orders"}}]"#

    static func object(_ response: CurlResponse) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]) ?? [:]
    }

    static func journal(_ daemon: RunningDaemon) throws -> [[String: Any]] {
        object(try Curl.send(CurlRequest(url: daemon.baseURL + "/__mockd/journal")))["entries"] as? [[String: Any]]
            ?? []
    }

    static let json = [("Content-Type", "application/json")]

    @Test func anOverrideSequenceOverAResourceAnswers503ThenTheResourcesAnswer() throws {
        try RunningDaemon.serving(
            #"""
            {"sets": ["shop"], \#(Self.orders),
             "overrides": [
               {"id": "list-flaky", "match": {"method": "GET", "path": "/v1/orders"}, "responses": [{"status": 503}, {}]},
               {"id": "create-flaky", "match": {"method": "POST", "path": "/v1/orders"}, "responses": [{"status": 503}, {}]}
             ]}
            """#
        ) { daemon in
            let base = daemon.baseURL
            let order = Data(#"{"status": "new"}"#.utf8)
            let answers = try Curl.batch([
                CurlRequest(url: base + "/v1/orders"),
                CurlRequest(url: base + "/v1/orders"),
                CurlRequest(method: "POST", url: base + "/v1/orders", headers: Self.json, body: order),
                CurlRequest(method: "POST", url: base + "/v1/orders", headers: Self.json, body: order),
                CurlRequest(url: base + "/v1/orders"),
            ])
            #expect(answers.map(\.status) == [503, 200, 503, 201, 200])
            #expect(
                (Self.object(answers[1])["orders"] as? [[String: Any]])?.map { $0["status"] as? String } == [
                    "shipped", "delivered",
                ]
            )
            // The refused create changed nothing: one order was added, by the second POST.
            #expect(Self.object(answers[3])["id"] as? String == "4522")
            #expect((Self.object(answers[4])["orders"] as? [[String: Any]])?.count == 3)
            let entries = try Self.journal(daemon)
            #expect(
                entries.map { $0["stub"] as? String } == Array(repeating: "list-flaky", count: 2)
                    + Array(repeating: "create-flaky", count: 2) + ["list-flaky"]
            )
            #expect(
                entries.map { $0["edited"] as? [String] ?? [] } == [
                    [], ["resource:orders"], [], ["resource:orders"], ["resource:orders"],
                ]
            )
        }
    }

    @Test func aKeyedRateLimitWrapsAResource() throws {
        try RunningDaemon.serving(
            #"""
            {"sets": ["shop"],
             "resources": [{"name": "accounts", "path": "/v1/accounts", "seed": []}],
             "overrides": [
               {"id": "sign-up-limit", "match": {"method": "POST", "path": "/v1/accounts"},
                "rateLimit": {"limit": 2, "windowMs": 60000, "key": "request.header.X-Device"}, "responses": [{}]}
             ]}
            """#
        ) { daemon in
            let base = daemon.baseURL
            func signUp(_ device: String, _ name: String) -> CurlRequest {
                CurlRequest(
                    method: "POST",
                    url: base + "/v1/accounts",
                    headers: Self.json + [("X-Device", device)],
                    body: Data(#"{"name": "\#(name)"}"#.utf8)
                )
            }
            let answers = try Curl.batch([
                signUp("phone-a", "anna"), signUp("phone-a", "ben"), signUp("phone-a", "carl"),
                signUp("phone-b", "dora"),
                CurlRequest(url: base + "/v1/accounts"),
            ])
            #expect(answers.map(\.status) == [201, 201, 429, 201, 200])
            #expect(answers[2].header("Retry-After") != nil)
            let stored = try JSONSerialization.jsonObject(with: answers[4].body) as? [[String: Any]]
            #expect(stored?.map { $0["name"] as? String } == ["anna", "ben", "dora"])
            #expect(stored?.map { $0["id"] as? Int } == [1, 2, 3])
        }
    }

    @Test func aRuntimeBodyPatchGoesOnTopOfTheScenariosPatch() throws {
        try RunningDaemon.serving(
            #"""
            {"sets": ["chat"], "overrides": [
              {"id": "me-pro", "match": {"method": "GET", "path": "/v1/me"}, "bodyPatch": {"plan": "pro", "unreadTotal": 5},
               "headers": {"X-Plan": "pro"}}
            ]}
            """#
        ) { daemon in
            let base = daemon.baseURL
            let answers = try Curl.batch([
                CurlRequest(url: base + "/v1/me"),
                CurlRequest(
                    method: "POST",
                    url: base + "/__mockd/stubs",
                    body: Data(
                        #"{"match": {"method": "GET", "path": "/v1/me"}, "bodyPatch": {"unreadTotal": 0, "locale": null}}"#
                            .utf8
                    )
                ),
                CurlRequest(url: base + "/v1/me"),
            ])
            #expect(answers.map(\.status) == [200, 201, 200])
            let before = Self.object(answers[0])
            #expect(before["plan"] as? String == "pro")
            #expect(before["unreadTotal"] as? Int == 5)
            let after = Self.object(answers[2])
            #expect(after["plan"] as? String == "pro")
            #expect(after["unreadTotal"] as? Int == 0)
            #expect(after["locale"] == nil)
            #expect(after["displayName"] as? String == "Anna Keller")
            #expect(answers[2].header("X-Plan") == "pro")
            let entries = try Self.journal(daemon)
            #expect(entries.map { $0["stub"] as? String } == ["me-pro", "runtime-1"])
            #expect(entries.map { $0["edited"] as? [String] ?? [] } == [["GET_v1_me"], ["me-pro", "GET_v1_me"]])
        }
    }

    @Test func aPlaceholderThatIsAWholeJSONValueRendersWithItsType() throws {
        try RunningDaemon.serving(
            #"""
            {"sets": ["chat", "shop"], \#(Self.orders), "overrides": [
              {"id": "me-orders", "match": {"method": "GET", "path": "/v1/me"},
               "bodyPatch": {"orders": "{{resources.orders.count}}", "visit": "{{counter}}", "label": "{{resources.orders.count}} orders",
                             "first": "{{resources.orders.4521}}", "firstStatus": "{{resources.orders.4521.status}}"}},
              {"id": "echo", "match": {"method": "POST", "path": "/v1/echo"},
               "body": {"id": "{{request.json.id}}", "tags": "{{request.json.tags}}", "name": "{{request.json.name}}", "orders": "{{resources.orders.count}}"}}
            ]}
            """#
        ) { daemon in
            let base = daemon.baseURL
            let answers = try Curl.batch([
                CurlRequest(url: base + "/v1/me"),
                CurlRequest(
                    method: "POST",
                    url: base + "/v1/orders",
                    headers: Self.json,
                    body: Data(#"{"status": "new"}"#.utf8)
                ),
                CurlRequest(url: base + "/v1/me"),
                CurlRequest(
                    method: "POST",
                    url: base + "/v1/echo",
                    headers: Self.json,
                    body: Data(#"{"id": 42, "tags": ["a", "b"], "name": "Zoë \"Z\""}"#.utf8)
                ),
            ])
            #expect(answers.map(\.status) == [200, 201, 200, 200])
            let first = Self.object(answers[0])
            #expect(first["orders"] as? Int == 2)
            #expect(first["visit"] as? Int == 1)
            #expect(first["label"] as? String == "2 orders")
            #expect((first["first"] as? [String: Any])?["status"] as? String == "shipped")
            #expect(first["firstStatus"] as? String == "shipped")
            let second = Self.object(answers[2])
            #expect(second["orders"] as? Int == 3)
            #expect(second["visit"] as? Int == 2)
            let echo = Self.object(answers[3])
            #expect(echo["id"] as? Int == 42)
            #expect(echo["tags"] as? [String] == ["a", "b"])
            #expect(echo["name"] as? String == #"Zoë "Z""#)
            #expect(echo["orders"] as? Int == 3)
        }
    }

    /// Priority ties: among equal priorities the override listed later answers (the rule, written down), and
    /// `validate` (and one line at start) says which overrides that keeps from answering. One that answers only a share
    /// of calls (`chance`) or in some states keeps nothing from answering.
    @Test func equalPrioritiesGoToTheLaterOverrideAndValidateWarnsAboutWhatItShadows() throws {
        let scenario = #"""
            {"sets": ["chat"], "overrides": [
              {"id": "me-down", "match": {"method": "GET", "path": "/v1/me"}, "status": 503},
              {"id": "catch-all", "match": {"pathPattern": "/v1/.*"}, "status": 500},
              {"id": "send-slow", "match": {"method": "POST", "path": "/v1/conversations/{id}/messages"}, "latency": 1},
              {"id": "important", "priority": 1, "match": {"method": "GET", "path": "/v1/conversations"}, "status": 418},
              {"id": "avatar", "priority": 1, "match": {"method": "GET", "path": "/v1/users/u_olga/avatar.png"}, "status": 410},
              {"id": "sometimes", "priority": 1, "chance": 0.5, "match": {"path": "/v1/users/{id}/avatar.png"}, "status": 404}
            ]}
            """#
        let root = try Paths.makeRoot(scenario: scenario)
        defer { try? FileManager.default.removeItem(at: root) }
        let validated = try ProcessRunner.mockd(["validate", "--config", "s", "--root", root.path])
        #expect(validated.status == 0)
        #expect(validated.stdout == "ok: configs/s.json: sets chat; 8 stubs, 6 overrides\n")
        #expect(
            validated.stderr.split(separator: "\n") == [
                "warning: configs/s.json: overrides[0] ('me-down'): can never answer: overrides[1] ('catch-all'), listed later with the same priority (0), matches every request it matches and wins the tie; give 'me-down' a higher priority or list it after",
                "warning: configs/s.json: overrides[1] ('catch-all'): overrides[2] ('send-slow'), listed later with the same priority (0), also matches some of its requests (such as POST /v1/conversations/1/messages) and answers them: the later of equal priorities wins; give one a higher priority if that is not meant",
            ]
        )
        let daemon = try RunningDaemon(["--config", "s", "--root", root.path, "--port", "0"])
        let base = daemon.baseURL
        let answers = try Curl.batch([
            CurlRequest(url: base + "/v1/me"),
            CurlRequest(
                method: "POST",
                url: base + "/v1/conversations/c_1001/messages",
                headers: Self.json,
                body: Data(#"{"text": "hi"}"#.utf8)
            ),
            CurlRequest(url: base + "/v1/conversations"),
            CurlRequest(url: base + "/v1/conversations/c_1001/messages?limit=20"),
        ])
        #expect(answers.map(\.status) == [500, 201, 418, 500])
        let stopped = daemon.stop()
        #expect(
            stopped.stderr.contains(
                "mockd: warning: 2 overrides can never answer or lose requests to a later one of the same priority; mockd validate --config s lists them\n"
            ),
            "\(stopped.stderr)"
        )
    }
}
