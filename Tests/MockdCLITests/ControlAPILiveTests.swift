import Foundation
import MockdPlatform
import MockdTestSupport
import Testing

/// The control API where the socket matters, on the real daemon over curl (`LiveClient`): sessions kept apart
/// across parallel connections, the control token, the start-up warning, and (`TimingControlAPILiveTests`) held
/// requests whose clients leave.
/// Its semantics are tested in process, in MockdCoreTests' `ControlAPITests`.
struct ControlAPILiveTests {
    static func daemon(_ extra: [String] = []) throws -> RunningDaemon {
        try RunningDaemon(
            ["--config", "chat_happy_path", "--root", Paths.packageRoot.path, "--port", "0", "--quiet"] + extra
        )
    }

    static let sendBody = Data(#"{"text": "Hi, my order #4521 has not arrived yet", "clientMessageId": "cm-1"}"#.utf8)

    @Test func twoSessionsInParallelWithDifferentScenariosNeverMix() throws {
        let daemon = try Self.daemon()
        defer { daemon.stop() }
        let client = LiveClient(daemon)
        #expect(
            try client.control("PUT", "scenario", session: "ios-1", body: #"{"name": "chat_send_fails"}"#).status == 200
        )
        #expect(
            try client.control("PUT", "scenario", session: "ios-2", body: #"{"name": "order_status_error_500"}"#).status
                == 200
        )
        let send = { (session: String) in
            ClientRequest(
                "POST",
                "/v1/conversations/c_1001/messages",
                headers: [("Content-Type", "application/json"), ("X-Mockd-Session", session)],
                body: Self.sendBody
            )
        }
        let order = { (session: String) in
            ClientRequest("GET", "/v1/orders/4521", headers: [("X-Mockd-Session", session)])
        }
        let responses = try client.parallel([send("ios-1"), send("ios-2"), order("ios-1"), order("ios-2")])
        #expect(responses.map(\.status) == [503, 201, 200, 500])
        let journal1 = try client.control("GET", "journal", session: "ios-1").json
        let journal2 = try client.control("GET", "journal", session: "ios-2").json
        #expect(journal1["count"] as? Int == 2)
        #expect(journal2["count"] as? Int == 2)
        let stubs1 = Set(((journal1["entries"] as? [[String: Any]]) ?? []).compactMap { $0["stub"] as? String })
        #expect(stubs1 == ["send-503-then-ok", "GET_v1_orders_4521"])
        // The default session saw none of it.
        #expect(try client.control("GET", "journal").json["count"] as? Int == 0)
    }

    /// 400 adds from 300 parallel connections (issue 24: 397 of 400 were kept, with duplicate ids): every one is
    /// kept under its own id, and deleting by id removes exactly that caller's stub.
    @Test func parallelRuntimeStubAddsAreAllKeptWithUniqueIDs() throws {
        let daemon = try Self.daemon()
        defer { daemon.stop() }
        let client = LiveClient(daemon)
        let adds = (0..<400).map { index in
            ClientRequest(
                "POST",
                "/__mockd/stubs",
                headers: [("X-Mockd-Session", "adds"), ("Content-Type", "application/json")],
                body: Data(#"{"match": {"path": "/parallel/\#(index)"}, "status": 200, "body": "\#(index)"}"#.utf8)
            )
        }
        let answers = try client.parallel(adds)
        #expect(answers.map(\.status) == Array(repeating: 201, count: 400), "\(answers.failures)")
        let ids = answers.compactMap { $0.json["id"] as? String }
        #expect(ids.count == 400)
        #expect(Set(ids).count == 400)
        #expect(Set((1...400).map { "runtime-\($0)" }).subtracting(ids).sorted() == [])
        let listed = try client.control("GET", "stubs", session: "adds").json["stubs"] as? [[String: Any]] ?? []
        #expect(listed.count == 400)
        // Each id serves the body its caller posted.
        let served = try client.parallel(
            ids.map { ClientRequest("GET", "/__mockd/stubs/\($0)", headers: [("X-Mockd-Session", "adds")]) }
        )
        let paths = served.map { answer -> String in
            let definition = answer.json["definition"] as? [String: Any]
            return (definition?["match"] as? [String: Any])?["path"] as? String ?? ""
        }
        #expect(Set((0..<400).map { "/parallel/\($0)" }).subtracting(paths).sorted() == [], "\(served.failures)")
        // Deleting half of them in parallel removes exactly those.
        let removed = try client.parallel(
            ids.prefix(200).map {
                ClientRequest("DELETE", "/__mockd/stubs/\($0)", headers: [("X-Mockd-Session", "adds")])
            }
        )
        #expect(
            removed.map(\.status) == Array(repeating: 204, count: 200),
            "\(removed.failures)\ndaemon's stderr: \(daemon.standardError)"
        )
        let left = try client.control("GET", "stubs", session: "adds").json["stubs"] as? [[String: Any]] ?? []
        #expect(left.compactMap { $0["id"] as? String }.sorted() == ids.suffix(200).sorted())
    }

    /// A transfer that got no answer says why, as curl does (`LiveClient`: a status 0 alone told nothing), and one
    /// answered in the same batch says nothing.
    @Test func aTransferWithNoAnswerSaysWhy() throws {
        let daemon = try Self.daemon()
        defer { daemon.stop() }
        let client = LiveClient(daemon)
        let stub = #"{"match": {"path": "/empty"}, "fault": "emptyResponse"}"#
        #expect(try client.control("POST", "stubs", body: stub).status == 201)
        let answers = try client.parallel([ClientRequest("GET", "/empty"), ClientRequest("GET", "/__mockd/health")])
        #expect(answers.map(\.status) == [0, 200])
        #expect(answers.map(\.failure) == ["curl 52: Empty reply from server", nil])
        #expect(answers.failures == "#0 curl 52: Empty reply from server")
    }

    /// Parallel replaces of one id keep exactly one stub under it.
    @Test func parallelReplacesOfOneIDKeepOneStub() throws {
        let daemon = try Self.daemon()
        defer { daemon.stop() }
        let client = LiveClient(daemon)
        let replaces = (0..<200).map { index in
            ClientRequest(
                "POST",
                "/__mockd/stubs",
                headers: [("X-Mockd-Session", "replaces"), ("Content-Type", "application/json")],
                body: Data(#"{"id": "same", "match": {"path": "/same"}, "status": 200, "body": "\#(index)"}"#.utf8)
            )
        }
        #expect(try client.parallel(replaces).map(\.status) == Array(repeating: 201, count: 200))
        let listed = try client.control("GET", "stubs", session: "replaces").json["stubs"] as? [[String: Any]] ?? []
        #expect(listed.compactMap { $0["id"] as? String } == ["same"])
    }

    /// A session evicted by `--max-sessions` is said so (issue 24: it vanished, and the next request got a fresh,
    /// empty session): a warning on stderr, `sessionsEvicted` in health, and 410 for app traffic and control calls
    /// naming it until a reset starts it again.
    @Test func evictedSessionIsRefusedWith410AndCounted() throws {
        let daemon = try RunningDaemon([
            "--set", "chat", "--root", Paths.packageRoot.path, "--port", "0", "--max-sessions", "3",
        ])
        defer { daemon.stop() }
        let client = LiveClient(daemon)
        let stub = #"{"id": "mine", "match": {"path": "/v1/me"}, "status": 418}"#
        #expect(try client.control("POST", "stubs", session: "first", body: stub).status == 201)
        let me = { (session: String) in ClientRequest("GET", "/v1/me", headers: [("X-Mockd-Session", session)]) }
        #expect(try client.send(me("first")).status == 418)
        #expect(try client.send(me("second")).status == 200)
        #expect(try daemon.health()["sessionsEvicted"] as? Int == 0)
        // The default session and two named ones fit; a third named one evicts the least recently used, "first".
        #expect(try client.send(me("third")).status == 200)
        try daemon.waitForStandardError(containing: "session 'first' evicted")
        #expect(
            daemon.standardError.contains(
                "warning session 'first' evicted: --max-sessions (3) reached; its journal, scenario and runtime stubs are gone (a request naming it gets 410)"
            )
        )
        #expect(try daemon.health()["sessionsEvicted"] as? Int == 1)
        let message =
            "session 'first' was evicted because --max-sessions (3) was reached: its journal, scenario and runtime "
            + "stubs are gone; POST /__mockd/reset with this session starts it again empty, or raise --max-sessions"
        let gone = try client.send(me("first"))
        #expect(gone.status == 410)
        #expect(gone.json["error"] as? String == "session_evicted")
        #expect(gone.json["message"] as? String == message)
        let journal = try client.control("GET", "journal", session: "first")
        #expect(journal.status == 410)
        #expect(journal.json["message"] as? String == message)
        #expect(try client.control("POST", "stubs", session: "first", body: stub).status == 410)
        // A reset starts it again, empty: the mock set answers, not the lost runtime stub.
        #expect(try client.control("POST", "reset", session: "first").status == 200)
        #expect(try client.send(me("first")).status == 200)
        #expect(try client.control("GET", "journal", session: "first").json["count"] as? Int == 1)
    }

    @Test func controlTokenIsRequiredWhenSet() throws {
        let daemon = try Self.daemon(["--control-token", "s3cret-0123456789"])
        defer { daemon.stop() }
        let denied = try LiveClient(daemon).control("GET", "health")
        #expect(denied.status == 401)
        #expect(denied.json["error"] as? String == "unauthorized")
        let allowed = try Curl.send(
            CurlRequest(
                url: daemon.baseURL + "/__mockd/health",
                headers: [("Authorization", "Bearer s3cret-0123456789")]
            )
        )
        #expect(allowed.status == 200)
        // The scheme in any case (RFC 9110 §11.1); a token that differs anywhere, or has more, is refused.
        let answers = try Curl.batch(
            [
                "bearer s3cret-0123456789", "BEARER  s3cret-0123456789", "Bearer s3cret-012345678X",
                "Bearer s3cret-01234567892", "Bearers3cret-0123456789", "Basic s3cret-0123456789",
                "Bearer ", "Bearer", "Bearer  ",
            ].map {
                CurlRequest(url: daemon.baseURL + "/__mockd/health", headers: [("Authorization", $0)])
            }
        )
        #expect(answers.map(\.status) == [200, 200, 401, 401, 401, 401, 401, 401, 401])
        // App traffic never needs the token.
        #expect(try Curl.send(CurlRequest(url: daemon.baseURL + "/v1/me")).status == 200)
    }

    @Test func nonLoopbackWithoutTokenWarnsAtStart() throws {
        let daemon = try RunningDaemon([
            "--set", "chat", "--root", Paths.packageRoot.path, "--host", "0.0.0.0", "--port", "0", "--quiet",
            "--insecure-control",
        ])
        let stopped = daemon.stop()
        #expect(
            stopped.stderr.contains(
                "mockd: warning: listening on 0.0.0.0, reachable from other machines, and the control API (/__mockd/) has no --control-token"
            )
        )
    }
}

/// Held requests whose clients leave: their connections are freed within seconds.
/// In the timing pass (suite names starting with `Timing` run one at a time after the others: see scripts/test).
struct TimingControlAPILiveTests {
    @Test func clientsThatLeaveHeldRequestsAreFreedWithinSeconds() throws {
        let daemon = try ControlAPILiveTests.daemon()
        defer { daemon.stop() }
        let added = try LiveClient(daemon).control(
            "POST",
            "stubs",
            body: #"{"match": {"path": "/hang"}, "fault": "noResponse"}"#
        )
        #expect(added.status == 201)
        let descriptors = { ProcessInspection.descriptorCount(of: daemon.process.processIdentifier) ?? 0 }
        let before = descriptors()
        let jobs = (0..<20).map { _ in
            BackgroundJob.start { try? Curl.run(["--max-time", "0.5", daemon.baseURL + "/hang"]) }
        }
        let results = jobs.map { $0.value() }
        #expect(results.allSatisfy { $0?.status == 28 })
        try? waitUntil(timeout: 4, "the descriptors to be freed") { descriptors() <= before + 2 }
        let after = descriptors()
        #expect(after <= before + 2, "descriptors: \(before) before, \(after) after the clients left")
        #expect(try Curl.send(CurlRequest(url: daemon.baseURL + "/v1/me")).status == 200)
    }
}
