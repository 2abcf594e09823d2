import Foundation
import MockdTestSupport
import Testing

/// The control API refuses what a web page could send it (issue 22): a rebound Host while listening on loopback,
/// a foreign Origin, a browser's cross-site fetch, a CORS preflight; a non-loopback bind needs a token or
/// `--insecure-control`. Mock answers to the same requests are unchanged. Real daemon, curl.
@Suite(.serialized)
struct ControlGuardTests {
    @Test func webPagesCannotReachTheControlAPIButMockTrafficIsUnchanged() throws {
        let root = try Paths.makeRoot(scenario: #"{"sets": ["chat"]}"#)
        defer { try? FileManager.default.removeItem(at: root) }
        let daemon = try RunningDaemon(["--config", "s", "--root", root.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        let base = daemon.baseURL
        let own = base  // http://127.0.0.1:PORT
        let hostile: [[(String, String)]] = [
            [("Host", "attacker.example:\(daemon.port)")],
            [("Origin", "http://attacker.example")],
            [("Origin", "null")],
            [("Sec-Fetch-Site", "cross-site")],
        ]
        let control = try Curl.batch(
            hostile.map { CurlRequest(method: "POST", url: base + "/__mockd/reset", headers: $0) }
                + [
                    CurlRequest(
                        method: "OPTIONS",
                        url: base + "/__mockd/stubs",
                        headers: [("Origin", own), ("Access-Control-Request-Method", "POST")]
                    ),
                    CurlRequest(method: "POST", url: base + "/__mockd/reset", headers: [("Origin", own)]),
                    CurlRequest(url: base + "/__mockd/health", headers: [("Host", "localhost:\(daemon.port)")]),
                    CurlRequest(url: base + "/__mockd/health", headers: [("Sec-Fetch-Site", "same-origin")]),
                ]
        )
        #expect(control.map(\.status) == [403, 403, 403, 403, 403, 200, 200, 200])
        #expect(
            control[0].text.contains(
                "the control API answers only to a loopback Host (127.0.0.1, localhost, [::1]) while mockd listens on loopback; Host 'attacker.example:\(daemon.port)' may be a DNS-rebinding page"
            ),
            "\(control[0].text)"
        )
        #expect(
            control[1].text.contains(
                "the control API refuses cross-origin requests (Origin 'http://attacker.example'); it is not for web pages"
            )
        )
        #expect(control.allSatisfy { $0.header("Access-Control-Allow-Origin") == nil })

        // The same headers on mock traffic: answered as always.
        let mock = try Curl.batch(hostile.map { CurlRequest(url: base + "/v1/me", headers: $0) })
        #expect(mock.map(\.status) == [200, 200, 200, 200])
        #expect(Set(mock.map(\.text)).count == 1)
    }

    @Test func aNonLoopbackBindNeedsATokenOrInsecureControl() throws {
        let root = try Paths.makeRoot(scenario: #"{"sets": ["chat"]}"#)
        defer { try? FileManager.default.removeItem(at: root) }
        let refused = try ProcessRunner.mockd([
            "--config", "s", "--root", root.path, "--port", "0", "--host", "0.0.0.0",
        ])
        #expect(refused.status == 64)
        #expect(
            refused.stderr
                == "mockd: --host 0.0.0.0 opens the control API (/__mockd/) to the network: give --control-token <t> (or MOCKD_CONTROL_TOKEN), or --insecure-control (MOCKD_INSECURE_CONTROL=1) to serve it without one (see mockd --help)\n"
        )
        let tokened = try RunningDaemon([
            "--config", "s", "--root", root.path, "--port", "0", "--host", "0.0.0.0", "--control-token",
            "t0k3n-0123456789a",
            "--quiet",
        ])
        defer { tokened.stop() }
        let answer = try Curl.send(
            CurlRequest(
                url: "http://127.0.0.1:\(tokened.port)/__mockd/health",
                headers: [("Authorization", "Bearer t0k3n-0123456789a"), ("Host", "mac-mini.local:\(tokened.port)")]
            )
        )
        // Not bound to loopback: a LAN name in Host is how devices reach it; the token guards it.
        #expect(answer.status == 200)
        let insecure = try RunningDaemon(
            ["--config", "s", "--root", root.path, "--port", "0", "--host", "0.0.0.0", "--quiet"],
            environment: ProcessInfo.processInfo.environment.merging(["MOCKD_INSECURE_CONTROL": "1"]) { $1 }
        )
        defer { insecure.stop() }
        #expect(try insecure.health()["status"] as? String == "ok")
    }
}
