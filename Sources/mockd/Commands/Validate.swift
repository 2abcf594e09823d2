import MockdCore

/// `mockd validate --config NAME` / `--set NAME`: load everything a scenario names and report every problem.
struct Validate: MockdCommand, Equatable {
    /// `--config`: the scenario to check, with its includes and mock sets.
    var config: String?
    /// `--set`: one mock set to check instead.
    var set: String?
    var root: String?

    static let name = "validate"
    static let abstract: String? = "Check a scenario and the files it names"
    static let synopsis = ["mockd validate --config <name> [--root <dir>]"]
    static let help = """
        OVERVIEW: Check a scenario (or one mock set) and every file it names, reporting every problem.

        Each problem is one line, `file: JSON path: message`; the exit code is 1 when there is any.
        Overrides that can never answer (another one tried first matches every request they match) or
        that a later override of the same priority takes requests from are warnings (`warning: …` on
        stderr, exit 0): among equal priorities the override listed later wins.

        USAGE: mockd validate --config <name> [--root <dir>]
               mockd validate --set <name> [--root <dir>]

        OPTIONS:
          --config <name>         Scenario to check: configs/<name>.json, its includes and its mock sets.
          --set <name>            Mock set to check: mocks/<name>/index.json and its body files.
          --root <dir>            Folder holding mocks/ and configs/. (default: $MOCKD_ROOT, else the current directory)
          -h, --help              Show help information.
        """

    static func parse(_ arguments: [String], environment: [String: String]) throws -> Validate {
        var validate = Validate()
        var reader = ArgumentReader(arguments)
        while let argument = try reader.next() {
            switch argument {
            case "--config": validate.config = try reader.value(for: argument)
            case "--set": validate.set = try reader.value(for: argument)
            case "--root": validate.root = try reader.value(for: argument)
            default: throw UsageError.unknown(argument)
            }
        }
        guard (validate.config == nil) != (validate.set == nil) else {
            throw UsageError("validate needs exactly one of --config <name> or --set <name>")
        }
        return validate
    }

    func run() -> ExitCode {
        let root = MockdRoot.resolve(option: self.root)
        do {
            if let config {
                let scenario = try Scenario.load(named: config, root: root, defersBodies: false)
                Output.standard(
                    "ok: \(root.display(root.configURL(config))): sets \(scenario.sets.joined(separator: ", ")); \(scenario.index.stubs.count) stubs, \(scenario.overrides.count) overrides"
                )
                // Not errors: the scenario works as written, but some of what it says never happens.
                for warning in scenario.shadowWarnings() { Output.error("warning: \(warning)") }
            } else if let set {
                let stubs = try MockSetLoader(root: root, alwaysCheckUnknownFields: true, defersBodies: false).load(
                    set: set
                )
                Output.standard("ok: mocks/\(set)/index.json: \(stubs.count) stubs")
            }
            return .success
        } catch {
            Output.errorLines(error)
            return .failure
        }
    }
}
