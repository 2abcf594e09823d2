import Foundation
import MockdFormat
import MockdTestSupport
import Testing

@testable import MockdCore

struct HARImporterTests {
    private func build(
        _ entries: [String],
        options: HARImportOptions = HARImportOptions()
    ) throws -> (MockSetBuild, ImportReport) {
        let archive = try HARReader.parse(HARReaderTests.har(entries.joined(separator: ",")), fileName: "t.har")
        return HARImporter.build(archive, options: options)
    }

    private func text(_ build: MockSetBuild, _ path: String?) -> String? {
        path.flatMap { build.files[$0] }.map { String(decoding: $0, as: UTF8.self) }
    }

    /// A recorded URL's scheme (RFC 3986 §3.1) and the white space around it, as producers write them.
    @Test func recordedURLsParseSchemesAndTrimLikeFoundation() throws {
        let cases: [(String, String?)] = [
            ("https://API.example.com:8443/a?b=1#frag", "https api.example.com:8443 /a b=1"),
            (" \n\thttp://x/y \r\n", "http x /y "),
            ("\u{2003}https://x/\u{00A0}", "https x / "),
            ("wss://x", "wss x / "),
            ("H-T.T+P2://x/p", "h-t.t+p2 x /p "),
            ("2http://x/", nil), ("ht_tp://x/", nil), ("htt\u{00E9}p://x/", nil), ("://x/", nil), ("nocolon", nil),
            ("http://x:8o/", nil),
        ]
        for (text, expected) in cases {
            let url = RecordedURL(text)
            #expect(url.map { "\($0.scheme) \($0.hostAndPort) \($0.rawPath) \($0.rawQuery)" } == expected, "\(text)")
        }
    }

    @Test func repeatedRequestsBecomeOneSequenceInHAROrder() throws {
        let (build, report) = try build([
            HARReaderTests.entry(url: "https://a.example/poll?b=2&a=1", content: #"{"text": "first"}"#),
            HARReaderTests.entry(url: "https://a.example/poll?a=1&b=2", content: #"{"text": "second"}"#),
            HARReaderTests.entry(url: "https://a.example/poll?a=1&b=2", status: "500", content: #"{"text": "third"}"#),
        ])
        try #require(build.file.stubs.count == 1)
        let stub = build.file.stubs[0]
        #expect(stub.id == "GET_poll__a-1_b-2")
        #expect(stub.request.query == "a=1&b=2")
        #expect(stub.responses.map { $0.status ?? 0 } == [200, 200, 500])
        #expect(stub.responses.map { text(build, $0.bodyFile) ?? "" } == ["first", "second", "third"])
        #expect(
            stub.responses.map { $0.bodyFile ?? "" } == [
                "bodies/GET_poll__a-1_b-2.txt", "bodies/GET_poll__a-1_b-2_2.txt", "bodies/GET_poll__a-1_b-2_3.txt",
            ]
        )
        #expect(report.sequences == 1)
        #expect(report.responsesWritten == 3)
    }

    /// Many keys, each requested twice with the repeats in reverse order: every entry finds its own group (the
    /// compiler's table of groups grows several times) and each stub is its two answers in recording order.
    @Test func manyInterleavedRequestsEachFindTheirGroup() throws {
        let count = 3_000
        let first = (0..<count).map { index in
            HARReaderTests.entry(
                url: "https://a.example/items/\(index)",
                content: #"{"mimeType": "text/plain", "text": "first \#(index)"}"#
            )
        }
        let second = (0..<count).reversed().map { index in
            HARReaderTests.entry(
                url: "https://a.example/items/\(index)",
                content: #"{"mimeType": "text/plain", "text": "second \#(index)"}"#
            )
        }
        let (build, report) = try build(first + second)
        try #require(build.file.stubs.count == count)
        #expect(report.sequences == count)
        for (index, stub) in build.file.stubs.enumerated() {
            #expect(stub.id == "GET_items_\(index)")
            #expect(stub.request.path == "/items/\(index)")
            #expect(stub.responses.map { text(build, $0.bodyFile) ?? "" } == ["first \(index)", "second \(index)"])
        }
    }

    @Test func bodyFilesKeepTheirPathsExtensionOnce() throws {
        let png = #"{"mimeType": "image/png", "encoding": "base64", "text": "iVBORw0KGgo="}"#
        let (build, _) = try build([
            HARReaderTests.entry(url: "https://cdn.example/img/logo.png", content: png),
            HARReaderTests.entry(
                url: "https://cdn.example/img/logo.png",
                content: #"{"mimeType": "image/png", "encoding": "base64", "text": "iVBORw0KGgoA"}"#
            ),
            HARReaderTests.entry(
                url: "https://cdn.example/photo.JPEG",
                content: #"{"mimeType": "image/jpeg", "encoding": "base64", "text": "/9j/4AA="}"#
            ),
            HARReaderTests.entry(
                url: "https://cdn.example/page.htm",
                content: #"{"mimeType": "text/html", "text": "<p>hi</p>"}"#
            ),
            HARReaderTests.entry(
                url: "https://cdn.example/data.png",
                content: #"{"mimeType": "application/json", "text": "{}"}"#
            ),
        ])
        #expect(
            build.file.stubs.flatMap { $0.responses.map { $0.bodyFile ?? "" } } == [
                "bodies/GET_img_logo.png", "bodies/GET_img_logo_2.png", "bodies/GET_photo.JPEG", "bodies/GET_page.htm",
                "bodies/GET_data.png.json",
            ]
        )
    }

    @Test func postsWithDifferentBodiesNeverCollapse() throws {
        let json = #"[{"name": "Content-Type", "value": "application/json"}]"#
        let (build, _) = try build([
            HARReaderTests.entry(
                method: "POST",
                url: "https://a.example/graphql",
                requestHeaders: json,
                postData: #"{"mimeType": "application/json", "text": "{\"q\": 1, \"v\": 2}"}"#,
                content: #"{"text": "one"}"#
            ),
            HARReaderTests.entry(
                method: "POST",
                url: "https://a.example/graphql",
                requestHeaders: json,
                postData: #"{"mimeType": "application/json", "text": "{\"q\": 2}"}"#,
                content: #"{"text": "two"}"#
            ),
            HARReaderTests.entry(
                method: "POST",
                url: "https://a.example/graphql",
                requestHeaders: json,
                postData: #"{"mimeType": "application/json", "text": "{\"v\":2,\"q\":1}"}"#,
                content: #"{"text": "one again"}"#
            ),
        ])
        #expect(build.file.stubs.map(\.id) == ["POST_graphql", "POST_graphql-2"])
        #expect(build.file.stubs[0].responses.count == 2)
        #expect(build.file.stubs[0].request.body?.file == "bodies/POST_graphql.request.json")
        #expect(build.file.stubs[0].request.body?.contentType == "application/json")
        #expect(text(build, build.file.stubs[1].request.body?.file) == #"{"q": 2}"#)
        #expect(build.file.stubs[0].request.headers == ["Content-Type: application/json"])
    }

    @Test func postsWithTheSameBodyDoNotConstrainIt() throws {
        let (build, _) = try build([
            HARReaderTests.entry(
                method: "POST",
                url: "https://a.example/send",
                postData: #"{"mimeType": "text/plain", "text": "hi"}"#
            ),
            HARReaderTests.entry(
                method: "POST",
                url: "https://a.example/send",
                postData: #"{"mimeType": "text/plain", "text": "hi"}"#
            ),
        ])
        try #require(build.file.stubs.count == 1)
        #expect(build.file.stubs[0].request.body == nil)
    }

    @Test func skipsAndReportsUnreplayableEntries() throws {
        let (build, report) = try build([
            HARReaderTests.entry(url: "https://a.example/ok"),
            HARReaderTests.entry(url: "https://a.example/failed", status: "0"),
            HARReaderTests.entry(url: "https://a.example/aborted", status: "-1"),
            HARReaderTests.entry(url: "data:image/png;base64,AAAA", status: "200"),
            HARReaderTests.entry(method: "", url: "https://a.example/x"),
            HARReaderTests.entry(url: "https://a.example/weird", status: "1"),
        ])
        try #require(build.file.stubs.count == 1)
        #expect(report.skipped.map(\.index) == [1, 2, 3, 4, 5])
        #expect(
            report.skipped.map(\.reason) == [
                "failed request (status 0: no answer from the server)",
                "failed request (status -1: no answer from the server)", "not an HTTP URL (data:)",
                "request.method missing", "invalid status 1",
            ]
        )
        let rendered = report.rendered(source: "t.har", destination: "mocks/t/")
        #expect(rendered.contains("    failed request (status 0: no answer from the server): entry 2"))
        #expect(rendered.contains("  entries read:   6"))
    }

    @Test func keepsStatusHeadersAndExactBytes() throws {
        var options = HARImportOptions()
        options.keepSecrets = true
        let (build, report) = try build(
            [
                HARReaderTests.entry(
                    url: "https://a.example/avatar.png",
                    responseHeaders:
                        #"[{"name": ":status", "value": "200"}, {"name": "Content-Type", "value": "image/png"}, {"name": "Set-Cookie", "value": "a=1"}, {"name": "set-cookie", "value": "b=2"}, {"name": "Content-Encoding", "value": "gzip"}, {"name": "Content-Length", "value": "9"}, {"name": "Connection", "value": "keep-alive"}]"#,
                    content: #"{"mimeType": "image/png", "text": "iVBORw0KGgoA/w==", "encoding": "base64"}"#
                )
            ],
            options: options
        )
        let response = build.file.stubs[0].responses[0]
        #expect(response.headers == ["Content-Type: image/png", "Set-Cookie: a=1", "set-cookie: b=2"])
        #expect(response.bodyFile == "bodies/GET_avatar.png")
        #expect(
            build.files["bodies/GET_avatar.png"] == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0xFF])
        )
        #expect(response.recordedTimeMs == 13)
        #expect(
            report.warnings.contains(
                "response headers not stored: connection ×1 (hop-by-hop), content-encoding ×1 (bodies are stored decoded), content-length ×1 (recomputed when served)"
            )
        )
    }

    @Test func recordedBodiesWithBracesAreMarkedLiteral() throws {
        let (build, _) = try build([
            HARReaderTests.entry(url: "https://a.example/app.js", content: #"{"text": "render('{{name}}')"}"#),
            HARReaderTests.entry(url: "https://a.example/plain", content: #"{"text": "{}"}"#),
        ])
        #expect(build.file.stubs.map { $0.responses[0].templated } == [.off, nil])
    }

    @Test func hostileEntriesAreSkippedOrCleanedNeverWrittenUnloadable() throws {
        let (build, report) = try build([
            HARReaderTests.entry(url: "http:foo"),
            HARReaderTests.entry(
                url: "https://a.example/ok",
                requestHeaders: #"[{"name": "Content-Type", "value": null}, {"name": "Accept", "value": " "}]"#,
                responseHeaders:
                    #"[{"name": " ", "value": "v"}, {"name": "X:Colon", "value": "c"}, {"name": "X-Fine", "value": "1"}]"#
            ),
            HARReaderTests.entry(url: "https://a.example/early", status: "103"),
        ])
        #expect(
            report.skipped.map(\.reason) == [
                "request.url is not an absolute http(s) URL", "interim response (103) without a final one",
            ]
        )
        try #require(build.file.stubs.count == 1)
        #expect(build.file.stubs[0].request.headers == nil)
        #expect(build.file.stubs[0].responses[0].headers == ["X-Fine: 1"])
        #expect(
            report.warnings.first { $0.hasPrefix("response headers not stored:") }?.contains(
                "(invalid name ' ') ×1 (not an HTTP field name)"
            ) == true
        )
    }

    @Test func manyIDsSharingATruncatedPrefixGetLinearSuffixes() throws {
        let long = String(repeating: "a", count: 100)
        let (build, _) = try build((0..<300).map { HARReaderTests.entry(url: "https://a.example/\(long)\($0)") })
        let ids = build.file.stubs.map { $0.id ?? "" }
        #expect(Set(ids).count == 300)
        #expect(ids[0] == "GET_" + String(repeating: "a", count: 92))
        #expect(ids[1] == ids[0] + "-2")
        #expect(ids[299] == ids[0] + "-300")
    }

    @Test func sideFileSymlinkOutsideTheHARFolderIsRefused() throws {
        let folder = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let outside = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: outside) }
        try "secret".write(to: outside.appendingPathComponent("secret.txt"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(
            at: folder.appendingPathComponent("leak"),
            withDestinationURL: outside.appendingPathComponent("secret.txt")
        )
        try "inside".write(to: folder.appendingPathComponent("body.txt"), atomically: true, encoding: .utf8)
        let archive = try HARReader.parse(
            HARReaderTests.har(
                [
                    HARReaderTests.entry(url: "https://a.example/leak", content: #"{"_file": "leak"}"#),
                    HARReaderTests.entry(url: "https://a.example/fine", content: #"{"_file": "body.txt"}"#),
                ].joined(separator: ",")
            ),
            fileName: "t.har"
        )
        let (build, report) = HARImporter.build(archive, harDirectory: folder)
        #expect(build.files.values.map { String(decoding: $0, as: UTF8.self) } == ["inside"])
        #expect(
            report.bodyNotes == [
                .init(note: "content._file 'leak' points outside the HAR's folder; served empty", entries: [0])
            ]
        )
    }

    /// A HAR opened through a linked folder (macOS's `/tmp` is `/private/tmp`; a symlinked checkout): its side files
    /// are inside, found or missing, and a `..` still leads out.
    @Test func sideFilesOfAHARInALinkedFolderResolve() throws {
        let real = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: real) }
        let linked = Paths.makeTemporaryDirectory().appendingPathComponent("linked")
        defer { try? FileManager.default.removeItem(at: linked.deletingLastPathComponent()) }
        try FileManager.default.createSymbolicLink(at: linked, withDestinationURL: real)
        try "inside".write(to: real.appendingPathComponent("body.txt"), atomically: true, encoding: .utf8)
        let archive = try HARReader.parse(
            HARReaderTests.har(
                [
                    HARReaderTests.entry(url: "https://a.example/fine", content: #"{"_file": "body.txt"}"#),
                    HARReaderTests.entry(url: "https://a.example/gone", content: #"{"_file": "gone.txt"}"#),
                    HARReaderTests.entry(url: "https://a.example/up", content: #"{"_file": "../x.txt"}"#),
                ].joined(separator: ",")
            ),
            fileName: "t.har"
        )
        let (build, report) = HARImporter.build(archive, harDirectory: linked)
        #expect(build.files.values.map { String(decoding: $0, as: UTF8.self) } == ["inside"])
        #expect(
            report.bodyNotes == [
                .init(note: "content._file 'gone.txt' not found next to the HAR; served empty", entries: [1]),
                .init(note: "content._file '../x.txt' points outside the HAR's folder; served empty", entries: [2]),
            ]
        )
    }

    /// Notes on how bodies were read come in the order they were first met, also two from one entry (they came in
    /// a dictionary's order, which changes from run to run).
    @Test func bodyNotesKeepTheOrderTheyCameIn() throws {
        let misflagged = #"{"mimeType": "image/png", "text": "iVBORw0KGgo=", "encoding": "ase64"}"#
        let archive = try HARReader.parse(
            HARReaderTests.har(
                [
                    HARReaderTests.entry(url: "https://a.example/plain"),
                    HARReaderTests.entry(url: "https://a.example/a.png", content: misflagged),
                    HARReaderTests.entry(
                        url: "https://a.example/b.png",
                        content: #"{"mimeType": "image/png", "text": "iVBORw0KGgo="}"#
                    ),
                ].joined(separator: ",")
            ),
            fileName: "t.har"
        )
        let (_, report) = HARImporter.build(archive, harDirectory: nil)
        #expect(
            report.bodyNotes == [
                .init(note: "content.encoding 'ase64' is not base64; body kept as text", entries: [1]),
                .init(note: "binary body is base64 without content.encoding; decoded", entries: [1, 2]),
            ]
        )
    }

    @Test func webSocketFramesBecomeATimedScript() throws {
        let frames = #"""
            , "_resourceType": "websocket", "_webSocketMessages": [
              {"type": "receive", "time": 1700000000.25, "opcode": 1, "data": "hello"},
              {"type": "send", "time": 1700000001.0, "opcode": 1, "data": "ping?"},
              {"type": "receive", "time": 1700000001.5, "opcode": 1, "data": "pong!"},
              {"type": "receive", "time": 1700000002.0, "opcode": 2, "data": "AAEC"}]
            """#
        let entry = HARReaderTests.entry(
            url: "wss://a.example/socket?room=1",
            status: "101",
            content: "{}",
            extra: frames
        )
        .replacingOccurrences(
            of: #""startedDateTime": "2026-01-01T00:00:00Z""#,
            with: #""startedDateTime": "2023-11-14T22:13:20.000Z""#
        )
        let (timed, _) = try build([entry])
        let stub = try #require(timed.file.stubs.first)
        #expect(stub.request.method == "GET")
        #expect(stub.request.query == "room=1")
        #expect(stub.responses[0].status == 101)
        #expect(
            stub.responses[0].websocket
                == WebSocketScript(steps: [
                    WebSocketStep(after: 250, send: .text("hello")), WebSocketStep(after: 1250, send: .text("pong!")),
                    WebSocketStep(after: 500, send: .binary(Data([0, 1, 2]))),
                ])
        )
        let (waiting, _) = try build(
            [entry],
            options: HARImportOptions(webSocketTimeScale: 2, webSocketWaitForClient: true)
        )
        #expect(
            waiting.file.stubs[0].responses[0].websocket
                == WebSocketScript(
                    steps: [WebSocketStep(after: 500, send: .text("hello"))],
                    replies: [
                        WebSocketReply(
                            when: WebSocketMatch(text: "ping?"),
                            then: [
                                WebSocketStep(after: 1000, send: .text("pong!")),
                                WebSocketStep(after: 1000, send: .binary(Data([0, 1, 2]))),
                            ],
                            once: true
                        )
                    ]
                )
        )
    }

    @Test func hostFilterKeepsOnlyNamedHosts() throws {
        let (build, report) = try build(
            [
                HARReaderTests.entry(url: "https://api.example.com/a"),
                HARReaderTests.entry(url: "https://cdn.example.com/b"),
                HARReaderTests.entry(url: "http://localhost:9000/c"),
            ],
            options: HARImportOptions(hosts: ["API.example.com", "localhost:9000"])
        )
        #expect(build.file.stubs.map(\.request.path) == ["/a", "/c"])
        #expect(report.otherHosts == ["cdn.example.com": 1])
    }

    @Test func sameHARGivesIdenticalOutput() throws {
        let entries = [
            HARReaderTests.entry(url: "https://a.example/one"), HARReaderTests.entry(url: "https://a.example/two?x=1"),
            HARReaderTests.entry(url: "https://a.example/one", content: #"{"text": "again"}"#),
        ]
        let (first, _) = try build(entries)
        let (second, _) = try build(entries)
        #expect(first.file == second.file)
        #expect(first.files == second.files)
    }
}
