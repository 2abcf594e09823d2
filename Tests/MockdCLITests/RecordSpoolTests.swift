import Foundation
import MockdTestSupport
import Testing

/// `mockd record` killed with `kill -9` keeps what it recorded (issue 24: every exchange since the last flush was
/// lost): each exchange is spooled to `<har>.spool` as it completes, and the next `mockd record` of the set
/// turns the spool into the run's HAR and set.
@Suite(.serialized)
struct RecordSpoolTests {
    @Test func exchangesSurviveKill9AndAreRecoveredByTheNextRecord() throws {
        let upstream = try PythonUpstream()
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let har = root.appendingPathComponent("crash.har")
        let arguments = [
            "record", "--upstream", upstream.origin, "--set", "crash", "--root", root.path, "--port", "0", "--har",
            har.path,
        ]
        let recorder = try RunningDaemon(arguments, environment: Recording.environment)
        let answers = try Curl.batch([
            CurlRequest(url: recorder.baseURL + "/hello"),
            CurlRequest(url: recorder.baseURL + "/seq"),
            CurlRequest(url: recorder.baseURL + "/binary"),
        ])
        #expect(answers.map(\.status) == [200, 200, 200])
        let spool = root.appendingPathComponent("crash.har.spool")
        // The third exchange is spooled once it is answered; the kill comes after.
        try waitUntil(timeout: 5, "three exchanges in the spool") {
            ((try? String(contentsOf: spool, encoding: .utf8)) ?? "").split(separator: "\n").count == 4
        }
        recorder.send(signal: SIGKILL)
        _ = recorder.waitForExit(timeout: 5)
        #expect(!FileManager.default.fileExists(atPath: har.path))
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("mocks/crash").path))

        let next = try RunningDaemon(arguments + ["--force"], environment: Recording.environment)
        let stopped = next.stop()
        #expect(
            stopped.stderr.contains(
                "mockd: recovered 3 exchanges of an interrupted recording from crash.har.spool into crash.har and mocks/crash/"
            )
        )
        #expect(!FileManager.default.fileExists(atPath: spool.path))
        let document = Recording.json(try Data(contentsOf: har))
        let entries = (document["log"] as? [String: Any])?["entries"] as? [[String: Any]] ?? []
        #expect(
            entries.compactMap { ($0["request"] as? [String: Any])?["url"] as? String } == [
                upstream.origin + "/hello", upstream.origin + "/seq", upstream.origin + "/binary",
            ]
        )
        let validate = try ProcessRunner.mockd(["validate", "--set", "crash", "--root", root.path])
        #expect(validate.status == 0, "\(validate.stderr)")
        let served = try RunningDaemon(["--set", "crash", "--root", root.path, "--port", "0", "--quiet"])
        defer { served.stop() }
        let hello = try Curl.send(CurlRequest(url: served.baseURL + "/hello"))
        #expect(String(decoding: hello.body, as: UTF8.self) == "{\"hello\":\"world\"}\n")
    }

    @Test func aRecordingThatEndsNormallyLeavesNoSpool() throws {
        let upstream = try PythonUpstream()
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let har = root.appendingPathComponent("clean.har")
        let recorder = try RunningDaemon(
            [
                "record", "--upstream", upstream.origin, "--set", "clean", "--root", root.path, "--port", "0",
                "--har", har.path,
            ],
            environment: Recording.environment
        )
        #expect(try Curl.send(CurlRequest(url: recorder.baseURL + "/hello")).status == 200)
        #expect(recorder.stop().status == 0)
        #expect(FileManager.default.fileExists(atPath: har.path))
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("clean.har.spool").path))
    }
}
