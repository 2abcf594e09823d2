import Foundation
import MockdCore

/// `mockd import-wiremock DIR_OR_FILE --set NAME`: turn WireMock stub mappings into a mock set and a scenario,
/// and print a report listing everything that could not be mapped exactly.
enum ImportWireMockCommand {
    static func run(_ options: ImportWireMockOptions) -> ExitCode {
        let root = MockdRoot.resolve(option: options.root)
        guard MockdRoot.isValidName(options.set) else {
            Output.error("mockd: --set '\(options.set)' is not a valid mock set name (use letters, digits, '.', '_' and '-')")
            return .usage
        }
        do {
            let source = try WireMockSource.locate(options.source)
            let result = try WireMockImporter.build(source, set: options.set)
            guard result.report.stubsWritten + result.report.overridesWritten > 0 else {
                Output.error(result.report.rendered(source: options.source, set: options.set, written: false))
                throw WireMockImportError(
                    .nothingToImport, file: options.source,
                    message: "none of the \(result.report.mappingsRead) mappings can be served by mockd; nothing was written"
                )
            }
            try WireMockWriter(root: root).write(result, set: options.set, replace: options.force)
            Output.standard(result.report.rendered(source: options.source, set: options.set, root: options.root))
            return .success
        } catch {
            Output.error("mockd: \(error)")
            return .failure
        }
    }
}
