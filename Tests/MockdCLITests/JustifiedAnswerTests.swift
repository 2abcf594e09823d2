import Foundation
import MockdTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Answers a recording justifies although the producer wrote them unusually, and answers it does not (issue 33):
/// bodiless answers (redirects whose body was never kept, Chrome's `net::ERR_ABORTED` on HEAD, 204, 205, 304), 304s
/// recorded without validators of their own, a conditional poll's 304 steps in order, resources recorded only as
/// 206, and SPDY-era pseudo-headers. The real binary imports a hand-made HAR; the real daemon serves; curl and
/// URLSession ask.
@Suite(.serialized)
struct JustifiedAnswerTests {
    typealias HAR = ImportHygieneTests

    /// `entry` with `response` fields replaced and `content` fields merged in.
    static func with(
        _ entry: [String: Any],
        response changes: [String: Any] = [:],
        content: [String: Any] = [:]
    ) -> [String: Any] {
        var entry = entry
        var response = entry["response"] as! [String: Any]
        var merged = response["content"] as! [String: Any]
        for (key, value) in content { merged[key] = value }
        response["content"] = merged
        for (key, value) in changes { response[key] = value }
        entry["response"] = response
        return entry
    }

    /// Imports `entries` into the set `app` of a fresh root, serves it, and hands both on.
    static func serving(
        _ entries: [[String: Any]],
        _ body: (_ root: URL, _ report: String, _ daemon: RunningDaemon) throws -> Void
    ) throws {
        let (root, report, daemon) = try imported(entries)
        defer {
            daemon.stop()
            try? FileManager.default.removeItem(at: root)
        }
        try body(root, report, daemon)
    }

    /// Imports `entries` into the set `app` of a fresh root and starts serving it, with the import report; the
    /// caller stops the daemon and removes the root.
    static func imported(_ entries: [[String: Any]]) throws -> (root: URL, report: String, daemon: RunningDaemon) {
        let root = Paths.makeTemporaryDirectory()
        let har = root.appendingPathComponent("app.har")
        try HAR.write(entries, to: har)
        let imported = try ProcessRunner.mockd(["import-har", har.path, "--set", "app", "--root", root.path])
        try #require(imported.status == 0, "\(imported.stderr)")
        let daemon = try RunningDaemon(["--set", "app", "--root", root.path, "--port", "0", "--quiet"])
        return (root, imported.stdout, daemon)
    }

    static let aborted = ["_error": "net::ERR_ABORTED"]

    /// A sign-in POST answered 303 (Chrome kept `Content-Length: 35`, not the text), a Firefox http→https 301 with no
    /// size at all, Chrome's aborted HEAD, 204 and 205, a redirect whose headers lost `Location`, and an aborted 200
    /// whose body never arrived.
    static var bodiless: [[String: Any]] {
        [
            with(
                HAR.entry(
                    "POST",
                    "https://app.test/login",
                    requestHeaders: [("Content-Type", "application/x-www-form-urlencoded")],
                    status: 303,
                    headers: [("Location", "https://app.test/home"), ("Content-Length", "35")],
                    text: nil
                ),
                content: ["size": 35]
            ),  // 0
            HAR.entry("GET", "https://app.test/home", headers: [("Content-Type", "text/html")], text: "<h1>Home</h1>"),
            HAR.entry(
                "GET",
                "http://app.test/docs",
                status: 301,
                headers: [("Location", "https://app.test/docs/")],
                text: nil
            ),
            HAR.entry("GET", "https://app.test/docs/", headers: [("Content-Type", "text/plain")], text: "docs"),
            with(
                HAR.entry(
                    "HEAD",
                    "https://app.test/files/report.pdf",
                    headers: [("Content-Type", "application/pdf"), ("Content-Length", "5120")],
                    text: nil
                ),
                response: aborted
            ),  // 4
            with(
                HAR.entry("DELETE", "https://app.test/items/7", status: 204, headers: [], text: nil),
                response: aborted
            ),
            with(HAR.entry("PUT", "https://app.test/form", status: 205, headers: [], text: nil), response: aborted),
            with(
                HAR.entry("GET", "https://app.test/go", status: 302, headers: [], text: nil),
                response: ["redirectURL": "https://app.test/target"],
                content: ["size": 120]
            ),  // 7
            with(
                HAR.entry("GET", "https://app.test/avatar.png", headers: [("Content-Type", "image/png")], text: nil),
                response: aborted,
                content: ["size": 2048]
            ),  // 8
        ]
    }

    @Test func answersWithoutABodyAreServedAsRecordedWithCurl() throws {
        try Self.serving(Self.bodiless) { _, report, daemon in
            #expect(
                report.contains(
                    "  note: 3 answers without a body (HEAD, 204, 205, 304, a redirect) marked failed by the producer (_error, _failureText: Chrome's net::ERR_ABORTED) served as recorded: status and headers arrived, and are the whole answer (entries 5, 6, 7)\n"
                ),
                "\(report)"
            )
            #expect(
                report.contains(
                    "  note: Location taken from the HAR's redirectURL where the redirect's headers had none (entry 8)\n"
                )
            )
            #expect(
                report.contains(
                    "    failed request (net::ERR_ABORTED) although a status was recorded: the answer never completed: entry 9\n"
                )
            )
            #expect(!report.contains("no captured body"), "no redirect is a 'body not recorded' miss: \(report)")
            let base = daemon.baseURL
            let responses = try Curl.batch([
                CurlRequest(method: "POST", url: base + "/login", body: Data("user=anna&password=x".utf8)),
                CurlRequest(url: base + "/docs"),
                CurlRequest(method: "HEAD", url: base + "/files/report.pdf"),
                CurlRequest(method: "DELETE", url: base + "/items/7"),
                CurlRequest(method: "PUT", url: base + "/form"),
                CurlRequest(url: base + "/go"),
                CurlRequest(url: base + "/avatar.png"),
            ])
            #expect(responses.map(\.status) == [303, 301, 200, 204, 205, 302, 404])
            #expect(
                responses.map { $0.header("Location") } == [
                    base + "/home", base + "/docs/", nil, nil, nil, base + "/target", nil,
                ]
            )
            #expect(responses[0..<6].allSatisfy { $0.body.isEmpty })
            #expect(responses[0].header("Content-Length") == "0")
            #expect(responses[2].header("Content-Length") == "5120")
            #expect(responses[2].header("Content-Type") == "application/pdf")
            #expect(responses[6].text.contains(#""error" : "unmatched""#))
        }
    }

    /// URLSession follows what the recording holds: the sign-in's 303 to the page after it, the 301 to the
    /// trailing-slash URL, as an app does.
    @Test func urlSessionFollowsRecordedRedirectsToTheirPages() async throws {
        let (root, _, daemon) = try Self.imported(Self.bodiless)
        defer {
            daemon.stop()
            try? FileManager.default.removeItem(at: root)
        }
        let session = URLSession(configuration: .ephemeral)
        var signIn = URLRequest(url: URL(string: daemon.baseURL + "/login")!)
        signIn.httpMethod = "POST"
        signIn.httpBody = Data("user=anna&password=x".utf8)
        signIn.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        let (home, homeResponse) = try await session.data(for: signIn)
        #expect((homeResponse as? HTTPURLResponse)?.statusCode == 200)
        #expect(homeResponse.url?.path == "/home")
        #expect(String(decoding: home, as: UTF8.self) == "<h1>Home</h1>")
        let (docs, docsResponse) = try await session.data(from: URL(string: daemon.baseURL + "/docs")!)
        #expect((docsResponse as? HTTPURLResponse)?.statusCode == 200)
        #expect(docsResponse.url?.absoluteString == daemon.baseURL + "/docs/")
        #expect(String(decoding: docs, as: UTF8.self) == "docs")
    }

    /// Cached-only entries whose 304 carries no `ETag` or `Last-Modified`: the recorded conditional request (its own
    /// validator) gets the 304; another validator or a plain request is a miss that says why.
    @Test func a304WithoutValidatorsAnswersTheRecordedConditionalRequest() throws {
        let since = "Tue, 01 Dec 2026 10:00:00 GMT"
        let entries = [
            HAR.entry(
                "GET",
                "https://app.test/logo.png",
                requestHeaders: [("If-None-Match", #""v7""#)],
                status: 304,
                headers: [("Cache-Control", "max-age=60")],
                text: nil
            ),
            HAR.entry(
                "GET",
                "https://app.test/styles.css",
                requestHeaders: [("If-Modified-Since", since)],
                status: 304,
                headers: [],
                text: nil
            ),
        ]
        try Self.serving(entries) { root, report, daemon in
            #expect(
                report.contains(
                    "  recorded only as 304 (answered to conditional requests; a plain request misses, saying why):\n    GET /logo.png\n    GET /styles.css\n"
                ),
                "\(report)"
            )
            let index = try String(contentsOf: root.appendingPathComponent("mocks/app/index.json"), encoding: .utf8)
            #expect(index.contains(#""If-None-Match: \"v7\"""#), "\(index)")
            let base = daemon.baseURL
            let responses = try Curl.batch([
                CurlRequest(url: base + "/logo.png", headers: [("If-None-Match", #""v7""#)]),
                CurlRequest(url: base + "/logo.png", headers: [("If-None-Match", #"W/"v7", "v6""#)]),
                CurlRequest(url: base + "/logo.png", headers: [("If-None-Match", #""v8""#)]),
                CurlRequest(url: base + "/logo.png"),
                CurlRequest(url: base + "/styles.css", headers: [("If-Modified-Since", since)]),
                CurlRequest(
                    url: base + "/styles.css",
                    headers: [("If-Modified-Since", "Wed, 02 Dec 2026 08:00:00 GMT")]
                ),
                CurlRequest(
                    url: base + "/styles.css",
                    headers: [("If-Modified-Since", "Mon, 30 Nov 2026 10:00:00 GMT")]
                ),
            ])
            #expect(responses.map(\.status) == [304, 304, 404, 404, 304, 304, 404])
            #expect(responses[0].header("Cache-Control") == "max-age=60")
            let why = "has no answer the recording can justify: recorded only as 304 Not Modified"
            #expect(
                responses[2].text.contains(
                    #"\#(why) (the client had it cached, so the recording holds no body); a conditional request with the recorded validator (If-None-Match, If-Modified-Since) gets the 304; this request's validator is not the recorded one (If-None-Match: \"v7\")""#
                ),
                "\(responses[2].text)"
            )
            #expect(
                responses[3].text.contains(
                    #"\#(why) (the client had it cached, so the recording holds no body); a conditional request with the recorded validator (If-None-Match, If-Modified-Since) gets the 304""#
                )
            )
            #expect(
                responses[6].text.contains(
                    "this request's validator is not the recorded one (If-Modified-Since: \(since))"
                )
            )
        }
    }

    /// Chrome and Firefox write the copy a 304 confirmed into the 304's `content` (the JSON the app then read): with no 200
    /// recorded beside it, a conditional request with the recorded validator gets the 304, and a plain request, one
    /// with another validator, or one whose `Accept` the copy's type satisfies gets the copy as 200 with the 304's
    /// fields (RFC 9111 §4.3.4). A 304 without a copy (Chrome) stays a miss that says why.
    @Test func a304HoldingTheClientsCachedCopyServesItToPlainRequests() throws {
        let tag = #"W/"0720""#
        let copy = #"{"stars":41092,"name":"mitmproxy"}"#
        let entries = [
            HAR.entry(
                "GET",
                "https://app.test/data/stats.json",
                requestHeaders: [("Accept", "*/*"), ("If-None-Match", tag)],
                status: 304,
                headers: [("ETag", tag), ("Server", "AmazonS3")],
                text: copy,
                mimeType: "application/json"
            ),
            HAR.entry(
                "GET",
                "https://app.test/logo.png",
                requestHeaders: [("If-None-Match", #""v7""#)],
                status: 304,
                headers: [("ETag", #""v7""#)],
                text: nil
            ),
        ]
        try Self.serving(entries) { root, report, daemon in
            #expect(
                report.contains(
                    "  recorded only as 304 with the client's cached copy (answered 304 to conditional requests; others get the copy as 200):\n    GET /data/stats.json\n"
                ),
                "\(report)"
            )
            #expect(
                report.contains(
                    "  recorded only as 304 (answered to conditional requests; a plain request misses, saying why):\n    GET /logo.png\n"
                ),
                "\(report)"
            )
            let index = try String(contentsOf: root.appendingPathComponent("mocks/app/index.json"), encoding: .utf8)
            #expect(index.contains(#""cachedCopy" : "application/json""#), "\(index)")
            let url = daemon.baseURL + "/data/stats.json"
            let responses = try Curl.batch([
                CurlRequest(url: url),
                CurlRequest(url: url, headers: [("If-None-Match", tag)]),
                CurlRequest(url: url, headers: [("If-None-Match", #""other""#)]),
                CurlRequest(url: url, headers: [("Accept", "application/json")]),
                CurlRequest(url: url, headers: [("Accept", "text/html")]),
                CurlRequest(method: "HEAD", url: url),
                CurlRequest(url: daemon.baseURL + "/logo.png"),
            ])
            #expect(responses.map(\.status) == [200, 304, 200, 200, 404, 200, 404])
            for answer in [responses[0], responses[2], responses[3]] {
                #expect(answer.text == copy)
                #expect(answer.header("Content-Type") == "application/json")
                #expect(answer.header("ETag") == tag)
                #expect(answer.header("Server") == "AmazonS3")
            }
            #expect(responses[1].body.isEmpty)
            #expect(responses[1].header("ETag") == tag)
            #expect(responses[5].header("Content-Length") == String(copy.utf8.count))
            #expect(responses[5].body.isEmpty)
            #expect(
                responses[6].text.contains(
                    "recorded only as 304 Not Modified (the client had it cached, so the recording holds no body)"
                ),
                "\(responses[6].text)"
            )
        }
    }

    /// A poll recorded with validators, 200, 304, 304, 200, 304: replayed as recorded it answers exactly that, in
    /// order; a client without a cache (plain requests) gets the data the 304s confirmed, never later data early.
    @Test func aConditionalPollKeepsIts304StepsInOrder() throws {
        /// The poll's answer: `body` with the ETag `tag`, or a 304 confirming `tag`; `sent` is the client's validator.
        func poll(sent: String?, tag: String, body: String?) -> [String: Any] {
            HAR.entry(
                "GET",
                "https://app.test/v1/inbox",
                requestHeaders: sent.map { [("If-None-Match", #""\#($0)""#)] } ?? [],
                status: body == nil ? 304 : 200,
                headers: [("ETag", #""\#(tag)""#)] + (body == nil ? [] : [("Content-Type", "application/json")]),
                text: body
            )
        }
        let entries = [
            poll(sent: nil, tag: "a", body: #"{"n":1}"#), poll(sent: "a", tag: "a", body: nil),
            poll(sent: "a", tag: "a", body: nil), poll(sent: "a", tag: "b", body: #"{"n":2}"#),
            poll(sent: "b", tag: "b", body: nil),
        ]
        try Self.serving(entries) { _, report, daemon in
            #expect(
                report.contains(
                    "  304 responses:  3 kept in place in their sequences, answered to conditional requests; a plain request gets the recorded full response\n"
                ),
                "\(report)"
            )
            #expect(report.contains("  stubs written:  1 (5 responses, 1 sequence)\n"))
            let url = daemon.baseURL + "/v1/inbox"
            let polled = try Curl.batch([
                CurlRequest(url: url),
                CurlRequest(url: url, headers: [("If-None-Match", #""a""#)]),
                CurlRequest(url: url, headers: [("If-None-Match", #""a""#)]),
                CurlRequest(url: url, headers: [("If-None-Match", #""a""#)]),
                CurlRequest(url: url, headers: [("If-None-Match", #""b""#)]),
            ])
            #expect(polled.map(\.status) == [200, 304, 304, 200, 304])
            #expect(polled.map(\.text) == [#"{"n":1}"#, "", "", #"{"n":2}"#, ""])
            #expect(polled.map { $0.header("ETag") } == [#""a""#, #""a""#, #""a""#, #""b""#, #""b""#])
            let session = [("X-Mockd-Session", "no-cache")]
            let plain = try Curl.batch((0..<5).map { _ in CurlRequest(url: url, headers: session) })
            #expect(plain.map(\.status) == [200, 200, 200, 200, 200])
            #expect(plain.map(\.text) == [#"{"n":1}"#, #"{"n":1}"#, #"{"n":1}"#, #"{"n":2}"#, #"{"n":2}"#])
        }
    }

    /// A resource recorded only as a 206 of bytes 0–3 of 100 never answers 206 to a request without `Range`; a range
    /// inside those bytes gets them. A 206 that holds every byte is the whole representation: a 200, and ranges of it.
    @Test func aResourceRecordedOnlyAs206AnswersRangesInsideItsBytes() throws {
        let entries = [
            HAR.entry(
                "GET",
                "https://app.test/media/clip.mp4",
                requestHeaders: [("Range", "bytes=0-3")],
                status: 206,
                headers: [("Content-Type", "video/mp4"), ("Content-Range", "bytes 0-3/100")],
                text: Data("abcd".utf8).base64EncodedString(),
                encoding: "base64"
            ),
            HAR.entry(
                "GET",
                "https://app.test/fonts/a.woff2",
                status: 206,
                headers: [("Content-Type", "font/woff2"), ("Content-Range", "bytes 0-4/5")],
                text: Data("ABCDE".utf8).base64EncodedString(),
                encoding: "base64"
            ),
        ]
        try Self.serving(entries) { _, report, daemon in
            #expect(
                report.contains(
                    "  recorded only as 206 Partial Content (answered to range requests inside the recorded bytes; others miss, saying why):\n    GET /media/clip.mp4\n"
                ),
                "\(report)"
            )
            #expect(
                report.contains(
                    "  note: 206 answers holding every byte of the representation stored as 200 (a range request is cut from them) (entry 2)\n"
                )
            )
            let clip = daemon.baseURL + "/media/clip.mp4"
            let font = daemon.baseURL + "/fonts/a.woff2"
            let responses = try Curl.batch([
                CurlRequest(url: clip),
                CurlRequest(url: clip, headers: [("Range", "bytes=0-3")]),
                CurlRequest(url: clip, headers: [("Range", "bytes=1-2")]),
                CurlRequest(url: clip, headers: [("Range", "bytes=50-60")]),
                CurlRequest(method: "HEAD", url: clip),
                CurlRequest(url: font),
                CurlRequest(url: font, headers: [("Range", "bytes=0-1")]),
            ])
            #expect(responses.map(\.status) == [404, 206, 206, 404, 404, 200, 206])
            #expect(
                responses[0].text.contains(
                    "has no answer the recording can justify: recorded only as 206 Partial Content (Content-Range: bytes 0-3/100): the recording holds part of the representation; a GET whose Range lies inside those bytes gets them"
                ),
                "\(responses[0].text)"
            )
            #expect(responses[1].text == "abcd")
            #expect(responses[1].header("Content-Range") == "bytes 0-3/100")
            #expect(responses[2].text == "bc")
            #expect(responses[2].header("Content-Range") == "bytes 1-2/100")
            #expect(responses[3].text.contains("recorded only as 206 Partial Content"))
            #expect(responses[5].text == "ABCDE")
            #expect(responses[5].header("Content-Range") == nil)
            #expect(responses[6].text == "AB")
            #expect(responses[6].header("Content-Range") == "bytes 0-1/5")
        }
    }

    /// Old Chrome HARs (SPDY, and HAR tools reading its protocol log) list `status` and `version` as lower-case
    /// response headers: never served. A `Status: 200 OK` field a server really sent (CGI style) is kept.
    @Test func spdyPseudoHeadersAreNeverServed() throws {
        let entries = [
            HAR.entry(
                "GET",
                "https://app.test/v1/me",
                headers: [
                    ("status", "200"), ("version", "HTTP/1.1"), ("content-type", "application/json"),
                    ("Status", "200 OK"),
                ],
                text: #"{"me":1}"#
            )
        ]
        try Self.serving(entries) { _, report, daemon in
            #expect(
                report.contains(
                    "  note: SPDY/HTTP/2 pseudo-headers written without their colon not stored (the status line says them): status ×1, version ×1\n"
                ),
                "\(report)"
            )
            let response = try Curl.send(CurlRequest(url: daemon.baseURL + "/v1/me"))
            #expect(response.status == 200)
            #expect(response.text == #"{"me":1}"#)
            #expect(response.headers(named: "version") == [])
            #expect(response.headers.filter { $0.name == "status" }.isEmpty)
            #expect(response.headers.filter { $0.name == "Status" }.map(\.value) == ["200 OK"])
        }
    }
}
