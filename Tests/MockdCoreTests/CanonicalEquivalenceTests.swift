import Foundation
import MockdFormat
import MockdTestSupport
import Testing

@testable import MockdCore

/// "é" as U+00E9 and as "e" + U+0301 are equal Swift `String`s (canonical equivalence) but other bytes: tables that
/// share one copy of equal strings must still give each recorded string back as it was recorded.
struct CanonicalEquivalenceTests {
    private static let composed = "caf\u{E9}"
    private static let decomposed = "cafe\u{301}"

    @Test func theTwoSpellingsAreEqualStringsOfOtherBytes() {
        #expect(Self.composed == Self.decomposed)
        #expect(Array(Self.composed.utf8) != Array(Self.decomposed.utf8))
    }

    /// Two body files whose names differ only in normalization are two files (Linux compares names by bytes): each
    /// stub serves its own, not the one read first.
    @Test func bodyFilesNamedInBothSpellingsServeTheirOwnBytes() throws {
        let url = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: url) }
        let folder = url.appendingPathComponent("mocks/s")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("bodies"),
            withIntermediateDirectories: true
        )
        try Data("composed".utf8).write(to: folder.appendingPathComponent("bodies/\(Self.composed).txt"))
        try Data("decomposed".utf8).write(to: folder.appendingPathComponent("bodies/\(Self.decomposed).txt"))
        let index = MockSetFile(stubs: [
            .init(
                id: "a",
                request: .init(method: "GET", path: "/a"),
                responses: [.init(bodyFile: "bodies/\(Self.composed).txt")]
            ),
            .init(
                id: "b",
                request: .init(method: "GET", path: "/b"),
                responses: [.init(bodyFile: "bodies/\(Self.decomposed).txt")]
            ),
        ])
        try JSONEncoder().encode(index).write(to: folder.appendingPathComponent("index.json"))
        let stubs = try MockSetLoader(root: MockdRoot(url: url), defersBodies: false).load(set: "s")
        #expect(stubs.map { String(decoding: $0.firstResponse.body, as: UTF8.self) } == ["composed", "decomposed"])
    }

    /// `import-har` writes each entry's response header lines as recorded, though the lists are shared.
    @Test func importHARKeepsEachEntrysHeaderBytes() throws {
        func entry(_ path: String, _ name: String) -> String {
            """
            {"startedDateTime": "2024-01-01T00:00:00.000Z", "time": 1,
             "request": {"method": "GET", "url": "http://api.example.com\(path)", "httpVersion": "HTTP/1.1",
              "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
             "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
              "headers": [{"name": "Content-Disposition", "value": "attachment; filename=\\"\(name).txt\\""}],
              "cookies": [], "content": {"size": 2, "mimeType": "text/plain", "text": "ok"},
              "redirectURL": "", "headersSize": -1, "bodySize": -1},
             "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}}
            """
        }
        let har = """
            {"log": {"version": "1.2", "creator": {"name": "test", "version": "1"}, "entries": [
              \(entry("/one", Self.composed)), \(entry("/two", Self.decomposed))]}}
            """
        let url = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: url) }
        let harURL = url.appendingPathComponent("names.har")
        try Data(har.utf8).write(to: harURL)
        let root = MockdRoot(url: url)
        _ = try HARImportPipeline.run(
            har: harURL,
            displayName: "names.har",
            into: "s",
            root: root,
            options: HARImportOptions(),
            merge: false,
            replace: false
        )
        let file = try JSONDecoder().decode(
            MockSetFile.self,
            from: Data(contentsOf: root.setURL("s").appendingPathComponent("index.json"))
        )
        let lines = file.stubs.compactMap { $0.responses.first?.headers?.first { $0.hasPrefix("Content-Disposition") } }
        #expect(
            lines.map { Array($0.utf8) } == [
                Array("Content-Disposition: attachment; filename=\"\(Self.composed).txt\"".utf8),
                Array("Content-Disposition: attachment; filename=\"\(Self.decomposed).txt\"".utf8),
            ]
        )
    }

    /// A load shares equal response header lists between stubs; each stub still serves its own header bytes.
    @Test func loadedStubsServeTheirOwnHeaderBytes() throws {
        let url = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: url) }
        let folder = url.appendingPathComponent("mocks/s")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let names = [Self.composed, Self.decomposed, Self.composed, Self.decomposed]
        let index = MockSetFile(
            stubs: names.enumerated().map { number, name in
                .init(
                    id: "s\(number)",
                    request: .init(method: "GET", path: "/\(number)"),
                    responses: [
                        .init(headers: ["Content-Disposition: attachment; filename=\"\(name).txt\""], body: "ok")
                    ]
                )
            }
        )
        try JSONEncoder().encode(index).write(to: folder.appendingPathComponent("index.json"))
        for defers in [true, false] {
            let stubs = try MockSetLoader(root: MockdRoot(url: url), defersBodies: defers).load(set: "s")
            let served = stubs.map { Array(($0.firstResponse.headers["content-disposition"] ?? "").utf8) }
            #expect(served == names.map { Array("attachment; filename=\"\($0).txt\"".utf8) }, "defers \(defers)")
        }
    }
}
