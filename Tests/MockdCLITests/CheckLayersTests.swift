import Foundation
import MockdTestSupport
import Testing

/// `scripts/check-layers` keeps platform code in its seam: it passes on this repository and fails, naming the file
/// and line, on a violation of each kind planted in a temporary tree (`--root`). The planted code is spelled in
/// pieces here so that this file does not hold the violations it plants.
struct CheckLayersTests {
    static let script = Paths.packageRoot.appendingPathComponent("scripts/check-layers")

    /// A tree with one clean file per place the check looks, and docs/PLATFORMS.md written for it.
    static func cleanTree() throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("check-layers-\(UUID().uuidString)")
        try write("import Foundation\n\nfunc served() -> Int { 1 }\n", to: root, "Sources/MockdServer/Served.swift")
        try write("import Foundation\n\nfunc tested() {}\n", to: root, "Tests/MockdCLITests/Tested.swift")
        try write("int portable(void) { return 0; }\n", to: root, "Sources/CPlatform/platform.c")
        let written = try check(root, "--write-doc")
        #expect(written.status == 0, "\(written.stderr)")
        return root
    }

    static func write(_ text: String, to root: URL, _ path: String) throws {
        let file = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
    }

    static func check(_ root: URL, _ arguments: String...) throws -> ProcessResult {
        try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/python3"), [script.path, "--root", root.path] + arguments)
    }

    @Test func thisRepositoryPasses() throws {
        let result = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/python3"), [Self.script.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("platform APIs only in Sources/MockdPlatform/ and Sources/CPlatform/"))
    }

    @Test func aCleanTreePasses() throws {
        let root = try Self.cleanTree()
        defer { try? FileManager.default.removeItem(at: root) }
        let result = try Self.check(root)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("docs/PLATFORMS.md lists the 0 Darwin-only lines"))
    }

    /// (file, its text, the line the check must name, the kind it must say).
    static let violations: [(String, String, Int, String)] = [
        (
            "Sources/MockdServer/Planted.swift",
            "import Foundation\n" + ["import", "Glibc"].joined(separator: " ") + "\n",
            2, "platform import"
        ),
        (
            "Sources/MockdCore/Support/Planted.swift", "#if " + "os(Linux)\nlet x = 1\n#endif\n", 1,
            "platform conditional"
        ),
        ("Sources/mockd/Planted.swift", "func f() {\n    _ = " + "epoll" + "_create1(0)\n}\n", 2, "platform API"),
        (
            "Sources/MockdServer/Named.swift", "func f() { _ = " + "Glibc" + ".send(0, nil, 0, 0) }\n", 1,
            "platform API"
        ),
        ("Sources/MockdSchema/Trim.swift", "func f() { " + "malloc" + "_trim(0) }\n", 1, "platform API"),
        ("Tests/MockdCLITests/Reads.swift", "let status = \"" + "/pr" + "oc/self/status\"\n", 1, "platform path"),
        ("Tests/MockdTestSupport/Lock.swift", "var lock = " + "os_unfair" + "_lock()\n", 1, "platform API"),
        ("Sources/CMicroHTTPD/shim.c", "#if " + "defined(__" + "APPLE__)\nint x;\n#endif\n", 1, "platform conditional"),
        ("Sources/CMicroHTTPD/more.c", "#include <sys/" + "epoll.h>\n", 1, "platform header"),
        (
            "Examples/App/Tests/Planted.swift", "#if canImport(" + "Darwin)\nlet y = 2\n#endif\n", 1,
            "platform conditional"
        ),
        // File calls on descriptors go through MockdPlatform's FileDescriptor in the daemon's sources.
        (
            "Sources/MockdCore/MockSet/Planted.swift",
            "func f() {\n    let file = " + "open" + "(path, O_WRONLY | O_CREAT)\n    _ = " + "fsync" + "(file)\n}\n",
            2,
            "POSIX file call"
        ),
        ("Sources/mockd/Closes.swift", "func f(_ socket: Int32) { " + "close" + "(socket) }\n", 1, "POSIX file call"),
        (
            "Sources/MockdServer/Writes.swift",
            "func f(_ d: Int32, _ p: UnsafeRawPointer) { _ = Foundation." + "write" + "(d, p, 1) }\n", 1,
            "POSIX file call"
        ),
        // A client library may use the Objective-C runtime, but not bring Darwin along with it.
        (
            "Sources/MockdTestKit/Both.swift", "#if canImport(ObjectiveC) && canImport(" + "Darwin)\n#endif\n", 1,
            "platform conditional"
        ),
    ]

    @Test(arguments: 0..<violations.count)
    func aPlantedViolationFailsTheCheckAndIsNamed(_ index: Int) throws {
        let (path, text, line, kind) = Self.violations[index]
        let root = try Self.cleanTree()
        defer { try? FileManager.default.removeItem(at: root) }
        try Self.write(text, to: root, path)
        let result = try Self.check(root)
        #expect(result.status == 1)
        #expect(result.stderr.contains("\(path):\(line): \(kind):"), "\(result.stderr)")
    }

    @Test func theSameCodeInsideTheSeamPasses() throws {
        let root = try Self.cleanTree()
        defer { try? FileManager.default.removeItem(at: root) }
        for (path, text, _, _) in Self.violations.prefix(5) {
            try Self.write(text, to: root, "Sources/MockdPlatform/" + URL(fileURLWithPath: path).lastPathComponent)
        }
        let result = try Self.check(root)
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// File calls are the seam's inside it; tests may make them; methods and enum cases of the same name are no
    /// file calls.
    @Test func fileCallsInTheSeamInTestsAndNamesAlikePass() throws {
        let root = try Self.cleanTree()
        defer { try? FileManager.default.removeItem(at: root) }
        let calls = "func f(_ d: Int32) {\n    _ = " + "fsync" + "(d)\n    " + "close" + "(d)\n}\n"
        try Self.write(calls, to: root, "Sources/MockdPlatform/Files.swift")
        try Self.write(calls, to: root, "Tests/MockdCLITests/Files.swift")
        let alike = """
            enum Push { case close(code: Int) }
            func f(_ file: FileDescriptor, _ log: Log) {
                file.close()
                log.write("line", to: 2)
                let message = "3 are open (\\(1) refused)"
            }

            """
        try Self.write(alike, to: root, "Sources/MockdCore/Streaming/Alike.swift")
        let result = try Self.check(root)
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// A new Darwin-only line, even inside the seam, fails until docs/PLATFORMS.md lists it.
    @Test func aNewDarwinOnlyLineMustBeListed() throws {
        let root = try Self.cleanTree()
        defer { try? FileManager.default.removeItem(at: root) }
        let darwinOnly = "#if defined(__" + "APPLE__)\nint darwin_only(void) { return 1; }\n#endif\n"
        try Self.write(darwinOnly, to: root, "Sources/CPlatform/platform.c")
        let unlisted = try Self.check(root)
        #expect(unlisted.status == 1)
        #expect(unlisted.stderr.contains("docs/PLATFORMS.md lists other Darwin-only lines than the tree has (1 now)"))
        #expect(try Self.check(root, "--write-doc").status == 0)
        let listed = try Self.check(root)
        #expect(listed.status == 0, "\(listed.stderr)")
        let doc = try String(contentsOf: root.appendingPathComponent("docs/PLATFORMS.md"), encoding: .utf8)
        #expect(doc.contains("Sources/CPlatform/platform.c:2  int darwin_only(void) { return 1; }"))
    }
}
