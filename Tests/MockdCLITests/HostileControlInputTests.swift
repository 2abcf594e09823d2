import Foundation
import MockdControl
import MockdTestSupport
import Testing

/// Hostile input on every control route, table-driven from the daemon's own OpenAPI document
/// (`GET /__mockd/openapi.json`, made from `ControlRoutes`): malformed, huge and deeply nested JSON, wrong types, NUL
/// and invalid UTF-8, path traversal and absurd numbers in every field and parameter, unknown fields, methods a path
/// does not take, and missing, wrong or oversized tokens. The daemon (on a loopback port, with a control token) never
/// crashes or hangs; each refusal is a 4xx with the `{"error", "message"}` body, a `ControlErrorCode` and a message
/// that is short, printable text; and afterwards the journal still holds the app's request and the scenario and
/// mock set files are byte for byte what they were.
struct HostileControlInputTests {
    static let token = "hostile-input-token-0123456789"

    /// Sends every case on its own connection (raw sockets: no client library tidies a request up first); prints
    /// `[[case, method, target, status (0: no answer), seconds, body (at most 4 KiB)]…]`.
    static let script = #"""
        import json, re, socket, sys, time
        port, token = int(sys.argv[1]), sys.argv[2]
        AUTH = [("Authorization", "Bearer " + token)]
        def exchange(method, target, body=None, headers=AUTH, wait=30.0):
            s = socket.create_connection(("127.0.0.1", port)); s.settimeout(wait)
            head = "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nX-Mockd-Session: hostile\r\n" % (method, target)
            for name, value in headers: head += "%s: %s\r\n" % (name, value)
            if body is not None: head += "Content-Type: application/json\r\nContent-Length: %d\r\n" % len(body)
            data = head.encode("latin-1") + b"\r\n" + (body or b"")
            start, received = time.time(), b""
            try:
                s.sendall(data)
                while True:
                    chunk = s.recv(1 << 20)
                    if not chunk: break
                    received += chunk
            except OSError: pass
            s.close()
            header, _, content = received.partition(b"\r\n\r\n")
            line = header.split(b"\r\n", 1)[0].split(b" ")
            status = int(line[1]) if len(line) > 1 and line[1].isdigit() else 0
            if b"transfer-encoding: chunked" in header.lower():
                decoded = b""
                while content:
                    size_line, _, rest = content.partition(b"\r\n")
                    size = int(size_line.split(b";")[0] or b"0", 16)
                    if size == 0: break
                    decoded, content = decoded + rest[:size], rest[size + 2:]
                content = decoded
            return status, round(time.time() - start, 2), content[:4096].decode("utf-8", "replace")
        import urllib.request
        request = urllib.request.Request("http://127.0.0.1:%d/__mockd/openapi.json" % port, headers=dict(AUTH))
        document = json.loads(urllib.request.urlopen(request).read())
        # Values that no field or parameter should take badly.
        HOSTILE_VALUES = ["../../../../etc/passwd", "..", "a/../../b", "/etc/passwd", "a\u0000b", "\u0000", "x" * 100000,
                          -1, -1e300, 1e308, 2 ** 70, 0.5, True, None, [], {}, [[[[[[[[[[]]]]]]]]]]]
        RAW_NUMBERS = [b"NaN", b"Infinity", b"-Infinity", b"1e400", b"-0", b"99999999999999999999999999999999999999"]
        HOSTILE_PARAMETERS = ["..%2F..%2F..%2Fetc%2Fpasswd", "..", "%00", "a%00b", "%FF%FE", "x" * 5000, "-1", "NaN",
                              "1e400", "99999999999999999999999", "%20", "%0D%0AX-Injected:%201"]
        BODIES = {
            "truncated JSON": b'{"a": [1, 2',
            "not JSON": b"hello",
            "empty": b"",
            "array 100,000 deep": b"[" * 100000 + b"]" * 100000,
            "object 50,000 deep": b'{"a":' * 50000 + b"1" + b"}" * 50000,
            "3 MiB string": b'{"x": "' + b"a" * (3 << 20) + b'"}',
            "array": b"[1, 2, 3]",
            "string": b'"text"',
            "number": b"42",
            "null": b"null",
            "raw NUL": b'{"id": "a\x00b"}',
            "invalid UTF-8": b'{"id": "\xff\xfe\xfd"}',
            "lone surrogate": b'{"id": "\\ud800"}',
            "unknown field": b'{"zzzUnknownField": 1}',
            "duplicate keys": b'{"id": "a", "id": "b"}',
        }
        def fill(path, value="x"):
            return re.sub(r"\{[^}]+\}", value, path)
        def schema_of(operation):
            content = (operation.get("requestBody") or {}).get("content") or {}
            schema = (content.get("application/json") or {}).get("schema") or {}
            if "$ref" in schema:
                schema = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
            return schema
        results = []
        def case(name, method, target, body=None, headers=AUTH):
            status, seconds, content = exchange(method, target, body, headers)
            results.append([name, method, target[:200], status, seconds, content])
        verbs = ["GET", "POST", "PUT", "DELETE", "PATCH"]
        for path, operations in sorted(document["paths"].items()):
            target = fill(path)
            for verb in verbs:
                if verb.lower() not in operations:
                    case("method not taken", verb, target, b"{}" if verb in ("POST", "PUT", "PATCH") else None)
            for method, operation in sorted(operations.items()):
                method = method.upper()
                case("no token", method, target, None, [])
                case("wrong token", method, target, None, [("Authorization", "Bearer " + "w" * len(token))])
                case("100 KiB token", method, target, None, [("Authorization", "Bearer " + "t" * 102400)])
                for value in HOSTILE_PARAMETERS:
                    if "{" in path: case("path parameter " + value[:20], method, fill(path, value))
                    for parameter in operation.get("parameters", []):
                        if parameter.get("in") == "query":
                            case("query %s=%s" % (parameter["name"], value[:20]), method, target + "?" + parameter["name"] + "=" + value)
                if method in ("GET", "DELETE") and "requestBody" not in operation:
                    continue
                for name, body in BODIES.items():
                    case(name, method, target, body)
                properties = list((schema_of(operation).get("properties") or {}).keys()) or ["id"]
                for field in properties:
                    for value in HOSTILE_VALUES:
                        case("field %s=%s" % (field, json.dumps(value)[:20]), method, target, json.dumps({field: value}).encode())
                    for raw in RAW_NUMBERS:
                        case("field %s=%s" % (field, raw.decode()), method, target, b'{"' + field.encode() + b'": ' + raw + b"}")
        print(json.dumps(results))
        """#

    /// Every file under `root` the user owns, with its bytes: not mockd's own `index.cache`, which a start writes
    /// beside `index.json` (derived from it, safe to delete).
    static func files(under root: URL) -> [String: Data] {
        var found: [String: Data] = [:]
        let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
        let mocks = root.appendingPathComponent("mocks").path + "/"
        while let url = walker?.nextObject() as? URL {
            if url.path.hasPrefix(mocks), Paths.isCacheFile(mocksRelativePath: String(url.path.dropFirst(mocks.count)))
            {
                continue
            }
            if let data = try? Data(contentsOf: url) { found[url.path] = data }
        }
        return found
    }

    @Test func everyRouteRefusesHostileInputWithOneClearErrorAndLosesNothing() throws {
        let root = try Paths.makeRoot(scenario: #"{"sets": ["chat"]}"#)
        defer { try? FileManager.default.removeItem(at: root) }
        let before = Self.files(under: root)
        let daemon = try RunningDaemon(
            ["--config", "s", "--root", root.path, "--port", "0", "--quiet", "--control-token", Self.token]
        )
        defer { daemon.stop() }
        // The app's request, in a session no hostile call names (they may reset their own).
        let app = try Curl.send(
            CurlRequest(url: daemon.baseURL + "/v1/me", headers: [("X-Mockd-Session", "bystander")])
        )
        #expect(app.status == 200)

        let run = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/python3"),
            ["-c", Self.script, String(daemon.port), Self.token]
        )
        try #require(run.status == 0, "python failed: \(run.stderr)")
        let cases = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[Any]])
        #expect(cases.count > 1000)
        let codes = Set(ControlErrorCode.allCases.map(\.rawValue))
        var failures: [String] = []
        for entry in cases {
            let (name, method, target) = (
                entry[0] as? String ?? "", entry[1] as? String ?? "", entry[2] as? String ?? ""
            )
            let status = entry[3] as? Int ?? 0
            let seconds = entry[4] as? Double ?? 99
            let body = entry[5] as? String ?? ""
            let label = "\(name): \(method) \(target.prefix(80)) → \(status)"
            if status == 0 || seconds > 10 {
                failures.append("\(label): no answer within \(seconds) s")
                continue
            }
            if status >= 500 { failures.append("\(label): \(body.prefix(300))") }
            guard status >= 400 else { continue }
            // A head larger than libmicrohttpd's per-connection memory is refused by the library itself, before
            // mockd sees it, with its own page (a library limit; docs/PLATFORMS.md).
            if name == "100 KiB token", status == 431 { continue }
            guard let error = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any],
                let code = error["error"] as? String, let message = error["message"] as? String
            else {
                failures.append("\(label): not the error shape: \(body.prefix(300))")
                continue
            }
            if !codes.contains(code) { failures.append("\(label): unknown error code \(code)") }
            let unprintable = message.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || $0.value == 0x7F }
            let lines = message.split(separator: "\n", omittingEmptySubsequences: false)
            let long = lines.count > ControlError.maxLines + 1 || lines.contains { $0.unicodeScalars.count > 440 }
            if message.isEmpty || unprintable || long {
                failures.append("\(label): message not short printable text: \(message.prefix(300).debugDescription)")
            }
        }
        let report = "\(failures.count) of \(cases.count) cases:\n" + failures.prefix(60).joined(separator: "\n")
        #expect(failures.isEmpty, "\(report)")

        // Still serving; the app's request still in the journal; the user's files untouched.
        #expect(try Curl.send(CurlRequest(url: daemon.baseURL + "/v1/me")).status == 200)
        let journal = try Curl.send(
            CurlRequest(
                url: daemon.baseURL + "/__mockd/journal?path=/v1/me",
                headers: [("X-Mockd-Session", "bystander"), ("Authorization", "Bearer \(Self.token)")]
            )
        )
        let entries = ((try? JSONSerialization.jsonObject(with: journal.body)) as? [String: Any])?["entries"]
        #expect(
            (entries as? [[String: Any]])?.count == 1,
            "\(String(decoding: journal.body.prefix(300), as: UTF8.self))" as Comment
        )
        let after = Self.files(under: root)
        #expect(after.keys.sorted() == before.keys.sorted())
        #expect(after.filter { before[$0.key] != $0.value }.keys.sorted() == [])
    }
}
