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
