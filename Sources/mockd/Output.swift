import Foundation
import MockdCore
import MockdPlatform

/// Unbuffered writes to stdout and stderr, one call per line.
enum Output {
    /// While `mockd mcp` speaks JSON-RPC on stdout, every other line goes to stderr.
    static let standardGoesToError = Atomic<Bool>(false)

    static func standard(_ line: String) {
        write(line + "\n", to: standardGoesToError.load(ordering: .relaxed) ? 2 : 1)
    }
    static func error(_ line: String) {
        // Buffered log lines first, so stderr keeps the order of events.
        StderrLogSink.flush()
        write(line + "\n", to: 2)
    }

    /// An error's description, one `mockd: ` line per problem.
    static func errorLines(_ error: any Error) {
        error.localizedLines.forEach { Output.error("mockd: \($0)") }
    }

    /// Writes the whole line; a closed or full stream drops it (there is nowhere else to say so).
    private static func write(_ text: String, to descriptor: Int32) {
        try? FileDescriptor(rawValue: descriptor).writeAll(Data(text.utf8))
    }
}

extension Error {
    /// The error's description split into lines (`ConfigErrors` lists one problem per line).
    var localizedLines: [String] {
        String(describing: self).split(separator: "\n").map(String.init)
    }
}
