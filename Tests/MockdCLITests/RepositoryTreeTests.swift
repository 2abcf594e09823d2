import Foundation
import MockdTestSupport
import Testing

/// `scripts/check-tree` (the `tree` step of scripts/test) against throwaway git work trees: the repository's layout
/// passes, a stray top-level file (a profiler's `0`) or a tracked file over 1 MB fails, naming it.
struct RepositoryTreeTests {
    /// A git work tree holding a few files of the documented layout, nothing committed.
    final class WorkTree {
        let url: URL

        init() throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("mockd-tree-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            try git(["init", "-q"])
            try write("Package.swift", "// swift-tools-version:6.0\n")
            try write("README.md", "# mockd\n")
            try write("Sources/mockd/Mockd.swift", "print(1)\n")
            try write("docs/README.md", "# docs\n")
            try write(".gitignore", "/.build/\n/recordings/\n")
            try git(["add", "-A"])
        }

        deinit { try? FileManager.default.removeItem(at: url) }

        func write(_ path: String, _ text: String) throws {
            try write(path, Data(text.utf8))
        }

        func write(_ path: String, _ data: Data) throws {
            let file = url.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try data.write(to: file)
        }

        func git(_ arguments: [String]) throws {
            let result = try ProcessRunner.run(
                URL(fileURLWithPath: "/usr/bin/env"),
                ["git", "-C", url.path] + arguments
            )
            #expect(result.status == 0, "git \(arguments.joined(separator: " ")): \(result.stderr)")
        }

        func check() throws -> ProcessResult {
            try ProcessRunner.run(Paths.packageRoot.appendingPathComponent("scripts/check-tree"), [url.path])
        }
    }

    @Test func theDocumentedLayoutPasses() throws {
        let tree = try WorkTree()
        try tree.write(".build/debug/huge.o", Data(count: 2_000_000))  // ignored by .gitignore
        try tree.write("recordings/app.har", "{}")
        let result = try tree.check()
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout == "check-tree: layout as documented, no file over 1 MB\n")
    }

    @Test func aStrayTopLevelFileFailsWhetherTrackedOrNot() throws {
        let tree = try WorkTree()
        try tree.write("0", "profiler output\n")  // untracked, not ignored: the next `git add -A` would commit it
        var result = try tree.check()
        #expect(result.status == 1)
        #expect(
            result.stdout
                == "check-tree: unexpected top-level entry '0' (profiler or build output? delete it, or add it to the layout in scripts/check-tree)\ncheck-tree: 1 problem(s)\n"
        )
        try tree.git(["add", "0"])
        try tree.write("scratch/notes.txt", "x\n")
        result = try tree.check()
        #expect(result.status == 1)
        #expect(result.stdout.contains("unexpected top-level entry '0'"))
        #expect(result.stdout.contains("unexpected top-level entry 'scratch'"))
        #expect(result.stdout.hasSuffix("check-tree: 2 problem(s)\n"))
    }

    @Test func aFileOver1MBFailsAndOneOfExactly1MBPasses() throws {
        let tree = try WorkTree()
        try tree.write("Tests/Fixtures/exactly.bin", Data(count: 1_000_000))
        try tree.git(["add", "-A"])
        #expect(try tree.check().status == 0)
        try tree.write("Tests/Fixtures/big.bin", Data(count: 1_000_001))
        try tree.git(["add", "-A"])
        let result = try tree.check()
        #expect(result.status == 1)
        #expect(
            result.stdout
                == "check-tree: 'Tests/Fixtures/big.bin' is 1000001 bytes, over 1 MB (keep large fixtures outside the repository, as the corpus in ../shared)\ncheck-tree: 1 problem(s)\n"
        )
    }
}
