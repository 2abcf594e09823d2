import Foundation
import MockdCore
import MockdFormat

/// `mockd import-har FILE --set NAME`: compile a HAR into a mock set and print a report.
///
/// The HAR is streamed (`HARImportPipeline`), so memory does not grow with the size of the file beyond the
/// bodies kept for the set. Nothing is written before the whole file has been read and found valid.
struct ImportHAR: MockdCommand, Equatable {
    /// The HAR file.
    var file: String
    /// `--set`: the mock set to write, `mocks/<set>/`.
    var set: String
    var root: String?
    /// `--host`: keep only entries for these hosts (or `host:port`); empty keeps all.
    var hosts: [String] = []
    /// `--match-header`: request headers recorded as match constraints; `nil` keeps the default set.
    var matchHeaders: [String]?
    var force = false
    /// `--ws-time-scale`: recorded WebSocket frame and SSE event delays are multiplied by this.
    var webSocketTimeScale = 1.0
    var webSocketWaitForClient = false
    var keepSecrets = false
    /// `--keep-header` and `--drop-header`, lower-cased.
    var keepHeaders: [String] = []
    var dropHeaders: [String] = []
    var ignoreQuery: [String] = []
    var ignoreBodyFields: [String] = []
    /// `--normalize FILE`: more rules, shaped like a set's `"normalize"`.
    var normalizeFile: String?
    /// `--failed`: `skip` or `keep`.
    var failed = "skip"
    /// `--missing-bodies`: `miss` or `empty`.
    var missingBodies = HARImportOptions.MissingBodyPolicy.miss
    var cors = false
    var flattenHosts = false
    var rebaseDates = false
    var merge = false

    static let name = "import-har"
    static let abstract: String? = "Compile a HAR file into a mock set"
    static let synopsis = ["mockd import-har <file.har> --set <name> [--root <dir>] [--host <host>]... [--force]"]
    static let help = """
        OVERVIEW: Compile a HAR file into the mock set mocks/<name>/ (an index.json and a bodies/ folder).

        Repeated requests with the same key become one stub with a response sequence, in HAR order. WebSocket
        entries with Chrome's _webSocketMessages become scripts replaying the server's frames with their
        recorded timing. Failed entries (status 0 or -1) are skipped and reported. Nothing is written when
        the file is not a HAR.

        Hygiene is on by default: Authorization, Cookie and Set-Cookie values, API keys, tokens and JWTs
        (headers, query, JSON and form bodies), e-mail addresses and phone numbers become placeholders
        ({{token}}, {{cookie}}, {{email}}, {{phone}}…) that render to fixed fake values when served; the
        rules that let live requests with real values match are written to the set's "normalize". Unstable
        headers (Date, Age, request and trace ids, Server-Timing, Report-To, NEL) are not stored. The report
        lists every change.

        USAGE: mockd import-har <file.har> --set <name> [--root <dir>] [--host <host>]... [--force | --merge]

        ARGUMENTS:
          <file.har>              The HAR 1.1/1.2 file (Chrome, Firefox, Safari, Charles, Proxyman, mitmproxy…).

        OPTIONS:
          --set <name>            Name of the mock set to write (letters, digits, '.', '_', '-').
          --root <dir>            Folder holding mocks/. (default: $MOCKD_ROOT, else the current directory)
          --host <host>           Keep only entries for this host (or host:port); repeat for several. (default: all)
          --match-header <name>   Request header recorded as a match constraint; repeat for several.
                                  (default: Accept and Content-Type)
          --force                 Replace the mock set if it exists.
          --ws-time-scale <f>     Multiply recorded WebSocket frame and SSE event delays by f; 0 sends them at once.
                                  (default: 1)
          --ws-wait-for-client    Replay server frames only after the client frame that preceded them in the recording.
          --keep-secrets          Keep secrets and personal data as recorded (no redaction).
          --keep-header <name>    Store this unstable header after all; repeat for several.
          --drop-header <name>    Also leave out this response header; repeat for several.
          --ignore-query <name>   Leave this query parameter out of keys (here and when serving); a trailing *
                                  matches a prefix (utm_*); repeat for several. (`_` is ignored when recorded)
          --ignore-body-field <p> Leave this JSON/form field out of request-body matching: a name (any depth)
                                  or a path like meta.sentAt or items[].id; repeat for several.
          --normalize <file>      Read more rules from a JSON file shaped like a set's "normalize" (see docs/FORMAT.md).
          --failed <skip|keep>    Failed attempts (status 0/-1): leave out, or replay in their place in the
                                  sequence as what the client saw: offline, DNS, TLS, timeout, cancelled
                                  (raised by MockdAppRedirect), else a connection reset. (default: skip)
          --missing-bodies <miss|empty>
                                  Responses the HAR has no body for (a size but no text) where a client reads
                                  one: answer with a miss that says so, or serve them empty. Answers without a
                                  body (HEAD, 204, 205, 304, redirects) are served either way. (default: miss)
          --cors                  Answer CORS preflights the recording lacks with a permissive 204, and let every
                                  answer allow the request's Origin.
          --flatten-hosts         With several hosts, leave hosts out of keys anyway (collisions are reported).
          --rebase-dates          Serve the recorded dates found in answers (listed in the report either way)
                                  moved to the session's clock: writes "rebaseDates": true.
          --merge                 Merge into an existing set: stubs this HAR records are replaced, others (and
                                  hand edits to them) kept.
          -h, --help              Show help information.
        """

    static func parse(_ arguments: [String], environment: [String: String]) throws -> ImportHAR {
        var file: String?
        var set: String?
        var importHAR = ImportHAR(file: "", set: "")
        var reader = ArgumentReader(arguments)
        while let argument = try reader.next() {
            switch argument {
            case "--set": set = try reader.value(for: argument)
            case "--root": importHAR.root = try reader.value(for: argument)
            case "--host": importHAR.hosts.append(try reader.value(for: argument))
            case "--match-header":
                importHAR.matchHeaders = (importHAR.matchHeaders ?? []) + [try reader.value(for: argument)]
            case "--force": importHAR.force = true
            case "--ws-time-scale":
                let text = try reader.value(for: argument)
                guard let scale = Double(text), scale >= 0, scale.isFinite else {
                    throw UsageError("--ws-time-scale expects a number ≥ 0, got '\(text)'")
                }
                importHAR.webSocketTimeScale = scale
            case "--ws-wait-for-client": importHAR.webSocketWaitForClient = true
            case "--keep-secrets": importHAR.keepSecrets = true
            case "--keep-header": importHAR.keepHeaders.append(try reader.value(for: argument).lowercased())
            case "--drop-header": importHAR.dropHeaders.append(try reader.value(for: argument).lowercased())
            case "--ignore-query": importHAR.ignoreQuery.append(try reader.value(for: argument))
            case "--ignore-body-field": importHAR.ignoreBodyFields.append(try reader.value(for: argument))
            case "--normalize": importHAR.normalizeFile = try reader.value(for: argument)
            case "--failed":
                let policy = try reader.value(for: argument)
                guard policy == "skip" || policy == "keep" else {
                    throw UsageError("--failed expects skip or keep, got '\(policy)'")
                }
                importHAR.failed = policy
            case "--missing-bodies":
                let policy = try reader.value(for: argument)
                guard let value = HARImportOptions.MissingBodyPolicy(rawValue: policy) else {
                    throw UsageError("--missing-bodies expects miss or empty, got '\(policy)'")
                }
                importHAR.missingBodies = value
            case "--cors": importHAR.cors = true
            case "--flatten-hosts": importHAR.flattenHosts = true
            case "--rebase-dates": importHAR.rebaseDates = true
            case "--merge": importHAR.merge = true
            default:
                if argument.hasPrefix("-") { throw UsageError.unknown(argument) }
                guard file == nil else {
                    throw UsageError("import-har takes one HAR file; got '\(file!)' and '\(argument)'")
                }
                file = argument
            }
        }
        guard let file else {
            throw UsageError("import-har needs a HAR file: mockd import-har <file.har> --set <name>")
        }
        guard let set else { throw UsageError("import-har needs --set <name> to name the mock set to write") }
        if importHAR.merge, importHAR.force { throw UsageError("--merge and --force cannot be used together") }
        importHAR.file = file
        importHAR.set = set
        return importHAR
    }

    /// The rules from `--ignore-query`, `--ignore-body-field` and `--normalize FILE`.
    /// - Throws: `ConfigError` naming the rules file and JSON path of a bad rule.
    func normalization() throws -> RequestNormalization {
        var rules = RequestNormalization(
            ignoreQuery: ignoreQuery.isEmpty ? nil : ignoreQuery,
            ignoreBodyFields: ignoreBodyFields.isEmpty ? nil : ignoreBodyFields
        )
        if let path = normalizeFile {
            let (fileRules, _) = try ConfigFile.decode(
                RequestNormalization.self,
                at: URL(fileURLWithPath: path),
                display: path,
                missing: "file not found"
            )
            rules = rules.merged(with: fileRules)
        }
        if let problem = rules.problems().first {
            throw ConfigError(
                .invalidValue,
                file: normalizeFile ?? "command line",
                jsonPath: problem.path,
                message: problem.message
            )
        }
        return rules
    }

    func run() -> ExitCode {
        let root = MockdRoot.resolve(option: self.root)
        guard MockdRoot.isValidName(set) else {
            Output.error("mockd: --set '\(set)' is not a valid mock set name (use letters, digits, '.', '_' and '-')")
            return .usage
        }
        for line in MockSetRecovery.recover(root: root).lines { Output.error(line) }
        let harURL = URL(fileURLWithPath: file)
        var importOptions = HARImportOptions(
            hosts: hosts,
            webSocketTimeScale: webSocketTimeScale,
            webSocketWaitForClient: webSocketWaitForClient
        )
        if let headers = matchHeaders { importOptions.matchHeaders = headers.map { $0.lowercased() } }
        // A progress line only on a terminal: tests, CI and pipes see the report alone.
        let destination = "mocks/\(set)/"
        let progress = isatty(STDERR_FILENO) == 1 ? TerminalProgress(fileName: file, destination: destination) : nil
        do {
            importOptions.keepSecrets = keepSecrets
            importOptions.unstableHeaders = UnstableHeaders.defaults.filter { !keepHeaders.contains($0) } + dropHeaders
            importOptions.normalization = try normalization()
            importOptions.failed = failed == "keep" ? .keep : .skip
            importOptions.missingBodies = missingBodies
            importOptions.cors = cors
            importOptions.flattenHosts = flattenHosts
            importOptions.rebaseDates = rebaseDates
            let result = try HARImportPipeline.run(
                har: harURL,
                displayName: file,
                into: set,
                root: root,
                options: importOptions,
                merge: merge,
                replace: force || merge,
                progress: progress.map { bar in { bar.update($0) } }
            )
            progress?.clear()
            guard result.setWritten else {
                // The report says why each entry was skipped; with no entry at all it would only print zeros.
                if result.log.entryCount > 0 {
                    Output.error(result.rendered(source: file, destination: "(nothing written)"))
                }
                let why =
                    result.log.entryCount == 0
                    ? "log.entries is empty; nothing to import"
                    : hosts.isEmpty
                        ? "none of the \(result.log.entryCount) entries can be replayed; nothing was written"
                        : "no replayable entry for --host \(hosts.joined(separator: ", ")); nothing was written"
                throw HARImportError(.nothingToImport, file: file, message: why)
            }
            Output.standard(result.rendered(source: file, destination: destination))
            return .success
        } catch {
            progress?.clear()
            Output.error("mockd: \(error)")
            return .failure
        }
    }
}
