import Foundation
import MockdCore

/// `mockd import-har FILE --set NAME`: compile a HAR into a mock set and print a report.
///
/// The HAR is streamed (`HARStreamReader` → `HARCompiler`), so memory does not grow with the size of the file
/// beyond the bodies kept for the set. Nothing is written before the whole file has been read and found valid.
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
        let progress = isatty(STDERR_FILENO) == 1 ? TerminalProgress(fileName: options.file) : nil
        let destination = "mocks/\(options.set)/"
        do {
            importOptions.keepSecrets = options.keepSecrets
            importOptions.unstableHeaders = UnstableHeaders.defaults.filter { !options.keepHeaders.contains($0) } + options.dropHeaders
            importOptions.normalization = try normalization(options)
            importOptions.failed = options.failed == "keep" ? .keep : .skip
            importOptions.cors = options.cors
            importOptions.flattenHosts = options.flattenHosts
            var compiler = HARCompiler(options: importOptions, harDirectory: harURL.deletingLastPathComponent())
            let info = try HARStreamReader().read(
                contentsOf: harURL, displayName: options.file, progress: progress.map { bar in { bar.update($0) } }
            ) { compiler.add($0) }
            progress?.show("read \(ImportProgress.grouped(info.entryCount)) entries; writing \(destination) …")
            var (build, report) = compiler.finish()
            guard !build.file.stubs.isEmpty else {
                progress?.clear()
                Output.error(report.rendered(source: options.file, destination: "(nothing written)"))
                let why =
                    info.entryCount == 0
                    ? "log.entries is empty; nothing to import"
                    : options.hosts.isEmpty
                        ? "none of the \(info.entryCount) entries can be replayed; nothing was written"
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
            progress?.clear()
            Output.standard(report.rendered(source: options.file, destination: destination) + (mergeLine.map { "\n" + $0 } ?? ""))
            return .success
        } catch {
            progress?.clear()
            Output.error("mockd: \(error)")
            return .failure
        }
    }
}

/// Redraws `ImportProgress` lines in place on stderr (at most 10 per second).
private final class TerminalProgress {
    private let fileName: String
    private var throttle: ImportProgress
    private var drawn = false

    init(fileName: String) {
        self.fileName = fileName
        throttle = ImportProgress(start: ProcessInfo.processInfo.systemUptime)
    }

    func update(_ progress: HARStreamReader.Progress) {
        let now = ProcessInfo.processInfo.systemUptime
        guard throttle.shouldDraw(at: now) else { return }
        show(ImportProgress.line(fileName: fileName, progress: progress, seconds: throttle.elapsed(at: now)))
    }

    /// Replaces the line with `text`.
    func show(_ text: String) {
        write("\r" + text + "\u{1B}[K")
        drawn = true
    }

    /// Erases the line, so that the report or an error starts on a clean line.
    func clear() {
        guard drawn else { return }
        write("\r\u{1B}[K")
        drawn = false
    }

    private func write(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Foundation.write(STDERR_FILENO, $0.baseAddress, $0.count) }
            if written <= 0 { return }
            bytes = bytes.dropFirst(written)
        }
    }
}
