import Foundation
import MockdTestSupport
import Testing

/// Crash recovery when mockd is PID 1, as in every container (`ENTRYPOINT ["mockd"]`) (issue 34): a leftover folder
/// named after PID 1 was skipped forever, since `kill(1, 0)` succeeds in any later container, so a set renamed aside
/// by a kill between the two renames of a replace was never put back. Each run below is PID 1 of a PID namespace of
/// its own (`unshare -pf --mount-proc`), as a container's `mockd` is; skipped with a line saying so where unshare
/// is not permitted.
@Suite(.serialized)
struct RecoveryAsPID1Tests {
    static let unshare = URL(fileURLWithPath: "/usr/bin/unshare")

    /// Whether this process may make PID namespaces.
    static var canUnshare: Bool {
        (try? ProcessRunner.run(unshare, ["-pf", "--mount-proc", "/bin/true"]).status) == 0
    }

    /// `mockd arguments` as PID 1 of a new PID namespace.
    static func asPID1(_ arguments: [String], environment: [String: String] = [:]) throws -> ProcessResult {
        try ProcessRunner.run(
            unshare,
            ["-pf", "--mount-proc", Paths.mockdBinary.path] + arguments,
            environment: Lifecycle.environment(environment)
        )
    }

    /// A temporary root with `v0.har` and `v1.har`, two versions of one API answer; their paths.
    static func rootWithTwoVersions() throws -> (root: URL, v0: String, v1: String) {
        let root = Paths.makeTemporaryDirectory()
        for version in 0...1 {
            try CrashSafeSetTests.har(version).write(
                to: root.appendingPathComponent("v\(version).har"),
                atomically: true,
                encoding: .utf8
            )
        }
        return (root, root.appendingPathComponent("v0.har").path, root.appendingPathComponent("v1.har").path)
    }

    /// A staging folder left by a PID 1 writer (`.api.importing-1-…`) is removed by the next PID 1, and the
    /// replace it interrupted is done.
    @Test func leftoversOfAKilledPID1WriterAreRemovedByTheNextPID1() throws {
        guard Self.canUnshare else {
            print("SKIPPED leftoversOfAKilledPID1WriterAreRemovedByTheNextPID1: unshare -pf --mount-proc not permitted")
            return
        }
        let (root, v0, v1) = try Self.rootWithTwoVersions()
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(try ProcessRunner.mockd(["import-har", v0, "--set", "api", "--root", root.path]).status == 0)
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("mocks/.api.importing-1-123/bodies"),
            withIntermediateDirectories: true
        )
        let next = try Self.asPID1(["import-har", v1, "--set", "api", "--root", root.path, "--force"])
        #expect(next.status == 0, "\(next.stderr)")
        #expect(
            next.stderr.hasPrefix(
                "mockd: removed 1 folder left by interrupted imports in mocks/ (0.0 MiB): .api.importing-1-123\n"
            ),
            "\(next.stderr)"
        )
        #expect(CrashSafeSetTests.hiddenFolders(root) == [])
        #expect(try CrashSafeSetTests.servedBody(root) == #"{"n": 1}"#)
    }

    /// The same with a real kill: PID 1 dies (as `kill -9` would) after staging the new set; the next PID 1 removes
    /// what it left and the set is the previous one, whole.
    @Test func aPID1KilledWhileWritingIsCleanedUpByTheNextPID1() throws {
        guard Self.canUnshare else {
            print("SKIPPED aPID1KilledWhileWritingIsCleanedUpByTheNextPID1: unshare -pf --mount-proc not permitted")
            return
        }
        let (root, v0, v1) = try Self.rootWithTwoVersions()
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(try Self.asPID1(["import-har", v0, "--set", "api", "--root", root.path]).status == 0)
        let killed = try Self.asPID1(
            ["import-har", v1, "--set", "api", "--root", root.path, "--force"],
            environment: ["MOCKD_CRASH_AT": "staged"]
        )
        #expect(killed.status != 0)
        let left = CrashSafeSetTests.hiddenFolders(root)
        #expect(
            left.count == 2 && left[0].hasPrefix(".api.importing-1-") && left[1].hasPrefix(".api.write-1-"),
            "\(left)"
        )
        #expect(try CrashSafeSetTests.servedBody(root) == #"{"n": 0}"#)
        let next = try Self.asPID1(["import-har", v1, "--set", "other", "--root", root.path])
        #expect(next.status == 0, "\(next.stderr)")
        #expect(
            next.stderr.hasPrefix("mockd: removed 1 folder left by interrupted imports in mocks/ ("),
            "\(next.stderr)"
        )
        #expect(CrashSafeSetTests.hiddenFolders(root) == [])
    }

    /// The set renamed aside by a PID 1 killed between the two renames of a replace is put back by the next PID 1.
    @Test func aSetRenamedAsideByAKilledPID1IsRestoredByTheNextPID1() throws {
        guard Self.canUnshare else {
            print(
                "SKIPPED aSetRenamedAsideByAKilledPID1IsRestoredByTheNextPID1: unshare -pf --mount-proc not permitted"
            )
            return
        }
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("v.har")
        try CrashSafeSetTests.har(7).write(to: file, atomically: true, encoding: .utf8)
        #expect(try ProcessRunner.mockd(["import-har", file.path, "--set", "api", "--root", root.path]).status == 0)
        let mocks = root.appendingPathComponent("mocks")
        try FileManager.default.moveItem(
            at: mocks.appendingPathComponent("api"),
            to: mocks.appendingPathComponent(".api.replaced-1-456")
        )
        let result = try Self.asPID1(["import-har", file.path, "--set", "other", "--root", root.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.hasPrefix(
                "mockd: mocks/api was missing after an interrupted replace; restored the previous set\n"
            ),
            "\(result.stderr)"
        )
        #expect(CrashSafeSetTests.hiddenFolders(root) == [])
        #expect(try CrashSafeSetTests.servedBody(root) == #"{"n": 7}"#)
    }

    /// A writer still running is known by the lock it holds, not by its PID: its folder is left alone even when its
    /// PID names no process here (another PID namespace), and removed once the lock is free.
    @Test func aLiveWriterIsKnownByItsLock() throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("v.har")
        try CrashSafeSetTests.har(3).write(to: file, atomically: true, encoding: .utf8)
        #expect(try ProcessRunner.mockd(["import-har", file.path, "--set", "api", "--root", root.path]).status == 0)
        let name = ".api.importing-999999999-77"
        let mocks = root.appendingPathComponent("mocks")
        try FileManager.default.createDirectory(
            at: mocks.appendingPathComponent(name),
            withIntermediateDirectories: true
        )
        // One process holds the writer's lock as a running mockd does (flock(2) on `.NAME.write-PID-N.lock`).
        let lock = mocks.appendingPathComponent(".api.write-999999999-77.lock").path
        let holder = try ChildProcess(
            URL(fileURLWithPath: "/usr/bin/python3"),
            [
                "-c",
                "import fcntl, sys, time\nf = open(sys.argv[1], 'a')\nfcntl.flock(f, fcntl.LOCK_EX)\nprint('held', flush=True)\ntime.sleep(60)",
                lock,
            ]
        )
        defer { holder.killAndWait() }
        try waitUntil(timeout: 10, "flock to hold the lock") { holder.standardOutput.contains("held") }
        let whileHeld = try ProcessRunner.mockd(["import-har", file.path, "--set", "other", "--root", root.path])
        #expect(whileHeld.status == 0, "\(whileHeld.stderr)")
        #expect(!whileHeld.stderr.contains("removed"), "\(whileHeld.stderr)")
        #expect(CrashSafeSetTests.hiddenFolders(root) == [name, ".api.write-999999999-77.lock"])
        holder.killAndWait()
        let afterwards = try ProcessRunner.mockd([
            "import-har", file.path, "--set", "other", "--root", root.path, "--force",
        ])
        #expect(
            afterwards.stderr.hasPrefix(
                "mockd: removed 1 folder left by interrupted imports in mocks/ (0.0 MiB): \(name)\n"
            )
        )
        #expect(CrashSafeSetTests.hiddenFolders(root) == [])
    }
}
