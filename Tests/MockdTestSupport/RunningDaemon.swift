public import Foundation

/// A `mockd` daemon started as a real process on a free loopback port.
public final class RunningDaemon: @unchecked Sendable {
    private let child: ChildProcess
    public var process: Process { child.process }
    /// `http://127.0.0.1:PORT`
    public let baseURL: String
    public let port: Int
    /// The exact first line printed on stdout.
    public let listeningLine: String

    /// Starts `mockd` with `arguments` (add `--port 0`) and waits up to `timeout` seconds for the
    /// `listening on` line.
    /// - Parameters:
    ///   - environment: The daemon's whole environment; `nil` inherits the test's.
    ///   - input: The daemon's standard input, a pipe whose write end the test keeps; `nil`: empty.
    /// - Throws: `DaemonStartError` with the daemon's stderr when it exits or stays silent.
    public init(
        _ arguments: [String],
        environment: [String: String]? = nil,
        input: Pipe? = nil,
        timeout: TimeInterval = 20
    ) throws {
        let child = try ChildProcess(Paths.mockdBinary, arguments, environment: environment, input: input)
        self.child = child
        try? waitUntil(timeout: timeout, "mockd's first line") {
            child.standardOutput.contains("\n") || !child.isRunning
        }
        // A daemon that exited at once may not have had all of its output read yet.
        if !child.isRunning { child.waitForExit(timeout: 5) }
        let text = child.standardOutput
        guard let line = text.split(separator: "\n").first.map(String.init), line.hasPrefix("listening on ") else {
            child.send(signal: SIGTERM)
            child.waitForExit()
            throw DaemonStartError(stdout: child.standardOutput, stderr: child.standardError)
        }
        listeningLine = line
        baseURL = String(line.dropFirst("listening on ".count))
        port = Int(baseURL.split(separator: ":").last ?? "") ?? 0
    }

    /// Runs `body` with a daemon serving `scenario` (`configs/s.json` in a fresh root holding the bundled mock sets,
    /// `Paths.makeRoot`), then stops it and removes the root.
    public static func serving(_ scenario: String, _ body: (RunningDaemon) throws -> Void) throws {
        let root = try Paths.makeRoot(scenario: scenario)
        defer { try? FileManager.default.removeItem(at: root) }
        let daemon = try RunningDaemon(["--config", "s", "--root", root.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        try body(daemon)
    }

    /// Sends SIGTERM and waits for exit; returns the exit status and everything written to stderr.
    @discardableResult
    public func stop() -> (status: Int32, stderr: String) {
        child.send(signal: SIGTERM)
        child.waitForExit()
        return (process.terminationStatus, child.standardError)
    }

    /// Everything the daemon wrote to stdout so far, the listening lines included; after `stop()` or
    /// `waitForExit`, or once it exited by itself, all of it.
    public var standardOutput: String {
        if !child.isRunning { child.waitForExit(timeout: 5) }
        return child.standardOutput
    }

    /// Everything the daemon wrote to stderr so far (log lines, signal and reload messages); once it exited,
    /// all of it.
    public var standardError: String {
        if !child.isRunning { child.waitForExit(timeout: 5) }
        return child.standardError
    }

    /// Sends `signal` (SIGTERM, SIGINT…) without waiting.
    public func send(signal number: Int32) {
        child.send(signal: number)
    }

    /// Waits up to `timeout` seconds for the daemon to exit by itself; returns its exit status and stderr, or
    /// `nil` (after killing it) when it was still running.
    public func waitForExit(timeout: TimeInterval) -> (status: Int32, stderr: String)? {
        guard child.waitForExit(timeout: timeout) else {
            child.killAndWait()
            return nil
        }
        return (process.terminationStatus, child.standardError)
    }

    /// `GET /__mockd/health` as JSON (`status`, `inFlight`, `sessions`…).
    /// - Parameter token: The `--control-token` the daemon was started with, if any.
    public func health(token: String? = nil) throws -> [String: Any] {
        let headers = token.map { [("Authorization", "Bearer \($0)")] } ?? []
        let response = try Curl.send(CurlRequest(url: baseURL + "/__mockd/health", headers: headers))
        return (try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]) ?? [:]
    }

    /// Waits until the daemon answers `count` requests besides the health checks that ask (`inFlight` in
    /// `GET /__mockd/health`): a request a test started in the background has arrived and is being answered.
    /// Open WebSockets and idle connections do not count.
    /// - Throws: `WaitTimeout` when `timeout` seconds pass first.
    public func waitForRequestsInFlight(
        _ count: Int,
        timeout: TimeInterval = 10,
        token: String? = nil,
        fileID: String = #fileID,
        line: Int = #line
    ) throws {
        try waitUntil(
            timeout: timeout,
            "\(count) request\(count == 1 ? "" : "s") in flight",
            fileID: fileID,
            line: line
        ) {
            try health(token: token)["inFlight"] as? Int == count
        }
    }

    /// Waits until the daemon has written `text` to stderr (a signal or reload message, a log line).
    /// - Throws: `WaitTimeout` when `timeout` seconds pass first.
    public func waitForStandardError(
        containing text: String,
        timeout: TimeInterval = 10,
        fileID: String = #fileID,
        line: Int = #line
    ) throws {
        try waitUntil(timeout: timeout, "'\(text)' on mockd's stderr", fileID: fileID, line: line) {
            standardError.contains(text)
        }
    }

    deinit {
        if child.isRunning {
            child.send(signal: SIGTERM)
            child.waitForExit()
        }
    }
}

public struct DaemonStartError: Error, CustomStringConvertible {
    public let stdout: String
    public let stderr: String
    public var description: String { "mockd did not start. stdout: \(stdout) stderr: \(stderr)" }
}
