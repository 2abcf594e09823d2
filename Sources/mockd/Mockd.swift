import Foundation
import MockdCore
import MockdServer

/// The executable: parse → load → start → wait for a signal → stop → exit code.
@main
struct Mockd {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let command: Command
        do {
            command = try Options.parse(arguments, environment: ProcessInfo.processInfo.environment)
        } catch {
            Output.error("mockd: \(error) (see mockd --help)")
            exit(ExitCode.usage.rawValue)
        }
        switch command {
        case .help(let text):
            Output.standard(text)
            exit(ExitCode.success.rawValue)
        case .version:
            Output.standard(Options.version)
            exit(ExitCode.success.rawValue)
        case .validate(let options):
            exit(ValidateCommand.run(options).rawValue)
        case .lint(let options):
            exit(LintCommand.run(options).rawValue)
        case .importHAR(let options):
            exit(ImportHARCommand.run(options).rawValue)
        case .importWireMock(let options):
            exit(ImportWireMockCommand.run(options).rawValue)
        case .serve(let options):
            exit(ServeCommand.run(options).rawValue)
        case .record(let options):
            exit(RecordCommand.run(options).rawValue)
        case .health(let options):
            exit(HealthCommand.run(options).rawValue)
        }
    }
}

/// Unbuffered writes to stdout and stderr, one call per line.
enum Output {
    static func standard(_ line: String) { write(line + "\n", to: 1) }
    static func error(_ line: String) { write(line + "\n", to: 2) }

    /// An error's description, one `mockd: ` line per problem.
    static func errorLines(_ error: any Error) {
        error.localizedLines.forEach { Output.error("mockd: \($0)") }
    }

    private static func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
            if written <= 0 { return }
            bytes = bytes.dropFirst(written)
        }
    }
}

extension Error {
    /// The error's description split into lines (`ConfigErrors` lists one problem per line).
    var localizedLines: [String] {
        String(describing: self).split(separator: "\n").map(String.init)
    }
}
