import Foundation
import MockdCore

/// `mockd import-har FILE --set NAME`: compile a HAR into a mock set and print a report.
enum ImportHARCommand {
    static func run(_ options: ImportHAROptions) -> ExitCode {
        let root = MockdRoot.resolve(option: options.root)
        guard MockdRoot.isValidName(options.set) else {
            Output.error("mockd: --set '\(options.set)' is not a valid mock set name (use letters, digits, '.', '_' and '-')")
            return .usage
        }
        let harURL = URL(fileURLWithPath: options.file)
        do {
            let archive = try HARReader.read(contentsOf: harURL, displayName: options.file)
            var importOptions = HARImportOptions(
                hosts: options.hosts, webSocketTimeScale: options.webSocketTimeScale, webSocketWaitForClient: options.webSocketWaitForClient
            )
            if let headers = options.matchHeaders { importOptions.matchHeaders = headers.map { $0.lowercased() } }
            let (build, report) = HARImporter.build(
                archive, options: importOptions, harDirectory: harURL.deletingLastPathComponent()
            )
            let destination = "mocks/\(options.set)/"
            guard !build.file.stubs.isEmpty else {
                Output.error(report.rendered(source: options.file, destination: "(nothing written)"))
                let why =
                    archive.entries.isEmpty
                    ? "log.entries is empty; nothing to import"
                    : options.hosts.isEmpty
                        ? "none of the \(archive.entries.count) entries can be replayed; nothing was written"
                        : "no replayable entry for --host \(options.hosts.joined(separator: ", ")); nothing was written"
                throw HARImportError(.nothingToImport, file: options.file, message: why)
            }
            try MockSetWriter(root: root).write(build, set: options.set, replace: options.force, source: options.file)
            Output.standard(report.rendered(source: options.file, destination: destination))
            return .success
        } catch {
            Output.error("mockd: \(error)")
            return .failure
        }
    }
}
