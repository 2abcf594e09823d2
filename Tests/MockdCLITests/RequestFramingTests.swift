import Foundation
import MockdTestSupport
import Testing

/// Request framing (RFC 9112 §5, §6, §7) from raw sockets (Python's standard library): every request whose
/// length or fields a front proxy could read differently is refused with 400 (or 501 for a transfer coding mockd
/// does not implement) in mockd's JSON error shape, and its connection closed at once, so nothing hidden in its
/// body is ever served as a request of its own.
struct RequestFramingTests {
    /// Sends each case on its own connection and reads until the daemon closes it (or 5 s pass, far below the
    /// daemon's 60 s idle timeout); prints `{"case": [[statuses…], closed by the daemon, first error code]}`.
    static let script = #"""
        import json, re, socket, sys
        port = int(sys.argv[1])
        def exchange(data, half_close=False):
            s = socket.create_connection(("127.0.0.1", port)); s.settimeout(5)
            try:
                s.sendall(data)
                if half_close: s.shutdown(socket.SHUT_WR)
            except OSError: pass
            received, closed = b"", False
            try:
                while True:
                    chunk = s.recv(65536)
                    if not chunk: closed = True; break
                    received += chunk
            except ConnectionResetError: closed = True
            except OSError: pass
            s.close()
            statuses = [int(m) for m in re.findall(rb"HTTP/1\.1 (\d{3}) ", received)]
            code = re.search(rb'"error" *: *"([a-z_]+)"', received)
            return [statuses, closed, code.group(1).decode() if code else None]
        H = b"Host: x\r\n"
        smuggled = b"0\r\n\r\nGET /v1/conversations HTTP/1.1\r\nHost: x\r\n\r\n"
        cases = {
            "whitespace before the colon of Transfer-Encoding": b"POST /v1/me HTTP/1.1\r\n" + H + b"Transfer-Encoding : chunked\r\nContent-Length: 5\r\n\r\n" + smuggled,
            "tab before the colon of Transfer-Encoding": b"POST /v1/me HTTP/1.1\r\n" + H + b"Transfer-Encoding\t: chunked\r\nContent-Length: 5\r\n\r\n" + smuggled,
            "folded Transfer-Encoding": b"POST /v1/me HTTP/1.1\r\n" + H + b"Transfer-Encoding:\r\n chunked\r\nContent-Length: 5\r\n\r\n" + smuggled,
            "folded header": b"GET /v1/me HTTP/1.1\r\n" + H + b"X-Note: one\r\n two\r\n\r\n",
            "unknown transfer coding": b"POST /v1/me HTTP/1.1\r\n" + H + b"Transfer-Encoding: xchunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
            "gzip before chunked": b"POST /v1/me HTTP/1.1\r\n" + H + b"Transfer-Encoding: gzip, chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
            "chunked not last": b"POST /v1/me HTTP/1.1\r\n" + H + b"Transfer-Encoding: chunked, identity\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
            "Transfer-Encoding twice": b"POST /v1/me HTTP/1.1\r\n" + H + b"Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
            "two Host fields": b"GET /v1/me HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n",
            "space in a field name": b"GET /v1/me HTTP/1.1\r\n" + H + b"Bad Name: v\r\n\r\n",
            "bare CR in a value": b"GET /v1/me HTTP/1.1\r\n" + H + b"X-Note: a\rb\r\n\r\n",
            "chunked body": b"POST /v1/me HTTP/1.1\r\n" + H + b"Transfer-Encoding: Chunked\r\nConnection: close\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
            "folded-looking name": b"GET /v1/me HTTP/1.1\r\n" + H + b"X-Btwo: one\r\nConnection: close\r\n\r\n",
            "space after the colon": b"GET /v1/me HTTP/1.1\r\n" + H + b"Accept:   \t application/json\r\nConnection: close\r\n\r\n",
        }
        print(json.dumps({name: exchange(data) for name, data in cases.items()}))
        """#

    static func run(_ script: String, port: Int) throws -> [String: Any] {
        let result = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script, String(port)])
        return (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]) ?? [:]
    }

    @Test func ambiguousFramingIsRefusedAndTheConnectionClosed() throws {
        let daemon = try RunningDaemon(["--set", "chat", "--root", Paths.packageRoot.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        let results = try Self.run(Self.script, port: daemon.port)
        func expectCase(_ name: String, _ statuses: [Int], closed: Bool, _ code: String?) {
            let result = results[name] as? [Any]
            #expect(result?[0] as? [Int] == statuses, "\(name)")
            #expect(result?[1] as? Bool == closed, "\(name)")
            #expect(result?[2] as? String == code, "\(name)")
        }
        expectCase("whitespace before the colon of Transfer-Encoding", [400], closed: true, "bad_request")
        expectCase("tab before the colon of Transfer-Encoding", [400], closed: true, "bad_request")
        expectCase("folded Transfer-Encoding", [400], closed: true, "bad_request")
        expectCase("folded header", [400], closed: true, "bad_request")
        expectCase("unknown transfer coding", [400], closed: true, "bad_request")
        expectCase("gzip before chunked", [501], closed: true, "not_implemented")
        expectCase("chunked not last", [400], closed: true, "bad_request")
        expectCase("Transfer-Encoding twice", [400], closed: true, "bad_request")
        expectCase("two Host fields", [400], closed: true, "bad_request")
        expectCase("space in a field name", [400], closed: true, "bad_request")
        expectCase("bare CR in a value", [400], closed: true, "bad_request")
        // Well-formed requests are untouched.
        expectCase("chunked body", [404], closed: true, "unmatched")
        expectCase("folded-looking name", [200], closed: true, nil)
        expectCase("space after the colon", [200], closed: true, nil)
        #expect(try Curl.send(CurlRequest(url: daemon.baseURL + "/v1/me")).status == 200)
    }

    /// The reason of each refusal, as the journal keeps it.
    @Test func refusalsNameTheProblem() throws {
        let daemon = try RunningDaemon(["--set", "chat", "--root", Paths.packageRoot.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        let script = #"""
            import json, socket, sys
            port = int(sys.argv[1])
            def message(data):
                s = socket.create_connection(("127.0.0.1", port)); s.settimeout(5); s.sendall(data)
                received = b""
                try:
                    while True:
                        chunk = s.recv(65536)
                        if not chunk: break
                        received += chunk
                except OSError: pass
                return json.loads(received.split(b"\r\n\r\n", 1)[1])["message"]
            H = b"POST /v1/me HTTP/1.1\r\nHost: x\r\n"
            print(json.dumps([
                message(H + b"Transfer-Encoding : chunked\r\n\r\n"),
                message(H + b"Transfer-Encoding:\r\n chunked\r\n\r\n"),
                message(H + b"Transfer-Encoding: xchunked\r\n\r\n"),
                message(H + b"Transfer-Encoding: gzip, chunked\r\n\r\n"),
                message(H + b"Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n"),
                message(H + b"Host: y\r\n\r\n"),
                message(H + b"X-Note: a\rb\r\n\r\n"),
            ]))
            """#
        let result = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/python3"),
            ["-c", script, String(daemon.port)]
        )
        let messages = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String]) ?? []
        #expect(
            messages == [
                "field name 'Transfer-Encoding ' is not a token: whitespace before the colon or inside a name is not allowed (RFC 9112 §5.1)",
                "a folded header line (obs-fold) is not allowed in a request (RFC 9112 §5.2)",
                "transfer coding 'xchunked' is not supported, and chunked must be the final coding (RFC 9112 §6.3)",
                "transfer coding 'gzip' is not supported; send the body with chunked alone (RFC 9112 §6.1)",
                "chunked is applied more than once (RFC 9112 §6.1)",
                "more than one Host field (RFC 9112 §3.2)",
                "a field value contains a bare CR (RFC 9110 §5.5, RFC 9112 §2.2)",
            ]
        )
    }
}
