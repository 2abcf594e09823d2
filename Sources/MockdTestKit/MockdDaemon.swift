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
    ///
    /// The daemon's standard input is a pipe this process holds, and it runs with `--stop-on-stdin-eof`: it stops
    /// when this process exits in any way (a crash, a kill, a test run cancelled), never left running behind it.
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
        process.arguments =
            ["--root", root.path, "--config", scenario, "--port", "0", "--quiet", "--stop-on-stdin-eof"] + arguments
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // `run()` closed the read end here: the write end is the daemon's lifeline.
        let box = ProcessBox(process, lifeline: input.fileHandleForWriting)
        let errorOutput = ErrorOutput(reading: errors.fileHandleForReading)
        let line = await firstLine(of: output.fileHandleForReading, timeout: timeout)
        guard let line, line.hasPrefix("listening on "), let url = URL(string: String(line.dropFirst(13))) else {
            // Not serving yet: nothing to finish gracefully.
            box.stop(grace: 2)
            let stderr = errorOutput.text(waitingUpTo: 1)
            var message = stderr
            if let line {
                // Something else runs under that name (a wrapper's banner, another program): say what it printed.
                let shown = line.count > 200 ? line.prefix(200) + "…" : Substring(line)
                message =
                    "\(binary.path) printed '\(shown)' where mockd prints 'listening on URL' (is it mockd?)"
                    + (stderr.isEmpty ? "" : "\n" + stderr)
            } else if stderr.isEmpty {
                message = "mockd printed no 'listening on' line within \(timeout) s"
            }
            throw StartError(message: message)
        }
        return MockdDaemon(baseURL: url, process: box)
    }

    /// The first line `handle` gives within `timeout` seconds, or `nil` when it ends or times out first. The
    /// handle is read to its end on a thread of its own (blocking reads, so a daemon that prints more never blocks on
    /// a full pipe), not with `readabilityHandler`: libdispatch's descriptor sources can crash a test process on Linux
    /// when many pipes come and go (swift-corelibs-foundation#3276, SR-12079), and a suite starts a daemon per test.
    private static func firstLine(of handle: FileHandle, timeout: TimeInterval) async -> String? {
        await withCheckedContinuation { continuation in
            let state = LineState(continuation)
            Thread {
                while let data = readChunk(handle) {
                    if let line = state.append(data) { state.finish(line) }
                }
                state.finish(nil)
            }.start()
            // A thread, not `asyncAfter`: a test run can keep every thread of the global queues busy for longer. It
            // ends as soon as the line came.
            Thread {
                state.waitForFinish(upTo: timeout)
                state.finish(nil)
            }.start()
        }
    }

    /// Stops the daemon gracefully (its standard input closed and SIGTERM: the journal and `--summary` are written)
    /// and waits for it to exit; SIGKILL when it still runs 10 s later. Never waits more than 15 s, even for a
    /// `binary` that is a wrapper script. Safe to call more than once.
    public func stop() {
        process.stop(grace: 10)
    }

    deinit { process.stop(grace: 10) }

    /// Why `start` failed: the daemon's error output (`mockd: …` lines), that it printed nothing in time, or the
    /// first line a program that is not mockd printed instead of `listening on`.
    public struct StartError: LocalizedError, CustomStringConvertible {
        public let message: String
        public var description: String { "mockd did not start: \(message)" }
        /// The same as `description`, for harnesses that log `localizedDescription`.
        public var errorDescription: String? { description }
    }
}

/// The next chunk `handle` gives, as soon as there is one (a blocking read), or `nil` at its end. `availableData`,
/// not `read(upToCount:)`: that one waits for the whole count, and the `listening on` line is wanted as it comes.
private func readChunk(_ handle: FileHandle) -> Data? {
    let chunk = handle.availableData
    return chunk.isEmpty ? nil : chunk
}

/// `Process` is not `Sendable`; every use goes through the lock.
private final class ProcessBox: @unchecked Sendable {
    private let lock = NSLock()
    private let process: Process
    /// The write end of the daemon's standard input; `nil` once closed.
    private var lifeline: FileHandle?

    init(_ process: Process, lifeline: FileHandle) {
        self.process = process
        self.lifeline = lifeline
    }

    /// Closes the daemon's standard input and sends SIGTERM, then SIGKILL when the process still runs `grace` seconds
    /// later, and waits up to 5 s more for it to be seen gone.
    ///
    /// The signals go to the child's process group when it leads one (swift-corelibs-foundation starts each child
    /// in a group of its own), so they reach mockd through a wrapper script that runs it without `exec`; closing its
    /// input reaches it whatever the signal mask it inherited (a child started from a Swift concurrency thread has
    /// SIGTERM blocked on Linux). The waits are bounded: `Process` sees a child gone only once every process that
    /// holds its descriptors has exited.
    func stop(grace: TimeInterval) {
        lock.lock()
        defer { lock.unlock() }
        try? lifeline?.close()
        lifeline = nil
        guard process.isRunning else { return }
        let pid = process.processIdentifier
        func send(_ signal: Int32) {
            if getpgid(pid) == pid { kill(-pid, signal) } else { kill(pid, signal) }
        }
        func wait(until deadline: Date) {
            while process.isRunning, Date() < deadline { usleep(2_000) }
        }
        send(SIGTERM)
        wait(until: Date().addingTimeInterval(grace))
        guard process.isRunning else { return }
        send(SIGKILL)
        wait(until: Date().addingTimeInterval(5))
    }
}

/// The bytes read so far and the continuation, resumed once.
private final class LineState: @unchecked Sendable {
    private let lock = NSLock()
    private var buffer = Data()
    private var continuation: CheckedContinuation<String?, Never>?
    /// Signalled once, when the continuation is resumed.
    private let finished = DispatchSemaphore(value: 0)

    init(_ continuation: CheckedContinuation<String?, Never>) { self.continuation = continuation }

    /// Waits until `finish` was called or `seconds` passed.
    func waitForFinish(upTo seconds: TimeInterval) { _ = finished.wait(timeout: .now() + seconds) }

    /// Appends `data`; the first complete line, once there is one. Nothing is kept once the continuation was
    /// resumed: the rest of the output is read and dropped.
    func append(_ data: Data) -> String? {
        lock.lock()
        defer { lock.unlock() }
        guard continuation != nil else { return nil }
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
        guard let continuation else { return false }
        continuation.resume(returning: line)
        finished.signal()
        return true
    }
}

/// The daemon's standard error, read to its end on a thread of its own; its last `limit` bytes are kept for
/// `MockdDaemon.StartError`.
private final class ErrorOutput: @unchecked Sendable {
    private static let limit = 64 * 1024
    private let lock = NSLock()
    private var kept = Data()
    /// Left when the stream has ended.
    private let ended = DispatchGroup()

    init(reading handle: FileHandle) {
        ended.enter()
        Thread { [self] in
            while let data = readChunk(handle) {
                lock.lock()
                kept.append(data)
                if kept.count > Self.limit { kept = kept.suffix(Self.limit) }
                lock.unlock()
            }
            ended.leave()
        }.start()
    }

    /// What was read, after waiting up to `seconds` for the stream to end (the daemon has been stopped).
    func text(waitingUpTo seconds: TimeInterval) -> String {
        _ = ended.wait(timeout: .now() + seconds)
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: kept, as: UTF8.self)
    }
}
#endif
