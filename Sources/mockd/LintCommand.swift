import Foundation
import MockdCore

/// `mockd lint mocks/NAME`: print every secret or piece of personal data left in a mock set.
enum LintCommand {
    static func run(_ options: LintOptions) -> ExitCode {
        let root = MockdRoot.resolve(option: options.root)
        var folder = URL(fileURLWithPath: options.target)
        var display = options.target.hasSuffix("/") ? String(options.target.dropLast()) : options.target
        if !options.target.contains("/"), !FileManager.default.fileExists(atPath: folder.appendingPathComponent("index.json").path) {
            // A bare set name: mocks/<name> under the root.
            folder = root.setURL(options.target)
            display = root.display(folder)
        }
        do {
            let findings = try MockSetLint.run(folder: folder, display: display)
            for finding in findings { Output.standard(finding.description) }
            if findings.isEmpty {
                Output.error("mockd lint: \(display): no secrets or personal data found")
                return .success
            }
            Output.error("mockd lint: \(display): \(findings.count) finding\(findings.count == 1 ? "" : "s"); re-import without --keep-secrets or replace them with placeholders like {{token}}")
            return .failure
        } catch {
            Output.error("mockd: \(error)")
            return .failure
        }
    }
}
