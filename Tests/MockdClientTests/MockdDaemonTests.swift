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
        let error = await #expect(throws: MockdDaemon.StartError.self) {
            _ = try await MockdDaemon.start(
                binary: Paths.mockdBinary,
                root: Paths.packageRoot,
                scenario: "no_such_scenario"
            )
        }
        #expect(
            error?.message
                == "mockd: configs/no_such_scenario.json: scenario 'no_such_scenario' not found (looked for "
                + Paths.packageRoot.appendingPathComponent("configs/no_such_scenario.json").path + ")\n"
        )
    }

    /// A program that never prints and ignores SIGTERM (blocked, as a child of a concurrency thread inherits it):
    /// the start gives up after `timeout` and kills it.
    @Test func aDaemonThatStaysSilentIsStoppedAfterTheTimeout() async throws {
        let folder = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let silent = folder.appendingPathComponent("silent")
        try "#!/bin/sh\nexec sleep 30\n".write(to: silent, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: silent.path)
        var started = Date()
        var failure: (any Error)?
        // A script just written may be "busy" for a moment: a process another test forks meanwhile holds the writer's
        // descriptor until it execs (ETXTBSY, Linux).
        for _ in 0..<20 {
            started = Date()
            do {
                _ = try await MockdDaemon.start(binary: silent, root: folder, scenario: "s", timeout: 1)
                failure = nil
            } catch {
                failure = error
            }
            guard let failure, ((failure as NSError).userInfo[NSUnderlyingErrorKey] as? NSError)?.code == Int(ETXTBSY)
            else { break }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        let error = try #require(failure as? MockdDaemon.StartError)
        #expect(error.message == "mockd printed no 'listening on' line within 1.0 s")
        #expect(Date().timeIntervalSince(started) < 10)
    }
}
