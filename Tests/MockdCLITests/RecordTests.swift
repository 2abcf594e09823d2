import Foundation
import MockdTestSupport
import Testing

/// A small upstream for record and proxy tests: Python's http.server with a handler embedded here. It prints
/// its port, then `received METHOD TARGET` for each request as it arrives; `/slow` answers only once the test
/// calls `release()` (or after 30 s).
final class PythonUpstream: @unchecked Sendable {
    static let script = #"""
        import gzip, http.server, json, sys, threading

        released = threading.Event()

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            counter = 0
            lock = threading.Lock()

            def log_message(self, *args):
                pass

            def parse_request(self):
                parsed = super().parse_request()
                if parsed:
                    with Handler.lock:
                        print("received", self.command, self.path, flush=True)
                return parsed

            def answer(self, status, body, headers=()):
                self.send_response(status)
                for name, value in headers:
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

            def do_GET(self):
                if self.path == "/hello":
                    self.answer(200, b'{"hello":"world"}\n', [("Content-Type", "application/json"),
                        ("Set-Cookie", "sid=s3cr3t-session-value; Path=/; HttpOnly"), ("Set-Cookie", "theme=dark; Path=/"),
                        ("X-Upstream", "python")])
                elif self.path == "/gzip":
                    self.answer(200, gzip.compress(b'{"compressed":true}', mtime=0),
                        [("Content-Type", "application/json"), ("Content-Encoding", "gzip"), ("Vary", "Accept-Encoding")])
                elif self.path == "/binary":
                    self.answer(200, bytes(range(256)), [("Content-Type", "application/octet-stream")])
                elif self.path == "/seq":
                    with Handler.lock:
                        Handler.counter += 1
                        call = Handler.counter
                    self.answer(200, ('{"call":%d}' % call).encode(), [("Content-Type", "application/json")])
                elif self.path.startswith("/slow"):
                    released.wait(30)
                    self.answer(200, b"late\n", [("Content-Type", "text/plain")])
                elif self.path == "/__release":
                    released.set()
                    self.answer(204, b"")
                elif self.path.startswith("/headers"):
                    fields = [[name, value] for name, value in self.headers.items()]
                    self.answer(200, json.dumps({"target": self.path, "headers": fields}).encode(), [("Content-Type", "application/json")])
                else:
                    self.answer(404, b'{"error":"not here"}', [("Content-Type", "application/json")])

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                self.answer(201, body, [("Content-Type", self.headers.get("Content-Type", "application/octet-stream")),
                    ("Location", "/items/7")])

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """#

    private let child: ChildProcess
    let port: Int
    var origin: String { "http://127.0.0.1:\(port)" }

    init() throws {
        child = try ChildProcess(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", Self.script])
        let child = child
        try waitUntil(timeout: 20, "the upstream's port") { child.standardOutput.contains("\n") || !child.isRunning }
        port = Int(child.standardOutput.split(separator: "\n").first ?? "") ?? 0
    }

    /// Waits until a request for `target` (`GET /slow`) has reached the upstream.
    func waitForRequest(_ request: String, timeout: TimeInterval = 10) throws {
        try waitUntil(timeout: timeout, "\(request) to reach the upstream") {
            child.standardOutput.split(separator: "\n").contains { $0 == "received \(request)" }
        }
    }

    /// Lets every `/slow` request, waiting or to come, have its answer.
    func release() throws {
        #expect(try Curl.send(CurlRequest(url: origin + "/__release")).status == 204)
    }

    deinit {
        // SIGKILL: the test process may ignore SIGTERM, and children inherit that.
        child.killAndWait()
    }
}

/// Helpers shared by the record, capture-on-miss and HTTPS tests.
enum Recording {
    /// The test's environment without `MOCKD_*` variables.
    static var environment: [String: String] {
        ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("MOCKD_") || $0.key == "MOCKD_BIN" }
    }

    /// A port nothing listens on (bound, then closed).
    static func closedPort() -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sockaddrPointer in
                _ = bind(descriptor, sockaddrPointer, length)
                return getsockname(descriptor, sockaddrPointer, &length)
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// The JSON object in `data`.
    static func json(_ data: Data) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    }
}

@Suite("Record mode", .serialized)
struct RecordTests {
    @Test(
        "requests through mockd record reach the client unchanged, and the HAR and set written on SIGTERM replay them byte for byte"
    )
    func recordRoundTrip() throws {
        let upstream = try PythonUpstream()
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let har = root.appendingPathComponent("rt.har")
        let recorder = try RunningDaemon(
            [
                "record", "--upstream", upstream.origin, "--set", "rt", "--root", root.path, "--port", "0", "--har",
                har.path,
            ],
            environment: Recording.environment
        )
        let base = recorder.baseURL
        let posted = Data(#"{"text":"hello","n":1}"#.utf8)
        let proxied = try Curl.batch([
            CurlRequest(url: base + "/hello"),
            CurlRequest(url: base + "/gzip", headers: [("Accept-Encoding", "gzip")]),
            CurlRequest(url: base + "/binary"),
            CurlRequest(url: base + "/seq"),
            CurlRequest(url: base + "/seq"),
            CurlRequest(
                method: "POST",
                url: base + "/items",
                headers: [("Content-Type", "application/json")],
                body: posted
            ),
            CurlRequest(
                url: base + "/headers?a=1&b=%2F",
                headers: [
                    ("X-Mockd-Session", "s1"), ("X-Custom", "kept"), ("Connection", "keep-alive, X-Hop"),
                    ("X-Hop", "dropped"), ("X-Mockd-Client-Faults", "1"),
                ]
            ),
            CurlRequest(url: base + "/missing"),
        ])
        let direct = try Curl.send(CurlRequest(url: upstream.origin + "/gzip", headers: [("Accept-Encoding", "gzip")]))

        // The client gets the upstream's answer unchanged.
        #expect(proxied[0].status == 200)
        #expect(proxied[0].text == "{\"hello\":\"world\"}\n")
        #expect(
            proxied[0].headers(named: "Set-Cookie") == [
                "sid=s3cr3t-session-value; Path=/; HttpOnly", "theme=dark; Path=/",
            ]
        )
        #expect(proxied[0].header("X-Upstream") == "python")
        #expect(proxied[1].header("Content-Encoding") == "gzip")
        #expect(proxied[1].body == direct.body)
        #expect(proxied[1].body.prefix(2) == Data([0x1F, 0x8B]))
        #expect(proxied[2].body == Data(0...255))
        #expect(proxied[3].text == #"{"call":1}"#)
        #expect(proxied[4].text == #"{"call":2}"#)
        #expect(proxied[5].status == 201)
        #expect(proxied[5].body == posted)
        #expect(proxied[5].header("Location") == "/items/7")
        let echoed = Recording.json(proxied[6].body)
        #expect(echoed["target"] as? String == "/headers?a=1&b=%2F")
        let sent = (echoed["headers"] as? [[String]] ?? []).map { $0[0].lowercased() }
        #expect(sent.contains("x-custom"))
        #expect(!sent.contains("x-mockd-session"))
        #expect(!sent.contains("x-mockd-client-faults"))
        #expect(!sent.contains("x-hop"))
        #expect(
            !sent.contains("connection")
                || (echoed["headers"] as? [[String]] ?? []).contains {
                    $0[0].lowercased() == "connection" && !$0[1].contains("X-Hop")
                }
        )
        #expect(
            (echoed["headers"] as? [[String]] ?? []).contains {
                $0[0].lowercased() == "host" && $0[1] == "127.0.0.1:\(upstream.port)"
            }
        )
        #expect(proxied[7].status == 404)
        #expect(proxied[7].text == #"{"error":"not here"}"#)

        // The journal marks every answer as proxied (the request with X-Mockd-Session is in that session's).
        let journal = Recording.json(try Curl.send(CurlRequest(url: base + "/__mockd/journal")).body)
        let entries = journal["entries"] as? [[String: Any]] ?? []
        #expect(entries.count == 7)
        #expect(entries.allSatisfy { $0["proxied"] as? Bool == true && $0["matched"] as? Bool == false })

        let stopped = recorder.stop()
        #expect(stopped.status == 0)
        let report = recorder.standardOutput
        #expect(report.contains("imported rt.har into mocks/rt/"))
        #expect(report.contains("entries read:   8"))
        #expect(report.contains("stubs written:  7 (8 responses, 1 sequence)"))
        #expect(report.contains("response header Set-Cookie value → {{cookie}} ×2"))
        #expect(stopped.stderr.contains("GET /hello 200 upstream"))

        // The HAR is a HAR 1.2 log that import-har reads as any other.
        let log = Recording.json(try Data(contentsOf: har))["log"] as? [String: Any] ?? [:]
        #expect(log["version"] as? String == "1.2")
        #expect((log["entries"] as? [Any])?.count == 8)
        let reimport = try ProcessRunner.run(
            Paths.mockdBinary,
            ["import-har", har.path, "--set", "again", "--root", root.path],
            environment: Recording.environment
        )
        #expect(reimport.status == 0, "\(reimport.stderr)")
        #expect(reimport.stdout.contains("stubs written:  7 (8 responses, 1 sequence)"))
        let first = try Data(contentsOf: root.appendingPathComponent("mocks/rt/index.json"))
        let second = try Data(contentsOf: root.appendingPathComponent("mocks/again/index.json"))
        #expect(first == second)

        // Serving the recorded set replays the upstream's bytes (secrets as their fake values).
        let daemon = try RunningDaemon(
            ["--set", "rt", "--root", root.path, "--port", "0"],
            environment: Recording.environment
        )
        defer { daemon.stop() }
        let replayed = try Curl.batch([
            CurlRequest(url: daemon.baseURL + "/hello"),
            CurlRequest(url: daemon.baseURL + "/gzip", headers: [("Accept-Encoding", "gzip")]),
            CurlRequest(url: daemon.baseURL + "/binary"),
            CurlRequest(url: daemon.baseURL + "/seq"),
            CurlRequest(url: daemon.baseURL + "/seq"),
            CurlRequest(
                method: "POST",
                url: daemon.baseURL + "/items",
                headers: [("Content-Type", "application/json")],
                body: posted
            ),
            CurlRequest(url: daemon.baseURL + "/missing"),
        ])
        #expect(replayed[0].status == 200)
        #expect(replayed[0].text == "{\"hello\":\"world\"}\n")
        #expect(
            replayed[0].headers(named: "Set-Cookie") == [
                "sid=mockd-cookie-value; Path=/; HttpOnly", "theme=mockd-cookie-value; Path=/",
            ]
        )
        #expect(replayed[0].header("X-Upstream") == "python")
        #expect(replayed[1].text == #"{"compressed":true}"#)
        #expect(replayed[1].header("Content-Encoding") == nil)
        #expect(replayed[2].body == Data(0...255))
        #expect(replayed[3].text == #"{"call":1}"#)
        #expect(replayed[4].text == #"{"call":2}"#)
        #expect(replayed[5].status == 201)
        #expect(replayed[5].body == posted)
        #expect(replayed[6].status == 404)
        #expect(replayed[6].text == #"{"error":"not here"}"#)
    }

    @Test(
        "POST /__mockd/record/flush writes the HAR and the set while recording goes on; an existing set needs --merge or --force"
    )
    func flushAndExistingSet() throws {
        let upstream = try PythonUpstream()
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let recorder = try RunningDaemon(
            ["record", "--upstream", upstream.origin + "/", "--set", "flushed", "--root", root.path, "--port", "0"],
            environment: Recording.environment
        )
        let base = recorder.baseURL
        #expect(try Curl.send(CurlRequest(url: base + "/hello")).status == 200)
        let flush = try Curl.send(CurlRequest(method: "POST", url: base + "/__mockd/record/flush"))
        #expect(flush.status == 200)
        let result = Recording.json(flush.body)
        #expect(result["entries"] as? Int == 1)
        #expect(result["written"] as? Bool == true)
        let harPath = result["har"] as? String ?? ""
        #expect(harPath.hasPrefix("recordings/flushed-") && harPath.hasSuffix(".har"))
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("mocks/flushed/index.json").path))
        #expect(try Curl.send(CurlRequest(url: base + "/binary")).status == 200)
        let status = Recording.json(try Curl.send(CurlRequest(url: base + "/__mockd/record")).body)
        #expect(status["entries"] as? Int == 2)
        #expect(status["upstream"] as? String == upstream.origin)
        #expect(recorder.stop().status == 0)
        // The shutdown flush rewrote the same HAR with both exchanges.
        let log =
            Recording.json(try Data(contentsOf: root.appendingPathComponent(harPath)))["log"] as? [String: Any] ?? [:]
        #expect((log["entries"] as? [Any])?.count == 2)
        let index = String(
            decoding: try Data(contentsOf: root.appendingPathComponent("mocks/flushed/index.json")),
            as: UTF8.self
        )
        #expect(index.contains("GET_hello") && index.contains("GET_binary"))

        // The set exists now: refused without --merge or --force, one line, exit 1.
        let refused = try ProcessRunner.run(
            Paths.mockdBinary,
            ["record", "--upstream", upstream.origin, "--set", "flushed", "--root", root.path, "--port", "0"],
            environment: Recording.environment
        )
        #expect(refused.status == 1)
        #expect(
            refused.stderr
                == "mockd: mock set 'flushed' already exists (mocks/flushed/); pass --merge to merge the recording into it or --force to replace it\n"
        )

        // --merge keeps the stubs this recording does not touch.
        let merging = try RunningDaemon(
            [
                "record", "--upstream", upstream.origin, "--set", "flushed", "--root", root.path, "--port", "0",
                "--merge",
            ],
            environment: Recording.environment
        )
        #expect(try Curl.send(CurlRequest(url: merging.baseURL + "/seq")).status == 200)
        #expect(merging.stop().status == 0)
        #expect(merging.standardOutput.contains("merged:         0 stubs replaced, 1 added, 2 kept as they were"))
        let merged = String(
            decoding: try Data(contentsOf: root.appendingPathComponent("mocks/flushed/index.json")),
            as: UTF8.self
        )
        #expect(merged.contains("GET_hello") && merged.contains("GET_binary") && merged.contains("GET_seq"))
    }

    @Test(
        "an unreachable upstream gives 502 and a slow one 504 with JSON naming it; both are recorded as failed entries and reported"
    )
    func upstreamFailures() throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let closed = "http://127.0.0.1:\(Recording.closedPort())"
        let refusedHAR = root.appendingPathComponent("refused.har")
        let unreachable = try RunningDaemon(
            [
                "record", "--upstream", closed, "--set", "down", "--root", root.path, "--port", "0", "--har",
                refusedHAR.path,
            ],
            environment: Recording.environment
        )
        let bad = try Curl.send(CurlRequest(url: unreachable.baseURL + "/v1/me"))
        #expect(bad.status == 502)
        #expect(bad.header("Content-Type") == "application/json; charset=utf-8")
        let badBody = Recording.json(bad.body)
        #expect(badBody["error"] as? String == "upstream_unreachable")
        #expect(badBody["upstream"] as? String == closed)
        #expect((badBody["message"] as? String ?? "").contains("onnect"))
        #expect(unreachable.stop().status == 0)
        let downReport = unreachable.standardOutput
        #expect(downReport.contains("skipped:        1"))
        #expect(downReport.contains(", status 0): entry 1"))
        #expect(downReport.contains("(nothing written: no exchange can be replayed)"))
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("mocks/down").path))
        let failedEntry =
            ((Recording.json(try Data(contentsOf: refusedHAR))["log"] as? [String: Any])?["entries"] as? [[String: Any]])?
            .first
        let failedResponse = failedEntry?["response"] as? [String: Any] ?? [:]
        #expect(failedResponse["status"] as? Int == 0)
        #expect((failedResponse["_error"] as? String ?? "").contains("onnect"))

        let upstream = try PythonUpstream()
        let slowHAR = root.appendingPathComponent("slow.har")
        let slow = try RunningDaemon(
            [
                "record", "--upstream", upstream.origin, "--set", "slow", "--root", root.path, "--port", "0",
                "--upstream-timeout", "1", "--har", slowHAR.path,
            ],
            environment: Recording.environment
        )
        let answers = try Curl.batch([
            CurlRequest(url: slow.baseURL + "/hello"), CurlRequest(url: slow.baseURL + "/slow"),
        ])
        #expect(answers[0].status == 200)
        #expect(answers[1].status == 504)
        let timeoutBody = Recording.json(answers[1].body)
        #expect(timeoutBody["error"] as? String == "upstream_timeout")
        #expect(timeoutBody["upstream"] as? String == upstream.origin)
        #expect((timeoutBody["message"] as? String ?? "").lowercased().contains("timed out"))
        #expect(slow.stop().status == 0)
        let slowReport = slow.standardOutput
        #expect(slowReport.contains("entries read:   2"))
        #expect(slowReport.contains("stubs written:  1 (1 responses, 0 sequences)"))
        #expect(slowReport.contains(", status 0): entry 2"))
        let entries =
            (Recording.json(try Data(contentsOf: slowHAR))["log"] as? [String: Any])?["entries"] as? [[String: Any]]
            ?? []
        #expect(entries.count == 2)
        #expect((entries.last?["response"] as? [String: Any])?["_errorKind"] as? String == "timeout")
    }

    @Test(
        "SIGTERM while the upstream is still answering: the client gets the answer, and the exchange is in the HAR and the set"
    )
    func shutdownWaitsForTheUpstream() throws {
        let upstream = try PythonUpstream()
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let har = root.appendingPathComponent("late.har")
        let recorder = try RunningDaemon(
            [
                "record", "--upstream", upstream.origin, "--set", "late", "--root", root.path, "--port", "0",
                "--shutdown-timeout", "10", "--har", har.path,
            ],
            environment: Recording.environment
        )
        let url = recorder.baseURL + "/slow"
        let slow = BackgroundJob.start { try? Curl.send(CurlRequest(url: url)) }
        try upstream.waitForRequest("GET /slow")
        recorder.send(signal: SIGTERM)
        // The daemon is draining with the exchange in flight; only now does the upstream answer.
        try recorder.waitForStandardError(
            containing: "mockd: SIGTERM received, stopping; waiting up to 10 s for 1 request in flight"
        )
        try upstream.release()
        let answer = slow.value()
        #expect(answer?.status == 200)
        #expect(answer?.text == "late\n")
        let exit = recorder.waitForExit(timeout: 20)
        #expect(exit?.status == 0)
        #expect(recorder.standardOutput.contains("stubs written:  1 (1 responses, 0 sequences)"))
        let entries =
            (Recording.json(try Data(contentsOf: har))["log"] as? [String: Any])?["entries"] as? [[String: Any]] ?? []
        #expect(entries.count == 1)
        #expect((entries.first?["response"] as? [String: Any])?["status"] as? Int == 200)
    }

    @Test("bad record command lines are one line, exit 64")
    func usageErrors() throws {
        let cases: [([String], String)] = [
            (
                ["record", "--set", "x"],
                "mockd: record needs --upstream <url>: the server to record, e.g. https://api.example.com (see mockd record --help)\n"
            ),
            (
                ["record", "--upstream", "https://api.example.com"],
                "mockd: record needs --set <name> to name the mock set to write (see mockd record --help)\n"
            ),
            (
                ["record", "--upstream", "https://api.example.com/v2", "--set", "x"],
                "mockd: --upstream 'https://api.example.com/v2' is not an origin: expected http(s)://host[:port], e.g. https://api.example.com (no path or query) (see mockd record --help)\n"
            ),
            (
                ["record", "--upstream", "ftp://x", "--set", "x"],
                "mockd: --upstream 'ftp://x' is not an origin: expected http(s)://host[:port], e.g. https://api.example.com (no path or query) (see mockd record --help)\n"
            ),
            (
                ["--set", "chat", "--record-misses"],
                "mockd: --record-misses needs --on-miss proxy (see mockd --help)\n"
            ),
            (
                ["--set", "chat", "--on-miss", "proxy"],
                "mockd: --on-miss proxy needs --upstream <url> (see mockd --help)\n"
            ),
            (
                ["--set", "chat", "--upstream", "http://x"],
                "mockd: --upstream needs --on-miss proxy (or mockd record) (see mockd --help)\n"
            ),
            (
                ["--set", "chat", "--tls-cert", "a.pem"],
                "mockd: --tls-cert and --tls-key go together: give both (see mockd --help)\n"
            ),
            (
                ["record", "--upstream", "http://x", "--set", "x", "--merge", "--force"],
                "mockd: --merge and --force cannot be used together (see mockd record --help)\n"
            ),
        ]
        for (arguments, message) in cases {
            let result = try ProcessRunner.run(Paths.mockdBinary, arguments, environment: Recording.environment)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stderr == message)
        }
    }
}
