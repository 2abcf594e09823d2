import Foundation
import MockdTestSupport
import Testing

/// Answers that were never on the wire are not served as if they were (issue 18): a body the HAR did not
/// capture, a failed attempt with a status, a resource recorded only as 304, a HEAD's place in a GET sequence,
/// hex text that only Polly.js means as binary, empty header values, CONNECT tunnels and entries without a
/// response. The real binary imports a hand-made HAR; the real daemon serves; curl asks.
@Suite(.serialized)
struct UnrecordedAnswerTests {
    typealias HAR = ImportHygieneTests

    static var entries: [[String: Any]] {
        var notRecorded = HAR.entry("GET", "https://api.test/v1/avatar", text: nil)
        var content = (notRecorded["response"] as! [String: Any])["content"] as! [String: Any]
        content["size"] = 5120
        var response = notRecorded["response"] as! [String: Any]
        response["content"] = content
        notRecorded["response"] = response

        var aborted = HAR.entry("GET", "https://api.test/v1/banner", text: #"{"banner":"half"}"#)
        var abortedResponse = aborted["response"] as! [String: Any]
        abortedResponse["_failureText"] = "net::ERR_ABORTED"
        aborted["response"] = abortedResponse

        var connect = HAR.entry("CONNECT", "https://api.test:443", status: 200, text: nil)
        connect["response"] = ["status": -1, "headers": [], "content": ["mimeType": ""]] as [String: Any]
        var noResponse = HAR.entry("GET", "https://api.test/v1/pending")
        noResponse["response"] = nil

        return [
            notRecorded,  // 0
            aborted,  // 1
            HAR.entry(
                "GET",
                "https://api.test/app.css",
                requestHeaders: [("If-None-Match", #""v1""#)],
                status: 304,
                headers: [("ETag", #""v1""#)],
                text: nil
            ),  // 2
            HAR.entry("GET", "https://api.test/v1/poll", text: #"{"step":1}"#),  // 3
            HAR.entry("HEAD", "https://api.test/v1/poll", text: nil),  // 4
            HAR.entry("GET", "https://api.test/v1/poll", text: #"{"step":2}"#),  // 5
            HAR.entry(
                "GET",
                "https://api.test/v1/digest",
                headers: [("Content-Type", "application/octet-stream"), ("X-Empty", "")],
                text: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
            ),  // 6
            connect,  // 7
            noResponse,  // 8
        ]
    }

    private func imported(_ arguments: [String] = [], _ body: (URL, ProcessResult) throws -> Void) throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let har = root.appendingPathComponent("app.har")
        try HAR.write(Self.entries, to: har)
        let result = try ProcessRunner.mockd(["import-har", har.path, "--set", "app", "--root", root.path] + arguments)
        try #require(result.status == 0, "\(result.stderr)")
        try body(root, result)
    }

    @Test func theReportSaysWhatEachEntryIs() throws {
        try imported { _, result in
            let report = result.stdout
            #expect(
                report.contains(
                    "    failed request (net::ERR_ABORTED) although a status was recorded: the answer never completed: entry 2"
                ),
                "\(report)"
            )
            #expect(
                report.contains(
                    "    CONNECT tunnel (a proxy's TLS tunnel to api.test, not an HTTP exchange; what went through it is recorded as entries of its own when the proxy decrypted it): entry 8"
                )
            )
            #expect(
                report.contains(
                    "    no response object (the request got no answer before the HAR was saved: aborted, blocked or still pending): entry 9"
                )
            )
            #expect(
                report.contains(
                    "  recorded only as 304 (answered to conditional requests; a plain request misses, saying why):\n    GET /app.css\n"
                )
            )
            #expect(
                report.contains(
                    "  warning: 1 response has a recorded size but no captured body (entry 1); answered as a miss that says so (--missing-bodies empty serves them empty)"
                )
            )
        }
    }

    @Test func unrecordedAnswersAreMissesThatSayWhy() throws {
        try imported { root, _ in
            let daemon = try RunningDaemon(["--set", "app", "--root", root.path, "--port", "0", "--quiet"])
            defer { daemon.stop() }
            let base = daemon.baseURL
            let responses = try Curl.batch([
                CurlRequest(url: base + "/v1/avatar"),
                CurlRequest(url: base + "/v1/banner"),
                CurlRequest(url: base + "/app.css"),
                CurlRequest(url: base + "/app.css", headers: [("If-None-Match", #""v1""#)]),
                CurlRequest(url: base + "/app.css", headers: [("If-None-Match", #""other""#)]),
                CurlRequest(method: "HEAD", url: base + "/v1/poll"),
                CurlRequest(url: base + "/v1/poll"),
                CurlRequest(method: "HEAD", url: base + "/v1/poll"),
                CurlRequest(url: base + "/v1/poll"),
                CurlRequest(url: base + "/v1/digest"),
            ])
            #expect(responses.map(\.status) == [404, 404, 404, 304, 404, 200, 200, 200, 200, 200])
            #expect(
                responses[0].text.contains(
                    #""message" : "stub 'GET_v1_avatar' has no answer the recording can justify: body not recorded: HAR entry 1 says 5120 bytes but holds no text (re-record, or import with --missing-bodies empty to serve it empty)""#
                ),
                "\(responses[0].text)"
            )
            #expect(responses[1].text.contains(#""error" : "unmatched""#))
            #expect(
                responses[2].text.contains(
                    "recorded only as 304 Not Modified (the client had it cached, so the recording holds no body); a conditional request with the recorded validator (If-None-Match, If-Modified-Since) gets the 304\""
                )
            )
            #expect(
                responses[4].text.contains(
                    #"gets the 304; this request's validator is not the recorded one (If-None-Match: \"v1\")""#
                ),
                "\(responses[4].text)"
            )
            #expect(responses[3].header("ETag") == #""v1""#)
            // A HEAD leaves the GET sequence where it was.
            #expect(responses[6].text == #"{"step":1}"#)
            #expect(responses[8].text == #"{"step":2}"#)
            // Hex text from a producer other than Polly.js is the body itself, byte for byte.
            #expect(responses[9].text == "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08")
            #expect(responses[9].headers(named: "X-Empty") == [""])
        }
    }

    @Test func missingBodiesEmptyServesThemEmpty() throws {
        try imported(["--missing-bodies", "empty"]) { root, result in
            #expect(result.stdout.contains("(entry 1); served empty"))
            let daemon = try RunningDaemon(["--set", "app", "--root", root.path, "--port", "0", "--quiet"])
            defer { daemon.stop() }
            let response = try Curl.send(CurlRequest(url: daemon.baseURL + "/v1/avatar"))
            #expect(response.status == 200 && response.body.isEmpty)
        }
        let bad = try ProcessRunner.mockd(["import-har", "x.har", "--set", "s", "--missing-bodies", "maybe"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("--missing-bodies expects miss or empty, got 'maybe'"))
    }

    /// A recorded HEAD answer keeps its recorded length (RFC 9110 §9.3.2): it has no body, and the length is what
    /// the client asked for. The connection stays usable for the next request.
    @Test func aRecordedHeadKeepsItsContentLength() throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let har = root.appendingPathComponent("head.har")
        try HAR.write(
            [
                HAR.entry(
                    "HEAD",
                    "https://api.test/files/report.pdf",
                    headers: [("Content-Type", "application/pdf"), ("Content-Length", "48213")],
                    text: nil
                ),
                HAR.entry("GET", "https://api.test/v1/me", text: #"{"me":1}"#),
            ],
            to: har
        )
        let imported = try ProcessRunner.mockd(["import-har", har.path, "--set", "h", "--root", root.path])
        try #require(imported.status == 0, "\(imported.stderr)")
        let index = try String(contentsOf: root.appendingPathComponent("mocks/h/index.json"), encoding: .utf8)
        #expect(index.contains(#""Content-Length: 48213""#))
        let daemon = try RunningDaemon(["--set", "h", "--root", root.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        let responses = try Curl.batch([
            CurlRequest(method: "HEAD", url: daemon.baseURL + "/files/report.pdf"),
            CurlRequest(url: daemon.baseURL + "/v1/me"),
        ])
        #expect(responses.map(\.status) == [200, 200])
        #expect(responses[0].headers(named: "Content-Length") == ["48213"])
        #expect(responses[0].body.isEmpty)
        #expect(responses[1].text == #"{"me":1}"#)
    }

    /// A HEAD is answered by whatever answers the GET (RFC 9110 §9.3.2): a runtime stub, not the recorded stub.
    @Test func aHeadGoesWhereTheGetGoes() throws {
        try imported { root, _ in
            let daemon = try RunningDaemon(["--set", "app", "--root", root.path, "--port", "0", "--quiet"])
            defer { daemon.stop() }
            let added = try Curl.send(
                CurlRequest(
                    method: "POST",
                    url: daemon.baseURL + "/__mockd/stubs",
                    body: Data(
                        #"{"match": {"method": "GET", "path": "/v1/digest"}, "status": 503, "body": "down"}"#.utf8
                    )
                )
            )
            #expect(added.status == 201)
            let responses = try Curl.batch([
                CurlRequest(url: daemon.baseURL + "/v1/digest"),
                CurlRequest(method: "HEAD", url: daemon.baseURL + "/v1/digest"),
            ])
            #expect(responses.map(\.status) == [503, 503])
            #expect(responses[1].headers(named: "Content-Length") == ["4"])
        }
    }
}
