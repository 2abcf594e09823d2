import Foundation
import MockdCore

/// `mockd import-har FILE --set NAME`: compile a HAR into a mock set and print a report.
///
/// The HAR is streamed (`HARImportPipeline`), so memory does not grow with the size of the file beyond the
/// bodies kept for the set. Nothing is written before the whole file has been read and found valid.
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
        var importOptions = HARImportOptions(
            hosts: options.hosts, webSocketTimeScale: options.webSocketTimeScale, webSocketWaitForClient: options.webSocketWaitForClient
        )
        if let headers = options.matchHeaders { importOptions.matchHeaders = headers.map { $0.lowercased() } }
        // A progress line only on a terminal: tests, CI and pipes see the report alone.
        let destination = "mocks/\(options.set)/"
        let progress = isatty(STDERR_FILENO) == 1 ? TerminalProgress(fileName: options.file, destination: destination) : nil
        do {
            importOptions.keepSecrets = options.keepSecrets
            importOptions.unstableHeaders = UnstableHeaders.defaults.filter { !options.keepHeaders.contains($0) } + options.dropHeaders
            importOptions.normalization = try normalization(options)
            importOptions.failed = options.failed == "keep" ? .keep : .skip
            importOptions.cors = options.cors
            importOptions.flattenHosts = options.flattenHosts
            let result = try HARImportPipeline.run(
                har: harURL, displayName: options.file, into: options.set, root: root, options: importOptions, merge: options.merge,
                replace: options.force || options.merge, progress: progress.map { bar in { bar.update($0) } }
            )
            progress?.clear()
            guard result.setWritten else {
                Output.error(result.rendered(source: options.file, destination: "(nothing written)"))
                let why =
                    result.log.entryCount == 0
                    ? "log.entries is empty; nothing to import"
                    : options.hosts.isEmpty
                        ? "none of the \(result.log.entryCount) entries can be replayed; nothing was written"
                        : "no replayable entry for --host \(options.hosts.joined(separator: ", ")); nothing was written"
                throw HARImportError(.nothingToImport, file: options.file, message: why)
            }
            Output.standard(result.rendered(source: options.file, destination: destination))
            return .success
        } catch {
            progress?.clear()
            Output.error("mockd: \(error)")
            return .failure
        }
    }
}
