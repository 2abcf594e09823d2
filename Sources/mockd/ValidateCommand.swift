import MockdCore

/// `mockd validate --config NAME` / `--set NAME`: load everything a scenario names and report every problem.
enum ValidateCommand {
    static func run(_ options: ValidateOptions) -> ExitCode {
        let root = MockdRoot.resolve(option: options.root)
        do {
            if let config = options.config {
                let scenario = try Scenario.load(named: config, root: root)
                Output.standard(
                    "ok: \(root.display(root.configURL(config))): sets \(scenario.sets.joined(separator: ", ")); \(scenario.index.stubs.count) stubs, \(scenario.overrides.count) overrides"
                )
            } else if let set = options.set {
                let stubs = try MockSetLoader(root: root, alwaysCheckUnknownFields: true).load(set: set)
                Output.standard("ok: mocks/\(set)/index.json: \(stubs.count) stubs")
            }
            return .success
        } catch {
            Output.errorLines(error)
            return .failure
        }
    }
}
