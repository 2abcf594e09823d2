import Foundation
import MockdTestSupport
import Testing

/// Request framing (RFC 9112 §2, §3, §5, §6, §7) from raw sockets, one connection per case (`scripts/framing-cases`,
/// which also runs the same cases against nginx): what a client gets on the libmicrohttpd that runs, 0.9.75
/// (Debian 12, the container) or 1.0.x (Homebrew, Debian 13). docs/PLATFORMS.md has the table with nginx beside it.
///
/// What mockd promises on both: every request whose length or fields a front proxy could read differently is
/// refused with a 4xx (or 501) and its connection closed, so nothing hidden in it is served as a request of its
/// own; well-formed requests are served. mockd answers in its JSON error shape wherever the library hands the
/// request over; where libmicrohttpd refuses first, the client gets the library's own HTML page (`html`). Two
/// exceptions, both in 0.9.75's parser, which mockd cannot see through libmicrohttpd's API: a line starting with
/// `:` after the first field ends the head there (what follows is read as the next request), and an obs-fold
/// line of a field other than the framing ones is appended to that field's name.
struct RequestFramingTests {
    /// Each case on 0.9.75 (its parser from before 1.0) and on 1.0.x: "statuses closed|open shape", where a
    /// shape is `json:CODE` (mockd's error), `html` (libmicrohttpd's page), `other`, or `-` (no answer); `|`
    /// separates answers that may both occur.
    static let expected: [String: (legacy: String, current: String)] = [
        "empty field name first": ("400 closed json:bad_request", "400 closed html"),
        "empty field name after Host": ("200,200 closed other", "400 closed html"),
        "empty field name in a padded POST": ("404,200 closed json:unmatched", "400 closed html"),
        "space before the colon of Transfer-Encoding": ("400 closed json:bad_request", "400 closed html"),
        "tab before the colon of Transfer-Encoding": ("400 closed json:bad_request", "400 closed html"),
        "space inside a field name": ("400 closed json:bad_request", "400 closed html"),
        "control byte in a field name": ("400 closed json:bad_request", "400 closed json:bad_request"),
        "byte above 0x7F in a field name": ("400 closed json:bad_request", "400 closed json:bad_request"),
        "NUL in a field name": ("400 closed html", "400 closed html"),
        "header line without colon": ("400 closed html", "400 closed html"),
        "folded Transfer-Encoding": ("400 closed json:bad_request", "400 closed html"),
        "folded header": ("200 closed other", "400 closed html"),
        "whitespace before the first field": ("400 closed json:bad_request", "400 closed html"),
        "bare CR in a value": ("400 closed json:bad_request", "400 closed html"),
        "NUL in a value": ("200 closed other", "400 closed html"),
        "bare LF line endings": ("200 closed other", "400 closed html"),
        "two Host fields": ("400 closed json:bad_request", "400 closed json:bad_request"),
        "HTTP/1.1 without Host": ("400 closed json:bad_request", "400 closed html"),
        "unknown transfer coding": ("400 closed json:bad_request", "400 closed html"),
        "gzip before chunked": ("501 closed json:not_implemented", "400 closed html"),
        "chunked not last": ("400 closed json:bad_request", "400 closed html"),
        "Transfer-Encoding twice": ("400 closed json:bad_request", "400 closed json:bad_request"),
        "empty Transfer-Encoding": ("400 closed json:bad_request", "400 closed html"),
        "Content-Length with Transfer-Encoding": ("400 closed json:bad_request", "400 closed html"),
        "two different Content-Length fields": ("400 closed json:bad_request", "400 closed json:bad_request"),
        "Content-Length list": ("400,400 closed html", "400 closed html"),
        "negative Content-Length": ("400,400 closed html", "400 closed html"),
        "Content-Length with a plus sign": ("400,400 closed html", "400 closed html"),
        "Content-Length not a number": ("400,400 closed html", "400 closed html"),
        "Content-Length over 2^64": ("413,413 closed html", "413 closed html"),
        "chunked body": ("404 closed json:unmatched", "404 closed json:unmatched"),
        "chunk extension": ("404 closed json:unmatched", "400 closed html"),
        "100 KB chunk extension": ("500 closed html", "413 closed html|- closed -"),
        "bad chunk size": ("400 closed html", "400 closed html"),
        "chunk size over 2^64": ("413 closed html", "413 closed html"),
        "chunk data without its CRLF": ("400 closed html", "400 closed html"),
        "chunked trailer field": ("404 closed json:unmatched", "404 closed json:unmatched"),
        "two spaces after the method": ("200 closed other", "400 closed html"),
        "two spaces before the version": ("400 closed json:bad_request", "400 closed html"),
        "space inside the target": ("400 closed json:bad_request", "400 closed html"),
        // 0.9.75 turns `+` in the query into a space, so a raw space there reads as one (here: a miss).
        "space inside the query": ("404 closed json:unmatched", "400 closed html"),
        "tab between method and target": ("400 closed html", "- closed -"),
        "request line without method and version": ("- closed -", "- closed -"),
        "method that is not a token": ("400 closed json:bad_request", "400 closed json:bad_request"),
        "lower-case version": ("400 closed html", "400 closed html"),
        "HTTP/1.2": ("200 closed other", "200 closed other"),
        "HTTP/9.9": ("505 closed html", "505 closed html"),
        "HTTP/0.9 request": ("400 closed html", "400 closed html"),
        "HTTP/2 preface": ("505 closed html", "505 closed html"),
        "empty line before the request line": ("200 closed other", "200 closed other"),
        "absolute-form target": ("200 closed other", "200 closed other"),
        "100 KB target": ("414 closed html", "414 closed html"),
        "100 KB header": ("431 closed html", "431 closed html"),
        "10,000 fields": ("431 closed html", "431 closed html"),
        "plain GET": ("200 closed other", "200 closed other"),
        "space after the colon": ("200 closed other", "200 closed other"),
        "folded-looking name": ("200 closed other", "200 closed other"),
    ]

    static func cases(port: Int) throws -> [String: String] {
        let script = Paths.packageRoot.appendingPathComponent("scripts/framing-cases").path
        let result = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/python3"), [script, String(port), "--json"])
        try #require(result.status == 0, "\(result.stderr)")
        let table = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: [String: Any]]
        )
        return table.mapValues { row in
            let statuses = (row["statuses"] as? [Int] ?? []).map(String.init).joined(separator: ",")
            let shape = row["shape"] as? String ?? ""
            return "\(statuses.isEmpty ? "-" : statuses) \(row["closed"] as? Bool == true ? "closed" : "open") "
                + (shape.isEmpty ? "-" : shape)
        }
    }

    /// The libmicrohttpd the daemon runs on, from `mockd --version`.
    static func libraryIsLegacy() throws -> Bool {
        let version = try ProcessRunner.mockd(["--version"]).stdout
        let line = try #require(version.split(separator: "\n").last { $0.hasPrefix("libmicrohttpd ") })
        let parts = line.dropFirst("libmicrohttpd ".count).split(separator: ".").compactMap { Int($0) }
        try #require(parts.count == 3)
        // The parser with client discipline levels came with 1.0 (0.9.77-1 in development).
        return parts[0] == 0 && (parts[1] < 9 || (parts[1] == 9 && parts[2] <= 77))
    }

    @Test func everyCaseGetsWhatIsPromisedOnThisLibmicrohttpd() throws {
        let legacy = try Self.libraryIsLegacy()
        let daemon = try RunningDaemon([
            "--set", "chat", "--root", Paths.packageRoot.path, "--port", "0", "--quiet", "--connection-timeout", "2",
        ])
        defer { daemon.stop() }
        let observed = try Self.cases(port: daemon.port)
        #expect(Set(observed.keys) == Set(Self.expected.keys))
        for (name, expectation) in Self.expected.sorted(by: { $0.key < $1.key }) {
            let wanted = legacy ? expectation.legacy : expectation.current
            let got = observed[name] ?? "missing"
            #expect(
                wanted.split(separator: "|").map(String.init).contains(got),
                "\(name) on libmicrohttpd \(legacy ? "0.9.75" : "1.0"): got '\(got)', promised '\(wanted)'"
            )
        }
        // The daemon is whole afterwards.
        #expect(try Curl.send(CurlRequest(url: daemon.baseURL + "/v1/me")).status == 200)
    }

    /// The reason of each refusal mockd makes itself, on the libmicrohttpd that runs (1.0.x refuses the others
    /// first, with its own page).
    @Test func refusalsNameTheProblem() throws {
        let legacy = try Self.libraryIsLegacy()
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
                try: return json.loads(received.split(b"\r\n\r\n", 1)[1])["message"]
                except Exception: return "not mockd's: " + received.split(b"\r\n", 1)[0].decode()
            H = b"POST /v1/me HTTP/1.1\r\nHost: x\r\n"
            print(json.dumps([
                message(H + b"Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n"),
                message(H + b"Host: y\r\n\r\n"),
                message(H + b"X-\x01: v\r\n\r\n"),
                message(H + b"Content-Length: 3\r\nContent-Length: 5\r\n\r\n"),
                message(H + b"Transfer-Encoding : chunked\r\n\r\n"),
                message(H + b"Transfer-Encoding:\r\n chunked\r\n\r\n"),
                message(H + b"Transfer-Encoding: xchunked\r\n\r\n"),
                message(H + b"Transfer-Encoding: gzip, chunked\r\n\r\n"),
                message(H + b"X-Note: a\rb\r\n\r\n"),
                message(b"GET /v1/me HTTP/1.1\r\n\r\n"),
                message(b"GET /v1/me  HTTP/1.1\r\nHost: x\r\n\r\n"),
            ]))
            """#
        let result = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/python3"),
            ["-c", script, String(daemon.port)]
        )
        let messages = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String]) ?? []
        let onBoth = [
            "chunked is applied more than once (RFC 9112 §6.1)",
            "more than one Host field (RFC 9112 §3.2)",
            "field name 'X-\\x01' is not a token: whitespace before the colon or inside a name is not allowed (RFC 9112 §5.1)",
            "conflicting Content-Length values",
        ]
        let legacyOnly = [
            "field name 'Transfer-Encoding ' is not a token: whitespace before the colon or inside a name is not allowed (RFC 9112 §5.1)",
            "field name 'Transfer-Encodingchunked': a folded header line (obs-fold) of a framing field is not allowed in a request (RFC 9112 §5.2)",
            "transfer coding 'xchunked' is not supported, and chunked must be the final coding (RFC 9112 §6.3)",
            "transfer coding 'gzip' is not supported; send the body with chunked alone (RFC 9112 §6.1)",
            "a field value contains a bare CR (RFC 9110 §5.5, RFC 9112 §2.2)",
            "an HTTP/1.1 request needs a Host field (RFC 9112 §3.2)",
            "the request target contains whitespace: the request line is method, one space, target, one space, version (RFC 9112 §3)",
        ]
        let libraryRefuses = Array(repeating: "not mockd's: HTTP/1.1 400 Bad Request", count: legacyOnly.count)
        #expect(messages == onBoth + (legacy ? legacyOnly : libraryRefuses))
    }
}
