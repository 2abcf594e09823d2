import Foundation
import MockdCore
import MockdServer

/// The executable: pick the command, parse its options, run it, exit with its code.
@main
struct Mockd {
    /// Every command, in the order of the top-level USAGE and COMMANDS.
    ///
    /// Adding a command is one new file in `Commands/` and one row here: dispatch, USAGE and COMMANDS
    /// follow from the row.
    static let commands: [any MockdCommand.Type] = [
        Serve.self,
        Record.self,
        Refresh.self,
        ImportHAR.self,
        ImportWireMock.self,
        ImportOpenAPI.self,
        Validate.self,
        Lint.self,
        Diff.self,
        Check.self,
        HealthCheck.self,
        MCP.self,
    ]

    /// What runs when the first argument names no command: `mockd --config NAME`.
    static let defaultCommand: any MockdCommand.Type = Serve.self

    /// Help lines stay within this many columns (the widest the texts have).
    static let helpWidth = 124

    static func main() {
        let (command, arguments) = select(Array(CommandLine.arguments.dropFirst()))
        let code = execute(command, arguments, environment: ProcessInfo.processInfo.environment)
        StderrLogSink.flush()
        exit(code.rawValue)
    }

    /// The command `arguments` (without the program name) name, and what it gets: the arguments after its
    /// name, or all of them for the default command.
    static func select(_ arguments: [String]) -> (command: any MockdCommand.Type, arguments: [String]) {
        if let first = arguments.first, let command = commands.first(where: { $0.name == first }) {
            return (command, Array(arguments.dropFirst()))
        }
        return (defaultCommand, arguments)
    }

    /// Parses and runs `command`; help, the version and usage errors are answered here, the same way for
    /// every command.
    /// - Returns: The command's exit code; `.success` after help or the version, `.usage` after a usage error.
    static func execute(
        _ command: any MockdCommand.Type,
        _ arguments: [String],
        environment: [String: String]
    ) -> ExitCode {
        let parsed: any MockdCommand
        do {
            parsed = try command.parse(arguments, environment: environment)
        } catch InformationRequest.help {
            Output.standard(command.help)
            return .success
        } catch InformationRequest.version {
            Output.standard(MockdVersion.banner + "\nlibmicrohttpd " + MicroHTTPDServer.libraryVersion)
            return .success
        } catch {
            // The help of the command that was asked for; serve's is the top-level one.
            let help = command.abstract == nil ? "mockd --help" : "mockd \(command.name) --help"
            Output.error("mockd: \(error) (see \(help))")
            return .usage
        }
        return parsed.run()
    }

    /// The top-level USAGE: every command's synopsis, in table order.
    static var usageSection: String {
        "USAGE: " + commands.flatMap { $0.synopsis }.joined(separator: "\n       ")
    }

    /// The top-level COMMANDS: each command with an abstract, and where its help is.
    static var commandsSection: String {
        let entries = commands.compactMap { command in
            command.abstract.map { entry(name: command.name, text: "\($0) (see `mockd \(command.name) --help`).") }
        }
        return (["COMMANDS:"] + entries).joined(separator: "\n")
    }

    /// `  name                    text`, the text from column 26 as for options; the pointer to the
    /// command's help moves to a line of its own when the line would pass `helpWidth`.
    private static func entry(name: String, text: String) -> String {
        let indent = String(repeating: " ", count: 26)
        let line = "  " + name + String(repeating: " ", count: max(1, 24 - name.count)) + text
        guard line.count > helpWidth, let pointer = line.range(of: " (see `") else { return line }
        return "\(line[..<pointer.lowerBound])\n\(indent)\(line[line.index(after: pointer.lowerBound)...])"
    }
}
