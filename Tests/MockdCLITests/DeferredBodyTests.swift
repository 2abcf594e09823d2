import Foundation
import MockdTestSupport
import Testing

/// Small body files are read when a stub first answers, not at start (`DeferredResponses`), on the real daemon with
/// curl: what a first answer reads, that a served body is kept, that a set folder replaced on disk is not mixed into
/// the loaded one, and the 500 (then the reload) when a body file disappeared.
@Suite(.serialized)
struct DeferredBodyTests {
    static func set() throws -> HandWrittenSet {
        let stubs: [[String: Any]] = ["a", "b", "c"].map { name in
            [
                "id": name, "request": ["method": "GET", "path": "/\(name)"],
                "responses": [["headers": ["Content-Type: application/json"], "bodyFile": "bodies/\(name).json"]],
            ]
        }
        return try HandWrittenSet(
            index: ["version": 1, "stubs": stubs],
            bodies: [
                "bodies/a.json": Data(#"{"v":"a1"}"#.utf8), "bodies/b.json": Data(#"{"v":"b1"}"#.utf8),
                "bodies/c.json": Data(#"{"v":"c1"}"#.utf8),
            ]
        )
    }

    @Test func aBodyIsReadOnItsFirstAnswerAndKeptAfter() throws {
        let set = try Self.set()
        let daemon = try set.start()
        defer { daemon.stop() }
        let first = try Curl.send(CurlRequest(url: daemon.baseURL + "/a"))
        // Written after the start, before /b first answers: the start did not read it.
        try Data(#"{"v":"b2"}"#.utf8).write(to: set.folder.appendingPathComponent("bodies/b.json"))
        try Data(#"{"v":"a2"}"#.utf8).write(to: set.folder.appendingPathComponent("bodies/a.json"))
        let responses = try Curl.batch([
            CurlRequest(url: daemon.baseURL + "/b"), CurlRequest(url: daemon.baseURL + "/a"),
        ])
        #expect(first.text == #"{"v":"a1"}"#)
        #expect(responses.map(\.text) == [#"{"v":"b2"}"#, #"{"v":"a1"}"#])
        #expect(responses.map { $0.header("Content-Length") } == ["10", "10"])
    }

    @Test func aSetReplacedOnDiskIsNotMixedInAndAGoneFileAsksForAReload() throws {
        let set = try Self.set()
        let daemon = try set.start()
        defer { daemon.stop() }
        let moved = set.root.appendingPathComponent("mocks/web-old")
        try FileManager.default.moveItem(at: set.folder, to: moved)
        let replacement = try Self.set()
        try FileManager.default.copyItem(at: replacement.folder, to: set.folder)
        try Data(#"{"v":"b3"}"#.utf8).write(to: set.folder.appendingPathComponent("bodies/b.json"))
        try Data(#"{"v":"c3"}"#.utf8).write(to: set.folder.appendingPathComponent("bodies/c.json"))
        // The loaded set's folder, wherever it went, still answers for it.
        let fromLoaded = try Curl.send(CurlRequest(url: daemon.baseURL + "/b"))
        #expect(fromLoaded.text == #"{"v":"b1"}"#)
        try FileManager.default.removeItem(at: moved)
        let gone = try Curl.send(CurlRequest(url: daemon.baseURL + "/c"))
        #expect(gone.status == 500)
        #expect(gone.text.contains(#""error":"body_file_unavailable""#), "\(gone.text)")
        #expect(
            gone.text.contains(
                "mocks/web/index.json: cannot read body file 'bodies/c.json' of stub 'c' (No such file or directory)"
            ),
            "\(gone.text)"
        )
        #expect(try daemon.health()["status"] as? String == "ok")
        let reload = try Curl.send(CurlRequest(method: "POST", url: daemon.baseURL + "/__mockd/reload"))
        #expect(reload.status == 200)
        let after = try Curl.batch([CurlRequest(url: daemon.baseURL + "/c"), CurlRequest(url: daemon.baseURL + "/b")])
        #expect(after.map(\.text) == [#"{"v":"c3"}"#, #"{"v":"b3"}"#])
    }

    @Test func aFolderSwappedForALinkAfterStartDoesNotLeadOutOfTheSet() throws {
        let set = try Self.set()
        let daemon = try set.start()
        defer { daemon.stop() }
        let outside = set.root.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try Data("SECRET".utf8).write(to: outside.appendingPathComponent("a.json"))
        try Data(repeating: 0x20, count: 2 << 20).write(to: set.folder.appendingPathComponent("bodies/b.json"))
        let bodies = set.folder.appendingPathComponent("bodies")
        try FileManager.default.moveItem(at: bodies, to: set.folder.appendingPathComponent("bodies-old"))
        try FileManager.default.createSymbolicLink(at: bodies, withDestinationURL: outside)
        let linked = try Curl.send(CurlRequest(url: daemon.baseURL + "/a"))
        #expect(linked.status == 500)
        #expect(!linked.text.contains("SECRET"))
        #expect(linked.text.contains("cannot read body file 'bodies/a.json' of stub 'a'"), "\(linked.text)")
        // A body file grown past 1 MiB before its first answer is not read into memory: it needs a reload.
        try FileManager.default.removeItem(at: bodies)
        try FileManager.default.moveItem(at: set.folder.appendingPathComponent("bodies-old"), to: bodies)
        let grown = try Curl.send(CurlRequest(url: daemon.baseURL + "/b"))
        #expect(grown.status == 500)
        #expect(grown.text.contains("(now 2097152 bytes, not a small regular file)"), "\(grown.text)")
    }

    @Test func aMissingSmallBodyFileIsStillAnErrorAtStart() throws {
        let set = try Self.set()
        try FileManager.default.removeItem(at: set.folder.appendingPathComponent("bodies/c.json"))
        let result = try ProcessRunner.mockd(["--set", set.name, "--root", set.root.path, "--port", "0", "--quiet"])
        #expect(result.status == 1)
        #expect(
            result.stderr.contains(
                "mocks/web/index.json: stubs[2].responses[0].bodyFile: body file 'bodies/c.json' not found"
            ),
            "\(result.stderr)"
        )
    }
}
