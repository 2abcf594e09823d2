import Foundation
import MockdTestSupport
import Testing

/// Recording onto a full disk (issue 34): a spool write that fails or comes up short is never dropped silently. The
/// record status and health count the exchanges the spool could not keep, the status names the error, stderr says it
/// once, and the spool stays whole lines (a short write is cut back), so what it holds is recovered after a crash.
/// Runs on a small tmpfs, which needs root and `mount`; skipped with a line saying so otherwise.
@Suite(.serialized)
struct RecordDiskFullTests {
    /// A tmpfs of `kibibytes` at a new folder, or `nil` when this process may not mount one.
    static func smallDisk(kibibytes: Int) -> URL? {
        let folder = Paths.makeTemporaryDirectory()
        guard getuid() == 0,
            let mounted = try? ProcessRunner.run(
                URL(fileURLWithPath: "/bin/mount"),
                ["-t", "tmpfs", "-o", "size=\(kibibytes)k", "tmpfs", folder.path]
            ), mounted.status == 0
        else {
            try? FileManager.default.removeItem(at: folder)
            return nil
        }
        return folder
    }

    static func unmount(_ folder: URL) {
        _ = try? ProcessRunner.run(URL(fileURLWithPath: "/bin/umount"), [folder.path])
        try? FileManager.default.removeItem(at: folder)
    }

    @Test func aFullDiskIsReportedAndTheSpoolKeepsWholeLines() throws {
        guard let disk = Self.smallDisk(kibibytes: 24) else {
            print("SKIPPED aFullDiskIsReportedAndTheSpoolKeepsWholeLines: needs root and mount -t tmpfs")
            return
        }
        defer { Self.unmount(disk) }
        let upstream = try PythonUpstream()
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let har = disk.appendingPathComponent("full.har")
        let arguments = [
            "record", "--upstream", upstream.origin, "--set", "full", "--root", root.path, "--port", "0", "--har",
            har.path,
        ]
        let recorder = try RunningDaemon(arguments, environment: Recording.environment)
        let answers = try Curl.batch((0..<50).map { _ in CurlRequest(url: recorder.baseURL + "/binary") })
        #expect(answers.map(\.status) == Array(repeating: 200, count: 50))

        let spool = disk.appendingPathComponent("full.har.spool")
        let lines = try String(contentsOf: spool, encoding: .utf8).split(
            separator: "\n",
            omittingEmptySubsequences: false
        )
        // Whole lines only: the header, the exchanges that fit, and the end of the last one.
        #expect(lines.last == "")
        let kept = lines.dropLast().dropFirst()
        #expect(kept.allSatisfy { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) != nil })
        #expect(kept.count > 0 && kept.count < 50, "\(kept.count) exchanges fit on the small disk")
        let unsaved = 50 - kept.count

        let status = Recording.json(try Curl.send(CurlRequest(url: recorder.baseURL + "/__mockd/record")).body)
        #expect(status["entries"] as? Int == 50)
        #expect(status["failed"] as? Int == 0)
        #expect(status["spoolFailed"] as? Int == unsaved, "\(status)")
        #expect(status["spoolError"] as? String == "No space left on device", "\(status)")
        let health = Recording.json(try Curl.send(CurlRequest(url: recorder.baseURL + "/__mockd/health")).body)
        #expect(health["recordSpoolFailed"] as? Int == unsaved, "\(health)")
        // The flush cannot write the HAR there either: the control route's client gets the error.
        let flush = try Curl.send(CurlRequest(method: "POST", url: recorder.baseURL + "/__mockd/record/flush"))
        #expect(flush.status == 500)
        #expect(Recording.json(flush.body)["error"] as? String == "flush_failed")

        recorder.send(signal: SIGKILL)
        let stderr = recorder.waitForExit(timeout: 5)?.stderr ?? ""
        let said = stderr.split(separator: "\n").filter { $0.contains("full.har.spool") }
        #expect(
            said == [
                "mockd: record: cannot keep an exchange in \(disk.path)/full.har.spool (No space left on device): it is in memory only until a flush writes the HAR; GET /__mockd/record counts them (spoolFailed)"
            ],
            "\(stderr)"
        )

        // After the crash, with room again, the next recording recovers every exchange the spool kept.
        let grown = try ProcessRunner.run(
            URL(fileURLWithPath: "/bin/mount"),
            ["-o", "remount,size=4m", disk.path]
        )
        #expect(grown.status == 0, "\(grown.stderr)")
        let next = try RunningDaemon(arguments + ["--force"], environment: Recording.environment)
        let stopped = next.stop()
        #expect(
            stopped.stderr.contains("mockd: recovered \(kept.count) exchanges of an interrupted recording"),
            "\(stopped.stderr)"
        )
    }
}
