import Foundation
import MockdTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The recorded request always matches its own stub, and only the requests the recording can tell apart match the
/// others (issue 33): `Accept` values a server answered with another type, URLs mixing `%XX` with `[`, `|`, spaces
/// or raw UTF-8, request bodies sent with a content coding, and request bodies an exporter wrote lossily as text.
/// The real binary imports a hand-made HAR; the real daemon serves; curl and URLSession ask.
@Suite(.serialized)
struct RequestFidelityTests {
    typealias HAR = ImportHygieneTests
    typealias Serving = JustifiedAnswerTests

    static var acceptEntries: [[String: Any]] {
        [
            HAR.entry(
                "GET",
                "https://api.test/repos",
                requestHeaders: [("Accept", "application/vnd.github+json")],
                headers: [("Content-Type", "application/json; charset=utf-8")],
                text: "[1]"
            ),
            HAR.entry(
                "GET",
                "https://api.test/orders/9",
                requestHeaders: [("Accept", "application/json")],
                status: 404,
                headers: [("Content-Type", "application/problem+json")],
                text: #"{"title":"Not Found","status":404}"#
            ),
            HAR.entry(
                "GET",
                "https://api.test/orders",
                requestHeaders: [("Accept", "application/json")],
                headers: [("Content-Type", "application/hal+json")],
                text: #"{"_links":{}}"#
            ),
            HAR.entry(
                "GET",
                "https://api.test/readme",
                requestHeaders: [("Accept", "text/html")],
                headers: [("Content-Type", "text/plain")],
                text: "readme"
            ),
            HAR.entry(
                "GET",
                "https://api.test/report",
                requestHeaders: [("Accept", "text/csv")],
                headers: [("Content-Type", "text/csv")],
                text: "a,b\n"
            ),
            HAR.entry(
                "GET",
                "https://api.test/report",
                requestHeaders: [("Accept", "application/json")],
                headers: [("Content-Type", "application/json")],
                text: #"{"a":"b"}"#
            ),
        ]
    }

    /// Each recorded `Accept` gets its own answer, whatever type the server answered with; negotiation widens
    /// (`*/*`) and chooses between the recorded variants of `/report` by `q`; a type nothing offers misses.
    @Test func theRecordedAcceptAlwaysMatchesItsOwnStub() throws {
        try Serving.serving(Self.acceptEntries) { _, _, daemon in
            let base = daemon.baseURL
            func get(_ path: String, _ accept: String) -> CurlRequest {
                CurlRequest(url: base + path, headers: [("Accept", accept)])
            }
            let responses = try Curl.batch([
                get("/repos", "application/vnd.github+json"), get("/orders/9", "application/json"),
                get("/orders", "application/json"), get("/readme", "text/html"), get("/report", "text/csv"),
                get("/report", "application/json"), get("/report", "text/csv;q=0.5, application/json"),
                get("/report", "text/csv, application/json;q=0.5"), get("/report", "*/*"), get("/repos", "*/*"),
                get("/report", "image/png"), get("/repos", "application/xml"),
            ])
            #expect(responses.map(\.status) == [200, 404, 200, 200, 200, 200, 200, 200, 200, 200, 404, 404])
            #expect(
                responses[0..<10].map(\.text) == [
                    "[1]", #"{"title":"Not Found","status":404}"#, #"{"_links":{}}"#, "readme", "a,b\n",
                    #"{"a":"b"}"#, #"{"a":"b"}"#, "a,b\n", "a,b\n", "[1]",
                ]
            )
            #expect(responses[1].header("Content-Type") == "application/problem+json")
            #expect(responses[10].text.contains(#""error" : "unmatched""#))
        }
    }

    @Test func urlSessionWithTheRecordedVendorAcceptGetsItsStub() async throws {
        let (root, _, daemon) = try Serving.imported(Self.acceptEntries)
        defer {
            daemon.stop()
            try? FileManager.default.removeItem(at: root)
        }
        var request = URLRequest(url: URL(string: daemon.baseURL + "/repos")!)
        request.setValue("application/vnd.github+json", forHTTPHeaderField: "Accept")
        let (data, response) = try await URLSession(configuration: .ephemeral).data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == "[1]")
    }

    /// URLs as producers write them: `%XX` beside `[`, `]`, `|`, a raw space or raw UTF-8. The exact request a
    /// browser sends for each (spaces and UTF-8 percent-encoded, the rest as written) gets its stub; the stored query
    /// keeps `%20` (never `%2520`).
    @Test func escapesBesideBracketsPipesSpacesAndUTF8MatchTheRecordedRequest() throws {
        let urls = [
            "https://api.test/v1/people?filter[name]=John%20Doe&page[size]=10",
            "https://api.test/v1/items?ids[]=1&ids[]=2",
            "https://api.test/beacon?e=click|nav&u=a b&tag=%7Cx",
            "https://api.test/städte/zürich?q=café&x=%C3%A9",
            "https://api.test/search?q=100%25%20off|sale",
        ]
        let entries = urls.enumerated().map { HAR.entry("GET", $0.element, text: #"{"entry":\#($0.offset)}"#) }
        try Serving.serving(entries) { root, _, daemon in
            let index = try String(contentsOf: root.appendingPathComponent("mocks/app/index.json"), encoding: .utf8)
            #expect(index.contains("filter%5Bname%5D=John%20Doe"), "\(index)")
            #expect(!index.contains("%2520"))
            let base = daemon.baseURL
            let targets = [
                "/v1/people?filter[name]=John%20Doe&page[size]=10",
                "/v1/items?ids[]=1&ids[]=2",
                "/beacon?e=click|nav&u=a%20b&tag=%7Cx",
                "/st%C3%A4dte/z%C3%BCrich?q=caf%C3%A9&x=%C3%A9",
                "/search?q=100%25%20off|sale",
                // The same requests as other clients spell them.
                "/v1/people?filter%5Bname%5D=John+Doe&page%5Bsize%5D=10",
                "/beacon?e=click%7Cnav&u=a+b&tag=%7cx",
            ]
            let responses = try Curl.batch(targets.map { CurlRequest(url: base + $0) })
            #expect(responses.map(\.status) == Array(repeating: 200, count: targets.count))
            #expect(
                responses.map(\.text) == (0..<5).map { #"{"entry":\#($0)}"# } + [#"{"entry":0}"#, #"{"entry":2}"#]
            )
        }
    }

    static let gzipBody = "H4sIAAAAAAACA6tWKixNLapUslJKr8osUKoFAPMOf1gQAAAA"  // {"query":"gzip"}
    static let deflateBody = "eJyrViosTS2qVLJSSklNy0ksSVWqBQBDwgbG"  // {"query":"deflate"}
    static let brotliBody = "iwiAeyJxdWVyeSI6ImJyb3RsaSJ9Aw=="  // {"query":"brotli"}

    /// A search POST recorded gzip-, deflate- and br-coded (base64 `postData`), and once by a producer that had decoded
    /// it already: each live coded request matches on its decoded body; one that does not decode is a 400 miss, an
    /// unknown coding a 415 naming the ones known.
    @Test func codedRequestBodiesMatchDecoded() throws {
        func coded(_ coding: String, _ base64: String?, text: String? = nil, answer: Int) -> [String: Any] {
            var entry = HAR.entry(
                "POST",
                "https://api.test/v1/search",
                requestHeaders: [("Content-Type", "application/json"), ("Content-Encoding", coding)],
                text: #"{"hits":\#(answer)}"#
            )
            var request = entry["request"] as! [String: Any]
            request["postData"] =
                base64.map { ["mimeType": "application/json", "text": $0, "_encoding": "base64"] }
                ?? ["mimeType": "application/json", "text": text!]
            entry["request"] = request
            return entry
        }
        let entries = [
            coded("gzip", Self.gzipBody, answer: 1), coded("deflate", Self.deflateBody, answer: 2),
            coded("br", Self.brotliBody, answer: 3), coded("gzip", nil, text: #"{"query":"plain"}"#, answer: 4),
        ]
        try Serving.serving(entries) { _, report, daemon in
            #expect(
                report.contains(
                    "  note: request bodies recorded with Content-Encoding stored decoded; a request is matched on its decoded body (entries 1, 2, 3)\n"
                ),
                "\(report)"
            )
            let url = daemon.baseURL + "/v1/search"
            func post(_ body: Data, _ coding: String?) -> CurlRequest {
                CurlRequest(
                    method: "POST",
                    url: url,
                    headers: [("Content-Type", "application/json")] + (coding.map { [("Content-Encoding", $0)] } ?? []),
                    body: body
                )
            }
            let gzipPlain = try Self.gzip(#"{"query":"plain"}"#)
            let responses = try Curl.batch([
                post(Data(base64Encoded: Self.gzipBody)!, "gzip"), post(Data(#"{"query":"gzip"}"#.utf8), nil),
                post(Data(base64Encoded: Self.deflateBody)!, "deflate"),
                post(Data(base64Encoded: Self.brotliBody)!, "br"),
                post(gzipPlain, "gzip"), post(Data(base64Encoded: Self.brotliBody)!, "identity, br"),
                post(Data("not gzip".utf8), "gzip"), post(Data("x".utf8), "zstd"),
            ])
            #expect(responses.map(\.status) == [200, 200, 200, 200, 200, 200, 400, 415])
            #expect(responses[0..<6].map(\.text) == [1, 1, 2, 3, 4, 3].map { #"{"hits":\#($0)}"# })
            #expect(
                responses[6].text
                    == #"{"error":"undecodable_body","message":"the request body is not valid gzip data (Content-Encoding: gzip), so it cannot be matched"}"#
                    + "\n"
            )
            #expect(
                responses[7].text
                    == #"{"error":"unsupported_content_encoding","message":"the request body's Content-Encoding 'zstd' is not one mockd decodes (gzip, deflate, br), so it cannot be matched"}"#
                    + "\n"
            )
            #expect(responses[7].header("Accept-Encoding") == "gzip, deflate, br")
        }
    }

    @Test func urlSessionSendsAGzippedBodyAndGetsItsStub() async throws {
        var entry = HAR.entry(
            "POST",
            "https://api.test/v1/events",
            requestHeaders: [("Content-Type", "application/json"), ("Content-Encoding", "gzip")],
            text: #"{"stored":true}"#
        )
        var request = entry["request"] as! [String: Any]
        request["postData"] = ["mimeType": "application/json", "text": Self.gzipBody, "_encoding": "base64"]
        entry["request"] = request
        let (root, _, daemon) = try Serving.imported([entry])
        defer {
            daemon.stop()
            try? FileManager.default.removeItem(at: root)
        }
        var post = URLRequest(url: URL(string: daemon.baseURL + "/v1/events")!)
        post.httpMethod = "POST"
        post.setValue("application/json", forHTTPHeaderField: "Content-Type")
        post.setValue("gzip", forHTTPHeaderField: "Content-Encoding")
        post.httpBody = Data(base64Encoded: Self.gzipBody)!
        let (data, response) = try await URLSession(configuration: .ephemeral).data(for: post)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == #"{"stored":true}"#)
    }

    /// `text` gzipped by the gzip tool.
    static func gzip(_ text: String) throws -> Data {
        let folder = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("body")
        try Data(text.utf8).write(to: file)
        let result = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/gzip"), ["-n", file.path])
        try #require(result.status == 0, "\(result.stderr)")
        return try Data(contentsOf: folder.appendingPathComponent("body.gz"))
    }

    /// Binary uploads an exporter wrote as text (U+FFFD for each byte that was not UTF-8): import flags them; two that
    /// became the same text and were answered differently are an ambiguous miss; a live body that reads as a
    /// recorded lossy text matches it.
    @Test func lossyRequestBodiesAreFlaggedAndNeverAnswerEachOther() throws {
        func upload(_ path: String, _ text: String, answer: String) -> [String: Any] {
            var entry = HAR.entry(
                "POST",
                "https://api.test\(path)",
                requestHeaders: [("Content-Type", "application/octet-stream")],
                text: answer
            )
            var request = entry["request"] as! [String: Any]
            request["postData"] = ["mimeType": "application/octet-stream", "text": text]
            entry["request"] = request
            return entry
        }
        let entries = [
            upload("/v1/upload", "PK\u{3}\u{4}\u{FFFD}\u{FFFD}A", answer: #"{"id":"a"}"#),
            upload("/v1/upload", "PK\u{3}\u{4}\u{FFFD}\u{FFFD}A", answer: #"{"id":"b"}"#),
            upload("/v1/avatar", "\u{FFFD}PNG", answer: #"{"ok":"png"}"#),
            upload("/v1/avatar", "GIF89a", answer: #"{"ok":"gif"}"#),
        ]
        try Serving.serving(entries) { _, report, daemon in
            #expect(
                report.contains(
                    "  ambiguous request bodies (binary written as the same text, answered differently; each request misses, saying why):\n    POST /v1/upload (entries 1, 2)\n"
                ),
                "\(report)"
            )
            #expect(
                report.contains(
                    "  warning: request bodies written as text with U+FFFD replacement characters (the exporter lost bytes that were not UTF-8): entries 1, 2, 3; they match a request whose body reads as the same text\n"
                )
            )
            func post(_ path: String, _ bytes: [UInt8]) -> CurlRequest {
                CurlRequest(
                    method: "POST",
                    url: daemon.baseURL + path,
                    headers: [("Content-Type", "application/octet-stream")],
                    body: Data(bytes)
                )
            }
            let responses = try Curl.batch([
                post("/v1/upload", [0x50, 0x4B, 0x03, 0x04, 0xFF, 0xFE, 0x41]),
                post("/v1/upload", [0x50, 0x4B, 0x03, 0x04, 0xC3, 0x28, 0x41]),
                post("/v1/avatar", [0x89, 0x50, 0x4E, 0x47]),
                post("/v1/avatar", Array("GIF89a".utf8)),
            ])
            #expect(responses.map(\.status) == [404, 404, 200, 200])
            #expect(
                responses[0].text.contains(
                    "has no answer the recording can justify: ambiguous request: entries 1, 2 recorded request bodies the HAR holds as the same text (bytes that were not UTF-8 written as U+FFFD), and they were answered differently"
                ),
                "\(responses[0].text)"
            )
            #expect(responses[2].text == #"{"ok":"png"}"#)
            #expect(responses[3].text == #"{"ok":"gif"}"#)
        }
    }
}
