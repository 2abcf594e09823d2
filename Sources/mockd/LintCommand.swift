import Foundation
import MockdCore

/// `mockd lint mocks/NAME`: print every secret or piece of personal data left in a mock set.
enum LintCommand {
    static func run(_ options: LintOptions) -> ExitCode {
        let root = MockdRoot.resolve(option: options.root)
        var folder = URL(fileURLWithPath: options.target)
        var display = options.target.hasSuffix("/") ? String(options.target.dropLast()) : options.target
        if !FileManager.default.fileExists(atPath: folder.appendingPathComponent("index.json").path) {
            if !options.target.contains("/") {
                // A bare set name: mocks/<name> under the root.
                folder = root.setURL(options.target)
                display = root.display(folder)
            } else if !options.target.hasPrefix("/") {
                // A relative folder such as mocks/<name>: under the root when it is not under the current directory.
                folder = root.url.appendingPathComponent(options.target)
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
            Output.error("mockd lint: \(display): \(findings.count) finding\(findings.count == 1 ? "" : "s"); replace them with placeholders like {{token}} (import-har redacts them unless --keep-secrets; import-wiremock always does)")
            return .failure
        } catch {
            Output.error("mockd: \(error)")
            return .failure
        }
    }
}
