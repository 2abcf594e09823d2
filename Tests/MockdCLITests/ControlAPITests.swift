import Foundation
import MockdTestSupport
import Testing

@testable import MockdCore

/// The control API and sessions on the real daemon, driven with curl as any test runner would.
struct ControlAPITests {
    static func daemon(_ extra: [String] = []) throws -> RunningDaemon {
        try RunningDaemon(["--config", "chat_happy_path", "--root", Paths.packageRoot.path, "--port", "0", "--quiet"] + extra)
    }

    static func json(_ response: CurlResponse) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]) ?? [:]
    }

    static func control(_ daemon: RunningDaemon, _ method: String, _ path: String, session: String? = nil, body: String? = nil) throws -> CurlResponse {
        var headers: [(String, String)] = []
        if let session { headers.append(("X-Mockd-Session", session)) }
        if body != nil { headers.append(("Content-Type", "application/json")) }
        return try Curl.send(CurlRequest(method: method, url: daemon.baseURL + "/__mockd/" + path, headers: headers, body: body.map { Data($0.utf8) }))
    }

    static let sendBody = Data(#"{"text": "Hi, my order #4521 has not arrived yet", "clientMessageId": "cm-1"}"#.utf8)

    @Test func healthAndScenarioListing() throws {
        let daemon = try Self.daemon()
        defer { daemon.stop() }
        let health = try Self.control(daemon, "GET", "health")
        #expect(health.status == 200)
        #expect(health.header("Content-Type") == "application/json; charset=utf-8")
        let body = Self.json(health)
        #expect(body["status"] as? String == "ok")
        #expect(body["version"] as? String == "0.1.0")
        #expect(body["scenario"] as? String == "chat_happy_path")
        #expect((body["uptimeSeconds"] as? Double).map { $0 >= 0 } == true)
        let scenarios = Self.json(try Self.control(daemon, "GET", "scenarios"))
        let list = try #require(scenarios["scenarios"] as? [[String: Any]])
        #expect(list.map { $0["name"] as? String } == ["auth_sms_code", "chat_connection_drops", "chat_happy_path", "chat_operator_slow", "chat_send_fails", "order_status_error_500"])
        #expect(list.filter { $0["active"] as? Bool == true }.map { $0["name"] as? String } == ["chat_happy_path"])
    }

    @Test func twoSessionsInParallelWithDifferentScenariosNeverMix() throws {
        let daemon = try Self.daemon()
        defer { daemon.stop() }
        #expect(try Self.control(daemon, "PUT", "scenario", session: "ios-1", body: #"{"name": "chat_send_fails"}"#).status == 200)
        #expect(try Self.control(daemon, "PUT", "scenario", session: "ios-2", body: #"{"name": "order_status_error_500"}"#).status == 200)
        let send = { (session: String) in
            CurlRequest(method: "POST", url: daemon.baseURL + "/v1/conversations/c_1001/messages",
                        headers: [("Content-Type", "application/json"), ("X-Mockd-Session", session)], body: Self.sendBody)
        }
        let order = { (session: String) in CurlRequest(url: daemon.baseURL + "/v1/orders/4521", headers: [("X-Mockd-Session", session)]) }
        let responses = try Curl.parallel([send("ios-1"), send("ios-2"), order("ios-1"), order("ios-2")])
        #expect(responses.map(\.status) == [503, 201, 200, 500])
        let journal1 = Self.json(try Self.control(daemon, "GET", "journal", session: "ios-1"))
        let journal2 = Self.json(try Self.control(daemon, "GET", "journal", session: "ios-2"))
        #expect(journal1["count"] as? Int == 2)
        #expect(journal2["count"] as? Int == 2)
        let stubs1 = Set(((journal1["entries"] as? [[String: Any]]) ?? []).compactMap { $0["stub"] as? String })
        #expect(stubs1 == ["send-503-then-ok", "GET_v1_orders_4521"])
        // The default session saw none of it.
        #expect(Self.json(try Self.control(daemon, "GET", "journal"))["count"] as? Int == 0)
    }

    @Test func sixtyFourClientsOnOneSessionGetEachStepOnceAndSessionsKeepSeparateCursors() throws {
        let daemon = try Self.daemon()
        defer { daemon.stop() }
        let steps = (1...64).map { #"{"status": 200, "body": "step-\#($0)"}"# }.joined(separator: ",")
        for session in ["a", "b"] {
            let added = try Self.control(daemon, "POST", "stubs", session: session, body: #"{"id": "poll", "match": {"path": "/poll"}, "afterLast": "notFound", "responses": [\#(steps)]}"#)
            #expect(added.status == 201)
        }
        let requests = (0..<64).map { _ in CurlRequest(url: daemon.baseURL + "/poll", headers: [("X-Mockd-Session", "a")]) }
            + (0..<10).map { _ in CurlRequest(url: daemon.baseURL + "/__session/b/poll") }
        let responses = try Curl.parallel(requests)
        #expect(Set(responses.prefix(64).map(\.text)) == Set((1...64).map { "step-\($0)" }))
        #expect(Set(responses.suffix(10).map(\.text)) == Set((1...10).map { "step-\($0)" }))
        #expect(try Curl.send(CurlRequest(url: daemon.baseURL + "/poll", headers: [("Cookie", "theme=dark; mockd_session=a")])).status == 404)
    }

    @Test func noJournalEntryIsLostUnderLoad() throws {
        let daemon = try Self.daemon()
        defer { daemon.stop() }
        var requests: [CurlRequest] = []
        for index in 0..<1500 {
            let session = index % 3 == 0 ? "load-a" : index % 3 == 1 ? "load-b" : "load-c"
            let target = index % 5 == 0 ? "/v1/missing/\(index)" : "/v1/me"
            requests.append(CurlRequest(url: daemon.baseURL + target, headers: [("X-Mockd-Session", session)]))
        }
        let responses = try Curl.parallel(requests)
        #expect(responses.filter { $0.status == 200 }.count == 1200)
        #expect(responses.filter { $0.status == 404 }.count == 300)
        for session in ["load-a", "load-b", "load-c"] {
            let journal = Self.json(try Self.control(daemon, "GET", "journal", session: session))
            #expect(journal["count"] as? Int == 500)
            #expect(journal["dropped"] as? Int == 0)
            let sequences = ((journal["entries"] as? [[String: Any]]) ?? []).compactMap { $0["sequence"] as? Int }
            #expect(sequences == Array(1...500))
            let unmatched = Self.json(try Self.control(daemon, "GET", "journal?unmatched=true", session: session))
            #expect(unmatched["count"] as? Int == 100)
        }
    }

    @Test func runtimeStubsAddListGetDeleteAndReset() throws {
        let daemon = try Self.daemon()
        defer { daemon.stop() }
        let me = CurlRequest(url: daemon.baseURL + "/v1/me", headers: [("X-Mockd-Session", "t")])
        let added = try Self.control(daemon, "POST", "stubs", session: "t", body: #"{"match": {"method": "GET", "path": "/v1/me"}, "bodyPatch": {"plan": "free"}}"#)
        #expect(added.status == 201)
        #expect(Self.json(added)["id"] as? String == "runtime-1")
        #expect(Self.json(try Curl.send(me))["plan"] as? String == "free")
        let listed = Self.json(try Self.control(daemon, "GET", "stubs", session: "t"))
        #expect(((listed["stubs"] as? [[String: Any]]) ?? []).map { $0["id"] as? String } == ["runtime-1"])
        let one = Self.json(try Self.control(daemon, "GET", "stubs/runtime-1", session: "t"))
        #expect(((one["definition"] as? [String: Any])?["bodyPatch"] as? [String: Any])?["plan"] as? String == "free")
        #expect(try Self.control(daemon, "DELETE", "stubs/runtime-1", session: "t").status == 204)
        #expect(try Self.control(daemon, "DELETE", "stubs/runtime-1", session: "t").status == 404)
        #expect(Self.json(try Curl.send(me))["plan"] as? String == "plus")
        _ = try Self.control(daemon, "POST", "stubs", session: "t", body: #"{"id": "teapot", "match": {"path": "/v1/me"}, "status": 418}"#)
        #expect(try Curl.send(me).status == 418)
        #expect(try Self.control(daemon, "DELETE", "stubs", session: "t").status == 204)
        #expect(try Curl.send(me).status == 200)
        let before = Self.json(try Self.control(daemon, "GET", "journal", session: "t"))["count"] as? Int
        #expect(before == 4)
        #expect(Self.json(try Self.control(daemon, "POST", "reset", session: "t"))["reset"] as? String == "t")
        #expect(Self.json(try Self.control(daemon, "GET", "journal", session: "t"))["count"] as? Int == 0)
    }

    @Test func switchingScenarioResetsCounters() throws {
        let daemon = try Self.daemon()
        defer { daemon.stop() }
        let poll = CurlRequest(url: daemon.baseURL + "/v1/conversations/c_1001/updates?after=m_1003", headers: [("X-Mockd-Session", "s")])
        let first = try Curl.batch([poll, poll]).map { Self.json($0)["typing"] as? Bool }
        #expect(first == [false, true])
        #expect(try Self.control(daemon, "PUT", "scenario", session: "s", body: #"{"name": "chat_happy_path"}"#).status == 200)
        #expect(Self.json(try Curl.send(poll))["typing"] as? Bool == false)
    }

    @Test func unmatchedAndVerifyExplainWhatHappened() throws {
        let daemon = try Self.daemon()
        defer { daemon.stop() }
        _ = try Curl.batch([
            CurlRequest(url: daemon.baseURL + "/v1/conversations/c_1001/messages?limit=50", headers: [("X-Mockd-Session", "v")]),
            CurlRequest(url: daemon.baseURL + "/v1/me", headers: [("X-Mockd-Session", "v")]),
        ])
        let unmatched = Self.json(try Self.control(daemon, "GET", "unmatched", session: "v"))
        let requests = try #require(unmatched["requests"] as? [[String: Any]])
        #expect(requests.count == 1)
        #expect(requests[0]["target"] as? String == "/v1/conversations/c_1001/messages?limit=50")
        let nearest = try #require((requests[0]["nearMisses"] as? [[String: Any]])?.first)
        #expect(nearest["stub"] as? String == "GET_v1_conversations_c_1001_messages__limit-20")
        #expect((nearest["differs"] as? [[String: String]]) == [["part": "query", "expected": "limit=20", "actual": "limit=50"]])

        let ok = try Self.control(daemon, "POST", "verify", session: "v", body: #"{"method": "GET", "path": "/v1/me", "count": 1}"#)
        #expect(ok.status == 200)
        #expect(Self.json(ok)["count"] as? Int == 1)
        let failed = try Self.control(daemon, "POST", "verify", session: "v", body: #"{"method": "POST", "path": "/v1/auth/sign-in", "count": 1}"#)
        #expect(failed.status == 409)
        let evidence = Self.json(failed)
        #expect(evidence["error"] as? String == "verification_failed")
        #expect(evidence["message"] as? String == "expected exactly 1 POST /v1/auth/sign-in, journal has 0")
        #expect(evidence["journalCount"] as? Int == 2)
    }

    @Test func journalHARIsAValidHARThatMockdCanImport() throws {
        let daemon = try Self.daemon()
        defer { daemon.stop() }
        _ = try Curl.batch([
            CurlRequest(url: daemon.baseURL + "/v1/users/u_olga/avatar.png", headers: [("X-Mockd-Session", "h")]),
            CurlRequest(method: "POST", url: daemon.baseURL + "/v1/conversations/c_1001/messages",
                        headers: [("Content-Type", "application/json"), ("X-Mockd-Session", "h")], body: Self.sendBody),
        ])
        let har = try Self.control(daemon, "GET", "journal.har", session: "h")
        #expect(har.status == 200)
        let archive = try HARReader.parse(har.body, fileName: "journal.har")
        #expect(archive.creator == "mockd 0.1.0")
        #expect(archive.entries.map(\.request.method) == ["GET", "POST"])
        #expect(archive.entries.map { $0.response?.status } == [200, 201])
        #expect(archive.entries[0].response?.content.encoding == "base64")
        let png = try Data(contentsOf: Paths.packageRoot.appendingPathComponent("mocks/chat/bodies/GET_v1_users_u_olga_avatar.png"))
        #expect(Data(base64Encoded: archive.entries[0].response?.content.text ?? "") == png)
        #expect(archive.entries[1].request.postData?.text == String(decoding: Self.sendBody, as: UTF8.self))
    }

    @Test func controlErrorsAreJSONWith4xx() throws {
        let daemon = try Self.daemon()
        defer { daemon.stop() }
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
            let response = try Self.control(daemon, method, path, body: body)
            #expect(response.status == status, "\(method) \(path)")
            #expect(Self.json(response)["error"] as? String == code, "\(method) \(path): \(response.text)")
            #expect(Self.json(response)["message"] is String)
        }
        let typo = Self.json(try Self.control(daemon, "POST", "stubs", body: #"{"match": {"path": "/x"}, "latancy": 5}"#))
        #expect(typo["message"] as? String == #"stub: latancy: unknown field (did you mean "latency"?)"#)
        let bad = try Curl.send(CurlRequest(url: daemon.baseURL + "/v1/me", headers: [("X-Mockd-Session", "no spaces allowed")]))
        #expect(bad.status == 400)
        #expect(try Self.control(daemon, "GET", "health").status == 200)
    }

    @Test func hostileStubValuesAreRefusedBeforeTheyCanHurt() throws {
        let daemon = try Self.daemon()
        defer { daemon.stop() }
        let cases: [(String, String)] = [
            (#"{"match": {"path": "/x"}, "body": "x", "latency": 1e14}"#, "stub: latency: must be within 0–3600000 ms"),
            (#"{"match": {"path": "/x"}, "hold": {"timeoutMs": 1e14}}"#, "stub: hold.timeoutMs: must be within 1–3600000 ms"),
            (#"{"match": {"path": "/x"}, "latency": {"median": 1, "sigma": 1000}}"#, "stub: latency: median must be within 0–3600000 ms and sigma within 0–5"),
            (#"{"match": {"path": "/x"}, "throttle": 9223372036854775807}"#, "stub: throttle: at most 1000000000 bytes per second"),
            (#"{"match": {"path": "/x"}, "headers": {"X-A": "a\r\nSet-Cookie: evil=1"}}"#, "stub: headers.X-A: a header value cannot contain CR, LF or NUL"),
            (#"{"match": {"path": "/x"}, "serverUnavailable": {"retryAfter": -1}}"#, "stub: serverUnavailable.retryAfter: must be ≥ 0 s"),
        ]
        for (stub, message) in cases {
            let response = try Self.control(daemon, "POST", "stubs", body: stub)
            #expect(response.status == 400, "\(stub)")
            #expect(Self.json(response)["message"] as? String == message, "\(response.text)")
        }
        #expect(try Curl.send(CurlRequest(url: daemon.baseURL + "/v1/me")).status == 200)
    }

    @Test func clientsThatLeaveHeldRequestsAreFreedWithinSeconds() throws {
        let daemon = try Self.daemon()
        defer { daemon.stop() }
        let added = try Self.control(daemon, "POST", "stubs", body: #"{"match": {"path": "/hang"}, "fault": "noResponse"}"#)
        #expect(added.status == 201)
        let descriptors = { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(daemon.process.processIdentifier)/fd").count) ?? 0 }
        let before = descriptors()
        let jobs = (0..<20).map { _ in BackgroundJob.start { try? Curl.run(["--max-time", "0.5", daemon.baseURL + "/hang"]) } }
        let results = jobs.map { $0.value() }
        #expect(results.allSatisfy { $0?.status == 28 })
        try? waitUntil(timeout: 4, "the descriptors to be freed") { descriptors() <= before + 2 }
        let after = descriptors()
        #expect(after <= before + 2, "descriptors: \(before) before, \(after) after the clients left")
        #expect(try Curl.send(CurlRequest(url: daemon.baseURL + "/v1/me")).status == 200)
    }

    @Test func controlTokenIsRequiredWhenSet() throws {
        let daemon = try Self.daemon(["--control-token", "s3cret"])
        defer { daemon.stop() }
        let denied = try Self.control(daemon, "GET", "health")
        #expect(denied.status == 401)
        #expect(Self.json(denied)["error"] as? String == "unauthorized")
        let allowed = try Curl.send(CurlRequest(url: daemon.baseURL + "/__mockd/health", headers: [("Authorization", "Bearer s3cret")]))
        #expect(allowed.status == 200)
        // App traffic never needs the token.
        #expect(try Curl.send(CurlRequest(url: daemon.baseURL + "/v1/me")).status == 200)
    }

    @Test func nonLoopbackWithoutTokenWarnsAtStart() throws {
        let daemon = try RunningDaemon(["--set", "chat", "--root", Paths.packageRoot.path, "--host", "0.0.0.0", "--port", "0", "--quiet"])
        let stopped = daemon.stop()
        #expect(stopped.stderr.contains("mockd: warning: listening on 0.0.0.0, reachable from other machines, and the control API (/__mockd/) has no --control-token"))
    }
}

/// Routes that change or list daemon-wide state.
struct ControlAPIStateTests {
    @Test func currentScenarioSessionsAndReloadOverHTTP() throws {
        let root = try ScenarioFileErrorTests.root(#"{"sets": ["chat"], "overrides": [{"match": {"path": "/v1/me"}, "status": 418}]}"#)
        defer { try? FileManager.default.removeItem(at: root) }
        let daemon = try RunningDaemon(["--config", "s", "--root", root.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        #expect(try ControlAPITests.control(daemon, "GET", "journal", session: "typo").status == 200)
        #expect(try ControlAPITests.control(daemon, "PUT", "scenario", session: "x", body: #"{"name": "s"}"#).status == 200)
        let current = ControlAPITests.json(try ControlAPITests.control(daemon, "GET", "scenario", session: "x"))
        #expect(current["name"] as? String == "s")
        #expect(current["session"] as? String == "x")
        let sessions = ControlAPITests.json(try ControlAPITests.control(daemon, "GET", "sessions"))
        // Reading the unknown session "typo" did not create it.
        #expect(((sessions["sessions"] as? [[String: Any]]) ?? []).map { $0["id"] as? String } == ["default", "x"])

        try #"{"sets": ["chat"], "overrides": [{"match": {"path": "/v1/me"}, "status": 451}]}"#
            .write(to: root.appendingPathComponent("configs/s.json"), atomically: true, encoding: .utf8)
        _ = try ControlAPITests.control(daemon, "POST", "stubs", session: "x", body: #"{"id": "keep", "match": {"path": "/kept"}, "status": 202}"#)
        let reloaded = try ControlAPITests.control(daemon, "POST", "reload")
        #expect(reloaded.status == 200)
        // Runtime stubs survive a reload.
        #expect(try Curl.send(CurlRequest(url: daemon.baseURL + "/kept", headers: [("X-Mockd-Session", "x")])).status == 202)
        #expect(ControlAPITests.json(reloaded)["overrides"] as? Int == 1)
        #expect(try Curl.send(CurlRequest(url: daemon.baseURL + "/v1/me")).status == 451)

        try ScenarioFileErrorTests.broken.write(to: root.appendingPathComponent("configs/s.json"), atomically: true, encoding: .utf8)
        let refused = try ControlAPITests.control(daemon, "POST", "reload")
        #expect(refused.status == 422)
        #expect((ControlAPITests.json(refused)["message"] as? String)?.contains("overrides[0].match.path: must start with '/' (got 'x')") == true)
        #expect(try Curl.send(CurlRequest(url: daemon.baseURL + "/v1/me")).status == 451)
    }
}
