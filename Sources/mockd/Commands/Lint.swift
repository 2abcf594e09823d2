import Foundation
import MockdCore

/// `mockd lint mocks/NAME`: print every secret or piece of personal data left in a mock set.
struct Lint: MockdCommand, Equatable {
    /// The set: a folder (`mocks/<name>`, relative to the current directory or else the root) or a bare name.
    var target: String
    var root: String?

    static let name = "lint"
    static let abstract: String? = "Find secrets and personal data left in a mock set"
    static let synopsis = ["mockd lint mocks/<name>"]
    static let help = """
        OVERVIEW: Report secrets and personal data left in a mock set: tokens, JWTs, API keys, private keys,
        Authorization/Cookie/Set-Cookie values, e-mail addresses, phone numbers. Placeholders such as
        {{token}} and reserved example domains (example.com) are fine.

        One line per finding, `file: location: what`; exit 1 when there is any, 0 when the set is clean —
        fit for a CI step or a pre-commit hook.

        USAGE: mockd lint mocks/<name> | <name> [--root <dir>]

        OPTIONS:
          --root <dir>            Folder holding mocks/ when a set name is given. (default: $MOCKD_ROOT, else the current directory)
          -h, --help              Show help information.
        """

    static func parse(_ arguments: [String], environment: [String: String]) throws -> Lint {
        var target: String?
        var root: String?
        var reader = ArgumentReader(arguments)
        while let argument = try reader.next() {
            switch argument {
            case "--root": root = try reader.value(for: argument)
            default:
                if argument.hasPrefix("-") { throw UsageError.unknown(argument) }
                guard target == nil else {
                    throw UsageError("lint takes one mock set; got '\(target!)' and '\(argument)'")
                }
                target = argument
            }
        }
        guard let target else { throw UsageError("lint needs a mock set: mockd lint mocks/<name>") }
        return Lint(target: target, root: root)
    }

    func run() -> ExitCode {
        let root = MockdRoot.resolve(option: self.root)
        var folder = URL(fileURLWithPath: target)
        var display = target.hasSuffix("/") ? String(target.dropLast()) : target
        if !FileManager.default.fileExists(atPath: folder.appendingPathComponent("index.json").path) {
            if !target.contains("/") {
                // A bare set name: mocks/<name> under the root.
                folder = root.setURL(target)
                display = root.display(folder)
            } else if !target.hasPrefix("/") {
                // A relative folder such as mocks/<name>: under the root when it is not under the current directory.
                folder = root.url.appendingPathComponent(target)
                display = root.display(folder)
            }
        }
        do {
            let findings = try MockSetLint.run(folder: folder, display: display)
            for finding in findings { Output.standard(finding.description) }
            if findings.isEmpty {
                Output.error("mockd lint: \(display): no secrets or personal data found")
                return .success
            }
            Output.error(
                "mockd lint: \(display): \(findings.count) finding\(findings.count == 1 ? "" : "s"); replace them with placeholders like {{token}} (import-har redacts them unless --keep-secrets; import-wiremock with --redact)"
            )
            return .failure
        } catch {
            Output.error("mockd: \(error)")
            return .failure
        }
    }
}
