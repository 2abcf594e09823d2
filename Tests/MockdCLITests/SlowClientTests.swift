import Foundation
import MockdTestSupport
import Testing

/// Slow and surplus clients (issue 24): a request trickled a byte at a time is cut once it has been arriving for
/// `--connection-timeout` (it was held forever: the timeout measured idle time only), and a client past
/// `--max-connections` is refused at once (it hung until it gave up).
/// In the timing pass (suite names starting with `Timing` run one at a time after the others: see scripts/test).
@Suite(.serialized)
struct TimingSlowClientTests {
    /// Runs the Python `script` (`/usr/bin/python3 -c`) with `arguments`, to its end.
    static func python(_ script: String, _ arguments: String...) throws -> ProcessResult {
        try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script] + arguments)
    }

    @Test func trickledHeadersAreCutAtTheConnectionTimeout() throws {
        let daemon = try RunningDaemon([
            "--set", "chat", "--root", Paths.packageRoot.path, "--port", "0", "--connection-timeout", "2",
        ])
        defer { daemon.stop() }
        let script = #"""
            import json, select, socket, sys, time
            s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
            s.sendall(b"GET /v1/me HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            start, closed, sent = time.time(), False, 0
            while time.time() - start < 8:
                try:
                    s.send(b"a"); sent += 1
                except OSError:
                    closed = True; break
                readable, _, _ = select.select([s], [], [], 0.5)
                if readable:
                    try: data = s.recv(100)
                    except OSError: data = b""
                    if not data: closed = True; break
            print(json.dumps({"closed": closed, "seconds": round(time.time() - start, 2), "sent": sent}))
            """#
        let result = try Self.python(script, String(daemon.port))
        let answer = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]) ?? [:]
        #expect(answer["closed"] as? Bool == true, "\(result.stdout) \(result.stderr)")
        let seconds = answer["seconds"] as? Double ?? 99
        #expect(seconds >= 1.9 && seconds < 3.5, "cut after \(seconds) s")
        try daemon.waitForStandardError(
            containing: "closed 1 connection whose request did not arrive whole within --connection-timeout (2 s)"
        )
        #expect(try Curl.send(CurlRequest(url: daemon.baseURL + "/v1/me")).status == 200)
    }

    /// Requests sent while the daemon is paused (SIGSTOP: a debugger, an overloaded machine) for longer than the
    /// timeout are answered when it runs again: they had arrived whole, the wait was the daemon's. All 100 were cut
    /// (by the watch, and by libmicrohttpd's own idle timeout, which it checks before it reads what is ready).
    @Test func requestsSentWhileTheDaemonWasPausedAreAnswered() throws {
        let daemon = try RunningDaemon([
            "--set", "chat", "--root", Paths.packageRoot.path, "--port", "0", "--connection-timeout", "1",
            "--threads", "1",
        ])
        defer { daemon.stop() }
        let script = #"""
            import json, os, signal, socket, sys, time
            port, pid = int(sys.argv[1]), int(sys.argv[2])
            held = [socket.create_connection(("127.0.0.1", port)) for _ in range(100)]
            time.sleep(0.5)  # accepted and seen by the watch
            os.kill(pid, signal.SIGSTOP)
            try:
                for s in held: s.sendall(b"GET /v1/me HTTP/1.1\r\nHost: x\r\n\r\n")
                time.sleep(2.5)
            finally:
                os.kill(pid, signal.SIGCONT)
            statuses = {}
            for s in held:
                s.settimeout(10)
                try: line = s.recv(12).decode(errors="replace") or "closed"
                except OSError as error: line = type(error).__name__
                statuses[line] = statuses.get(line, 0) + 1
            print(json.dumps(statuses))
            """#
        let result = try Self.python(script, String(daemon.port), String(daemon.process.processIdentifier))
        let statuses = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Int]) ?? [:]
        #expect(statuses == ["HTTP/1.1 200": 100], "\(result.stdout) \(result.stderr)")
        #expect(!daemon.standardError.contains("closed"), "\(daemon.standardError)")
    }

    /// A keep-alive connection left idle is closed at the timeout without a warning (that is housekeeping, as
    /// libmicrohttpd's idle timeout did it), and a client that sends a request line and stalls is warned about.
    @Test func idleKeepAliveIsClosedQuietlyAndAStalledRequestIsNot() throws {
        let daemon = try RunningDaemon([
            "--set", "chat", "--root", Paths.packageRoot.path, "--port", "0", "--connection-timeout", "1",
        ])
        defer { daemon.stop() }
        let script = #"""
            import json, socket, sys, time
            port = int(sys.argv[1])
            def closed_after(first, rest):
                s = socket.create_connection(("127.0.0.1", port)); s.settimeout(6)
                s.sendall(first)
                if rest: s.recv(65536)
                start = time.time()
                try:
                    while s.recv(65536): pass
                except OSError: pass
                return round(time.time() - start, 2)
            print(json.dumps({
                "idle": closed_after(b"GET /v1/me HTTP/1.1\r\nHost: x\r\n\r\n", True),
                "stalled": closed_after(b"GET /v1/me HTTP/1.1\r\nHost: x\r\n", False)}))
            """#
        let result = try Self.python(script, String(daemon.port))
        let seconds = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Double]) ?? [:]
        for name in ["idle", "stalled"] {
            let closed = seconds[name] ?? 99
            #expect(closed >= 0.9 && closed < 2.5, "\(name) closed after \(closed) s: \(result.stdout)")
        }
        try daemon.waitForStandardError(
            containing: "closed 1 connection whose request did not arrive whole within --connection-timeout (1 s)"
        )
        // The stalled request's line only (libmicrohttpd adds a line of its own about the closed socket).
        #expect(daemon.standardError.components(separatedBy: "warning closed ").count == 2, "\(daemon.standardError)")
    }

    /// Clients that leave a kept-open event stream free their connections within seconds (the departed-client check
    /// resumes the stream, which now sees the client gone): their slots were held until the next event or the end
    /// of the hold, ten minutes, and with `--max-connections 3` every new client was refused meanwhile.
    @Test func clientsThatLeaveAKeptOpenEventStreamFreeTheirSlots() throws {
        let daemon = try RunningDaemon([
            "--set", "chat", "--root", Paths.packageRoot.path, "--port", "0", "--max-connections", "3", "--quiet",
        ])
        defer { daemon.stop() }
        let stub =
            #"{"match": {"path": "/stream"}, "status": 200, "events": {"items": [{"data": "hello"}], "keepOpen": true}}"#
        #expect(try LiveClient(daemon).control("POST", "stubs", body: stub).status == 201)
        let script = #"""
            import socket, sys
            port = int(sys.argv[1])
            for _ in range(3):
                s = socket.create_connection(("127.0.0.1", port)); s.settimeout(5)
                s.sendall(b"GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
                data = b""
                while b"hello" not in data: data += s.recv(4096)
                s.close()
            print("left")
            """#
        let result = try Self.python(script, String(daemon.port))
        #expect(result.stdout == "left\n", "\(result.stderr)")
        try waitUntil(timeout: 5, "a new client to be served after the stream clients left") {
            (try? Curl.send(CurlRequest(url: daemon.baseURL + "/v1/me")).status) == 200
        }
    }

    /// A keep-alive connection reused after idling gets the whole timeout for its next request: a 1 s upload after
    /// 1.5 s idle (timeout 2 s) was cut 0.5 s into it, the idle time counted against the request.
    @Test func aReusedConnectionGetsTheWholeTimeoutForItsRequest() throws {
        let daemon = try RunningDaemon([
            "--set", "chat", "--root", Paths.packageRoot.path, "--port", "0", "--connection-timeout", "2", "--quiet",
        ])
        defer { daemon.stop() }
        let script = #"""
            import socket, sys, time
            s = socket.create_connection(("127.0.0.1", int(sys.argv[1]))); s.settimeout(5)
            s.sendall(b"GET /v1/me HTTP/1.1\r\nHost: x\r\n\r\n")
            first = s.recv(65536).split(b"\r\n")[0]
            time.sleep(1.5)
            s.sendall(b"POST /v1/nowhere HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n")
            for _ in range(10):
                time.sleep(0.1); s.sendall(b"x" * 100)
            try: second = s.recv(65536).split(b"\r\n")[0]
            except OSError as error: second = type(error).__name__.encode()
            print(first.decode(), "|", second.decode())
            """#
        let result = try Self.python(script, String(daemon.port))
        #expect(result.stdout == "HTTP/1.1 200 OK | HTTP/1.1 404 Not Found\n", "\(result.stderr)")
    }

    /// A client that takes none of its answer for the timeout is cut (libmicrohttpd's idle timeout did this before
    /// the watch took every deadline over), and one that reads slowly but steadily for longer than the timeout gets
    /// the whole body.
    @Test func aClientThatTakesNoneOfTheAnswerIsCutAndASlowReaderIsNot() throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let set = root.appendingPathComponent("mocks/big")
        try FileManager.default.createDirectory(
            at: set.appendingPathComponent("bodies"),
            withIntermediateDirectories: true
        )
        let bodyBytes = 32 << 20
        try Data(repeating: UInt8(ascii: "x"), count: bodyBytes).write(to: set.appendingPathComponent("bodies/big.txt"))
        try """
        {"version": 1, "stubs": [{"id": "big", "request": {"method": "GET", "path": "/big"},
          "responses": [{"status": 200, "headers": ["Content-Type: text/plain"], "bodyFile": "bodies/big.txt"}]}]}
        """.write(to: set.appendingPathComponent("index.json"), atomically: true, encoding: .utf8)
        let daemon = try RunningDaemon([
            "--set", "big", "--root", root.path, "--port", "0", "--connection-timeout", "2", "--quiet",
        ])
        defer { daemon.stop() }
        let script = #"""
            import json, socket, sys, time
            port = int(sys.argv[1])
            def fetch(pause_reads):
                s = socket.socket()
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
                s.connect(("127.0.0.1", port)); s.settimeout(10)
                s.sendall(b"GET /big HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                got = len(s.recv(65536))
                start = time.time()
                while time.time() - start < 4.5:
                    if pause_reads: time.sleep(0.1)
                    else:
                        got += len(s.recv(65536)); time.sleep(0.05)
                try:
                    while True:
                        data = s.recv(1 << 20)
                        if not data: break
                        got += len(data)
                except OSError: pass
                s.close()
                return got
            print(json.dumps({"stalled": fetch(True), "slow": fetch(False)}))
            """#
        let result = try Self.python(script, String(daemon.port))
        let got = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Int]) ?? [:]
        // The head is about 150 bytes: a whole answer is more than the body, a cut one far less.
        #expect((got["stalled"] ?? .max) < bodyBytes, "\(result.stdout) \(result.stderr)")
        #expect((got["slow"] ?? 0) > bodyBytes, "\(result.stdout) \(result.stderr)")
        try daemon.waitForStandardError(
            containing: "closed 1 connection whose client took none of the answer within --connection-timeout (2 s)"
        )
    }

    /// A client that half-closes after a malformed request line, or after junk following a whole request, sees
    /// its connection closed every time (issue 24: 2–6 of 15–30 tries were held until the idle timeout).
    @Test func halfClosedConnectionsAreClosedEveryTime() throws {
        let daemon = try RunningDaemon([
            "--set", "chat", "--root", Paths.packageRoot.path, "--port", "0", "--connection-timeout", "30", "--quiet",
        ])
        defer { daemon.stop() }
        let script = #"""
            import json, socket, sys, time
            port = int(sys.argv[1])
            def attempt(data):
                s = socket.create_connection(("127.0.0.1", port)); s.settimeout(10)
                start = time.time()
                s.sendall(data); s.shutdown(socket.SHUT_WR)
                try:
                    while s.recv(65536): pass
                except OSError: pass
                s.close()
                return time.time() - start
            cases = {"malformed request line": b"\x00\x01\x02 nonsense\r\n\r\n",
                     "junk after a request": b"GET /v1/me HTTP/1.1\r\nHost: x\r\n\r\n\x00\x01\x02junk\r\n\r\n"}
            print(json.dumps({name: max(attempt(data) for _ in range(15)) for name, data in cases.items()}))
            """#
        let result = try Self.python(script, String(daemon.port))
        let slowest = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Double]) ?? [:]
        #expect(slowest.count == 2, "\(result.stdout) \(result.stderr)")
        for (name, seconds) in slowest {
            #expect(seconds < 3, "\(name): the slowest of 15 closed after \(seconds) s")
        }
    }

    @Test func clientsPastTheConnectionLimitAreRefusedAtOnce() throws {
        let daemon = try RunningDaemon([
            "--set", "chat", "--root", Paths.packageRoot.path, "--port", "0", "--max-connections", "3",
        ])
        defer { daemon.stop() }
        let script = #"""
            import json, socket, sys, time
            port = int(sys.argv[1])
            held = []
            for _ in range(3):
                # A whole exchange first: the connection is accepted and registered before the fourth arrives.
                s = socket.create_connection(("127.0.0.1", port)); s.settimeout(5)
                s.sendall(b"GET /v1/me HTTP/1.1\r\nHost: x\r\n\r\n"); s.recv(65536); held.append(s)
            extra = socket.create_connection(("127.0.0.1", port)); extra.settimeout(5)
            start = time.time()
            try:
                extra.sendall(b"GET /v1/me HTTP/1.1\r\nHost: x\r\n\r\n")
                data = extra.recv(100)
            except OSError:
                data = b""
            refused = [data == b"", round(time.time() - start, 2)]
            for s in held: s.close()
            print(json.dumps({"refused": refused}))
            """#
        let result = try Self.python(script, String(daemon.port))
        let answer = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]) ?? [:]
        let refused = answer["refused"] as? [Any] ?? []
        #expect(refused.first as? Bool == true, "\(result.stdout) \(result.stderr)")
        #expect((refused.last as? Double ?? 99) < 1, "refused after \(refused.last ?? "?") s")
        try daemon.waitForStandardError(
            containing: "refused a connection: --max-connections (3) are open (1 refused so far)"
        )
        // Once the held connections are gone, clients are served again.
        try waitUntil(timeout: 5, "a request to be served again") {
            (try? Curl.send(CurlRequest(url: daemon.baseURL + "/v1/me")).status) == 200
        }
    }
}
