import Foundation
import MockdTestSupport
import Testing

/// Replacing a mock set survives `kill -9` at every step (issue 24: a kill between the two renames of a replace
/// left no set at all, and interrupted imports left hidden folders that were never removed): the set on disk is
/// always the old one or the new one, whole, and the next start removes the leftovers and says so.
/// `MOCKD_CRASH_AT` makes the writer die as `kill -9` would at a named step.
struct CrashSafeSetTests {
    static func har(_ value: Int) -> String {
        """
        {"log": {"version": "1.2", "creator": {"name": "test", "version": "1"}, "entries": [
          {"request": {"method": "GET", "url": "https://api.example.com/v1/n"},
           "response": {"status": 200, "headers": [{"name": "Content-Type", "value": "application/json"}],
                        "content": {"text": "{\\"n\\": \(value)}"}}, "time": 10}
        ]}}
        """
    }

    /// The body `mocks/api` serves for `GET /v1/n`, read from its files as the daemon would load them.
    static func servedBody(_ root: URL) throws -> String {
        let result = try ProcessRunner.mockd(["validate", "--set", "api", "--root", root.path])
        #expect(result.status == 0, "validate: \(result.stderr)")
        return try String(contentsOf: root.appendingPathComponent("mocks/api/bodies/GET_v1_n.json"), encoding: .utf8)
    }

    static func hiddenFolders(_ root: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("mocks").path)) ?? [])
            .filter { $0.hasPrefix(".") }.sorted()
    }

    /// Thirteen forced re-imports, each killed at one of the writer's steps, the set checked after each.
    @Test func killedForcedReimportsAlwaysLeaveAWholeSet() throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        var environment = ProcessInfo.processInfo.environment
        for version in 0...13 {
            let file = root.appendingPathComponent("v\(version).har")
            try Self.har(version).write(to: file, atomically: true, encoding: .utf8)
            let point = ["staged", "exchanged"][version % 2]
            environment["MOCKD_CRASH_AT"] = version == 0 ? nil : point
            let result = try ProcessRunner.run(
                Paths.mockdBinary,
                ["import-har", file.path, "--set", "api", "--root", root.path, "--force"],
                environment: environment
            )
            if version == 0 {
                #expect(result.status == 0)
                #expect(try Self.servedBody(root) == #"{"n": 0}"#)
                continue
            }
            #expect(result.status == 9, "killed at \(point)")
            // Killed before the swap: the previous set; after it: the new one. Never none, never a mix.
            let expected = point == "staged" ? version - 1 : version
            #expect(try Self.servedBody(root) == #"{"n": \#(expected)}"#, "killed at \(point)")
            // What the kill left is one hidden folder and its writer's lock file, removed (the folder named) at the
            // next write or start.
            #expect(Self.hiddenFolders(root).count == 2, "killed at \(point)")
            if point == "staged" {
                // Import it again, fully, so that the next round replaces this version.
                environment["MOCKD_CRASH_AT"] = nil
                let again = try ProcessRunner.run(
                    Paths.mockdBinary,
                    ["import-har", file.path, "--set", "api", "--root", root.path, "--force"],
                    environment: environment
                )
                #expect(again.status == 0)
                #expect(again.stderr.hasPrefix("mockd: removed 1 folder left by interrupted imports in mocks/ ("))
                #expect(Self.hiddenFolders(root) == [])
                #expect(try Self.servedBody(root) == #"{"n": \#(version)}"#)
            }
        }
        let daemon = try RunningDaemon(["--set", "api", "--root", root.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        #expect(daemon.standardError.contains("mockd: removed 1 folder left by interrupted imports in mocks/ ("))
        #expect(Self.hiddenFolders(root) == [])
        let served = try Curl.send(CurlRequest(url: daemon.baseURL + "/v1/n"))
        #expect(String(decoding: served.body, as: UTF8.self) == #"{"n": 13}"#)
    }

    /// Imports `har(value)` as set `api` under `root`.
    static func importAPI(_ value: Int, into root: URL) throws {
        let file = root.appendingPathComponent("v.har")
        try har(value).write(to: file, atomically: true, encoding: .utf8)
        #expect(try ProcessRunner.mockd(["import-har", file.path, "--set", "api", "--root", root.path]).status == 0)
    }

    /// A set renamed aside by a replace that was killed before the new one moved in (the two-rename way, still
    /// used where the file system cannot exchange folders atomically) is put back at the next start.
    @Test func setLeftRenamedAsideIsRestoredAtStart() throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        try Self.importAPI(7, into: root)
        let mocks = root.appendingPathComponent("mocks")
        try FileManager.default.moveItem(
            at: mocks.appendingPathComponent("api"),
            to: mocks.appendingPathComponent(".api.replaced-999999999-456")
        )
        try FileManager.default.createDirectory(
            at: mocks.appendingPathComponent(".api.importing-999999999-456/bodies"),
            withIntermediateDirectories: true
        )
        let daemon = try RunningDaemon(["--set", "api", "--root", root.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        #expect(
            daemon.standardError.contains(
                "mockd: mocks/api was missing after an interrupted replace; restored the previous set\n"
                    + "mockd: removed 1 folder left by interrupted imports in mocks/ (0.0 MiB): .api.importing-999999999-456\n"
            )
        )
        #expect(Self.hiddenFolders(root) == [])
        let served = try Curl.send(CurlRequest(url: daemon.baseURL + "/v1/n"))
        #expect(String(decoding: served.body, as: UTF8.self) == #"{"n": 7}"#)
    }

    /// A folder left by an interrupted merge shares its kept files with the set (hard links): removing it frees only
    /// its own files, and the line says that much.
    @Test func aLeftoverSharingFilesWithTheSetCountsOnlyItsOwn() throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        try Self.importAPI(7, into: root)
        let mocks = root.appendingPathComponent("mocks")
        let shared = mocks.appendingPathComponent("api/notes.bin")
        try Data(count: 3 << 20).write(to: shared)
        let leftover = mocks.appendingPathComponent(".api.importing-999999999-789")
        try FileManager.default.createDirectory(
            at: leftover.appendingPathComponent("bodies"),
            withIntermediateDirectories: true
        )
        try Data(count: 2 << 20).write(to: leftover.appendingPathComponent("bodies/own.bin"))
        try FileManager.default.linkItem(at: shared, to: leftover.appendingPathComponent("notes.bin"))
        let daemon = try RunningDaemon(["--set", "api", "--root", root.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        #expect(
            daemon.standardError.contains(
                "mockd: removed 1 folder left by interrupted imports in mocks/ (2.0 MiB): .api.importing-999999999-789\n"
            ),
            "\(daemon.standardError)"
        )
        #expect(try Data(contentsOf: shared).count == 3 << 20)
    }
}
