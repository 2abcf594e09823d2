import Foundation
import Synchronization

/// Where log lines go; `StderrLogSink` in the daemon, `InMemoryLogSink` in tests.
public protocol LogSink: Sendable {
    func write(level: Logger.Level, message: String)
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

    public func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
    public func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    public func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    public func error(_ message: @autoclosure () -> String) { log(.error, message()) }
}

/// Writes `2026-11-29T20:00:00.123Z info message` lines to standard error, one `write(2)` per line under
/// a lock, so lines from libmicrohttpd's threads never interleave.
public final class StderrLogSink: LogSink {
    private let lock = Mutex(())

    public init() {}

    public func write(level: Logger.Level, message: String) {
        var line = Timestamp.iso8601Now()
        line += " \(level) "
        line += message
        line += "\n"
        lock.withLock { _ in
            var bytes = Array(line.utf8)
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeMutableBytes { buffer in
                    Foundation.write(2, buffer.baseAddress! + offset, buffer.count - offset)
                }
                if written <= 0 { break }
                offset += written
            }
            bytes.removeAll()
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
    /// UTC time with milliseconds, RFC 3339.
    static func iso8601Now() -> String {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        var time = spec.tv_sec
        var parts = tm()
        gmtime_r(&time, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2))."
            + "\(pad(Int32(spec.tv_nsec / 1_000_000), 3))Z"
    }
}
