import Foundation
import MockdTestSupport
import Testing

@testable import MockdCore

/// The control API in process: the engine over the bundled `chat_happy_path` (as `mockd --config chat_happy_path`
/// serves it), driven through `InProcessClient`, so no daemon, socket or curl. What needs the socket (the token on
/// the wire, sessions across connections, held requests) is in MockdCLITests' `ControlAPILiveTests`.
struct ControlAPITests {
    /// The engine `mockd --config NAME --root ROOT` builds: the scenario, its catalog for switching, a reload
    /// from disk.
    static func client(
        _ config: String = "chat_happy_path",
        root url: URL = Paths.packageRoot
    ) throws -> InProcessClient {
        let root = MockdRoot(url: url)
        let engine = MockEngine(scenario: try Scenario.load(named: config, root: root), root: root) {
            try Scenario.load(named: config, root: root)
        }
        return InProcessClient(engine)
    }

    static let sendBody = Data(#"{"text": "Hi, my order #4521 has not arrived yet", "clientMessageId": "cm-1"}"#.utf8)

    @Test func healthAndScenarioListing() throws {
        let client = try Self.client()
        let health = try client.control("GET", "health")
        #expect(health.status == 200)
        #expect(health.header("Content-Type") == "application/json; charset=utf-8")
        let body = health.json
        #expect(body["status"] as? String == "ok")
        #expect(body["version"] as? String == "0.1.0")
        #expect(body["scenario"] as? String == "chat_happy_path")
        #expect((body["uptimeSeconds"] as? Double).map { $0 >= 0 } == true)
        let scenarios = try client.control("GET", "scenarios").json
        let list = try #require(scenarios["scenarios"] as? [[String: Any]])
        #expect(
            list.map { $0["name"] as? String } == [
                "auth_sms_code", "chat_connection_drops", "chat_happy_path", "chat_live_receipts", "chat_operator_slow",
                "chat_send_fails", "order_status_error_500",
            ]
        )
        #expect(list.filter { $0["active"] as? Bool == true }.map { $0["name"] as? String } == ["chat_happy_path"])
    }

    @Test func sixtyFourClientsOnOneSessionGetEachStepOnceAndSessionsKeepSeparateCursors() throws {
        let client = try Self.client()
        let steps = (1...64).map { #"{"status": 200, "body": "step-\#($0)"}"# }.joined(separator: ",")
        for session in ["a", "b"] {
            let added = try client.control(
                "POST",
                "stubs",
                session: session,
                body: #"{"id": "poll", "match": {"path": "/poll"}, "afterLast": "notFound", "responses": [\#(steps)]}"#
            )
            #expect(added.status == 201)
        }
        let requests =
            (0..<64).map { _ in ClientRequest("GET", "/poll", headers: [("X-Mockd-Session", "a")]) }
            + (0..<10).map { _ in ClientRequest("GET", "/__session/b/poll") }
        let responses = try client.parallel(requests)
        #expect(Set(responses.prefix(64).map(\.text)) == Set((1...64).map { "step-\($0)" }))
        #expect(Set(responses.suffix(10).map(\.text)) == Set((1...10).map { "step-\($0)" }))
        #expect(
            try client.send(ClientRequest("GET", "/poll", headers: [("Cookie", "theme=dark; mockd_session=a")])).status
                == 404
        )
    }

    @Test func noJournalEntryIsLostUnderLoad() throws {
        let client = try Self.client()
        var requests: [ClientRequest] = []
        for index in 0..<1500 {
            let session = index % 3 == 0 ? "load-a" : index % 3 == 1 ? "load-b" : "load-c"
            let target = index % 5 == 0 ? "/v1/missing/\(index)" : "/v1/me"
            requests.append(ClientRequest("GET", target, headers: [("X-Mockd-Session", session)]))
        }
        let responses = try client.parallel(requests)
        #expect(responses.filter { $0.status == 200 }.count == 1200)
        #expect(responses.filter { $0.status == 404 }.count == 300)
        for session in ["load-a", "load-b", "load-c"] {
            let journal = try client.control("GET", "journal", session: session).json
            #expect(journal["count"] as? Int == 500)
            #expect(journal["dropped"] as? Int == 0)
            let sequences = ((journal["entries"] as? [[String: Any]]) ?? []).compactMap { $0["sequence"] as? Int }
            #expect(sequences == Array(1...500))
            let unmatched = try client.control("GET", "journal?unmatched=true", session: session).json
            #expect(unmatched["count"] as? Int == 100)
        }
    }

    @Test func runtimeStubsAddListGetDeleteAndReset() throws {
        let client = try Self.client()
        let me = ClientRequest("GET", "/v1/me", headers: [("X-Mockd-Session", "t")])
        let added = try client.control(
            "POST",
            "stubs",
            session: "t",
            body: #"{"match": {"method": "GET", "path": "/v1/me"}, "bodyPatch": {"plan": "free"}}"#
        )
        #expect(added.status == 201)
        #expect(added.json["id"] as? String == "runtime-1")
        #expect(try client.send(me).json["plan"] as? String == "free")
        let listed = try client.control("GET", "stubs", session: "t").json
        #expect(((listed["stubs"] as? [[String: Any]]) ?? []).map { $0["id"] as? String } == ["runtime-1"])
        let one = try client.control("GET", "stubs/runtime-1", session: "t").json
        #expect(((one["definition"] as? [String: Any])?["bodyPatch"] as? [String: Any])?["plan"] as? String == "free")
        #expect(try client.control("DELETE", "stubs/runtime-1", session: "t").status == 204)
        #expect(try client.control("DELETE", "stubs/runtime-1", session: "t").status == 404)
        #expect(try client.send(me).json["plan"] as? String == "plus")
        _ = try client.control(
            "POST",
            "stubs",
            session: "t",
            body: #"{"id": "teapot", "match": {"path": "/v1/me"}, "status": 418}"#
        )
        #expect(try client.send(me).status == 418)
        #expect(try client.control("DELETE", "stubs", session: "t").status == 204)
        #expect(try client.send(me).status == 200)
        let before = try client.control("GET", "journal", session: "t").json["count"] as? Int
        #expect(before == 4)
        #expect(try client.control("POST", "reset", session: "t").json["reset"] as? String == "t")
        #expect(try client.control("GET", "journal", session: "t").json["count"] as? Int == 0)
    }

    @Test func switchingScenarioResetsCounters() throws {
        let client = try Self.client()
        let poll = ClientRequest(
            "GET",
            "/v1/conversations/c_1001/updates?after=m_1003",
            headers: [("X-Mockd-Session", "s")]
        )
        let first = try client.batch([poll, poll]).map { $0.json["typing"] as? Bool }
        #expect(first == [false, true])
        #expect(
            try client.control("PUT", "scenario", session: "s", body: #"{"name": "chat_happy_path"}"#).status == 200
        )
        #expect(try client.send(poll).json["typing"] as? Bool == false)
    }

    @Test func unmatchedAndVerifyExplainWhatHappened() throws {
        let client = try Self.client()
        _ = try client.batch([
            ClientRequest("GET", "/v1/conversations/c_1001/messages?limit=50", headers: [("X-Mockd-Session", "v")]),
            ClientRequest("GET", "/v1/me", headers: [("X-Mockd-Session", "v")]),
        ])
        let unmatched = try client.control("GET", "unmatched", session: "v").json
        let requests = try #require(unmatched["requests"] as? [[String: Any]])
        try #require(requests.count == 1)
        #expect(requests[0]["target"] as? String == "/v1/conversations/c_1001/messages?limit=50")
        let nearest = try #require((requests[0]["nearMisses"] as? [[String: Any]])?.first)
        #expect(nearest["stub"] as? String == "GET_v1_conversations_c_1001_messages__limit-20")
        #expect(
            (nearest["differs"] as? [[String: String]]) == [
                ["part": "query", "expected": "limit=20", "actual": "limit=50"]
            ]
        )

        let ok = try client.control(
            "POST",
            "verify",
            session: "v",
            body: #"{"method": "GET", "path": "/v1/me", "count": 1}"#
        )
        #expect(ok.status == 200)
        #expect(ok.json["count"] as? Int == 1)
        let failed = try client.control(
            "POST",
            "verify",
            session: "v",
            body: #"{"method": "POST", "path": "/v1/auth/sign-in", "count": 1}"#
        )
        #expect(failed.status == 409)
        let evidence = failed.json
        #expect(evidence["error"] as? String == "verification_failed")
        #expect(evidence["message"] as? String == "expected exactly 1 POST /v1/auth/sign-in, journal has 0")
        #expect(evidence["journalCount"] as? Int == 2)
    }

    @Test func journalHARIsAValidHARThatMockdCanImport() throws {
        let client = try Self.client()
        _ = try client.batch([
            ClientRequest("GET", "/v1/users/u_olga/avatar.png", headers: [("X-Mockd-Session", "h")]),
            ClientRequest(
                "POST",
                "/v1/conversations/c_1001/messages",
                headers: [("Content-Type", "application/json"), ("X-Mockd-Session", "h")],
                body: Self.sendBody
            ),
        ])
        let har = try client.control("GET", "journal.har", session: "h")
        #expect(har.status == 200)
        let archive = try HARReader.parse(har.body, fileName: "journal.har")
        #expect(archive.creator == "mockd 0.1.0")
        #expect(archive.entries.map(\.request.method) == ["GET", "POST"])
        #expect(archive.entries.map { $0.response?.status } == [200, 201])
        #expect(archive.entries[0].response?.content.encoding == "base64")
        let png = try Data(
            contentsOf: Paths.packageRoot.appendingPathComponent("mocks/chat/bodies/GET_v1_users_u_olga_avatar.png")
        )
        #expect(Data(base64Encoded: archive.entries[0].response?.content.text ?? "") == png)
        #expect(archive.entries[1].request.postData?.text == String(decoding: Self.sendBody, as: UTF8.self))
    }

    @Test func controlErrorsAreJSONWith4xx() throws {
        let client = try Self.client()
        let cases: [(String, String, String?, Int, String)] = [
            ("GET", "nope", nil, 404, "not_found"),
            ("DELETE", "health", nil, 405, "method_not_allowed"),
            ("PUT", "scenario", "{", 400, "bad_request"),
            ("PUT", "scenario", #"{"name": "does_not_exist"}"#, 404, "unknown_scenario"),
            ("POST", "stubs", #"{"match": {"path": "/x"}, "status": 42}"#, 400, "invalid_stub"),
            ("POST", "stubs", #"{"match": {"path": "/x"}, "latancy": 5}"#, 400, "invalid_stub"),
            ("POST", "stubs", "[]", 400, "invalid_stub"),
            ("POST", "verify", #"{"path": "/x"}"#, 400, "bad_request"),
            ("GET", "stubs/missing", nil, 404, "unknown_stub"),
        ]
        for (method, path, body, status, code) in cases {
            let response = try client.control(method, path, body: body)
            #expect(response.status == status, "\(method) \(path)")
            #expect(response.json["error"] as? String == code, "\(method) \(path): \(response.text)")
            #expect(response.json["message"] is String)
        }
        let typo = try client.control("POST", "stubs", body: #"{"match": {"path": "/x"}, "latancy": 5}"#).json
        #expect(typo["message"] as? String == #"stub: latancy: unknown field (did you mean "latency"?)"#)
        let bad = try client.send(ClientRequest("GET", "/v1/me", headers: [("X-Mockd-Session", "no spaces allowed")]))
        #expect(bad.status == 400)
        #expect(try client.control("GET", "health").status == 200)
    }

    @Test func hostileStubValuesAreRefusedBeforeTheyCanHurt() throws {
        let client = try Self.client()
        let cases: [(String, String)] = [
            (#"{"match": {"path": "/x"}, "body": "x", "latency": 1e14}"#, "stub: latency: must be within 0–3600000 ms"),
            (
                #"{"match": {"path": "/x"}, "hold": {"timeoutMs": 1e14}}"#,
                "stub: hold.timeoutMs: must be within 1–3600000 ms"
            ),
            (
                #"{"match": {"path": "/x"}, "latency": {"median": 1, "sigma": 1000}}"#,
                "stub: latency: median must be within 0–3600000 ms and sigma within 0–5"
            ),
            (
                #"{"match": {"path": "/x"}, "throttle": 9223372036854775807}"#,
                "stub: throttle: at most 1000000000 bytes per second"
            ),
            (
                #"{"match": {"path": "/x"}, "headers": {"X-A": "a\r\nSet-Cookie: evil=1"}}"#,
                "stub: headers.X-A: a header value cannot contain CR, LF or NUL"
            ),
            (
                #"{"match": {"path": "/x"}, "serverUnavailable": {"retryAfter": -1}}"#,
                "stub: serverUnavailable.retryAfter: must be ≥ 0 s"
            ),
        ]
        for (stub, message) in cases {
            let response = try client.control("POST", "stubs", body: stub)
            #expect(response.status == 400, "\(stub)")
            #expect(response.json["message"] as? String == message, "\(response.text)")
        }
        #expect(try client.send(ClientRequest("GET", "/v1/me")).status == 200)
    }
}

/// Routes that change or list daemon-wide state, in process.
struct ControlAPIStateTests {
    @Test func currentScenarioSessionsAndReloadOverHTTP() throws {
        let root = try Paths.makeRoot(
            scenario: #"{"sets": ["chat"], "overrides": [{"match": {"path": "/v1/me"}, "status": 418}]}"#
        )
        defer { try? FileManager.default.removeItem(at: root) }
        let client = try ControlAPITests.client("s", root: root)
        #expect(try client.control("GET", "journal", session: "typo").status == 200)
        #expect(try client.control("PUT", "scenario", session: "x", body: #"{"name": "s"}"#).status == 200)
        let current = try client.control("GET", "scenario", session: "x").json
        #expect(current["name"] as? String == "s")
        #expect(current["session"] as? String == "x")
        let sessions = try client.control("GET", "sessions").json
        // Reading the unknown session "typo" did not create it.
        #expect(((sessions["sessions"] as? [[String: Any]]) ?? []).map { $0["id"] as? String } == ["default", "x"])

        try #"{"sets": ["chat"], "overrides": [{"match": {"path": "/v1/me"}, "status": 451}]}"#
            .write(to: root.appendingPathComponent("configs/s.json"), atomically: true, encoding: .utf8)
        _ = try client.control(
            "POST",
            "stubs",
            session: "x",
            body: #"{"id": "keep", "match": {"path": "/kept"}, "status": 202}"#
        )
        let reloaded = try client.control("POST", "reload")
        #expect(reloaded.status == 200)
        // Runtime stubs survive a reload.
        #expect(try client.send(ClientRequest("GET", "/kept", headers: [("X-Mockd-Session", "x")])).status == 202)
        #expect(reloaded.json["overrides"] as? Int == 1)
        #expect(try client.send(ClientRequest("GET", "/v1/me")).status == 451)

        let broken =
            #"{"sets": ["chat", "nope"], "overrides": [{"match": {"path": "x"}, "latency": {"min": 5, "max": 1}}]}"#
        try broken.write(to: root.appendingPathComponent("configs/s.json"), atomically: true, encoding: .utf8)
        let refused = try client.control("POST", "reload")
        #expect(refused.status == 422)
        #expect(
            (refused.json["message"] as? String)?.contains("overrides[0].match.path: must start with '/' (got 'x')")
                == true
        )
        #expect(try client.send(ClientRequest("GET", "/v1/me")).status == 451)
    }
}

/// A runtime stub whose body is not UTF-8 is refused with a message that says so (issue 24: the 400 named
/// `match.path: expected an object`).
struct RuntimeStubEncodingTests {
    @Test func bodyThatIsNotUTF8IsRefusedSayingSo() throws {
        let client = try ControlAPITests.client()
        var body = Data(#"{"match": {"path": "/caf"#.utf8)
        body.append(contentsOf: [0xE9, 0x22, 0x7D, 0x2C, 0x20])
        body.append(Data(#""status": 200}"#.utf8))
        let answer = try client.send(
            ClientRequest("POST", "/__mockd/stubs", headers: [("Content-Type", "application/json")], body: body)
        )
        #expect(answer.status == 400)
        #expect(answer.json["error"] as? String == "invalid_stub")
        #expect(
            answer.json["message"] as? String
                == "stub: the body is not valid UTF-8 (byte 24); send the stub as JSON in UTF-8 (RFC 8259 §8.1)"
        )
    }
}
