import Foundation
import MockdFormat
import MockdTestSupport
import Testing

@testable import MockdCore

/// `import-har --merge` reads of the set it merges into only what it needs: request bodies (a stub's identity), and a
/// body only where a new file would take its name or the changelog compares it. Every other file is carried unread
/// (linked, or copied where linking fails), so a merge's memory grows with what it changes, not with the set.
struct MergeCarriedFilesTests {
    private static let set = "m"

    private static func stub(
        _ id: String,
        _ method: String,
        _ path: String,
        requestBody: String? = nil,
        bodyFile: String
    ) -> MockSetFile.StubEntry {
        MockSetFile.StubEntry(
            id: id,
            request: MockSetFile.RequestEntry(
                method: method,
                path: path,
                body: requestBody.map { MockSetFile.BodyEntry(file: $0, contentType: "application/json") }
            ),
            responses: [MockSetFile.ResponseEntry(status: 200, bodyFile: bodyFile)]
        )
    }

    /// A root holding set `m`: `GET /a` and `GET /b` answered from body files, `POST /c` keyed by a request body file.
    private static func existingSet() throws -> MockdRoot {
        let root = MockdRoot(url: Paths.makeTemporaryDirectory())
        let build = MockSetBuild(
            file: MockSetFile(stubs: [
                stub("a", "GET", "/a", bodyFile: "bodies/a.json"),
                stub("b", "GET", "/b", bodyFile: "bodies/b.json"),
                stub("c", "POST", "/c", requestBody: "bodies/c.request.json", bodyFile: "bodies/c.json"),
            ]),
            files: [
                "bodies/a.json": Data(#"{"a":1}"#.utf8),
                "bodies/b.json": Data(#"{"b":1}"#.utf8),
                "bodies/c.request.json": Data(#"{"q":1}"#.utf8),
                "bodies/c.json": Data(#"{"c":1}"#.utf8),
            ]
        )
        try MockSetWriter(root: root).write(build, set: set, replace: false, source: "t")
        try Data("hand-written".utf8).write(to: root.setURL(set).appendingPathComponent("NOTES.md"))
        return root
    }

    @Test func onlyRequestBodiesAreReadAndEveryFileIsCarried() throws {
        let root = try Self.existingSet()
        let folder = root.setURL(Self.set).path
        let existing = try MockSetMerger.read(set: Self.set, root: root)
        #expect(existing.files == ["bodies/c.request.json": Data(#"{"q":1}"#.utf8)])
        #expect(
            existing.carried == [
                ".gitignore": folder + "/.gitignore",
                "NOTES.md": folder + "/NOTES.md",
                "bodies/a.json": folder + "/bodies/a.json",
                "bodies/b.json": folder + "/bodies/b.json",
                "bodies/c.json": folder + "/bodies/c.json",
                "bodies/c.request.json": folder + "/bodies/c.request.json",
            ]
        )
        #expect(existing.bytes(at: "bodies/b.json") == Data(#"{"b":1}"#.utf8))
        #expect(existing.bytes(at: "bodies/none.json") == nil)
    }

    /// Replacing `GET /a` with other values and adding `GET /d`: the changelog still sees the value that changed (the
    /// old body read when compared), the kept stubs stay carried, the replaced stub's file is the new one.
    @Test func aMergeComparesAndWritesWhatItChangedOnly() throws {
        let root = try Self.existingSet()
        let existing = try MockSetMerger.read(set: Self.set, root: root)
        let incoming = MockSetBuild(
            file: MockSetFile(stubs: [
                Self.stub("a", "GET", "/a", bodyFile: "bodies/a.json"),
                Self.stub("d", "GET", "/d", bodyFile: "bodies/b.json"),
            ]),
            files: ["bodies/a.json": Data(#"{"a":2}"#.utf8), "bodies/b.json": Data(#"{"d":1}"#.utf8)]
        )
        let (merged, summary) = MockSetMerger.merge(incoming, into: existing)
        #expect(summary.replaced == 1 && summary.added == 1 && summary.kept == 2)
        // `bodies/b.json` is taken by the kept `GET /b` with other bytes: the new stub's file gets another name.
        #expect(
            merged.file.stubs.map { $0.responses[0].bodyFile } == [
                "bodies/a.json", "bodies/b.json", "bodies/c.json", "bodies/b-m2.json",
            ]
        )
        #expect(
            merged.carried.keys.sorted() == [
                ".gitignore", "NOTES.md", "bodies/b.json", "bodies/c.json", "bodies/c.request.json",
            ]
        )
        #expect(merged.files.keys.sorted() == ["bodies/a.json", "bodies/b-m2.json", "bodies/c.request.json"])

        let changelog = MockSetDiff.changelog(from: existing, to: merged)
        #expect(changelog.endpointsAdded.map(\.template) == ["/d"])
        #expect(changelog.endpointsChanged.map(\.endpoint.template) == ["/a"])
        #expect(changelog.endpointsChanged.first?.valueChanges.first?.examples == ["$.a"])

        try MockSetWriter(root: root).write(merged, set: Self.set, replace: true, source: "t")
        let folder = root.setURL(Self.set)
        func read(_ relative: String) throws -> String {
            String(decoding: try Data(contentsOf: folder.appendingPathComponent(relative)), as: UTF8.self)
        }
        #expect(try read("bodies/a.json") == #"{"a":2}"#)
        #expect(try read("bodies/b.json") == #"{"b":1}"#)
        #expect(try read("bodies/b-m2.json") == #"{"d":1}"#)
        #expect(try read("bodies/c.json") == #"{"c":1}"#)
        #expect(try read("NOTES.md") == "hand-written")
    }

    /// Where a carried file cannot be linked (another file system, none allowed) it is copied, read then; one that can
    /// be neither linked nor read fails the write, named, and the staging folder goes.
    @Test func aCarriedFileIsCopiedWhereLinkingFailsAndNamedWhenItCannotBeRead() throws {
        let root = try Self.existingSet()
        let existing = try MockSetMerger.read(set: Self.set, root: root)
        let staging = Paths.makeTemporaryDirectory()
        try MockSetWriter.writeBodies(of: existing, into: staging, display: "mocks/m/") { _, _ in EXDEV }
        let copied = try FileManager.default.subpathsOfDirectory(atPath: staging.path).sorted()
        #expect(
            copied == [
                ".gitignore", "NOTES.md", "bodies", "bodies/a.json", "bodies/b.json", "bodies/c.json",
                "bodies/c.request.json",
            ]
        )
        #expect(try Data(contentsOf: staging.appendingPathComponent("bodies/b.json")) == Data(#"{"b":1}"#.utf8))
        var info = stat()
        #expect(stat(staging.appendingPathComponent("bodies/b.json").path, &info) == 0 && info.st_nlink == 1)

        try FileManager.default.removeItem(at: root.setURL(Self.set).appendingPathComponent("bodies/b.json"))
        let again = Paths.makeTemporaryDirectory()
        #expect {
            try MockSetWriter.writeBodies(of: existing, into: again, display: "mocks/m/") { _, _ in EXDEV }
        } throws: { error in
            "\(error)"
                == "mocks/m/bodies/b.json: cannot read it to carry it into the merged set (file not found); nothing was changed"
        }
    }
}
