public import Foundation

/// The outcome of a finished process.
public struct ProcessResult: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String
}

/// A program started with empty standard input, its standard output and error read as they arrive (each on a
/// thread of its own, so a chatty child never blocks on a full pipe), and its end observed without polling.
///
/// The one process launcher of the tests: `ProcessRunner` runs a child to completion, `RunningDaemon` keeps one
/// running, and tests that start a helper program (an upstream server) use it directly.
public final class ChildProcess: @unchecked Sendable {
    public let process = Process()
    private let output = StreamCapture()
    private let errors = StreamCapture()
    /// Left when the process has exited.
    private let exited = DispatchGroup()

    /// Starts `executable` with `arguments`.
    /// - Parameters:
    ///   - environment: The child's whole environment; `nil` inherits the test's.
    ///   - input: The child's standard input, a pipe whose write end the test keeps; `nil`: empty (`/dev/null`).
    public init(
        _ executable: URL,
        _ arguments: [String],
        environment: [String: String]? = nil,
        input: Pipe? = nil
    ) throws {
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        let outputPipe = Pipe()
        let errorPipe = Pipe()
        process.standardOutput = outputPipe
        process.standardError = errorPipe
        process.standardInput = input ?? FileHandle.nullDevice
        let exited = self.exited
        exited.enter()
        process.terminationHandler = { _ in exited.leave() }
        do {
            try process.run()
        } catch {
            exited.leave()
            throw error
        }
        output.start(outputPipe.fileHandleForReading)
        errors.start(errorPipe.fileHandleForReading)
    }

    public var processIdentifier: Int32 { process.processIdentifier }
    public var isRunning: Bool { process.isRunning }

    /// Everything written to standard output so far.
    public var standardOutput: String { String(decoding: output.data, as: UTF8.self) }
    /// Everything written to standard error so far.
    public var standardError: String { String(decoding: errors.data, as: UTF8.self) }

    /// Sends `signal` (SIGTERM, SIGINT, SIGHUP…) without waiting; nothing when the process has exited.
    public func send(signal number: Int32) {
        if process.isRunning { kill(process.processIdentifier, number) }
    }

    /// Waits for the process to exit and both of its streams to end.
    /// - Parameter timeout: Seconds to wait at most; `nil` waits as long as it takes.
    /// - Returns: `false` when the process was still running at the deadline.
    @discardableResult
    public func waitForExit(timeout: TimeInterval? = nil) -> Bool {
        let deadline = timeout.map { DispatchTime.now() + $0 } ?? .distantFuture
        guard exited.wait(timeout: deadline) == .success else { return false }
        process.waitUntilExit()
        // The streams end when the last writer closes them (a grandchild may hold them); 5 s more at most.
        let streams = DispatchTime.now() + 5
        _ = output.waitForEnd(until: streams)
        _ = errors.waitForEnd(until: streams)
        return true
    }

    /// Kills the process (SIGKILL) if it still runs, and waits for it.
    public func killAndWait() {
        send(signal: SIGKILL)
        waitForExit()
    }

    /// Waits for the end (as `waitForExit`) and returns the result; `nil`, after killing the process, when it
    /// was still running `timeout` seconds later.
    public func finished(within timeout: TimeInterval) -> ProcessResult? {
        guard waitForExit(timeout: timeout) else {
            killAndWait()
            return nil
        }
        return result
    }

    /// The exit status and the output, once `waitForExit` returned `true`.
    public var result: ProcessResult {
        ProcessResult(status: process.terminationStatus, stdout: standardOutput, stderr: standardError)
    }
}

/// Runs programs to completion and captures their output.
public enum ProcessRunner {
    /// Runs `executable` with `arguments`; standard input is empty.
    public static func run(
        _ executable: URL,
        _ arguments: [String],
        environment: [String: String]? = nil
    ) throws
        -> ProcessResult
    {
        let child = try ChildProcess(executable, arguments, environment: environment)
        child.waitForExit()
        return child.result
    }

    /// Runs the built `mockd` binary.
    public static func mockd(_ arguments: [String]) throws -> ProcessResult {
        try run(Paths.mockdBinary, arguments)
    }
}

/// One stream of a child process, read to its end on a thread of its own; readable while it grows.
final class StreamCapture: @unchecked Sendable {
    private let lock = NSLock()
    private var collected = Data()
    /// Left when the stream has ended.
    private let ended = DispatchGroup()

    func start(_ handle: FileHandle) {
        ended.enter()
        Thread {
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                self.lock.withLock { self.collected.append(chunk) }
            }
            self.ended.leave()
        }.start()
    }

    var data: Data { lock.withLock { collected } }

    /// Waits for the end of the stream until `deadline`; `false` when it is still open then.
    func waitForEnd(until deadline: DispatchTime) -> Bool {
        ended.wait(timeout: deadline) == .success
    }
}
