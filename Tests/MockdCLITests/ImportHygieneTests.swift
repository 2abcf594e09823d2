import Foundation
import MockdTestSupport
import Testing

/// `mockd import-har` hygiene, normalisation, hosts, failed entries, CORS, 304s and `--merge`, end to end:
/// the real binary imports a hand-made HAR, the real daemon serves it, curl asks.
@Suite(.serialized)
struct ImportHygieneTests {
    static let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbm5hIn0.c2lnbmF0dXJlLXJlYWw"

    /// One HAR entry as JSON-ready dictionaries.
    static func entry(
        _ method: String,
        _ url: String,
        requestHeaders: [(String, String)] = [],
        body: String? = nil,
        status: Int = 200,
        headers: [(String, String)] = [("Content-Type", "application/json")],
        text: String? = "{}",
        encoding: String? = nil,
        mimeType: String? = nil
    ) -> [String: Any] {
        var request: [String: Any] = [
            "method": method, "url": url, "httpVersion": "HTTP/1.1",
            "headers": requestHeaders.map { ["name": $0.0, "value": $0.1] },
        ]
        if let body { request["postData"] = ["mimeType": "application/json", "text": body] }
        var content: [String: Any] = [
            "mimeType": mimeType ?? headers.first { $0.0.lowercased() == "content-type" }?.1 ?? ""
        ]
        if let text { content["text"] = text }
        if let encoding { content["encoding"] = encoding }
        return [
            "startedDateTime": "2026-11-29T10:00:00Z", "time": 20, "request": request,
            "response": [
                "status": status, "statusText": "", "httpVersion": "HTTP/1.1",
                "headers": headers.map { ["name": $0.0, "value": $0.1] }, "content": content,
            ],
        ]
    }

    static func write(_ entries: [[String: Any]], to url: URL) throws {
        let log: [String: Any] = [
            "log": ["version": "1.2", "creator": ["name": "test", "version": "1"], "entries": entries]
        ]
        try JSONSerialization.data(withJSONObject: log, options: [.sortedKeys]).write(to: url)
    }

    static var shopEntries: [[String: Any]] {
        [
            entry(
                "POST",
                "https://api.shop.test/v1/auth/sign-in",
                requestHeaders: [("Content-Type", "application/json")],
                body: #"{"email":"anna@corp.io","password":"hunter22"}"#,
                headers: [
                    ("Content-Type", "application/json"), ("Set-Cookie", "sid=abc123; Path=/; HttpOnly"),
                    ("Date", "Sun, 29 Nov 2026 10:00:00 GMT"),
                    ("X-Request-Id", "req-1"), ("Cache-Control", "no-store"),
                ],
                text: #"{"access_token":"\#(jwt)","user":{"email":"anna@corp.io","plan":"pro"}}"#
            ),
            entry(
                "GET",
                "https://api.shop.test/v1/orders?api_key=SECRETKEY123&_=1700000000000",
                text: #"{"orders":[]}"#
            ),
            entry("GET", "https://cdn.shop.test/v1/orders", headers: [("Content-Type", "text/plain")], text: "cdn"),
        ]
    }

    private func withRoot(_ body: (URL) throws -> Void) throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        try body(root)
    }

    @Test func secretsBecomePlaceholdersThatServeFakeValuesAndStillMatch() throws {
        try withRoot { root in
            let har = root.appendingPathComponent("shop.har")
            try Self.write(Self.shopEntries, to: har)
            let imported = try ProcessRunner.mockd(["import-har", har.path, "--set", "shop", "--root", root.path])
            #expect(imported.status == 0, "\(imported.stderr)")
            let report = imported.stdout.split(separator: "\n").map(String.init)
            #expect(
                report.contains(
                    "  hosts:          2 (api.shop.test 2, cdn.shop.test 1); a request naming no host is answered by the only host that recorded it"
                )
            )
            #expect(report.contains("  redacted:       6 values (--keep-secrets keeps them)"))
            #expect(report.contains("    request query: parameter api_key → {{apiKey}} ×1 (entry 2)"))
            #expect(report.contains("    request body: field password → {{password}} ×1 (entry 1)"))
            #expect(report.contains("    response header Set-Cookie value → {{cookie}} ×1 (entry 1)"))
            #expect(report.contains("    response body: e-mail address in field email → {{email}} ×1 (entry 1)"))
            #expect(report.contains("    response body: field access_token → {{accessToken}} ×1 (entry 1)"))
            #expect(
                report.contains(
                    "  unstable headers not stored: date ×1, x-request-id ×1 (--keep-header NAME keeps one)"
                )
            )

            let index = try String(contentsOf: root.appendingPathComponent("mocks/shop/index.json"), encoding: .utf8)
            #expect(index.contains(#""query" : "api_key={{apiKey}}""#))
            #expect(index.contains(#""Set-Cookie: sid={{cookie}}; Path=/; HttpOnly""#))
            #expect(!index.contains("SECRETKEY123") && !index.contains("abc123") && !index.contains("req-1"))
            #expect(index.contains(#""host" : "cdn.shop.test""#))
            let signInBody = try String(
                contentsOf: root.appendingPathComponent("mocks/shop/bodies/POST_v1_auth_sign-in.json"),
                encoding: .utf8
            )
            #expect(signInBody == #"{"access_token":"{{accessToken}}","user":{"email":"{{email}}","plan":"pro"}}"#)

            let lint = try ProcessRunner.mockd(["lint", root.appendingPathComponent("mocks/shop").path])
            #expect(lint.status == 0, "\(lint.stdout)")
            #expect(lint.stdout.isEmpty)

            let daemon = try RunningDaemon(["--set", "shop", "--root", root.path, "--port", "0", "--quiet"])
            defer { daemon.stop() }
            let base = daemon.baseURL
            let responses = try Curl.batch([
                CurlRequest(
                    method: "POST",
                    url: base + "/__host/api.shop.test/v1/auth/sign-in",
                    headers: [("Content-Type", "application/json")],
                    body: Data(#"{"password":"other-secret","email":"ben@corp.io"}"#.utf8)
                ),
                CurlRequest(url: base + "/__host/api.shop.test/v1/orders?_=42&api_key=LIVEKEY"),
                CurlRequest(url: base + "/v1/orders", headers: [("X-Forwarded-Host", "cdn.shop.test")]),
                CurlRequest(url: base + "/v1/orders"),
            ])
            // `/v1/orders` without a query was recorded on cdn.shop.test only: a request naming no host gets it.
            #expect(responses.map(\.status) == [200, 200, 200, 200])
            #expect(
                responses[0].text
                    == #"{"access_token":"mockd-access-token-0000000000","user":{"email":"user@example.com","plan":"pro"}}"#
            )
            #expect(responses[0].header("Set-Cookie") == "sid=mockd-cookie-value; Path=/; HttpOnly")
            #expect(responses[0].header("X-Request-Id") == nil)
            #expect(responses[0].header("Cache-Control") == "no-store")
            #expect(responses[1].text == #"{"orders":[]}"#)
            #expect(responses[2].text == "cdn")
            #expect(responses[3].text == "cdn")
        }
    }

    @Test func keepSecretsKeepsThemAndLintFindsEach() throws {
        try withRoot { root in
            let har = root.appendingPathComponent("shop.har")
            try Self.write(Self.shopEntries, to: har)
            let imported = try ProcessRunner.mockd([
                "import-har", har.path, "--set", "raw", "--root", root.path, "--keep-secrets", "--keep-header",
                "x-request-id",
            ])
            #expect(imported.status == 0)
            #expect(imported.stdout.contains("  redacted:       nothing"))
            #expect(imported.stdout.contains("  unstable headers not stored: date ×1 (--keep-header NAME keeps one)"))
            let lint = try ProcessRunner.mockd(["lint", "raw", "--root", root.path])
            #expect(lint.status == 1)
            #expect(
                lint.stdout.split(separator: "\n").map(String.init) == [
                    "mocks/raw/index.json: stubs[0].responses[0].headers[1]: Set-Cookie value",
                    "mocks/raw/index.json: stubs[1].request.query (api_key): value of api_key (apiKey)",
                    "mocks/raw/bodies/POST_v1_auth_sign-in.json: $.access_token: value of access_token (accessToken)",
                    "mocks/raw/bodies/POST_v1_auth_sign-in.json: $.user.email: e-mail address",
                    // The sign-in body as sent, kept for `mockd refresh` (with --keep-secrets, as recorded).
                    "mocks/raw/bodies/POST_v1_auth_sign-in.request.json: $.email: e-mail address",
                    "mocks/raw/bodies/POST_v1_auth_sign-in.request.json: $.password: value of password (password)",
                ]
            )
            #expect(
                lint.stderr
                    == "mockd lint: mocks/raw: 6 findings; replace them with placeholders like {{token}} (import-har redacts them unless --keep-secrets; import-wiremock with --redact)\n"
            )
            // A relative folder is looked up under --root when it is not under the current directory.
            let relative = try ProcessRunner.mockd(["lint", "mocks/raw", "--root", root.path])
            #expect(relative.status == 1)
            #expect(relative.stdout.split(separator: "\n").count == 6)
            let missing = try ProcessRunner.mockd(["lint", root.appendingPathComponent("mocks/nope").path])
            #expect(missing.status == 1)
            #expect(
                missing.stderr
                    == "mockd: \(root.appendingPathComponent("mocks/nope").path)/index.json: not found; lint needs a mock set folder (mocks/<name>)\n"
            )

            // Nested folders are walked, links are not followed: a file inside is reported once, by its own path, and
            // a file outside the set is not the set's.
            let set = root.appendingPathComponent("mocks/raw")
            let notes = set.appendingPathComponent("notes/deep")
            try FileManager.default.createDirectory(at: notes, withIntermediateDirectories: true)
            try Data(#"{"email":"ann@corp.io"}"#.utf8).write(to: notes.appendingPathComponent("a.json"))
            try Data(#"{"email":"out@corp.io"}"#.utf8).write(to: root.appendingPathComponent("outside.json"))
            try FileManager.default.createSymbolicLink(
                atPath: set.appendingPathComponent("bodies/link.json").path,
                withDestinationPath: "../notes/deep/a.json"
            )
            try FileManager.default.createSymbolicLink(
                atPath: set.appendingPathComponent("bodies/out.json").path,
                withDestinationPath: root.appendingPathComponent("outside.json").path
            )
            let walked = try ProcessRunner.mockd(["lint", "raw", "--root", root.path])
            #expect(
                walked.stdout.split(separator: "\n").map(String.init)
                    == lint.stdout.split(separator: "\n").map(String.init) + [
                        "mocks/raw/notes/deep/a.json: $.email: e-mail address"
                    ]
            )
            // A name that is not UTF-8 cannot be scanned: said, never "nothing found" (APFS refuses such names).
            let strange = (Array(notes.path.utf8) + Array("/t".utf8) + [0xFF]).map { CChar(bitPattern: $0) } + [0]
            let descriptor = open(strange, O_WRONLY | O_CREAT, 0o644)
            if descriptor >= 0 {
                close(descriptor)
                let unnamed = try ProcessRunner.mockd(["lint", "raw", "--root", root.path])
                // After the index's findings, before the files'.
                let before = walked.stdout.split(separator: "\n").map(String.init)
                let fromIndex = before.filter { $0.hasPrefix("mocks/raw/index.json") }
                #expect(
                    unnamed.stdout.split(separator: "\n").map(String.init)
                        == fromIndex + ["mocks/raw/notes/deep/t\u{FFFD}: name: not UTF-8, so not scanned; rename it"]
                        + before.dropFirst(fromIndex.count)
                )
            } else {
                print("note: this file system refuses a name that is not UTF-8; that lint case is not tried")
            }
        }
    }

    @Test func flattenHostsReportsCollisions() throws {
        try withRoot { root in
            let har = root.appendingPathComponent("hosts.har")
            try Self.write(
                [
                    Self.entry("GET", "https://api.shop.test/v1/orders", text: #"{"orders":[]}"#),
                    Self.entry("GET", "https://api.shop.test/v1/me", text: "me"),
                    Self.entry(
                        "GET",
                        "https://cdn.shop.test/v1/orders",
                        headers: [("Content-Type", "text/plain")],
                        text: "cdn"
                    ),
                ],
                to: har
            )
            let imported = try ProcessRunner.mockd([
                "import-har", har.path, "--set", "flat", "--root", root.path, "--flatten-hosts",
            ])
            #expect(imported.status == 0)
            let lines = imported.stdout.split(separator: "\n").map(String.init)
            #expect(lines.contains("  hosts:          2 (api.shop.test 2, cdn.shop.test 1); hosts left out of keys"))
            #expect(lines.contains("  host collisions (same request on several hosts, merged into one sequence):"))
            #expect(lines.contains("    GET /v1/orders recorded on api.shop.test, cdn.shop.test"))
            let daemon = try RunningDaemon(["--set", "flat", "--root", root.path, "--port", "0", "--quiet"])
            defer { daemon.stop() }
            let responses = try Curl.batch([
                CurlRequest(url: daemon.baseURL + "/v1/orders"), CurlRequest(url: daemon.baseURL + "/v1/orders"),
            ])
            #expect(responses.map(\.text) == [#"{"orders":[]}"#, "cdn"])
        }
    }

    @Test func failedAttemptsReplayAsResetsWhenKept() throws {
        try withRoot { root in
            let har = root.appendingPathComponent("flaky.har")
            try Self.write(
                [
                    Self.entry("GET", "http://localhost:8907/data", status: 0, headers: [], text: nil),
                    Self.entry("GET", "http://localhost:8907/data", text: #"{"ok":true}"#),
                ],
                to: har
            )
            let skipped = try ProcessRunner.mockd(["import-har", har.path, "--set", "skip", "--root", root.path])
            #expect(skipped.stdout.contains("    failed request (status 0: no answer from the server): entry 1"))
            let kept = try ProcessRunner.mockd([
                "import-har", har.path, "--set", "keep", "--root", root.path, "--failed", "keep",
            ])
            #expect(kept.status == 0)
            #expect(kept.stdout.contains("  stubs written:  1 (2 responses, 1 sequence)"))
            let index = try String(contentsOf: root.appendingPathComponent("mocks/keep/index.json"), encoding: .utf8)
            #expect(index.contains(#""fault" : "connectionReset""#))
            let daemon = try RunningDaemon(["--set", "keep", "--root", root.path, "--port", "0", "--quiet"])
            defer { daemon.stop() }
            let first = try ProcessRunner.run(
                URL(fileURLWithPath: "/usr/bin/curl"),
                ["-sS", "-o", "/dev/null", daemon.baseURL + "/data"]
            )
            #expect(first.status == 56 || first.status == 52, "curl exit \(first.status): \(first.stderr)")
            let second = try Curl.send(CurlRequest(url: daemon.baseURL + "/data"))
            #expect(second.status == 200)
            #expect(second.text == #"{"ok":true}"#)
            let bad = try ProcessRunner.mockd([
                "import-har", har.path, "--set", "x", "--root", root.path, "--failed", "maybe",
            ])
            #expect(bad.status == 64)
            #expect(bad.stderr.contains("--failed expects skip or keep, got 'maybe'"))
        }
    }

    @Test func corsPreflightsAndConditional304s() throws {
        try withRoot { root in
            let har = root.appendingPathComponent("web.har")
            let etag = "\"v1\""
            try Self.write(
                [
                    Self.entry(
                        "GET",
                        "https://api.web.test/app.css",
                        headers: [("Content-Type", "text/css"), ("ETag", etag)],
                        text: "body{}"
                    ),
                    Self.entry(
                        "GET",
                        "https://api.web.test/app.css",
                        requestHeaders: [("If-None-Match", etag)],
                        status: 304,
                        headers: [("ETag", etag)],
                        text: "body{}"
                    ),
                    Self.entry(
                        "POST",
                        "https://api.web.test/v1/track",
                        requestHeaders: [("Content-Type", "application/json")],
                        body: "{}",
                        status: 204,
                        headers: [],
                        text: nil
                    ),
                ],
                to: har
            )
            let imported = try ProcessRunner.mockd([
                "import-har", har.path, "--set", "web", "--root", root.path, "--cors",
            ])
            #expect(imported.status == 0)
            #expect(
                imported.stdout.contains(
                    "  304 responses:  1 kept in place in their sequences, answered to conditional requests; a plain request gets the recorded full response"
                )
            )
            let daemon = try RunningDaemon(["--set", "web", "--root", root.path, "--port", "0", "--quiet"])
            defer { daemon.stop() }
            let base = daemon.baseURL
            let responses = try Curl.batch([
                CurlRequest(url: base + "/app.css"),
                CurlRequest(url: base + "/app.css", headers: [("If-None-Match", etag)]),
                CurlRequest(url: base + "/app.css", headers: [("If-None-Match", "\"v0\"")]),
                CurlRequest(
                    method: "OPTIONS",
                    url: base + "/v1/track",
                    headers: [
                        ("Origin", "http://localhost:3000"), ("Access-Control-Request-Method", "POST"),
                        ("Access-Control-Request-Headers", "content-type"),
                    ]
                ),
                CurlRequest(method: "OPTIONS", url: base + "/v1/track"),
            ])
            #expect(responses.map(\.status) == [200, 304, 200, 204, 404])
            #expect(responses[0].text == "body{}")
            #expect(responses[1].body.isEmpty)
            #expect(responses[3].header("Access-Control-Allow-Origin") == "http://localhost:3000")
            #expect(responses[3].header("Access-Control-Allow-Methods") == "POST")
            #expect(responses[3].header("Access-Control-Allow-Headers") == "content-type")
            #expect(responses[3].header("Access-Control-Allow-Credentials") == "true")
        }
    }

    /// Imports `GET /one` and `GET /two` (each `{"v":1}`) of https://a.test as set `m` under `root`; its folder.
    static func importOneAndTwo(_ root: URL) throws -> URL {
        let har = root.appendingPathComponent("v1.har")
        try write(
            [
                entry("GET", "https://a.test/one", text: #"{"v":1}"#),
                entry("GET", "https://a.test/two", text: #"{"v":1}"#),
            ],
            to: har
        )
        #expect(try ProcessRunner.mockd(["import-har", har.path, "--set", "m", "--root", root.path]).status == 0)
        return root.appendingPathComponent("mocks/m")
    }

    /// A file of the set the merge cannot read refuses it, named, though the merge carries such files unread: the
    /// change summary would take it for an empty body (re-recording its stub with the same bytes printed "1 value
    /// changed", exit 0). As `nobody` when the tests run as root (root reads any file).
    @Test func aFileTheMergeCannotReadRefusesIt() throws {
        try withRoot { root in
            let set = try Self.importOneAndTwo(root)
            let har2 = root.appendingPathComponent("v2.har")
            try Self.write([Self.entry("GET", "https://a.test/one", text: #"{"v":1}"#)], to: har2)
            if getuid() == 0 {
                let paths =
                    [root.path]
                    + (FileManager.default.subpaths(atPath: root.path) ?? []).map {
                        root.path + "/" + $0
                    }
                for path in paths {
                    try FileManager.default.setAttributes(
                        [.ownerAccountID: 65534, .groupOwnerAccountID: 65534],
                        ofItemAtPath: path
                    )
                }
            }
            let unreadable = set.appendingPathComponent("bodies/GET_one.json")
            try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: unreadable.path)
            defer { try? FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: unreadable.path) }
            let index = try Data(contentsOf: set.appendingPathComponent("index.json"))
            let (refused, _) = try Lifecycle.mockdUnprivileged([
                "import-har", har2.path, "--set", "m", "--root", root.path, "--merge",
            ])
            #expect(refused.status == 1)
            #expect(
                refused.stderr
                    == "mockd: mocks/m/bodies/GET_one.json: cannot read: permission denied; nothing was changed\n"
            )
            #expect(try Data(contentsOf: set.appendingPathComponent("index.json")) == index)
        }
    }

    @Test func mergeReplacesRecordedStubsAndKeepsHandEdits() throws {
        try withRoot { root in
            let set = try Self.importOneAndTwo(root)
            // Hand edits: a body of a stub the next recording will not touch, and a note file.
            try Data(#"{"v":"edited by hand"}"#.utf8).write(to: set.appendingPathComponent("bodies/GET_two.json"))
            try Data("keep me".utf8).write(to: set.appendingPathComponent("NOTES.md"))
            let first = try Data(contentsOf: set.appendingPathComponent("index.json"))

            let har2 = root.appendingPathComponent("v2.har")
            try Self.write(
                [
                    Self.entry("GET", "https://a.test/one", text: #"{"v":2}"#),
                    Self.entry("GET", "https://a.test/three", text: #"{"v":3}"#),
                ],
                to: har2
            )
            let refused = try ProcessRunner.mockd(["import-har", har2.path, "--set", "m", "--root", root.path])
            #expect(refused.status == 1)
            let merged = try ProcessRunner.mockd([
                "import-har", har2.path, "--set", "m", "--root", root.path, "--merge",
            ])
            #expect(merged.status == 0, "\(merged.stderr)")
            #expect(merged.stdout.contains("  merged:         1 stubs replaced, 1 added, 1 kept as they were"))
            #expect(
                try String(contentsOf: set.appendingPathComponent("bodies/GET_one.json"), encoding: .utf8)
                    == #"{"v":2}"#
            )
            #expect(
                try String(contentsOf: set.appendingPathComponent("bodies/GET_two.json"), encoding: .utf8)
                    == #"{"v":"edited by hand"}"#
            )
            #expect(
                try String(contentsOf: set.appendingPathComponent("bodies/GET_three.json"), encoding: .utf8)
                    == #"{"v":3}"#
            )
            #expect(try String(contentsOf: set.appendingPathComponent("NOTES.md"), encoding: .utf8) == "keep me")
            let index = try String(contentsOf: set.appendingPathComponent("index.json"), encoding: .utf8)
            #expect(index.components(separatedBy: "\"id\" :").count - 1 == 3)
            // Merging the same HAR again changes nothing.
            let before = try Data(contentsOf: set.appendingPathComponent("index.json"))
            #expect(
                try ProcessRunner.mockd(["import-har", har2.path, "--set", "m", "--root", root.path, "--merge"]).status
                    == 0
            )
            #expect(try Data(contentsOf: set.appendingPathComponent("index.json")) == before)
            #expect(before != first)

            // A body file that cannot come along (here a symbolic link) refuses the merge instead of being lost.
            try FileManager.default.removeItem(at: set.appendingPathComponent("bodies/GET_two.json"))
            try FileManager.default.createSymbolicLink(
                at: set.appendingPathComponent("bodies/GET_two.json"),
                withDestinationURL: set.appendingPathComponent("NOTES.md")
            )
            let refusedLink = try ProcessRunner.mockd([
                "import-har", har2.path, "--set", "m", "--root", root.path, "--merge",
            ])
            #expect(refusedLink.status == 1)
            #expect(
                refusedLink.stderr.hasSuffix(
                    "'bodies/GET_two.json' cannot be carried into the merged set (missing, a symbolic link or outside the set); fix it or use --force; nothing was changed\n"
                ),
                "\(refusedLink.stderr)"
            )
            #expect(try Data(contentsOf: set.appendingPathComponent("index.json")) == before)
        }
    }

    /// A merge carries every file of the set it does not replace as that same file (a second name, no copy: a merge
    /// into 100,000 stubs once copied every body file), in nested folders too; a name no path string can hold
    /// refuses the merge rather than being lost with the old folder.
    @Test func mergeCarriesTheOtherFilesAsTheSameFiles() throws {
        try withRoot { root in
            let set = try Self.importOneAndTwo(root)
            let deep = set.appendingPathComponent("notes/old/deep.txt")
            try FileManager.default.createDirectory(
                at: deep.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try Data("deep".utf8).write(to: deep)
            func inode(_ relative: String) throws -> UInt64 {
                var info = stat()
                try #require(stat(set.appendingPathComponent(relative).path, &info) == 0, "\(relative)")
                return UInt64(info.st_ino)
            }
            try FileManager.default.createDirectory(
                at: set.appendingPathComponent("drafts/empty"),
                withIntermediateDirectories: true
            )
            let before = (two: try inode("bodies/GET_two.json"), one: try inode("bodies/GET_one.json"))
            let deepBefore = try inode("notes/old/deep.txt")

            let har2 = root.appendingPathComponent("v2.har")
            try Self.write([Self.entry("GET", "https://a.test/one", text: #"{"v":2}"#)], to: har2)
            let merged = try ProcessRunner.mockd([
                "import-har", har2.path, "--set", "m", "--root", root.path, "--merge",
            ])
            #expect(merged.status == 0, "\(merged.stderr)")
            #expect(try inode("bodies/GET_two.json") == before.two)
            #expect(try inode("notes/old/deep.txt") == deepBefore)
            #expect(try inode("bodies/GET_one.json") != before.one)
            #expect(try Data(contentsOf: set.appendingPathComponent("bodies/GET_one.json")) == Data(#"{"v":2}"#.utf8))
            #expect(try Data(contentsOf: deep) == Data("deep".utf8))
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: set.appendingPathComponent("drafts/empty").path)
                    == []
            )
            // Nothing of the old folder is left beside the set.
            let leftovers = try FileManager.default.contentsOfDirectory(
                atPath: root.appendingPathComponent("mocks").path
            )
            #expect(leftovers.filter { !$0.hasPrefix(".m.lock") } == ["m"], "\(leftovers)")

            // What the merged set could not hold as it is refuses the merge, named, and changes nothing.
            let index = try Data(contentsOf: set.appendingPathComponent("index.json"))
            let notes = set.appendingPathComponent("notes")
            func refusal(_ hazard: String) throws -> String {
                let refused = try ProcessRunner.mockd([
                    "import-har", har2.path, "--set", "m", "--root", root.path, "--merge",
                ])
                #expect(refused.status == 1, "\(hazard)")
                #expect(try Data(contentsOf: set.appendingPathComponent("index.json")) == index, "\(hazard)")
                #expect(FileManager.default.fileExists(atPath: deep.path), "\(hazard)")
                return refused.stderr
            }
            let nothing = "; nothing was changed\n"
            let link = notes.appendingPathComponent("latest.json")
            try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "../bodies/GET_two.json")
            #expect(
                try refusal("link")
                    == "mockd: mocks/m/notes/latest.json: a symbolic link, which a merge does not carry into the set it writes anew; replace it with what it leads to or use --force\(nothing)"
            )
            try FileManager.default.removeItem(at: link)
            let fifo = notes.appendingPathComponent("pipe")
            #expect(mkfifo(fifo.path, 0o644) == 0)
            #expect(
                try refusal("fifo")
                    == "mockd: mocks/m/notes/pipe: not a regular file (a FIFO, socket or device), which a merge does not carry; move it out\(nothing)"
            )
            try FileManager.default.removeItem(at: fifo)
            // A set folder that is a link: the merge would put a folder in the link's place.
            let elsewhere = root.appendingPathComponent("elsewhere")
            try FileManager.default.moveItem(at: set, to: elsewhere)
            try FileManager.default.createSymbolicLink(atPath: set.path, withDestinationPath: elsewhere.path)
            #expect(
                try refusal("linked set")
                    == "mockd: mocks/m: the set folder is a symbolic link (to \(elsewhere.path)); a merge writes the set anew and would replace the link with a folder: merge into the folder it leads to\(nothing)"
            )
            try FileManager.default.removeItem(at: set)
            try FileManager.default.moveItem(at: elsewhere, to: set)
            // Two names equal under canonical equivalence (APFS cannot hold both).
            let composed = notes.appendingPathComponent("caf\u{E9}.txt")
            let decomposed = notes.appendingPathComponent("cafe\u{301}.txt")
            try Data("NFC".utf8).write(to: composed)
            try Data("NFD".utf8).write(to: decomposed)
            if try FileManager.default.contentsOfDirectory(atPath: notes.path).count == 3 {
                #expect(
                    try refusal("normalization")
                        == "mockd: mocks/m/notes/caf\u{E9}.txt: this name and 'notes/cafe\u{301}.txt' differ only in Unicode normalization, and a merge would keep one; rename one\(nothing)"
                )
            } else {
                print("note: this file system holds one of two names that differ only in normalization; not tried")
            }
            try? FileManager.default.removeItem(at: composed)
            try? FileManager.default.removeItem(at: decomposed)
            // Names that are not UTF-8, of a file or of a folder holding one (Linux allows them; APFS refuses them).
            func make(_ relative: [UInt8], folder: Bool) -> Bool {
                let path = (Array(set.path.utf8) + [0x2F] + relative).map { CChar(bitPattern: $0) } + [0]
                if folder { return mkdir(path, 0o755) == 0 }
                let descriptor = open(path, O_WRONLY | O_CREAT, 0o644)
                if descriptor >= 0 { close(descriptor) }
                return descriptor >= 0
            }
            guard make(Array("notes/caf".utf8) + [0xE9] + Array(".txt".utf8), folder: false) else {
                print("note: this file system refuses a name that is not UTF-8; that part is not tried")
                return
            }
            #expect(
                try refusal("file not UTF-8")
                    == "mockd: mocks/m/notes/caf\u{FFFD}.txt: the name is not UTF-8 and cannot be carried into the merged set; rename it\(nothing)"
            )
            try FileManager.default.removeItem(at: notes)
            try FileManager.default.createDirectory(
                at: deep.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try Data("deep".utf8).write(to: deep)
            #expect(make(Array("notes/d".utf8) + [0xFF], folder: true))
            #expect(make(Array("notes/d".utf8) + [0xFF] + Array("/ok.txt".utf8), folder: false))
            #expect(
                try refusal("folder not UTF-8")
                    == "mockd: mocks/m/notes/d\u{FFFD}: the name is not UTF-8 and cannot be carried into the merged set; rename it\(nothing)"
            )
        }
    }

    @Test func ignoreRulesApplyAtImportAndWhenServingAlsoPerScenario() throws {
        try withRoot { root in
            let har = root.appendingPathComponent("feed.har")
            try Self.write(
                [
                    Self.entry("GET", "https://a.test/feed?page=1&ts=1700000000&utm_source=mail", text: "p1"),
                    Self.entry("GET", "https://a.test/feed?page=1&ts=1700000099", text: "p1 again"),
                    Self.entry(
                        "POST",
                        "https://a.test/search",
                        requestHeaders: [("Content-Type", "application/json")],
                        body: #"{"q":"shoes","requestId":"r-1"}"#,
                        text: "shoes"
                    ),
                    Self.entry(
                        "POST",
                        "https://a.test/search",
                        requestHeaders: [("Content-Type", "application/json")],
                        body: #"{"q":"hats","requestId":"r-2"}"#,
                        text: "hats"
                    ),
                ],
                to: har
            )
            let rules = root.appendingPathComponent("rules.json")
            try Data(#"{"queryValues": [{"name": "ts", "pattern": "^[0-9]{10}$", "placeholder": "timestamp"}]}"#.utf8)
                .write(to: rules)
            let imported = try ProcessRunner.mockd([
                "import-har", har.path, "--set", "feed", "--root", root.path, "--ignore-query", "utm_*",
                "--ignore-body-field", "requestId",
                "--normalize", rules.path,
            ])
            #expect(imported.status == 0, "\(imported.stderr)")
            #expect(imported.stdout.contains("  stubs written:  3 (4 responses, 1 sequence)"))
            let index = try String(contentsOf: root.appendingPathComponent("mocks/feed/index.json"), encoding: .utf8)
            #expect(index.contains(#""query" : "page=1&ts={{timestamp}}""#))
            let configs = root.appendingPathComponent("configs")
            try FileManager.default.createDirectory(at: configs, withIntermediateDirectories: true)
            try Data(#"{"sets": ["feed"], "normalize": {"ignoreQuery": ["debug"]}}"#.utf8).write(
                to: configs.appendingPathComponent("feed.json")
            )
            let daemon = try RunningDaemon(["--config", "feed", "--root", root.path, "--port", "0", "--quiet"])
            defer { daemon.stop() }
            let json = [("Content-Type", "application/json")]
            let responses = try Curl.batch([
                CurlRequest(url: daemon.baseURL + "/feed?utm_campaign=x&ts=1800000000&page=1&debug=1"),
                CurlRequest(
                    method: "POST",
                    url: daemon.baseURL + "/search",
                    headers: json,
                    body: Data(#"{"requestId":"live","q":"hats"}"#.utf8)
                ),
                CurlRequest(url: daemon.baseURL + "/feed?ts=soon&page=1"),
            ])
            #expect(responses.map(\.status) == [200, 200, 404])
            #expect(responses[0].text == "p1")
            #expect(responses[1].text == "hats")

            try Data(
                #"{"sets": ["feed"], "normalize": {"ignoreBodyFields": ["a..b"], "queryValues": [{"placeholder": "x"}], "ignoreQuery": ["debgu"], "ignoreQeury": []}}"#
                    .utf8
            )
            .write(to: configs.appendingPathComponent("bad.json"))
            let validate = try ProcessRunner.mockd(["validate", "--config", "bad", "--root", root.path])
            #expect(validate.status == 1)
            #expect(
                validate.stderr.contains(
                    #"configs/bad.json: normalize.ignoreQeury: unknown field (did you mean "ignoreQuery"?)"#
                ),
                "\(validate.stderr)"
            )
            try Data(
                #"{"sets": ["feed"], "normalize": {"ignoreBodyFields": ["a..b"], "queryValues": [{"placeholder": "x"}]}}"#
                    .utf8
            )
            .write(to: configs.appendingPathComponent("bad.json"))
            let ruleCheck = try ProcessRunner.mockd(["validate", "--config", "bad", "--root", root.path])
            #expect(ruleCheck.status == 1)
            #expect(
                ruleCheck.stderr == """
                    mockd: configs/bad.json: normalize.ignoreBodyFields[0]: 'a..b' is not a field path (name, a.b.c, items[].id)
                    mockd: configs/bad.json: normalize.queryValues[0]: give a name, a pattern or both

                    """
            )

            let broken = root.appendingPathComponent("broken.json")
            try Data(#"{"queryValues": [{"pattern": "([", "placeholder": "x"}]}"#.utf8).write(to: broken)
            let refused = try ProcessRunner.mockd([
                "import-har", har.path, "--set", "b", "--root", root.path, "--normalize", broken.path,
            ])
            #expect(refused.status == 1)
            #expect(
                refused.stderr
                    == "mockd: \(broken.path): queryValues[0].pattern: '([' is not a valid regular expression\n"
            )
        }
    }
}
