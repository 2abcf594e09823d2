import Foundation
import MockdPlatform

/// Where log lines go; `StderrLogSink` in the daemon, `InMemoryLogSink` in tests.
public protocol LogSink: Sendable {
    func write(level: Logger.Level, message: String)
    /// Writes one request's `info` line (`RequestLogLine`); by default as `write(level: .info, message: line.message)`.
    func writeRequest(_ line: borrowing RequestLogLine)
}

extension LogSink {
    public func writeRequest(_ line: borrowing RequestLogLine) {
        write(level: .info, message: line.message)
    }
}

/// A small swift-log-shaped logger: one line per event, level-filtered, messages built only when emitted.
public struct Logger: Sendable {
    public enum Level: Int, Sendable, Comparable, CustomStringConvertible {
        case debug, info, warning, error

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        public var description: String {
            switch self {
            case .debug: return "debug"
            case .info: return "info"
            case .warning: return "warning"
            case .error: return "error"
            }
        }
    }

    public var level: Level
    public let sink: any LogSink

    public init(level: Level = .info, sink: any LogSink = StderrLogSink()) {
        self.level = level
        self.sink = sink
    }

    @inline(__always)
    public func isEnabled(_ level: Level) -> Bool { level >= self.level }

    public func log(_ level: Level, _ message: @autoclosure () -> String) {
        guard isEnabled(level) else { return }
        sink.write(level: level, message: message())
    }

    /// Writes one request's line at `info` (see `RequestLogLine`).
    public func request(_ line: borrowing RequestLogLine) {
        guard isEnabled(.info) else { return }
        sink.writeRequest(line)
    }

    public func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
    public func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    public func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    public func error(_ message: @autoclosure () -> String) { log(.error, message()) }
}

/// Writes `2026-11-29T20:00:00.123Z info message` lines to standard error without ever blocking the caller: lines
/// go to one bounded buffer (`StderrLogBuffer`) that a writer thread drains, so a worker thread never waits on a
/// pipe nobody reads (a test runner that does not drain stderr) and pays no `write(2)` per request.
public final class StderrLogSink: LogSink {
    public init() {}

    public func write(level: Logger.Level, message: String) {
        var line = Timestamp.iso8601Now()
        line += " \(level) "
        line += message
        line += "\n"
        StderrLogBuffer.shared.append(line)
    }

    /// The line formatted on the stack with plain stores (`ByteWriter`), then copied into the writer's buffer once,
    /// under its lock, where its time is written: no message string is made.
    public func writeRequest(_ line: borrowing RequestLogLine) {
        func write(_ writer: inout ByteWriter) {
            writer.write(" info " as StaticString)
            line.write(to: &writer)
            writer.write(UInt8(ascii: "\n"))
        }
        let size = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 512) { scratch -> Int in
            var writer = ByteWriter(scratch, from: Timestamp.length)
            write(&writer)
            if writer.fits {
                StderrLogBuffer.shared.appendStamped(UnsafeMutableBufferPointer(rebasing: scratch[..<writer.count]))
            }
            return writer.fits ? 0 : writer.count
        }
        guard size > 0 else { return }
        // Longer than the stack buffer (a long target): the same, in a buffer of its size.
        var bytes = [UInt8](repeating: 0, count: size)
        bytes.withUnsafeMutableBufferPointer { buffer in
            var writer = ByteWriter(buffer, from: Timestamp.length)
            write(&writer)
            StderrLogBuffer.shared.appendStamped(buffer)
        }
    }

    /// Lines dropped so far because standard error was not read fast enough (shown in `/__mockd/health`).
    public static var droppedLines: Int { StderrLogBuffer.shared.droppedTotal }

    /// Writes every buffered line now, on the calling thread (before exit, or before a message written to standard
    /// error directly, so the order on the terminal stays the order of events).
    public static func flush() { StderrLogBuffer.shared.flush() }
}

/// The bounded buffer behind `StderrLogSink`: at most `capacity` bytes wait; a line that does not fit is dropped
/// and counted, and the next write says how many were dropped. One writer thread, started on first use, drains
/// it with blocking `write(2)`s; lines never interleave (one writer at a time, whole lines).
final class StderrLogBuffer: Sendable {
    static let shared = StderrLogBuffer(capacity: 1 << 20)

    private struct State {
        var pending: [UInt8] = []
        /// Dropped since the last notice was written.
        var dropped = 0
        var droppedTotal = 0
        var writerWaiting = false
        var writerStarted = false
        /// The time of the lines, to the second, formatted once a second.
        var seconds = Timestamp.Seconds()
    }

    /// How long the writer waits after a write before taking the next batch (µs): the first line after a quiet
    /// spell goes out at once, later ones at most this much later.
    static let batchingNapMicroseconds: UInt32 = 2_000

    let capacity: Int
    private let state = Mutex(State())
    /// Held while bytes are written, so the writer thread and `flush()` never interleave.
    private let writing = Mutex(())
    private let wake = DispatchSemaphore(value: 0)

    init(capacity: Int) {
        self.capacity = capacity
    }

    var droppedTotal: Int { state.withLock { $0.droppedTotal } }

    func append(_ line: String) {
        append { $0.append(contentsOf: line.utf8) }
    }

    /// Appends the bytes `write` adds to the pending ones (one whole line), under the lock; a line that makes the
    /// pending bytes exceed `capacity` is taken back out and counted as dropped.
    func append(_ write: (inout [UInt8]) -> Void) {
        appendLocked { state in write(&state.pending) }
    }

    /// Appends one line whose first `Timestamp.length` bytes are left for its time, written here under the lock, so
    /// the times in the log never go backwards.
    func appendStamped(_ line: UnsafeMutableBufferPointer<UInt8>) {
        appendLocked { state in
            var stamp = ByteWriter(UnsafeMutableBufferPointer(rebasing: line[..<Timestamp.length]))
            Timestamp.write(Timestamp.now(), to: &stamp, seconds: &state.seconds)
            state.pending.append(contentsOf: UnsafeBufferPointer(line))
        }
    }

    private func appendLocked(_ write: (inout State) -> Void) {
        let (signal, start) = state.withLock { state -> (Bool, Bool) in
            let before = state.pending.count
            write(&state)
            if state.pending.count > capacity {
                state.pending.removeSubrange(before...)
                state.dropped += 1
                state.droppedTotal += 1
                return (false, false)
            }
            let start = !state.writerStarted
            state.writerStarted = true
            let signal = state.writerWaiting
            state.writerWaiting = false
            return (signal, start)
        }
        if start {
            ThreadName.startThread(named: "mockd-log") { [self] in run() }
        }
        if signal { wake.signal() }
    }

    func flush() {
        writing.withLock { _ in
            var bytes: [UInt8] = []
            take(into: &bytes)
            writeOut(bytes)
        }
    }

    /// Moves the pending bytes (with a notice first when lines were dropped) into `bytes`, which must be empty, and
    /// leaves `bytes`' old storage as the pending buffer: the two buffers take turns, so a steady flow of lines
    /// allocates nothing (the pending bytes grew anew from empty after every batch, ~0.5 allocations a logged request
    /// when batches were small).
    private func take(into bytes: inout [UInt8]) {
        state.withLock { state in
            if state.dropped > 0 {
                let notice =
                    Timestamp.iso8601Now()
                    + " warning \(state.dropped) log line\(state.dropped == 1 ? "" : "s") dropped: standard error was not read fast enough (mockd never makes a request wait for its log)\n"
                bytes.append(contentsOf: notice.utf8)
                state.dropped = 0
            }
            if bytes.isEmpty {
                swap(&bytes, &state.pending)
            } else {
                bytes.append(contentsOf: state.pending)
                state.pending.removeAll(keepingCapacity: true)
            }
        }
    }

    /// The most a buffer keeps between batches (bytes): one that grew past it in a burst is let go once written.
    static let keptBufferBytes = 64 * 1024

    private func run() {
        // The writer's turn of the two buffers (see `take(into:)`); empty between batches.
        var spare: [UInt8] = []
        while true {
            let bytes = writing.withLock { _ -> Int in
                take(into: &spare)
                writeOut(spare)
                let count = spare.count
                if spare.capacity > Self.keptBufferBytes {
                    spare = []
                } else {
                    spare.removeAll(keepingCapacity: true)
                }
                return count
            }
            if bytes > 0 {
                // Lines that arrive during the nap go out in one write, and no worker pays a wake-up for them:
                // under load a per-line wake and write cost as much CPU as answering the request.
                usleep(Self.batchingNapMicroseconds)
                continue
            }
            let idle = state.withLock { state -> Bool in
                guard state.pending.isEmpty, state.dropped == 0 else { return false }
                state.writerWaiting = true
                return true
            }
            if idle { wake.wait() }
        }
    }

    private func writeOut(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                Foundation.write(2, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0, errno == EINTR { continue }
            if written <= 0 { break }
            offset += written
        }
    }
}

/// Keeps log lines in memory, for tests that check what was logged.
public final class InMemoryLogSink: LogSink {
    public struct Entry: Sendable, Equatable {
        public let level: Logger.Level
        public let message: String
    }

    private let storage = Mutex<[Entry]>([])

    public init() {}

    public func write(level: Logger.Level, message: String) {
        storage.withLock { $0.append(Entry(level: level, message: message)) }
    }

    public var entries: [Entry] { storage.withLock { $0 } }
}

enum Timestamp {
    /// The bytes of a time: `2026-11-29T20:00:00.123Z`.
    static let length = 24

    /// UTC time with milliseconds, RFC 3339.
    static func iso8601Now() -> String {
        var bytes: [UInt8] = []
        var seconds = Seconds()
        let time = Timestamp.now()
        bytes.appendWritten { write(time, to: &$0, seconds: &seconds) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// CLOCK_REALTIME.
    static func now() -> timespec {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return spec
    }

    /// The date and time to the second (`2026-11-29T20:00:00.`), formatted again only when the second changes:
    /// `gmtime_r` was a twentieth of the instructions of a logged request.
    struct Seconds {
        private var second = Int.min
        private var text: [UInt8] = []

        mutating func write(_ time: timespec, to writer: inout ByteWriter) {
            if time.tv_sec != second {
                second = time.tv_sec
                var seconds = time.tv_sec
                var parts = tm()
                gmtime_r(&seconds, &parts)
                text = []
                text.appendWritten { writer in
                    func put(_ value: Int32, _ width: Int, then separator: UInt8) {
                        writer.writeDigits(Int(value), width: width)
                        writer.write(separator)
                    }
                    put(parts.tm_year + 1900, 4, then: UInt8(ascii: "-"))
                    put(parts.tm_mon + 1, 2, then: UInt8(ascii: "-"))
                    put(parts.tm_mday, 2, then: UInt8(ascii: "T"))
                    put(parts.tm_hour, 2, then: UInt8(ascii: ":"))
                    put(parts.tm_min, 2, then: UInt8(ascii: ":"))
                    put(parts.tm_sec, 2, then: UInt8(ascii: "."))
                }
            }
            text.withUnsafeBufferPointer { writer.write($0) }
        }
    }

    /// Writes `time`'s `length` bytes, the part to the second from `seconds`.
    static func write(_ time: timespec, to writer: inout ByteWriter, seconds: inout Seconds) {
        seconds.write(time, to: &writer)
        writer.writeDigits(time.tv_nsec / 1_000_000, width: 3)
        writer.write(UInt8(ascii: "Z"))
    }
}
