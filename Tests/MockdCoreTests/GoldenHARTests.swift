import Foundation
import MockdTestSupport
import Testing

@testable import MockdCore

/// mockd's output for each corpus HAR against its golden files, mitmproxy-style: `scripts/golden` runs
/// `mockd import-har FILE --set golden` on every file of `../shared/corpus/har` and commits, in
/// `Fixtures/har/<file name without .har>/`, the `index.json` (when at most 64 KiB), `digests.sha256` (the
/// SHA-256 of each body file and of a larger index), `report.txt` (the import report) and `error.txt` (the
/// refusal, when nothing is written). Here each file is imported again in process through the pipeline
/// `import-har` runs (`HARImportPipeline`, default options), and compared byte for byte.
struct GoldenHARTests {
    /// Read beside this file, so no resources need declaring.
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Fixtures/har"
    )
    /// An index.json above this size is pinned by its digest alone (as scripts/golden does).
    static let largestCommittedIndex = 64 * 1024
    static let set = "golden"
    static let remedy =
        "if the change is intended, run scripts/golden and review `git diff Tests/MockdCoreTests/Fixtures/har`"

    /// One file scripts/golden writes.
    enum Expected {
        case text(String)
        /// The line `mockd import-har` adds when no entry can be replayed: its wording is the command's (pinned by
        /// the CLI tests), so only its start, naming the file, is compared.
        case refusalNamingTheFile
    }

    /// What scripts/golden would write for `har`, by file name.
    static func freshOutput(_ har: URL) throws -> [String: Expected] {
        let name = har.lastPathComponent
        let root = MockdRoot(url: Paths.makeTemporaryDirectory())
        defer { try? FileManager.default.removeItem(at: root.url) }
        let imported: HARImportPipeline.Result
        do {
            imported = try HARImportPipeline.run(
                har: har,
                displayName: name,
                into: set,
                root: root,
                options: HARImportOptions(),
                merge: false,
                replace: false
            )
        } catch let error as HARImportError {
            return ["error.txt": .text("mockd: \(error)\n")]
        }
        guard imported.setWritten else {
            return [
                "report.txt": .text(imported.report.rendered(source: name, destination: "(nothing written)") + "\n"),
                "error.txt": .refusalNamingTheFile,
            ]
        }
        var output: [String: Expected] = [
            "report.txt": .text(imported.report.rendered(source: name, destination: "mocks/\(set)/") + "\n")
        ]
        let folder = root.setURL(set)
        let index = try Data(contentsOf: folder.appendingPathComponent("index.json"))
        var pinned: [(String, Data)] = []
        if index.count <= largestCommittedIndex {
            output["index.json"] = .text(String(decoding: index, as: UTF8.self))
        } else {
            pinned.append(("index.json", index))
        }
        let bodies = folder.appendingPathComponent("bodies")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: bodies.path)) ?? []
        // sha256sum's order in scripts/golden: byte order of the paths (LC_ALL=C sort).
        for body in names.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }) {
            pinned.append(("bodies/" + body, try Data(contentsOf: bodies.appendingPathComponent(body))))
        }
        if !pinned.isEmpty {
            output["digests.sha256"] = .text(pinned.map { "\(SHA256.hex($0.1))  \($0.0)\n" }.joined())
        }
        return output
    }

    /// "line N: golden … / now …" for the first line that differs.
    static func firstDifference(golden: String, now: String) -> String {
        let expected = golden.split(separator: "\n", omittingEmptySubsequences: false)
        let actual = now.split(separator: "\n", omittingEmptySubsequences: false)
        for line in 0..<max(expected.count, actual.count) {
            let old = line < expected.count ? String(expected[line]) : "(end of file)"
            let new = line < actual.count ? String(actual[line]) : "(end of file)"
            if old != new { return "line \(line + 1):\n  golden: \(old.prefix(200))\n  now:    \(new.prefix(200))" }
        }
        return "(no line differs)"
    }

    @Test(arguments: Paths.corpusHARFiles(for: "GoldenHARTests"))
    func importMatchesItsGoldenFiles(_ har: URL) throws {
        let stem = har.deletingPathExtension().lastPathComponent
        let folder = Self.fixtures.appendingPathComponent(stem)
        let committed = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        try #require(
            !committed.isEmpty,
            "no golden files for \(har.lastPathComponent) in Fixtures/har/\(stem)/: run scripts/golden"
        )
        let fresh = try Self.freshOutput(har)
        #expect(
            Set(committed) == Set(fresh.keys),
            "Fixtures/har/\(stem)/ holds \(committed.sorted()), a fresh import gives \(fresh.keys.sorted()); \(Self.remedy)"
        )
        for (file, expected) in fresh where committed.contains(file) {
            let golden = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            guard case .text(let text) = expected else {
                #expect(
                    golden.hasPrefix("mockd: \(har.lastPathComponent): "),
                    "Fixtures/har/\(stem)/\(file): \(golden)"
                )
                continue
            }
            // Not #expect(golden == text): that would print both files whole.
            if golden != text {
                Issue.record(
                    "Fixtures/har/\(stem)/\(file) differs from a fresh import of \(har.lastPathComponent) at \(Self.firstDifference(golden: golden, now: text))\n\(Self.remedy)"
                )
            }
        }
    }

    @Test func everyGoldenFolderHasItsCorpusFile() throws {
        let corpus = Set(
            Paths.corpusHARFiles(for: "everyGoldenFolderHasItsCorpusFile").map {
                $0.deletingPathExtension().lastPathComponent
            }
        )
        guard !corpus.isEmpty else { return }
        let folders = Set(try FileManager.default.contentsOfDirectory(atPath: Self.fixtures.path))
        #expect(
            folders.subtracting(corpus).isEmpty,
            "golden files without a corpus file: \(folders.subtracting(corpus).sorted()); run scripts/golden"
        )
    }

    @Test func sha256MatchesTheStandardsExamples() {
        #expect(SHA256.hex(Data()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(Data("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        // 56 bytes: the padding takes a second block.
        #expect(
            SHA256.hex(Data("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        )
    }
}
