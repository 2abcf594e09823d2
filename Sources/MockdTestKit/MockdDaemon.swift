#if os(macOS) || os(Linux)
public import Foundation

/// A `mockd` process started by the tests themselves, on a free loopback port, for test suites that run where a
/// process can be started (macOS, Linux: unit and integration tests, a CI job). A UI test on a simulator talks to a
/// daemon started beside the simulators instead (`mockd serve`, see docs/06-ci-and-containers.md).
///
/// ```swift
/// let daemon = try await MockdDaemon.start(binary: URL(fileURLWithPath: "/usr/local/bin/mockd"),
///                                          root: fixtures, scenario: "shop")
/// defer { daemon.stop() }
/// let session = try await MockdTestSession.start(testName: #function, baseURL: daemon.baseURL)
/// ```
public final class MockdDaemon: Sendable {
    /// `http://127.0.0.1:PORT`, from the daemon's `listening on` line.
    public let baseURL: URL
    /// The running process.
    private let process: ProcessBox

    /// Environment key naming the `mockd` binary: `MOCKD_BINARY`.
    public static let binaryEnvironmentKey = "MOCKD_BINARY"

    private init(baseURL: URL, process: ProcessBox) {
        self.baseURL = baseURL
        self.process = process
    }

    /// Starts `binary` serving `root` with `scenario` on `127.0.0.1`, a port the system picks (`--port 0`), and
    /// waits for its `listening on` line.
    /// - Parameters:
    ///   - binary: The `mockd` executable.
    ///   - root: The folder holding `mocks/` and `configs/`.
    ///   - scenario: `configs/NAME.json` to start with.
    ///   - arguments: More `mockd serve` options (`--control-token T`, `--journal-limit N`…).
    ///   - timeout: Seconds to wait for the daemon to listen (20 by default).
    /// - Throws: `MockdDaemon.StartError` with the daemon's own error lines when it exits or stays silent.
    public static func start(
        binary: URL,
        root: URL,
        scenario: String,
        arguments: [String] = [],
        timeout: TimeInterval = 20
    ) async throws -> MockdDaemon {
        let process = Process()
        process.executableURL = binary
        process.arguments = ["--root", root.path, "--config", scenario, "--port", "0", "--quiet"] + arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let box = ProcessBox(process)
        let line = await firstLine(of: output.fileHandleForReading, timeout: timeout)
        guard let line, line.hasPrefix("listening on "), let url = URL(string: String(line.dropFirst(13))) else {
            box.stop()
            let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw StartError(
                message: stderr.isEmpty ? "mockd printed no 'listening on' line within \(timeout) s" : stderr
            )
        }
        // Keep reading stdout so a daemon that prints more never blocks on a full pipe.
        output.fileHandleForReading.readabilityHandler = { handle in _ = handle.availableData }
        errors.fileHandleForReading.readabilityHandler = { handle in _ = handle.availableData }
        return MockdDaemon(baseURL: url, process: box)
    }

    /// The first line `handle` gives within `timeout` seconds, or `nil` when it ends or times out first.
    private static func firstLine(of handle: FileHandle, timeout: TimeInterval) async -> String? {
        await withCheckedContinuation { continuation in
            let state = LineState(continuation)
            handle.readabilityHandler = { handle in
                let data = handle.availableData
                if data.isEmpty {
                    handle.readabilityHandler = nil
                    state.finish(nil)
                } else if let line = state.append(data) {
                    handle.readabilityHandler = nil
                    state.finish(line)
                }
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
                if state.finish(nil) { handle.readabilityHandler = nil }
            }
        }
    }

    /// Stops the daemon (SIGTERM, a graceful stop) and waits for it to exit. Safe to call more than once.
    public func stop() {
        process.stop()
    }

    deinit { process.stop() }

    /// Why `start` failed: the daemon's error output (`mockd: …` lines), or that it printed nothing in time.
    public struct StartError: Error, CustomStringConvertible {
        public let message: String
        public var description: String { "mockd did not start: \(message)" }
    }
}

/// `Process` is not `Sendable`; every use goes through the lock.
private final class ProcessBox: @unchecked Sendable {
    private let lock = NSLock()
    private let process: Process

    init(_ process: Process) { self.process = process }

    func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}

/// The bytes read so far and the continuation, resumed once.
private final class LineState: @unchecked Sendable {
    private let lock = NSLock()
    private var buffer = Data()
    private var continuation: CheckedContinuation<String?, Never>?

    init(_ continuation: CheckedContinuation<String?, Never>) { self.continuation = continuation }

    /// Appends `data`; the first complete line, once there is one.
    func append(_ data: Data) -> String? {
        lock.lock()
        defer { lock.unlock() }
        buffer.append(data)
        guard let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        return String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
    }

    /// Resumes the continuation with `line`; whether this call did (`false` once it was resumed before).
    @discardableResult
    func finish(_ line: String?) -> Bool {
        lock.lock()
        let continuation = self.continuation
        self.continuation = nil
        lock.unlock()
        continuation?.resume(returning: line)
        return continuation != nil
    }
}
#endif
