import Foundation
import MockdCore
import MockdServer

/// `mockd record --upstream URL --set NAME`: a reverse proxy that records every exchange, then writes a HAR
/// and compiles it into `mocks/NAME/` on SIGINT/SIGTERM and on `POST /__mockd/record/flush`.
///
/// It serves an empty scenario with the upstream proxy on, so every request but the control API's is an
/// unmatched one the proxy forwards.
struct Record: MockdCommand, Equatable {
    /// Port, host, threads, TLS, upstream (required) and the other flags shared with `serve`.
    var server = ServerFlags()
    /// `--set`: the mock set to write, `mocks/<set>/`.
    var set = ""
    /// `--har FILE`; default `<root>/recordings/<set>-<UTC timestamp>.har`.
    var har: String?
    /// `--merge`: merge the recording into an existing set.
    var merge = false
    /// `--force`: replace an existing set (or `--har` file).
    var force = false

    static let name = "record"
    static let abstract: String? = "Reverse-proxy an upstream and record every exchange into a HAR and a mock set"
    static let synopsis = [
        "mockd record --upstream <url> --set <name> [--har <file>] [--merge | --force] [same options]"
    ]
    static let help = """
        OVERVIEW: Record an API as a mock set: mockd forwards every request to the upstream, answers the client with
        the upstream's answer unchanged (status, headers with every Set-Cookie, body bytes; a compressed body stays
        compressed), and records the exchange. On SIGINT/SIGTERM and on POST /__mockd/record/flush it writes the
        recording as a HAR 1.2 file and compiles it into mocks/<name>/ exactly as import-har does (hygiene on: the
        set holds placeholders, never the recorded secrets; the HAR holds everything as sent: keep it out of git),
        printing the import report to stdout. Each flush rewrites this run's HAR with everything so far.

        A request the upstream cannot answer is recorded too (status 0 and the error in the HAR, skipped and
        reported by the import); the client gets 502 (connection, DNS or TLS error) or 504 (--upstream-timeout
        passed) with a JSON body naming the upstream and the error.

        USAGE: mockd record --upstream <url> --set <name> [--root <dir>] [--port <n>] [--host <addr>] [--har <file>]
                            [--merge | --force] [--upstream-timeout <s>] [--upstream-insecure | --upstream-ca <file>]
                            [--tls-cert <file> --tls-key <file> [--tls-port <n>]]

        OPTIONS:
          --upstream <url>        The server to record, as an origin: https://api.example.com (no path).
          --set <name>            The mock set to write, mocks/<name>/ (letters, digits, '.', '_', '-').
          --root <dir>            Folder holding mocks/ and recordings/. (default: $MOCKD_ROOT, else the current directory)
          --port <n>              TCP port to listen on; 0 picks a free port. (default: 8080)
          --host <addr>           Address to bind. (default: 127.0.0.1)
          --har <file>            Where to write the HAR. (default: <root>/recordings/<name>-<UTC time>.har)
          --merge                 The set exists: merge the recording into it (recorded stubs replaced, others kept).
          --force                 The set (or the --har file) exists: replace it.
          --upstream-timeout <s>  Whole-exchange limit per request; past it the client gets 504. (default: 30)
          --upstream-insecure     Do not verify the upstream's TLS certificate (a warning is printed).
          --upstream-ca <file>    Also trust the CA certificates in this PEM file for the upstream.
          --tls-cert <file>       Serve HTTPS with this PEM certificate chain (scripts/make-cert makes one).
          --tls-key <file>        The certificate's PEM private key.
          --tls-port <n>          Serve HTTPS on this port besides plain HTTP on --port.
          --threads <n>           Worker threads. (default: one per core)
          --control-token <t>     Require `Authorization: Bearer <t>` on /__mockd/* (at least 16 visible characters).
          --insecure-control      Serve the control API without a token on a non-loopback --host, knowingly.
          --summary <file>        At shutdown, write every session's coverage (stubs never used) as JSON to <file>.
          --shutdown-timeout <s>  On SIGINT/SIGTERM, give requests in flight this long before writing. (default: 5)
          --stop-on-stdin-eof     Stop (and write) as on SIGTERM when standard input ends.
          --max-body <b>          Largest request body in bytes. (default: 33554432)
          --quiet                 Do not log a line per request.
          -h, --help              Show help information.

        Without --merge or --force an existing set is refused at start, so a recording never overwrites hand
        edits. Control API: GET /__mockd/record (counts), POST /__mockd/record/flush (write now).
        """

    static func parse(_ arguments: [String], environment: [String: String]) throws -> Record {
        var record = Record()
        var set: String?
        var reader = ArgumentReader(arguments)
        while let argument = try reader.next() {
            switch argument {
            case "--set": set = try reader.value(for: argument)
            case "--har": record.har = try reader.value(for: argument)
            case "--merge": record.merge = true
            case "--force": record.force = true
            default: guard try record.server.parse(argument, from: &reader) else { throw UsageError.unknown(argument) }
            }
        }
        // MOCKD_CONFIG is not read: recording serves no scenario.
        try record.server.applyDefaults(from: environment, given: reader.seen)
        guard record.server.upstream.origin != nil else {
            throw UsageError("record needs --upstream <url>: the server to record, e.g. https://api.example.com")
        }
        guard let set else { throw UsageError("record needs --set <name> to name the mock set to write") }
        guard MockdRoot.isValidName(set) else {
            throw UsageError("--set '\(set)' is not a valid mock set name (use letters, digits, '.', '_' and '-')")
        }
        if record.merge, record.force { throw UsageError("--merge and --force cannot be used together") }
        try record.server.checkProxyAndTLS(given: reader.seen, proxying: true)
        record.set = set
        return record
    }

    func run() -> ExitCode {
        // Before the load starts any thread, so that no SIGINT or SIGTERM can be lost (see `SignalWaiter`).
        SignalWaiter.blockInThisThread([SIGINT, SIGTERM])
        let root = MockdRoot.resolve(option: server.root)
        if let problem = ServerLifecycle.rootProblem(root, option: server.root) {
            Output.error("mockd: \(problem)")
            return .failure
        }
        // Sets left half-replaced or leftovers of interrupted imports, from an earlier crash: fixed and said so.
        for line in MockSetRecovery.recover(root: root).lines { Output.error(line) }
        // A recording of this set interrupted by a crash: its spool becomes its HAR and set first.
        let spoolFolders = Set(
            [root.url.appendingPathComponent("recordings")]
                + (har.map { [URL(fileURLWithPath: $0).deletingLastPathComponent()] } ?? [])
        )
        for folder in spoolFolders.sorted(by: { $0.path < $1.path }) {
            do {
                for recovery in try RecordingSpool.recover(in: folder, set: set, root: root) {
                    Output.error(
                        "mockd: recovered \(recovery.entries) exchange\(recovery.entries == 1 ? "" : "s") of an interrupted recording from \(recovery.spool) into \(recovery.har) and mocks/\(set)/"
                    )
                    Output.error(recovery.report)
                }
            } catch {
                Output.error("mockd: \(error)")
                return .failure
            }
        }
        let setURL = root.setURL(set)
        let existing: Recorder.ExistingSet
        if FileManager.default.fileExists(atPath: setURL.path) {
            guard merge || force else {
                Output.error(
                    "mockd: mock set '\(set)' already exists (\(root.display(setURL))/); pass --merge to merge the recording into it or --force to replace it"
                )
                return .failure
            }
            existing = merge ? .merge : .replace
        } else {
            existing = .create
        }
        let harURL: URL
        if let har {
            harURL = URL(fileURLWithPath: har)
            if FileManager.default.fileExists(atPath: harURL.path), !force {
                Output.error(
                    "mockd: --har \(har): the file exists; pass --force to overwrite it, or choose another name"
                )
                return .failure
            }
        } else {
            harURL = Self.defaultHAR(root: root, set: set)
        }
        let origin = server.upstream.origin ?? ""
        let recorder = Self.makeRecorder(set: set, root: root, harURL: harURL, existing: existing, upstream: origin)
        let scenario = Scenario(name: "record-\(set)", sets: [], index: StubIndex(layers: []))
        let mode =
            existing == .merge
            ? " (merged into the existing set)" : existing == .replace ? " (replacing the existing set)" : ""
        return ServerLifecycle.run(
            server,
            limits: ServeLimits(),
            proxying: true,
            scenario: scenario,
            root: root,
            loader: nil,
            recorder: recorder,
            banner: "mockd: recording \(origin) into mocks/\(set)/\(mode), HAR \(recorder.harDisplay); "
                + "Ctrl-C or POST /__mockd/record/flush writes them"
        )
    }

    /// A recorder whose flushes print the import report to stdout.
    static func makeRecorder(
        set: String,
        root: MockdRoot,
        harURL: URL,
        existing: Recorder.ExistingSet,
        upstream: String
    ) -> Recorder {
        Recorder(
            set: set,
            root: root,
            harURL: harURL,
            existing: existing,
            upstream: upstream,
            spoolFailure: { Output.error($0) },
            announce: { result in
                Output.standard(result.report)
                if result.entries > 0, !result.report.hasPrefix("nothing new") {
                    Output.standard(
                        "  har:            \(result.har) (\(result.entries) exchanges, \(result.failed) failed; unredacted: keep it out of git)"
                    )
                }
            }
        )
    }

    /// `<root>/recordings/<set>-<yyyyMMdd-HHmmss>.har` in UTC, with `-2`, `-3`… when taken.
    static func defaultHAR(root: MockdRoot, set: String) -> URL {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        let folder = root.url.appendingPathComponent("recordings", isDirectory: true)
        let base = "\(set)-\(formatter.string(from: Date()))"
        var candidate = folder.appendingPathComponent(base + ".har")
        var counter = 2
        while FileManager.default.fileExists(atPath: candidate.path) {
            candidate = folder.appendingPathComponent("\(base)-\(counter).har")
            counter += 1
        }
        return candidate
    }
}
