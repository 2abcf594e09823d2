import Foundation
import MockdTestKit
import MockdTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `MockdDaemon`, the test kit's own launcher, used as a suite uses it: a daemon started and stopped per test, many
/// in one test process and several at once, asked with URLSession; and starts that fail, with the reason.
@Suite("MockdDaemon")
struct MockdDaemonTests {
    /// How many daemons each start-and-stop test runs: `MOCKD_DAEMON_STARTS`, else 24.
    static let starts = ProcessInfo.processInfo.environment["MOCKD_DAEMON_STARTS"].flatMap { Int($0) } ?? 24

    /// Starts a daemon serving the bundled `chat_happy_path`, asks for its health, stops it.
    static func startAskAndStop() async throws -> Int? {
        let daemon = try await MockdDaemon.start(
            binary: Paths.mockdBinary,
            root: Paths.packageRoot,
            scenario: "chat_happy_path"
        )
        defer { daemon.stop() }
        #expect(daemon.baseURL.absoluteString.hasPrefix("http://127.0.0.1:"))
        let (_, response) = try await URLSession.shared.data(
            from: daemon.baseURL.appendingPathComponent("__mockd/health")
        )
        return (response as? HTTPURLResponse)?.statusCode
    }

    @Test func daemonsStartAnswerAndStopOneAfterAnother() async throws {
        for _ in 0..<Self.starts {
            #expect(try await Self.startAskAndStop() == 200)
        }
    }

    @Test func daemonsStartAnswerAndStopSeveralAtOnce() async throws {
        let statuses = try await withThrowingTaskGroup(of: [Int?].self) { group in
            for _ in 0..<4 {
                group.addTask {
                    var statuses: [Int?] = []
                    for _ in 0..<(Self.starts / 4) { statuses.append(try await Self.startAskAndStop()) }
                    return statuses
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(statuses == Array(repeating: 200, count: Self.starts / 4 * 4))
    }

    @Test func aStartThatFailsThrowsTheDaemonsOwnError() async throws {
        let error = try await Self.startError {
            try await MockdDaemon.start(
                binary: Paths.mockdBinary,
                root: Paths.packageRoot,
                scenario: "no_such_scenario"
            )
        }
        #expect(
            error.message
                == "mockd: configs/no_such_scenario.json: scenario 'no_such_scenario' not found (looked for "
                + Paths.packageRoot.appendingPathComponent("configs/no_such_scenario.json").path + ")\n"
        )
        // Harnesses that log `localizedDescription` get the same line.
        #expect((error as any Error).localizedDescription == error.description)
    }

    /// A program that is not mockd (here one that prints a banner and exits 1) is named with what it printed, and its
    /// error lines follow (before, only the error lines came, or nothing at all).
    @Test func aProgramThatIsNotMockdIsNamedWithItsFirstLine() async throws {
        let folder = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let other = try Self.script(
            "#!/bin/sh\necho 'other-tool 2.1 usage: other-tool FILE'\necho 'no FILE' >&2\nexit 1\n",
            in: folder
        )
        let error = try await Self.startError {
            try await MockdDaemon.start(binary: other, root: folder, scenario: "s")
        }
        #expect(
            error.message
                == "\(other.path) printed 'other-tool 2.1 usage: other-tool FILE' where mockd prints 'listening on URL' "
                + "(is it mockd?)\nno FILE\n"
        )
    }

    /// An executable script `text` in `folder`.
    static func script(_ text: String, in folder: URL) throws -> URL {
        let url = folder.appendingPathComponent("script-\(UUID().uuidString)")
        try text.write(to: url, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
        return url
    }

    /// `start()`, tried again while the script it runs is "busy": a script just written can be for a moment, when
    /// a process another test forks meanwhile holds the writer's descriptor until it execs (ETXTBSY, Linux).
    static func retryingBusy<T>(_ start: () async throws -> T) async throws -> T {
        for _ in 0..<20 {
            do {
                return try await start()
            } catch let error as NSError
                where (error.userInfo[NSUnderlyingErrorKey] as? NSError)?.code == Int(ETXTBSY)
            {
                try await Task.sleep(nanoseconds: 50_000_000)
            }
        }
        return try await start()
    }

    /// The `StartError` `start` throws; a test failure when it throws nothing or something else.
    static func startError(_ start: () async throws -> MockdDaemon) async throws -> MockdDaemon.StartError {
        do {
            let daemon = try await retryingBusy(start)
            daemon.stop()
        } catch let error as MockdDaemon.StartError {
            return error
        }
        throw DaemonStarted()
    }

    struct DaemonStarted: Error {}
}

/// `MockdDaemon`'s bounded waits, in wall-clock windows (run one at a time by scripts/test).
@Suite("Timing: MockdDaemon")
struct TimingMockdDaemonTests {
    /// A program that never prints, ignores SIGTERM (blocked, as a child of a concurrency thread inherits it) and
    /// runs a child of its own: the start gives up after `timeout` and kills them both.
    @Test func aDaemonThatStaysSilentIsStoppedAfterTheTimeout() async throws {
        let folder = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let silent = try MockdDaemonTests.script("#!/bin/sh\nsleep 300\n", in: folder)
        let started = Date()
        let error = try await MockdDaemonTests.startError {
            try await MockdDaemon.start(binary: silent, root: folder, scenario: "s", timeout: 1)
        }
        #expect(error.message == "mockd printed no 'listening on' line within 1.0 s")
        // Before, the start took as long as the script's child ran.
        #expect(Date().timeIntervalSince(started) < 60)
    }

    /// `binary` a wrapper script that runs mockd without `exec` (a version manager's shim): `stop()` reaches mockd
    /// through it and returns, and nothing is left serving.
    @Test func aDaemonBehindAWrapperScriptStops() async throws {
        let folder = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let wrapper = try MockdDaemonTests.script("#!/bin/sh\n'\(Paths.mockdBinary.path)' \"$@\"\n", in: folder)
        let daemon = try await MockdDaemonTests.retryingBusy {
            try await MockdDaemon.start(binary: wrapper, root: Paths.packageRoot, scenario: "chat_happy_path")
        }
        let health = daemon.baseURL.appendingPathComponent("__mockd/health")
        let (_, response) = try await URLSession.shared.data(from: health)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let stopping = Date()
        daemon.stop()
        #expect(Date().timeIntervalSince(stopping) < 5)
        #expect(try Curl.send(CurlRequest(method: "GET", url: health.absoluteString)).status == 0)
    }
}
