import Foundation
import MockdCore

/// `mockd import-har FILE --set NAME`: compile a HAR into a mock set and print a report.
enum ImportHARCommand {
    /// The rules from `--ignore-query`, `--ignore-body-field` and `--normalize FILE`.
    /// - Throws: `ConfigError` naming the rules file and JSON path of a bad rule.
    static func normalization(_ options: ImportHAROptions) throws -> RequestNormalization {
        var rules = RequestNormalization(
            ignoreQuery: options.ignoreQuery.isEmpty ? nil : options.ignoreQuery,
            ignoreBodyFields: options.ignoreBodyFields.isEmpty ? nil : options.ignoreBodyFields
        )
        if let path = options.normalizeFile {
            let (file, _) = try ConfigFile.decode(
                RequestNormalization.self, at: URL(fileURLWithPath: path), display: path, missing: "file not found"
            )
            rules = rules.merged(with: file)
        }
        if let problem = rules.problems().first {
            throw ConfigError(.invalidValue, file: options.normalizeFile ?? "command line", jsonPath: problem.path, message: problem.message)
        }
        return rules
    }

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
            importOptions.keepSecrets = options.keepSecrets
            importOptions.unstableHeaders = UnstableHeaders.defaults.filter { !options.keepHeaders.contains($0) } + options.dropHeaders
            importOptions.normalization = try normalization(options)
            importOptions.failed = options.failed == "keep" ? .keep : .skip
            importOptions.cors = options.cors
            importOptions.flattenHosts = options.flattenHosts
            var (build, report) = HARImporter.build(
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
            var mergeLine: String?
            if options.merge, FileManager.default.fileExists(atPath: root.setURL(options.set).path) {
                let existing = try MockSetMerger.read(set: options.set, root: root)
                let (merged, summary) = MockSetMerger.merge(build, into: existing)
                build = merged
                mergeLine = "  merged:         \(summary.replaced) stubs replaced, \(summary.added) added, \(summary.kept) kept as they were"
            }
            try MockSetWriter(root: root).write(build, set: options.set, replace: options.force || options.merge, source: options.file)
            Output.standard(report.rendered(source: options.file, destination: destination) + (mergeLine.map { "\n" + $0 } ?? ""))
            return .success
        } catch {
            Output.error("mockd: \(error)")
            return .failure
        }
    }
}
