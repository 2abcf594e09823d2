import Foundation
import MockdPlatform
import MockdTestSupport
import Testing

/// The scenarios shipped in configs/, each served by the real binary and driven with curl.
struct BundledScenarioTests {
    static func daemon(_ config: String) throws -> RunningDaemon {
        try RunningDaemon(["--config", config, "--root", Paths.packageRoot.path, "--port", "0", "--quiet"])
    }

    static let sendMessageBody = Data(
        #"{"text": "Hi, my order #4521 has not arrived yet", "clientMessageId": "cm-1"}"#.utf8
    )

    static func json(_ response: CurlResponse) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]) ?? [:]
    }

    @Test func chatSendFailsOnceWith503ThenSucceeds() throws {
        let daemon = try Self.daemon("chat_send_fails")
        defer { daemon.stop() }
        let send = CurlRequest(
            method: "POST",
            url: daemon.baseURL + "/v1/conversations/c_1001/messages",
            headers: [("Content-Type", "application/json")],
            body: Self.sendMessageBody
        )
        let responses = try Curl.batch([send, send, send])
        #expect(responses.map(\.status) == [503, 201, 201])
        #expect(responses[0].header("Retry-After") == "5")
        #expect(Self.json(responses[0])["error"] as? String == "service_unavailable")
        let created = try Data(
            contentsOf: Paths.packageRoot.appendingPathComponent(
                "mocks/chat/bodies/POST_v1_conversations_c_1001_messages.json"
            )
        )
        #expect(responses[1].body == created)
    }

    @Test func orderStatusError500KeepsTheOrderListWorking() throws {
        let daemon = try Self.daemon("order_status_error_500")
        defer { daemon.stop() }
        let responses = try Curl.batch([
            CurlRequest(url: daemon.baseURL + "/v1/orders/4521"), CurlRequest(url: daemon.baseURL + "/v1/orders/9999"),
            CurlRequest(url: daemon.baseURL + "/v1/orders"),
        ])
        #expect(responses.map(\.status) == [500, 500, 200])
        let error = Self.json(responses[0])
        #expect(error["error"] as? String == "internal")
        #expect(error["message"] as? String == "Order service unavailable")
        #expect((error["requestId"] as? String)?.count == 36)
        #expect(Self.json(responses[1])["requestId"] as? String != error["requestId"] as? String)
        #expect(responses[0].header("Content-Type") == "application/json; charset=utf-8")
    }

    static func smsSend(_ daemon: RunningDaemon, phone: String = "+15555550100") -> CurlRequest {
        CurlRequest(
            method: "POST",
            url: daemon.baseURL + "/v1/auth/sms/send",
            headers: [("Content-Type", "application/json")],
            body: Data(#"{"phone": "\#(phone)"}"#.utf8)
        )
    }

    static func smsVerify(_ daemon: RunningDaemon, code: String) -> CurlRequest {
        CurlRequest(
            method: "POST",
            url: daemon.baseURL + "/v1/auth/sms/verify",
            headers: [("Content-Type", "application/json")],
            body: Data(#"{"phone": "+15555550100", "code": "\#(code)"}"#.utf8)
        )
    }

    @Test func authSmsCodeWalksWrongResendAndRightCode() throws {
        let daemon = try Self.daemon("auth_sms_code")
        defer { daemon.stop() }
        let send = Self.smsSend(daemon)
        let verify = { (code: String) in Self.smsVerify(daemon, code: code) }
        let responses = try Curl.batch([send, send, verify("000000"), verify("111111"), verify("482916")])
        #expect(responses.map(\.status) == [200, 429, 422, 422, 200])
        #expect(Self.json(responses[0])["phone"] as? String == "+15555550100")
        let retryAfter = Int(responses[1].header("Retry-After") ?? "") ?? 0
        #expect((29...30).contains(retryAfter))
        #expect(Self.json(responses[1])["error"] as? String == "rate_limited")
        #expect(Self.json(responses[1])["message"] as? String == "A new code can be requested in \(retryAfter) s.")
        #expect(Self.json(responses[2])["attemptsLeft"] as? Int == 2)
        #expect(Self.json(responses[3])["attemptsLeft"] as? Int == 1)
        let token = Self.json(responses[4])
        #expect(token["accessToken"] as? String == "mockd-access-token-0000000000")
        #expect(token["tokenType"] as? String == "Bearer")
        #expect((token["issuedAt"] as? String)?.wholeMatch(of: /20\d\d-\d\d-\d\dT\d\d:\d\d:\d\dZ/) != nil)
    }

    /// The bug a new user hit: three wrong codes let the right one through, and a refused resend still ran its
    /// transition (unlocking). Now the third wrong code locks, and a resend refused by the limit changes nothing.
    @Test func authSmsCodeLocksAfterThreeWrongCodesAndARefusedResendKeepsTheLock() throws {
        let daemon = try Self.daemon("auth_sms_code")
        defer { daemon.stop() }
        let send = Self.smsSend(daemon)
        let verify = { (code: String) in Self.smsVerify(daemon, code: code) }
        let responses = try Curl.batch([
            send, verify("000000"), verify("111111"), verify("222222"), verify("482916"), send, verify("482916"),
        ])
        #expect(responses.map(\.status) == [200, 422, 422, 429, 429, 429, 429])
        #expect(Self.json(responses[3])["error"] as? String == "too_many_attempts")
        #expect(responses[3].header("Retry-After") == "300")
        #expect(Self.json(responses[4])["error"] as? String == "too_many_attempts")
        #expect(Self.json(responses[5])["error"] as? String == "rate_limited")
        #expect(Self.json(responses[6])["error"] as? String == "too_many_attempts")
    }

    @Test func authSmsCodeCountsEachPhoneNumberInItsOwnWindow() throws {
        let daemon = try Self.daemon("auth_sms_code")
        defer { daemon.stop() }
        let anna = Self.smsSend(daemon, phone: "+15555550100")
        let ben = Self.smsSend(daemon, phone: "+15555550199")
        let responses = try Curl.batch([anna, ben, anna, ben])
        #expect(responses.map(\.status) == [200, 200, 429, 429])
        #expect(responses.map { Self.json($0)["error"] as? String } == [nil, nil, "rate_limited", "rate_limited"])
    }

    @Test func validateReportsOkForEveryBundledScenario() throws {
        for config in [
            "chat_happy_path", "chat_operator_slow", "chat_send_fails", "order_status_error_500", "auth_sms_code",
            "chat_connection_drops", "chat_live_receipts",
        ] {
            let result = try ProcessRunner.mockd(["validate", "--config", config, "--root", Paths.packageRoot.path])
            #expect(result.status == 0, "\(config): \(result.stderr)")
            #expect(result.stdout.hasPrefix("ok: configs/\(config).json: sets "))
        }
    }

    @Test func bundledMockSetsHoldNoSecrets() throws {
        for set in ["auth", "chat", "shop"] {
            let result = try ProcessRunner.mockd(["lint", set, "--root", Paths.packageRoot.path])
            #expect(result.status == 0, "\(set): \(result.stdout)")
            #expect(result.stderr == "mockd lint: mocks/\(set): no secrets or personal data found\n")
        }
    }

    @Test func signInMatchesOnlyTheRightPasswordThroughANormalizeRule() throws {
        let daemon = try Self.daemon("chat_happy_path")
        defer { daemon.stop() }
        let json = [("Content-Type", "application/json")]
        let responses = try Curl.batch([
            CurlRequest(
                method: "POST",
                url: daemon.baseURL + "/v1/auth/sign-in",
                headers: json,
                body: Data(#"{"email":"anna@example.com","password":"correct horse"}"#.utf8)
            ),
            CurlRequest(
                method: "POST",
                url: daemon.baseURL + "/v1/auth/sign-in",
                headers: json,
                body: Data(#"{"email":"anna@example.com","password":"correct horse battery"}"#.utf8)
            ),
            CurlRequest(url: daemon.baseURL + "/v1/me"),
        ])
        #expect(responses[0].status == 200)
        // Only the right password is normalised to the stored placeholder.
        #expect(responses[1].status == 404)
        #expect(Self.json(responses[2])["phone"] as? String == "+1 206 555 0142")
    }
}

/// `chat_operator_slow` against the clock: delayed polls and a throttled avatar within their windows.
/// In the timing pass (suite names starting with `Timing` run one at a time after the others: see scripts/test).
struct TimingBundledScenarioTests {
    @Test func chatOperatorSlowDelaysPollsWithoutBlockingAndThrottlesTheAvatar() throws {
        let daemon = try BundledScenarioTests.daemon("chat_operator_slow")
        defer { daemon.stop() }
        let threads = { ProcessInspection.threadCount(of: daemon.process.processIdentifier) ?? 0 }
        let threadsAtStart = threads()
        let poll = CurlRequest(url: daemon.baseURL + "/v1/conversations/c_1001/updates?after=m_1003")
        let started = Date()
        let polls = try Curl.parallel(Array(repeating: poll, count: 100))
        let pollSeconds = Date().timeIntervalSince(started)
        #expect(polls.map(\.status) == Array(repeating: 200, count: 100))
        // Log-normal around 1.5 s (σ 0.25, seed 7): the slowest of 100 stays well under 4 s when nothing blocks.
        #expect(pollSeconds > 0.8 && pollSeconds < 4, "100 parallel polls took \(pollSeconds) s")
        // Every thread the daemon needs (workers, timers, the connection watch) runs from the start.
        #expect(
            threads() <= threadsAtStart,
            "daemon threads: \(threadsAtStart) at start, \(threads()) after 100 delayed requests"
        )

        let avatar = try Curl.run([
            "--output", "/dev/null", "--write-out", "%{http_code} %{size_download} %{time_total}",
            daemon.baseURL + "/v1/users/u_olga/avatar.png",
        ])
        let parts = avatar.stdout.split(separator: " ")
        #expect(parts.first == "200")
        let size = Double(parts[1])!
        let seconds = Double(parts[2])!
        // 200 ms latency, then 512 bytes/s after a first 25-byte chunk.
        let expected = 0.2 + (size - 25) / 512
        #expect(
            abs(seconds - expected) < 0.25 * expected,
            "avatar of \(size) bytes took \(seconds) s, expected about \(expected) s"
        )
    }
}

/// Broken scenario files at start, in `validate`, and on SIGHUP reload.
struct ScenarioFileErrorTests {
    static func root(_ scenario: String) throws -> URL {
        try Paths.makeRoot(scenario: scenario)
    }

    static let broken =
        #"{"sets": ["chat", "nope"], "overrides": [{"match": {"path": "x"}, "latency": {"min": 5, "max": 1}}]}"#
    static let expectedLines = [
        "mockd: configs/s.json: sets[1]: mock set 'nope' not found: no mocks/nope/index.json (create it with `mockd import-har FILE --set nope`)",
        "mockd: configs/s.json: overrides[0].match.path: must start with '/' (got 'x')",
        "mockd: configs/s.json: overrides[0].latency: min (5.0) must not exceed max (1.0)",
    ]

    @Test func brokenScenarioFailsAtStartWithEveryProblem() throws {
        let root = try Self.root(Self.broken)
        defer { try? FileManager.default.removeItem(at: root) }
        let start = try ProcessRunner.mockd(["--config", "s", "--root", root.path, "--port", "0"])
        #expect(start.status == 1)
        #expect(start.stdout.isEmpty)
        #expect(start.stderr.split(separator: "\n").map(String.init) == Self.expectedLines)
        let validate = try ProcessRunner.mockd(["validate", "--config", "s", "--root", root.path])
        #expect(validate.status == 1)
        #expect(validate.stderr.split(separator: "\n").map(String.init) == Self.expectedLines)
    }

    @Test func sighupReloadsAndABrokenFileKeepsThePreviousVersion() throws {
        let root = try Self.root(#"{"sets": ["chat"], "overrides": [{"match": {"path": "/v1/me"}, "status": 418}]}"#)
        defer { try? FileManager.default.removeItem(at: root) }
        let daemon = try RunningDaemon(["--config", "s", "--root", root.path, "--port", "0", "--quiet"])
        let me = CurlRequest(url: daemon.baseURL + "/v1/me")
        #expect(try Curl.send(me).status == 418)

        try #"{"sets": ["chat"], "overrides": [{"match": {"path": "/v1/me"}, "status": 451}]}"#
            .write(to: root.appendingPathComponent("configs/s.json"), atomically: true, encoding: .utf8)
        daemon.send(signal: SIGHUP)
        // Reloads are asynchronous to the signal.
        try waitUntil(timeout: 5, "the reload to serve 451") { try Curl.send(me).status == 451 }

        try Self.broken.write(to: root.appendingPathComponent("configs/s.json"), atomically: true, encoding: .utf8)
        daemon.send(signal: SIGHUP)
        try daemon.waitForStandardError(containing: "mockd: SIGHUP: reload failed, still serving the previous version:")
        #expect(try Curl.send(me).status == 451)
        let stopped = daemon.stop()
        #expect(stopped.status == 0)
        #expect(stopped.stderr.contains("mockd: SIGHUP: reloaded scenario 's', 8 stubs, 1 overrides"))
        #expect(
            stopped.stderr.contains(
                "mockd: SIGHUP: reload failed, still serving the previous version:\n"
                    + Self.expectedLines.joined(separator: "\n")
            )
        )
    }
}
