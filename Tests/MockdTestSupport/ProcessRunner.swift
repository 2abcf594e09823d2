public import Foundation

/// The outcome of a finished process.
public struct ProcessResult: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String
}

/// Runs programs to completion and captures their output.
public enum ProcessRunner {
    /// Runs `executable` with `arguments`; standard input is empty.
    public static func run(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil) throws
        -> ProcessResult
    {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Drain both pipes concurrently so a chatty process never blocks on a full pipe.
        let errorData = LockedData()
        let drain = Thread { errorData.set(errors.fileHandleForReading.readDataToEndOfFile()) }
        drain.start()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !errorData.isSet { usleep(1000) }
        return ProcessResult(
            status: process.terminationStatus,
            stdout: String(decoding: outputData, as: UTF8.self),
            stderr: String(decoding: errorData.value, as: UTF8.self)
        )
    }

    /// Runs the built `mockd` binary.
    public static func mockd(_ arguments: [String]) throws -> ProcessResult {
        try run(Paths.mockdBinary, arguments)
    }
}

/// A Data slot written by one thread and read by another.
final class LockedData: @unchecked Sendable {
    private let lock = NSLock()
    private var data: Data?

    func set(_ value: Data) { lock.withLock { data = value } }
    var isSet: Bool { lock.withLock { data != nil } }
    var value: Data { lock.withLock { data ?? Data() } }
}
