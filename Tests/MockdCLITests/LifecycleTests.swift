import Foundation
import MockdPlatform
import MockdTestSupport
import Testing

/// Helpers shared by the lifecycle, environment and health tests.
enum Lifecycle {
    /// A scenario file outside the package (served with `--root` = the package, so `sets` resolve there):
    /// `/v1/me` after 1.5 s, `/v1/slow` after 5 s, a 30 s long-poll, a `noResponse` fault, and an event stream
    /// that stays open after its events, a WebSocket.
    static let scenario = #"""
        {"version": 1, "sets": ["chat"], "overrides": [
          {"id": "slow-me", "match": {"method": "GET", "path": "/v1/me"}, "latency": 1500},
          {"id": "slower", "match": {"method": "GET", "path": "/v1/slow"}, "status": 200, "body": "late\n", "latency": 5000},
          {"id": "poll", "match": {"method": "GET", "path": "/v1/poll"}, "status": 200, "body": "released\n", "hold": {"timeoutMs": 30000}},
          {"id": "dead", "match": {"method": "GET", "path": "/v1/dead"}, "status": 200, "body": "never\n", "fault": "noResponse"},
          {"id": "events", "match": {"method": "GET", "path": "/v1/events"}, "events": {"keepOpen": true, "items": [
            {"event": "presence", "id": "e1", "data": {"online": true}},
            {"event": "typing", "id": "e2", "data": {"author": "Olga"}}
          ]}},
          {"id": "socket", "match": {"method": "GET", "path": "/v1/socket"}, "websocket": {"steps": [{"send": "hello"}]}}
        ]}
        """#

    /// Writes `scenario` to a fresh folder; returns the file, removed by the caller with its folder.
    static func scenarioFile(_ text: String = scenario) throws -> URL {
        let folder = Paths.makeTemporaryDirectory()
        let file = folder.appendingPathComponent("lifecycle.json")
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    /// The test's environment without any `MOCKD_*` variable, plus `extra`.
    static func environment(_ extra: [String: String] = [:]) -> [String: String] {
        ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("MOCKD_") || $0.key == "MOCKD_BIN" }.merging(
            extra
        ) { _, new in new }
    }

    static func mockd(_ arguments: [String], environment extra: [String: String] = [:]) throws -> ProcessResult {
        try ProcessRunner.run(Paths.mockdBinary, arguments, environment: environment(extra))
    }

    /// Runs mockd as an unprivileged user — `nobody` through setpriv when the tests run as root — and
    /// returns the result with the user id it ran as.
    static func mockdUnprivileged(_ arguments: [String]) throws -> (result: ProcessResult, uid: UInt32) {
        guard getuid() == 0 else { return (try mockd(arguments), getuid()) }
        let result = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/setpriv"),
            ["--reuid=nobody", "--regid=nogroup", "--clear-groups", Paths.mockdBinary.path] + arguments,
            environment: environment()
        )
        return (result, 65534)
    }

    /// A loopback port nobody listens on (bound, then released).
    static func freePort() throws -> Int {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw -> Int32 in
                guard bind(socket, raw, length) == 0 else { return -1 }
                return getsockname(socket, raw, &length)
            }
        }
        try #require(bound == 0)
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func seconds(since start: Date) -> Double { Date().timeIntervalSince(start) }

    /// The lines a graceful stop on `signal` may print for `count` requests in flight: that count, or one more. The
    /// health request `waitForRequestsInFlight` read the count with has answered but may not be complete on the
    /// daemon's side yet (libmicrohttpd's completion callback, which stops counting it, runs just after the response
    /// is sent), so a signal sent at once can find it still in flight — rarely, on a loaded machine.
    static func drainLines(_ signal: String, seconds: Int, inFlight count: Int) -> [String] {
        [count, count + 1].map { n in
            "mockd: \(signal) received, stopping; waiting up to \(seconds) s for \(n) request\(n == 1 ? "" : "s") in flight\n"
        }
    }

    /// Whether a TCP connection to loopback `port` is refused now: nothing listens there, or its listener no
    /// longer accepts (a daemon that is shutting down).
    static func refusesConnections(port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return connected != 0 && errno == ECONNREFUSED
    }
}

/// SIGTERM/SIGINT on the real daemon with requests in flight: they are answered (or cut after
/// --shutdown-timeout), new connections are refused, the exit code is 0. Bounds allow for a loaded 2-core
/// machine; the lower bounds show the daemon really waited.
/// In the timing pass (suite names starting with `Timing` run one at a time after the others: see scripts/test).
@Suite(.serialized)
struct TimingGracefulShutdownTests {
    @Test func requestInFlightGetsItsAnswerBeforeExit() throws {
        let file = try Lifecycle.scenarioFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let daemon = try RunningDaemon(["--config", file.path, "--root", Paths.packageRoot.path, "--port", "0"])
        let url = daemon.baseURL + "/v1/me"
        let inFlight = BackgroundJob.start { try? Curl.send(CurlRequest(url: url)) }
        try daemon.waitForRequestsInFlight(1)
        let signalled = Date()
        daemon.send(signal: SIGTERM)
        // The listening socket is closed at once: a new client is refused (curl exit 7), not queued, while the
        // request in flight (1.5 s of latency) is still being answered.
        try waitUntil(timeout: 1, "the listening socket to refuse connections") {
            Lifecycle.refusesConnections(port: daemon.port)
        }
        #expect(daemon.process.isRunning)
        let late = try Curl.run(["--max-time", "3", "-o", "/dev/null", url])
        let stopped = try #require(daemon.waitForExit(timeout: 10))
        let elapsed = Lifecycle.seconds(since: signalled)

        let response = try #require(inFlight.value())
        #expect(response.status == 200)
        #expect(
            response.body
                == (try Data(contentsOf: Paths.packageRoot.appendingPathComponent("mocks/chat/bodies/GET_v1_me.json")))
        )
        #expect(response.header("Connection") == "close")
        #expect(late.status == 7)
        #expect(stopped.status == 0)
        // 1.5 s of latency, a little of it gone before the signal.
        #expect(elapsed > 0.9 && elapsed < 4.5, "exited \(elapsed) s after SIGTERM")
        #expect(Lifecycle.drainLines("SIGTERM", seconds: 5, inFlight: 1).contains { stopped.stderr.contains($0) })
        #expect(stopped.stderr.contains(" info GET /v1/me 200 slow-me "))
        #expect(!stopped.stderr.contains("cut"))
    }

    @Test func requestOutlastingTheShutdownTimeoutIsCut() throws {
        let file = try Lifecycle.scenarioFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let daemon = try RunningDaemon([
            "--config", file.path, "--root", Paths.packageRoot.path, "--port", "0", "--shutdown-timeout", "1",
        ])
        let url = daemon.baseURL + "/v1/slow"
        let inFlight = BackgroundJob.start {
            try? Curl.run(["--max-time", "15", "-o", "/dev/null", "-w", "%{http_code}", url])
        }
        try daemon.waitForRequestsInFlight(1)
        let signalled = Date()
        daemon.send(signal: SIGTERM)
        let stopped = try #require(daemon.waitForExit(timeout: 10))
        let elapsed = Lifecycle.seconds(since: signalled)

        let client = try #require(inFlight.value())
        // curl 52: the server closed the connection without answering.
        #expect(client.status == 52)
        #expect(client.stdout == "000")
        #expect(stopped.status == 0)
        #expect(elapsed > 0.9 && elapsed < 3, "exited \(elapsed) s after SIGTERM")
        #expect(
            Lifecycle.drainLines("SIGTERM", seconds: 1, inFlight: 1).contains {
                stopped.stderr.hasSuffix($0 + "mockd: shutdown timeout (1 s) reached: cut 1 request still in flight\n")
            }
        )
    }

    /// How MockdDaemon stops a daemon: its standard input closed and SIGTERM, both. They are one stop request, not a
    /// first and a second: the request in flight still gets its answer.
    @Test func theEndOfStandardInputAndSIGTERMAreOneStop() throws {
        let file = try Lifecycle.scenarioFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let input = Pipe()
        let daemon = try RunningDaemon(
            ["--config", file.path, "--root", Paths.packageRoot.path, "--port", "0", "--stop-on-stdin-eof"],
            input: input
        )
        let url = daemon.baseURL + "/v1/me"
        let inFlight = BackgroundJob.start { try? Curl.send(CurlRequest(url: url)) }
        try daemon.waitForRequestsInFlight(1)
        try input.fileHandleForWriting.close()
        try daemon.waitForStandardError(containing: "mockd: standard input ended (--stop-on-stdin-eof), stopping")
        daemon.send(signal: SIGTERM)
        let stopped = try #require(daemon.waitForExit(timeout: 10))
        #expect(try #require(inFlight.value()).status == 200)
        #expect(stopped.status == 0)
        #expect(!stopped.stderr.contains("cut"))
    }

    @Test func secondSignalStopsAtOnce() throws {
        let file = try Lifecycle.scenarioFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let daemon = try RunningDaemon([
            "--config", file.path, "--root", Paths.packageRoot.path, "--port", "0", "--quiet",
        ])
        let url = daemon.baseURL + "/v1/slow"
        let inFlight = BackgroundJob.start { try? Curl.run(["--max-time", "15", "-o", "/dev/null", url]) }
        try daemon.waitForRequestsInFlight(1)
        let signalled = Date()
        daemon.send(signal: SIGINT)
        try daemon.waitForStandardError(containing: "mockd: SIGINT received, stopping")
        daemon.send(signal: SIGINT)
        let stopped = try #require(daemon.waitForExit(timeout: 10))
        let elapsed = Lifecycle.seconds(since: signalled)
        #expect(try #require(inFlight.value()).status == 52)
        #expect(stopped.status == 0)
        #expect(elapsed < 2.5, "exited \(elapsed) s after the first SIGINT (the request had 4.7 s left)")
        #expect(
            Lifecycle.drainLines("SIGINT", seconds: 5, inFlight: 1).contains {
                stopped.stderr.hasSuffix($0 + "mockd: second signal: cut 1 request still in flight\n")
            }
        )
    }

    /// Waits with no end of their own do not hold the shutdown up: a long-poll is answered, a `noResponse`
    /// fault closes, a kept-open event stream ends cleanly after its events, a WebSocket gets 1001.
    @Test func openEndedWaitsEndAtOnce() throws {
        let file = try Lifecycle.scenarioFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let daemon = try RunningDaemon(["--config", file.path, "--root", Paths.packageRoot.path, "--port", "0"])
        let base = daemon.baseURL
        let poll = try Curl.start(["--max-time", "15", base + "/v1/poll"])
        let dead = try Curl.start(["--max-time", "15", base + "/v1/dead"])
        let events = try Curl.start(["--max-time", "15", "-N", base + "/v1/events"])
        // Says on stderr what it received, so that the test knows the socket is open and its script has run.
        let socket = try ChildProcess(
            URL(fileURLWithPath: "/usr/bin/python3"),
            [
                "-c",
                """
                import asyncio, sys, websockets
                async def main():
                    async with websockets.connect(sys.argv[1]) as ws:
                        try:
                            while True: print("received", await ws.recv(), file=sys.stderr, flush=True)
                        except websockets.ConnectionClosed as e:
                            print(e.rcvd.code, e.rcvd.reason)
                asyncio.run(main())
                """,
                base.replacingOccurrences(of: "http://", with: "ws://") + "/v1/socket",
            ]
        )
        try waitUntil(timeout: 10, "the WebSocket greeting") { socket.standardError.contains("received hello") }
        try waitUntil(timeout: 10, "both events of the stream") {
            events.standardOutput.hasSuffix("id: e2\ndata: {\"author\":\"Olga\"}\n\n")
        }
        try daemon.waitForRequestsInFlight(3)
        let signalled = Date()
        daemon.send(signal: SIGTERM)
        let stopped = try #require(daemon.waitForExit(timeout: 10))
        let elapsed = Lifecycle.seconds(since: signalled)

        #expect(stopped.status == 0)
        #expect(elapsed < 2.5, "exited \(elapsed) s after SIGTERM (default timeout 5 s, hold 30 s)")
        // The WebSocket is an upgraded connection, not a request in flight.
        #expect(Lifecycle.drainLines("SIGTERM", seconds: 5, inFlight: 3).contains { stopped.stderr.contains($0) })
        let pollResult = try #require(poll.finished(within: 15))
        #expect(pollResult.status == 0)
        #expect(pollResult.stdout == "released\n")
        #expect(try #require(dead.finished(within: 15)).status == 52)
        let eventsResult = try #require(events.finished(within: 15))
        #expect(eventsResult.status == 0)
        #expect(
            eventsResult.stdout
                == "event: presence\nid: e1\ndata: {\"online\":true}\n\nevent: typing\nid: e2\ndata: {\"author\":\"Olga\"}\n\n"
        )
        let socketResult = try #require(socket.finished(within: 15))
        #expect(socketResult.stdout == "1001 mockd is stopping\n", "\(socketResult.stderr)")
    }

    /// `--stop-on-stdin-eof`: input is read and dropped while it comes; its end (the parent holding the pipe
    /// exited, crashed or closed it) stops the daemon as SIGTERM does.
    @Test func theEndOfStandardInputStopsADaemonAskedToStopOnIt() throws {
        let input = Pipe()
        let daemon = try RunningDaemon(
            ["--set", "chat", "--root", Paths.packageRoot.path, "--port", "0", "--stop-on-stdin-eof"],
            input: input
        )
        try input.fileHandleForWriting.write(contentsOf: Data("anything\n".utf8))
        #expect(try Curl.send(CurlRequest(url: daemon.baseURL + "/v1/conversations")).status == 200)
        #expect(daemon.process.isRunning)
        let closed = Date()
        try input.fileHandleForWriting.close()
        let stopped = try #require(daemon.waitForExit(timeout: 10))
        #expect(stopped.status == 0)
        #expect(Lifecycle.seconds(since: closed) < 1.5)
        #expect(stopped.stderr.hasSuffix("mockd: standard input ended (--stop-on-stdin-eof), stopping\n"))
    }

    /// Without the flag, standard input means nothing to the daemon: its end (`/dev/null` at once) stops nothing.
    @Test func withoutTheFlagTheEndOfStandardInputStopsNothing() throws {
        let input = Pipe()
        let daemon = try RunningDaemon(
            ["--set", "chat", "--root", Paths.packageRoot.path, "--port", "0"],
            input: input
        )
        try input.fileHandleForWriting.close()
        #expect(try Curl.send(CurlRequest(url: daemon.baseURL + "/v1/conversations")).status == 200)
        #expect(daemon.process.isRunning)
        daemon.send(signal: SIGTERM)
        #expect(try #require(daemon.waitForExit(timeout: 10)).status == 0)
    }

    @Test func idleDaemonStopsAtOnce() throws {
        let daemon = try RunningDaemon(["--set", "chat", "--root", Paths.packageRoot.path, "--port", "0"])
        #expect(try Curl.send(CurlRequest(url: daemon.baseURL + "/v1/conversations")).status == 200)
        let signalled = Date()
        daemon.send(signal: SIGTERM)
        let stopped = try #require(daemon.waitForExit(timeout: 10))
        #expect(stopped.status == 0)
        #expect(Lifecycle.seconds(since: signalled) < 1.5)
        #expect(stopped.stderr.hasSuffix("mockd: SIGTERM received, stopping\n"))
    }

    @Test(arguments: [
        (
            ["--shutdown-timeout", "-1"],
            "mockd: --shutdown-timeout expects a number of seconds in 0–3600, got '-1' (see mockd --help)\n"
        ),
        (
            ["--shutdown-timeout", "soon"],
            "mockd: --shutdown-timeout expects a number of seconds in 0–3600, got 'soon' (see mockd --help)\n"
        ),
    ])
    func badShutdownTimeoutIsAUsageError(_ arguments: [String], _ expected: String) throws {
        let result = try Lifecycle.mockd(["--set", "chat"] + arguments)
        #expect(result.status == 64)
        #expect(result.stderr == expected)
    }
}

/// SIGINT and SIGTERM are never lost: blocked in every thread from the start and taken with `sigwait`, so one sent
/// at any moment stops the daemon cleanly (a dispatch source, watching only some time after it was set up, once let
/// a SIGTERM sent right after the first answer go by, and the daemon ran on).
struct SignalDeliveryTests {
    /// Bits of a thread's blocked-signal mask: signal N is bit N-1.
    private static let stopSignalBits: UInt64 = (1 << (UInt64(SIGINT) - 1)) | (1 << (UInt64(SIGTERM) - 1))

    @Test func everyThreadBlocksTheStopSignals() throws {
        let daemon = try RunningDaemon(["--set", "chat", "--root", Paths.packageRoot.path, "--port", "0"])
        defer { daemon.stop() }
        // Worker threads, the log writer and the loader's pool all exist once a request was answered and logged.
        #expect(try Curl.send(CurlRequest(url: daemon.baseURL + "/v1/conversations")).status == 200)
        try daemon.waitForStandardError(containing: "GET /v1/conversations 200")
        guard let threads = ProcessInspection.blockedSignals(of: daemon.process.processIdentifier) else {
            Skip.environment(
                test: "everyThreadBlocksTheStopSignals",
                "this system shows no other process's signal masks (Linux reads them from /proc)"
            )
            return
        }
        #expect(threads.count >= 4)
        var waiters = 0
        for (name, mask) in threads {
            // The thread inside `sigwait` has the signals it waits for unblocked while it waits.
            if name == "mockd-signals" {
                waiters += 1
                continue
            }
            #expect(mask & Self.stopSignalBits == Self.stopSignalBits, "\(name) does not block SIGINT and SIGTERM")
        }
        #expect(waiters == 1)
    }

    @Test func sigtermRightAfterTheFirstAnswerStops() throws {
        for _ in 0..<8 {
            let daemon = try RunningDaemon([
                "--set", "chat", "--root", Paths.packageRoot.path, "--port", "0", "--quiet",
            ])
            #expect(try Curl.send(CurlRequest(url: daemon.baseURL + "/v1/conversations")).status == 200)
            daemon.send(signal: SIGTERM)
            let stopped = try #require(daemon.waitForExit(timeout: 10), "SIGTERM right after the first answer was lost")
            #expect(stopped.status == 0)
            #expect(stopped.stderr.hasSuffix("mockd: SIGTERM received, stopping\n"))
        }
    }
}

/// Start-up failures: one line naming the option or variable, exit 1.
struct StartupErrorTests {
    @Test func privilegedPortIsPermissionDenied() throws {
        let unprivilegedStart = ProcessInspection.lowestUnprivilegedPort
        guard unprivilegedStart > 80 else {
            Skip.environment(
                test: "privilegedPortIsPermissionDenied",
                "ip_unprivileged_port_start is \(unprivilegedStart), anyone may bind port 80"
            )
            return
        }
        let (result, _) = try Lifecycle.mockdUnprivileged([
            "--set", "chat", "--root", Paths.packageRoot.path, "--port", "80",
        ])
        #expect(result.status == 1)
        #expect(result.stderr == "mockd: permission denied binding port 80 on 127.0.0.1; use a port above 1023\n")
        #expect(result.stdout.isEmpty)
    }

    @Test func missingRootExits1NamingIt() throws {
        let missing = Paths.makeTemporaryDirectory().appendingPathComponent("nope")
        defer { try? FileManager.default.removeItem(at: missing.deletingLastPathComponent()) }
        let flag = try Lifecycle.mockd(["--set", "chat", "--root", missing.path, "--port", "0"])
        #expect(flag.status == 1)
        #expect(flag.stderr == "mockd: --root \(missing.path): no such folder (it should hold mocks/ and configs/)\n")
        let variable = try Lifecycle.mockd(["--set", "chat", "--port", "0"], environment: ["MOCKD_ROOT": missing.path])
        #expect(variable.status == 1)
        #expect(
            variable.stderr
                == "mockd: MOCKD_ROOT \(missing.path): no such folder (it should hold mocks/ and configs/)\n"
        )
    }

    @Test func rootThatIsAFileExits1() throws {
        let file = Paths.packageRoot.appendingPathComponent("Package.swift")
        let result = try Lifecycle.mockd(["--set", "chat", "--root", file.path, "--port", "0"])
        #expect(result.status == 1)
        #expect(result.stderr == "mockd: --root \(file.path): not a folder (it should hold mocks/ and configs/)\n")
    }

    @Test func unreadableRootExits1() throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        try Paths.copyBundledSets(into: root)
        // Root-owned 0700 when the tests run as root (mockd then runs as nobody); 0000 otherwise.
        try FileManager.default.setAttributes(
            [.posixPermissions: getuid() == 0 ? 0o700 : 0o000],
            ofItemAtPath: root.path
        )
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: root.path) }
        let (result, uid) = try Lifecycle.mockdUnprivileged(["--set", "chat", "--root", root.path, "--port", "0"])
        #expect(result.status == 1)
        #expect(result.stderr == "mockd: --root \(root.path): permission denied (user id \(uid) cannot read it)\n")
    }

    @Test func hostFromTheEnvironmentNotOnThisMachineNamesTheVariable() throws {
        let result = try Lifecycle.mockd(
            ["--set", "chat", "--root", Paths.packageRoot.path, "--port", "0"],
            environment: ["MOCKD_HOST": "203.0.113.7", "MOCKD_INSECURE_CONTROL": "1"]
        )
        #expect(result.status == 1)
        #expect(result.stderr == "mockd: MOCKD_HOST 203.0.113.7 is not an address of this machine\n")
    }

    @Test func portInUseFromTheEnvironmentNamesTheVariable() throws {
        let first = try RunningDaemon(["--set", "chat", "--root", Paths.packageRoot.path, "--port", "0", "--quiet"])
        defer { first.stop() }
        let second = try Lifecycle.mockd(
            ["--set", "chat", "--root", Paths.packageRoot.path],
            environment: ["MOCKD_PORT": "\(first.port)"]
        )
        #expect(second.status == 1)
        #expect(
            second.stderr
                == "mockd: port \(first.port) on 127.0.0.1 is already in use (another mockd?); pick another --port or --port 0 for a free one (the port comes from MOCKD_PORT)\n"
        )
    }
}

/// Binding another address than loopback warns, naming the missing control token.
struct BindingTests {
    @Test func wildcardAddressWarnsWithoutAControlToken() throws {
        let open = try RunningDaemon([
            "--set", "chat", "--root", Paths.packageRoot.path, "--port", "0", "--host", "0.0.0.0", "--insecure-control",
        ])
        #expect(open.listeningLine.wholeMatch(of: /listening on http:\/\/0\.0\.0\.0:[1-9][0-9]*/) != nil)
        #expect(try Curl.send(CurlRequest(url: "http://127.0.0.1:\(open.port)/__mockd/health")).status == 200)
        let openStopped = open.stop()
        #expect(
            openStopped.stderr.hasPrefix(
                "mockd: warning: listening on 0.0.0.0, reachable from other machines, and the control API (/__mockd/) has no --control-token (--insecure-control)\n"
            )
        )

        let guarded = try RunningDaemon([
            "--set", "chat", "--root", Paths.packageRoot.path, "--port", "0", "--host", "0.0.0.0", "--control-token",
            "s3cret-0123456789",
        ])
        let health = "http://127.0.0.1:\(guarded.port)/__mockd/health"
        #expect(try Curl.send(CurlRequest(url: health)).status == 401)
        #expect(
            try Curl.send(CurlRequest(url: health, headers: [("Authorization", "Bearer s3cret-0123456789")])).status
                == 200
        )
        #expect(
            guarded.stop().stderr.hasPrefix("mockd: warning: listening on 0.0.0.0, reachable from other machines\n")
        )
    }

    @Test func loopbackDoesNotWarn() throws {
        let daemon = try RunningDaemon(["--set", "chat", "--root", Paths.packageRoot.path, "--port", "0"])
        #expect(daemon.listeningLine.hasPrefix("listening on http://127.0.0.1:"))
        #expect(!daemon.stop().stderr.contains("warning"))
    }
}

/// `MOCKD_*` variables as defaults for the serve flags.
struct EnvironmentTests {
    static func object(_ response: CurlResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
    }

    @Test func variablesConfigureTheDaemon() throws {
        let daemon = try RunningDaemon(
            [],
            environment: Lifecycle.environment([
                "MOCKD_CONFIG": "chat_happy_path", "MOCKD_ROOT": Paths.packageRoot.path, "MOCKD_PORT": "0",
                "MOCKD_HOST": "127.0.0.1", "MOCKD_CONTROL_TOKEN": "s3cret-0123456789",
            ])
        )
        defer { daemon.stop() }
        #expect(daemon.listeningLine.hasPrefix("listening on http://127.0.0.1:"))
        #expect(try Curl.send(CurlRequest(url: daemon.baseURL + "/v1/me")).status == 200)
        #expect(try Curl.send(CurlRequest(url: daemon.baseURL + "/__mockd/health")).status == 401)
        let scenario = try Curl.send(
            CurlRequest(
                url: daemon.baseURL + "/__mockd/scenario",
                headers: [("Authorization", "Bearer s3cret-0123456789")]
            )
        )
        #expect(scenario.status == 200)
        #expect(try Self.object(scenario)["name"] as? String == "chat_happy_path")
    }

    @Test func flagsWinOverVariables() throws {
        let busy = try RunningDaemon(["--set", "chat", "--root", Paths.packageRoot.path, "--port", "0", "--quiet"])
        defer { busy.stop() }
        let daemon = try RunningDaemon(
            [
                "--set", "shop", "--root", Paths.packageRoot.path, "--port", "0", "--host", "127.0.0.1",
                "--control-token", "flag-0123456789ab",
            ],
            environment: Lifecycle.environment([
                "MOCKD_CONFIG": "no_such_scenario", "MOCKD_ROOT": "/nonexistent", "MOCKD_PORT": "\(busy.port)",
                "MOCKD_HOST": "203.0.113.7", "MOCKD_CONTROL_TOKEN": "variable-0123456789",
            ])
        )
        defer { daemon.stop() }
        #expect(daemon.port != busy.port)
        let scenario = try Curl.send(
            CurlRequest(
                url: daemon.baseURL + "/__mockd/scenario",
                headers: [("Authorization", "Bearer flag-0123456789ab")]
            )
        )
        #expect(scenario.status == 200)
        #expect(try Self.object(scenario)["sets"] as? [String] == ["shop"])
        #expect(
            try Curl.send(
                CurlRequest(
                    url: daemon.baseURL + "/__mockd/scenario",
                    headers: [("Authorization", "Bearer variable-0123456789")]
                )
            ).status == 401
        )
    }

    @Test func emptyVariablesCountAsUnset() throws {
        let daemon = try RunningDaemon(
            ["--set", "chat", "--root", Paths.packageRoot.path, "--port", "0"],
            environment: Lifecycle.environment([
                "MOCKD_CONFIG": "", "MOCKD_HOST": "", "MOCKD_PORT": "",
            ])
        )
        defer { daemon.stop() }
        #expect(daemon.listeningLine.hasPrefix("listening on http://127.0.0.1:"))
        #expect(try Curl.send(CurlRequest(url: daemon.baseURL + "/__mockd/health")).status == 200)
    }

    @Test(arguments: [
        (
            ["MOCKD_PORT": "http"],
            "mockd: MOCKD_PORT expects a whole number in 0–65535, got 'http' (see mockd --help)\n"
        ),
        (
            ["MOCKD_PORT": "70000"],
            "mockd: MOCKD_PORT expects a whole number in 0–65535, got '70000' (see mockd --help)\n"
        ),
        (
            ["MOCKD_HOST": "0.0.0.0:8080"],
            "mockd: MOCKD_HOST expects an address such as 127.0.0.1, 0.0.0.0 or ::1 (no scheme or port), got '0.0.0.0:8080' (see mockd --help)\n"
        ),
        (
            ["MOCKD_HOST": "http://localhost"],
            "mockd: MOCKD_HOST expects an address such as 127.0.0.1, 0.0.0.0 or ::1 (no scheme or port), got 'http://localhost' (see mockd --help)\n"
        ),
        (
            ["MOCKD_CONTROL_TOKEN": "abc\n"],
            "mockd: MOCKD_CONTROL_TOKEN must not contain control characters such as a newline (see mockd --help)\n"
        ),
    ])
    func invalidVariablesAreUsageErrors(_ environment: [String: String], _ expected: String) throws {
        let result = try Lifecycle.mockd(["--set", "chat", "--root", Paths.packageRoot.path], environment: environment)
        #expect(result.status == 64)
        #expect(result.stderr == expected)
        #expect(result.stdout.isEmpty)
    }

    @Test func configVariableStillNeedsSomethingToServe() throws {
        let result = try Lifecycle.mockd([])
        #expect(result.status == 64)
        #expect(result.stderr == "mockd: say what to serve: --config <name> or --set <name> (see mockd --help)\n")
    }

    @Test func helpListsTheVariablesAndTheShutdownTimeout() throws {
        let lines = try Lifecycle.mockd(["--help"]).stdout.split(separator: "\n", omittingEmptySubsequences: false).map(
            String.init
        )
        #expect(lines.contains("ENVIRONMENT (a flag wins over its variable; an empty value counts as unset):"))
        for name in ["MOCKD_CONFIG", "MOCKD_ROOT", "MOCKD_HOST", "MOCKD_PORT", "MOCKD_CONTROL_TOKEN"] {
            #expect(lines.contains { $0.hasPrefix("  \(name) ") }, "\(name) missing from --help")
        }
        #expect(
            lines.contains(
                "  --shutdown-timeout <s>  On SIGTERM or SIGINT, stop accepting connections and give requests in flight"
            )
        )
        #expect(
            lines.contains("       mockd health [--port <n>] [--host <addr>] [--timeout <s>] [--control-token <t>]")
        )
    }
}

/// `mockd health` against the real daemon and a closed port (a port that never answers: `TimingHealthCommandTests`).
struct HealthCommandTests {
    @Test func healthyDaemonExits0WithOneLine() throws {
        let daemon = try RunningDaemon(["--set", "chat", "--root", Paths.packageRoot.path, "--port", "0", "--quiet"])
        defer {
            // A set served alone is logged as a set, not as a scenario.
            let stopped = daemon.stop()
            #expect(stopped.stderr.hasPrefix("mockd: set 'chat', 8 stubs; Ctrl-C to stop\n"), "\(stopped.stderr)")
        }
        let result = try Lifecycle.mockd(["health", "--port", "\(daemon.port)"])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        // A set served alone is named as a set, not as a scenario.
        let expected =
            "ok: http://127.0.0.1:\(daemon.port)/__mockd/health answered 200 (set 'chat', version 0.1.0, up "
        #expect(result.stdout.hasPrefix(expected) && result.stdout.hasSuffix(" s)\n"), "\(result.stdout)")
        // The port and a wildcard bind address from the environment: 0.0.0.0 is probed as 127.0.0.1.
        let fromEnvironment = try Lifecycle.mockd(
            ["health"],
            environment: ["MOCKD_PORT": "\(daemon.port)", "MOCKD_HOST": "0.0.0.0"]
        )
        #expect(fromEnvironment.status == 0)
        #expect(fromEnvironment.stdout.hasPrefix(expected))
    }

    @Test func controlTokenIsSentFromTheFlagOrTheVariable() throws {
        let daemon = try RunningDaemon([
            "--set", "chat", "--root", Paths.packageRoot.path, "--port", "0", "--quiet", "--control-token",
            "s3cret-0123456789",
        ])
        defer { daemon.stop() }
        let port = "\(daemon.port)"
        let without = try Lifecycle.mockd(["health", "--port", port])
        #expect(without.status == 1)
        #expect(
            without.stderr
                == "mockd: health: http://127.0.0.1:\(port)/__mockd/health answered 401 (the control API needs its token: --control-token or MOCKD_CONTROL_TOKEN)\n"
        )
        #expect(without.stdout.isEmpty)
        #expect(try Lifecycle.mockd(["health", "--port", port, "--control-token", "s3cret-0123456789"]).status == 0)
        #expect(
            try Lifecycle.mockd(["health", "--port", port], environment: ["MOCKD_CONTROL_TOKEN": "s3cret-0123456789"])
                .status == 0
        )
        #expect(
            try Lifecycle.mockd(
                ["health", "--port", port, "--control-token", "wrong-0123456789ab"],
                environment: ["MOCKD_CONTROL_TOKEN": "s3cret-0123456789"]
            ).status == 1
        )
    }

    @Test func nothingListeningExits1() throws {
        let port = try Lifecycle.freePort()
        let result = try Lifecycle.mockd(["health", "--port", "\(port)"])
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "mockd: health: http://127.0.0.1:\(port)/__mockd/health: connection refused (is mockd running on this port?)\n"
        )
        #expect(result.stdout.isEmpty)
    }

    @Test(arguments: [
        (
            ["health", "--timeout", "0"], [String: String](),
            "mockd: --timeout expects a number of seconds in 0.001–3600, got '0' (see mockd health --help)\n"
        ),
        (
            ["health", "--port", "0"], [:],
            "mockd: --port expects a whole number in 1–65535, got '0' (see mockd health --help)\n"
        ),
        (
            ["health"], ["MOCKD_PORT": "0"],
            "mockd: MOCKD_PORT is 0 (a free port, chosen at start); pass the port mockd printed with --port (see mockd health --help)\n"
        ),
        (
            ["health"], ["MOCKD_PORT": "x"],
            "mockd: MOCKD_PORT expects a whole number in 1–65535, got 'x' (see mockd health --help)\n"
        ),
        (["health", "--bogus"], [:], "mockd: unknown option '--bogus' (see mockd health --help)\n"),
    ])
    func usageErrorsExit64(_ arguments: [String], _ environment: [String: String], _ expected: String) throws {
        let result = try Lifecycle.mockd(arguments, environment: environment)
        #expect(result.status == 64)
        #expect(result.stderr == expected)
    }
}

/// `mockd health --timeout` against a port that never answers: it gives up in time.
/// In the timing pass (suite names starting with `Timing` run one at a time after the others: see scripts/test).
struct TimingHealthCommandTests {
    @Test func silentServerTimesOut() throws {
        // A listening socket that accepts (in the kernel) and never answers.
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ready = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw -> Bool in
                bind(listener, raw, length) == 0 && listen(listener, 8) == 0 && getsockname(listener, raw, &length) == 0
            }
        }
        try #require(ready)
        let port = Int(UInt16(bigEndian: address.sin_port))
        let started = Date()
        let result = try Lifecycle.mockd(["health", "--port", "\(port)", "--timeout", "0.5"])
        #expect(result.status == 1)
        #expect(result.stderr == "mockd: health: http://127.0.0.1:\(port)/__mockd/health: no answer within 0.5 s\n")
        #expect(Lifecycle.seconds(since: started) < 3)
    }
}
