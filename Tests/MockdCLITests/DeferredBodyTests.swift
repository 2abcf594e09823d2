import Foundation
import MockdTestSupport
import Testing

/// Body files are read when a stub first answers, not at start, not even looked at (`DeferredResponses`), on the real
/// daemon with curl: what a first answer reads, that a served body is kept, that a set folder replaced on disk is not
/// mixed into the loaded one, and the 500 naming the index entry and the file (the line `mockd validate` gives) when
/// a body file is missing or unreadable, while every other stub answers.
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
                "mocks/web/index.json: stubs[2].responses[0].bodyFile: body file 'bodies/c.json' not found"
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
        #expect(
            linked.text.contains(
                "mocks/web/index.json: stubs[0].responses[0].bodyFile: 'bodies/a.json' is outside the mock set folder"
            ),
            "\(linked.text)"
        )
        // A body file grown past 1 MiB before its first answer is served from disk, as one that large at start is.
        try FileManager.default.removeItem(at: bodies)
        try FileManager.default.moveItem(at: set.folder.appendingPathComponent("bodies-old"), to: bodies)
        let grown = try Curl.send(CurlRequest(url: daemon.baseURL + "/b"))
        #expect(grown.status == 200)
        #expect(grown.header("Content-Length") == "2097152")
        #expect(grown.body == Data(repeating: 0x20, count: 2 << 20))
    }

    @Test func aMissingOrUnreadableBodyFileIsFoundAtFirstUseAndByValidate() throws {
        let set = try Self.set()
        let bodies = set.folder.appendingPathComponent("bodies")
        try FileManager.default.removeItem(at: bodies.appendingPathComponent("c.json"))
        // A directory where a file should be: unreadable as a body, whoever runs the test (root reads any file).
        try FileManager.default.removeItem(at: bodies.appendingPathComponent("b.json"))
        try FileManager.default.createDirectory(
            at: bodies.appendingPathComponent("b.json"),
            withIntermediateDirectories: false
        )
        let missing = "mocks/web/index.json: stubs[2].responses[0].bodyFile: body file 'bodies/c.json' not found"
        let unreadable =
            "mocks/web/index.json: stubs[1].responses[0].bodyFile: cannot read 'bodies/b.json': a folder, not a file"

        // `validate` reports every broken stub, in index order (its help: "reporting every problem"); then only c
        // once b is a file again.
        let validate = try ProcessRunner.mockd(["validate", "--set", set.name, "--root", set.root.path])
        #expect(validate.status == 1)
        #expect(validate.stderr == "mockd: \(unreadable)\nmockd: \(missing)\n", "\(validate.stderr)")

        // The start does not look at body files: it serves, and each broken stub says what is wrong when asked.
        let daemon = try set.start()
        defer { daemon.stop() }
        let answers = try Curl.batch(["/c", "/a", "/b", "/c"].map { CurlRequest(url: daemon.baseURL + $0) })
        #expect(answers.map(\.status) == [500, 200, 500, 500])
        #expect(answers[1].text == #"{"v":"a1"}"#)
        for (answer, line) in [(answers[0], missing), (answers[2], unreadable), (answers[3], missing)] {
            #expect(answer.text.contains(#""error":"body_file_unavailable""#), "\(answer.text)")
            #expect(answer.text.contains(line), "\(answer.text)")
        }
        #expect(try daemon.health()["status"] as? String == "ok")
        try FileManager.default.removeItem(at: bodies.appendingPathComponent("b.json"))
        try Data(#"{"v":"b2"}"#.utf8).write(to: bodies.appendingPathComponent("b.json"))
        let again = try ProcessRunner.mockd(["validate", "--set", set.name, "--root", set.root.path])
        #expect(again.status == 1)
        #expect(again.stderr == "mockd: \(missing)\n", "\(again.stderr)")
        // A failed read is not kept: the file put back answers on the next request, without a reload.
        try Data(#"{"v":"c2"}"#.utf8).write(to: bodies.appendingPathComponent("c.json"))
        let restored = try Curl.batch(["/c", "/b", "/c"].map { CurlRequest(url: daemon.baseURL + $0) })
        #expect(restored.map(\.status) == [200, 200, 200])
        #expect(restored.map(\.text) == [#"{"v":"c2"}"#, #"{"v":"b2"}"#, #"{"v":"c2"}"#])
    }

    /// A body file swapped for what is not a regular file before its first answer (a FIFO nobody writes to, a link to
    /// one, a link to `/dev/zero`), and a large file served from disk swapped for a FIFO after its first answer: each
    /// answers a 500 naming the file at once, and the only worker (`--threads 1`) goes on answering. Opening a FIFO
    /// for reading waits for a writer, which held the worker for good.
    @Test func aFIFOOrDeviceInABodyFilesPlaceNeverHoldsTheWorker() throws {
        let set = try Self.set()
        let bodies = set.folder.appendingPathComponent("bodies")
        try Data(repeating: 0x20, count: 2 << 20).write(to: bodies.appendingPathComponent("c.json"))
        let daemon = try set.start(["--threads", "1"])
        defer { daemon.stop() }
        let large = try Curl.run(["--max-time", "10", "-o", "/dev/null", "-w", "%{http_code}", daemon.baseURL + "/c"])
        #expect(large.stdout == "200")
        for name in ["a.json", "c.json"] {
            try FileManager.default.removeItem(at: bodies.appendingPathComponent(name))
            #expect(mkfifo(bodies.appendingPathComponent(name).path, 0o644) == 0)
        }
        try FileManager.default.removeItem(at: bodies.appendingPathComponent("b.json"))
        #expect(mkfifo(bodies.appendingPathComponent("fifo").path, 0o644) == 0)
        try FileManager.default.createSymbolicLink(
            atPath: bodies.appendingPathComponent("b.json").path,
            withDestinationPath: "fifo"
        )
        let prefix = "mocks/web/index.json: stubs"
        let expected = [
            "/a": "\(prefix)[0].responses[0].bodyFile: cannot read 'bodies/a.json': not a regular file",
            "/b": "\(prefix)[1].responses[0].bodyFile: cannot read 'bodies/b.json': not a regular file",
            "/c": "no longer a regular file; reload the mock set",
        ]
        // `validate` reads body files at once, through the same checks, and gives the same line.
        let validate = try ProcessRunner.mockd(["validate", "--set", set.name, "--root", set.root.path])
        #expect(validate.status == 1)
        // Every broken stub, in index order: c, a FIFO by now too, is a file validate cannot read.
        let cLine =
            "mocks/web/index.json: stubs[2].responses[0].bodyFile: cannot read 'bodies/c.json': not a regular file"
        #expect(
            validate.stderr == "mockd: \(expected["/a"]!)\nmockd: \(expected["/b"]!)\nmockd: \(cLine)\n",
            "\(validate.stderr)"
        )
        for path in ["/a", "/b", "/c", "/a"] {
            let answer = try Curl.run(["--max-time", "10", "-w", "\n%{http_code}", daemon.baseURL + path])
            #expect(answer.status == 0, "\(path): curl exit \(answer.status) \(answer.stderr)")
            #expect(answer.stdout.hasSuffix("\n500"), "\(path): \(answer.stdout)")
            #expect(answer.stdout.contains(expected[path]!), "\(path): \(answer.stdout)")
        }
        try FileManager.default.removeItem(at: bodies.appendingPathComponent("a.json"))
        try FileManager.default.createSymbolicLink(
            atPath: bodies.appendingPathComponent("a.json").path,
            withDestinationPath: "/dev/zero"
        )
        let zero = try Curl.run(["--max-time", "10", "-w", "\n%{http_code}", daemon.baseURL + "/a"])
        #expect(zero.stdout.hasSuffix("\n500"), "\(zero.stdout)")
        #expect(
            zero.stdout.contains(
                "mocks/web/index.json: stubs[0].responses[0].bodyFile: 'bodies/a.json' is outside the mock set folder"
            ),
            "\(zero.stdout)"
        )
        #expect(try daemon.health()["status"] as? String == "ok")
    }

    /// A body file given a placeholder that cannot render after the start answers, at its first use, the 500 with the
    /// line `mockd validate` gives for it, not a 500 in other words; fixed, it is served without a reload.
    @Test func aPlaceholderProblemFoundAtFirstUseIsTheLineValidateGives() throws {
        let set = try Self.set()
        let daemon = try set.start()
        defer { daemon.stop() }
        let file = set.folder.appendingPathComponent("bodies/b.json")
        try Data(#"{"v":"{{nope.x}}"}"#.utf8).write(to: file)
        let line =
            "mocks/web/index.json: stubs[1].responses[0].bodyFile: 'bodies/b.json' line 1: {{nope.x}}: unknown helper 'nope.x'"
        let validate = try ProcessRunner.mockd(["validate", "--set", set.name, "--root", set.root.path])
        #expect(validate.status == 1)
        #expect(validate.stderr.hasPrefix("mockd: \(line) ("), "\(validate.stderr)")
        let broken = try Curl.batch([CurlRequest(url: daemon.baseURL + "/b"), CurlRequest(url: daemon.baseURL + "/b")])
        for answer in broken {
            #expect(answer.status == 500)
            #expect(answer.text.contains(#""error":"body_file_unavailable""#), "\(answer.text)")
            #expect(answer.text.contains(line), "\(answer.text)")
        }
        try Data(#"{"v":"b2"}"#.utf8).write(to: file)
        let fixed = try Curl.send(CurlRequest(url: daemon.baseURL + "/b"))
        #expect(fixed.status == 200)
        #expect(fixed.text == #"{"v":"b2"}"#)
    }
}
