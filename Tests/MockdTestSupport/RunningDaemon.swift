public import Foundation

/// A `mockd` daemon started as a real process on a free loopback port.
public final class RunningDaemon: @unchecked Sendable {
    public let process: Process
    /// `http://127.0.0.1:PORT`
    public let baseURL: String
    public let port: Int
    /// The exact first line printed on stdout.
    public let listeningLine: String
    private let errors: Pipe
    private let collected = LockedData()
    /// Everything written to stdout (the listening line included), complete once `outputClosed` is set.
    private let output = LockedData()
    private let outputClosed = LockedData()

    /// Starts `mockd` with `arguments` (add `--port 0`) and waits up to `timeout` seconds for the
    /// `listening on` line.
    /// - Parameter environment: The daemon's whole environment; `nil` inherits the test's.
    /// - Throws: `DaemonStartError` with the daemon's stderr when it exits or stays silent.
    public init(_ arguments: [String], environment: [String: String]? = nil, timeout: TimeInterval = 20) throws {
        let process = Process()
        process.executableURL = Paths.mockdBinary
        process.arguments = arguments
        if let environment { process.environment = environment }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
        self.errors = errors
        let lineSlot = LockedData()
        let allOutput = self.output
        let outputClosed = self.outputClosed
        let reader = Thread {
            var buffer = Data()
            var lineSent = false
            while true {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
                allOutput.set(buffer)
                if !lineSent, buffer.contains(0x0A) {
                    lineSlot.set(buffer)
                    lineSent = true
                }
            }
            if !lineSent { lineSlot.set(buffer) }
            outputClosed.set(Data([1]))
        }
        reader.start()
        let collected = self.collected
        Thread {
            collected.set(errors.fileHandleForReading.readDataToEndOfFile())
        }.start()
        let deadline = Date().addingTimeInterval(timeout)
        while !lineSlot.isSet && Date() < deadline { usleep(2000) }
        let text = String(decoding: lineSlot.value, as: UTF8.self)
        guard let line = text.split(separator: "\n").first.map(String.init), line.hasPrefix("listening on ") else {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            var waited = 0
            while !collected.isSet && waited < 2000 {
                usleep(1000)
                waited += 1
            }
            throw DaemonStartError(stdout: text, stderr: String(decoding: collected.value, as: UTF8.self))
        }
        listeningLine = line
        baseURL = String(line.dropFirst("listening on ".count))
        port = Int(baseURL.split(separator: ":").last ?? "") ?? 0
    }

    /// Sends SIGTERM and waits for exit; returns the exit status and everything written to stderr.
    @discardableResult
    public func stop() -> (status: Int32, stderr: String) {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        process.waitUntilExit()
        var waited = 0
        while !collected.isSet && waited < 5000 {
            usleep(1000)
            waited += 1
        }
        return (process.terminationStatus, String(decoding: collected.value, as: UTF8.self))
    }

    /// Everything the daemon wrote to stdout so far, the listening lines included; after `stop()` or
    /// `waitForExit`, all of it (waits up to 5 s for the pipe to close).
    public var standardOutput: String {
        if !process.isRunning {
            var waited = 0
            while !outputClosed.isSet && waited < 5000 {
                usleep(1000)
                waited += 1
            }
        }
        return String(decoding: output.value, as: UTF8.self)
    }

    /// Sends `signal` (SIGTERM, SIGINT…) without waiting.
    public func send(signal number: Int32) {
        if process.isRunning { kill(process.processIdentifier, number) }
    }

    /// Waits up to `timeout` seconds for the daemon to exit by itself; returns its exit status and stderr, or
    /// `nil` (after killing it) when it was still running.
    public func waitForExit(timeout: TimeInterval) -> (status: Int32, stderr: String)? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(5000) }
        guard !process.isRunning else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        process.waitUntilExit()
        var waited = 0
        while !collected.isSet && waited < 5000 {
            usleep(1000)
            waited += 1
        }
        return (process.terminationStatus, String(decoding: collected.value, as: UTF8.self))
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }
}

public struct DaemonStartError: Error, CustomStringConvertible {
    public let stdout: String
    public let stderr: String
    public var description: String { "mockd did not start. stdout: \(stdout) stderr: \(stderr)" }
}
