import Foundation
import Testing

@testable import MockdCore

struct HARImporterTests {
    private func build(_ entries: [String], options: HARImportOptions = HARImportOptions()) throws -> (MockSetBuild, ImportReport) {
        let archive = try HARReader.parse(HARReaderTests.har(entries.joined(separator: ",")), fileName: "t.har")
        return HARImporter.build(archive, options: options)
    }

    private func text(_ build: MockSetBuild, _ path: String?) -> String? {
        path.flatMap { build.files[$0] }.map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func repeatedRequestsBecomeOneSequenceInHAROrder() throws {
        let (build, report) = try build([
            HARReaderTests.entry(url: "https://a.example/poll?b=2&a=1", content: #"{"text": "first"}"#),
            HARReaderTests.entry(url: "https://a.example/poll?a=1&b=2", content: #"{"text": "second"}"#),
            HARReaderTests.entry(url: "https://a.example/poll?a=1&b=2", status: "500", content: #"{"text": "third"}"#),
        ])
        #expect(build.file.stubs.count == 1)
        let stub = build.file.stubs[0]
        #expect(stub.id == "GET_poll__a-1_b-2")
        #expect(stub.request.query == "a=1&b=2")
        #expect(stub.responses.map { $0.status ?? 0 } == [200, 200, 500])
        #expect(stub.responses.map { text(build, $0.bodyFile) ?? "" } == ["first", "second", "third"])
        #expect(stub.responses.map { $0.bodyFile ?? "" } == ["bodies/GET_poll__a-1_b-2.txt", "bodies/GET_poll__a-1_b-2_2.txt", "bodies/GET_poll__a-1_b-2_3.txt"])
        #expect(report.sequences == 1)
        #expect(report.responsesWritten == 3)
    }

    @Test func postsWithDifferentBodiesNeverCollapse() throws {
        let json = #"[{"name": "Content-Type", "value": "application/json"}]"#
        let (build, _) = try build([
            HARReaderTests.entry(method: "POST", url: "https://a.example/graphql", requestHeaders: json, postData: #"{"mimeType": "application/json", "text": "{\"q\": 1, \"v\": 2}"}"#, content: #"{"text": "one"}"#),
            HARReaderTests.entry(method: "POST", url: "https://a.example/graphql", requestHeaders: json, postData: #"{"mimeType": "application/json", "text": "{\"q\": 2}"}"#, content: #"{"text": "two"}"#),
            HARReaderTests.entry(method: "POST", url: "https://a.example/graphql", requestHeaders: json, postData: #"{"mimeType": "application/json", "text": "{\"v\":2,\"q\":1}"}"#, content: #"{"text": "one again"}"#),
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
            HARReaderTests.entry(method: "POST", url: "https://a.example/send", postData: #"{"mimeType": "text/plain", "text": "hi"}"#),
            HARReaderTests.entry(method: "POST", url: "https://a.example/send", postData: #"{"mimeType": "text/plain", "text": "hi"}"#),
        ])
        #expect(build.file.stubs.count == 1)
        #expect(build.file.stubs[0].request.body == nil)
    }

    @Test func skipsAndReportsUnreplayableEntries() throws {
        let (build, report) = try build([
            HARReaderTests.entry(url: "https://a.example/ok"),
            HARReaderTests.entry(url: "https://a.example/failed", status: "0"),
            HARReaderTests.entry(url: "https://a.example/aborted", status: "-1"),
            HARReaderTests.entry(url: "wss://a.example/socket", status: "101"),
            HARReaderTests.entry(url: "data:image/png;base64,AAAA", status: "200"),
            HARReaderTests.entry(method: "", url: "https://a.example/x"),
            HARReaderTests.entry(url: "https://a.example/weird", status: "1"),
        ])
        #expect(build.file.stubs.count == 1)
        #expect(report.skipped.map(\.index) == [1, 2, 3, 4, 5, 6])
        #expect(report.skipped.map(\.reason) == [
            "failed request (status 0)", "failed request (status -1)",
            "WebSocket handshake (WebSocket mocks are not supported yet)", "not an HTTP URL (data:)",
            "request.method missing", "invalid status 1",
        ])
        let rendered = report.rendered(source: "t.har", destination: "mocks/t/")
        #expect(rendered.contains("    failed request (status 0): entry 1"))
        #expect(rendered.contains("  entries read:   7"))
    }

    @Test func keepsStatusHeadersAndExactBytes() throws {
        let (build, report) = try build([
            HARReaderTests.entry(
                url: "https://a.example/avatar.png",
                responseHeaders: #"[{"name": ":status", "value": "200"}, {"name": "Content-Type", "value": "image/png"}, {"name": "Set-Cookie", "value": "a=1"}, {"name": "set-cookie", "value": "b=2"}, {"name": "Content-Encoding", "value": "gzip"}, {"name": "Content-Length", "value": "9"}, {"name": "Connection", "value": "keep-alive"}]"#,
                content: #"{"mimeType": "image/png", "text": "iVBORw0KGgoA/w==", "encoding": "base64"}"#
            )
        ])
        let response = build.file.stubs[0].responses[0]
        #expect(response.headers == ["Content-Type: image/png", "Set-Cookie: a=1", "set-cookie: b=2"])
        #expect(response.bodyFile == "bodies/GET_avatar.png.png")
        #expect(build.files["bodies/GET_avatar.png.png"] == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0xFF]))
        #expect(response.recordedTimeMs == 13)
        #expect(report.warnings.contains("response headers not stored: connection ×1 (hop-by-hop), content-encoding ×1 (bodies are stored decoded), content-length ×1 (recomputed when served)"))
    }

    @Test func recordedBodiesWithBracesAreMarkedLiteral() throws {
        let (build, _) = try build([
            HARReaderTests.entry(url: "https://a.example/app.js", content: #"{"text": "render('{{name}}')"}"#),
            HARReaderTests.entry(url: "https://a.example/plain", content: #"{"text": "{}"}"#),
        ])
        #expect(build.file.stubs.map { $0.responses[0].templated } == [false, nil])
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
