import Foundation
import MockdCore

/// What the command line asks for.
enum Command: Equatable {
    case serve(ServeOptions)
    case record(RecordOptions)
    case importHAR(ImportHAROptions)
    case importWireMock(ImportWireMockOptions)
    case validate(ValidateOptions)
    case lint(LintOptions)
    case health(HealthOptions)
    /// Print this help text and exit 0.
    case help(String)
    case version
}

/// `mockd --config NAME | --set NAME [...]`
struct ServeOptions: Equatable {
    var config: String?
    var set: String?
    var root: String?
    var port = 8080
    var host = "127.0.0.1"
    var threads: Int?
    var quiet = false
    var controlToken: String?
    var maxSessions = 1000
    var sessionTimeoutSeconds = 1800
    var journalLimit = 10_000
    var connectionMemory = 32 * 1024
    var maxBodyBytes = 32 * 1024 * 1024
    var maxConnections = 10_000
    var connectionTimeoutSeconds = 60
    /// On SIGTERM/SIGINT, how long requests in flight may take to finish, in seconds.
    var shutdownTimeoutSeconds = 5.0
    /// What set the host and port, for error messages: the flag, or `MOCKD_HOST` / `MOCKD_PORT`.
    var hostSource = "--host"
    var portSource = "--port"
    /// `--on-miss proxy`: unmatched requests go to `upstream` instead of getting 404.
    var onMissProxy = false
    /// The shared proxy and TLS flags.
    var upstream = UpstreamOptions()
    /// `--record-misses`: proxied exchanges are recorded into the set `<name>-captured`.
    var recordMisses = false
    var tlsCertificate: String?
    var tlsKey: String?
    var tlsPort: Int?
}

/// `--upstream URL [--upstream-timeout S] [--upstream-insecure] [--upstream-ca FILE]`
struct UpstreamOptions: Equatable {
    /// The origin, normalised without a trailing slash (`https://api.example.com`).
    var origin: String?
    var timeoutSeconds = 30.0
    var insecure = false
    var caFile: String?
}

/// `mockd record --upstream URL --set NAME [...]`
struct RecordOptions: Equatable {
    /// Port, host, threads, TLS, upstream and the other serve flags (`config` and `set` unused).
    var serve = ServeOptions()
    var set = ""
    /// `--har FILE`; default `<root>/recordings/<set>-<UTC timestamp>.har`.
    var har: String?
    var merge = false
    var force = false
}

/// `mockd validate --config NAME | --set NAME [--root DIR]`
struct ValidateOptions: Equatable {
    var config: String?
    var set: String?
    var root: String?
}

/// `mockd import-har FILE --set NAME [...]`
struct ImportHAROptions: Equatable {
    var file: String
    var set: String
    var root: String?
    var hosts: [String] = []
    var matchHeaders: [String]?
    var force = false
    var webSocketTimeScale = 1.0
    var webSocketWaitForClient = false
    var keepSecrets = false
    var keepHeaders: [String] = []
    var dropHeaders: [String] = []
    var ignoreQuery: [String] = []
    var ignoreBodyFields: [String] = []
    var normalizeFile: String?
    var failed = "skip"
    var cors = false
    var flattenHosts = false
    var merge = false
}

/// `mockd lint mocks/NAME | NAME [--root DIR]`
struct LintOptions: Equatable {
    var target: String
    var root: String?
}

/// `mockd import-wiremock DIR_OR_FILE --set NAME [--root DIR] [--force]`
struct ImportWireMockOptions: Equatable {
    var source: String
    var set: String
    var root: String?
    var force = false
}

/// `mockd health [--port N] [--host H] [--timeout S] [--control-token T]`
struct HealthOptions: Equatable {
    var host = "127.0.0.1"
    var port = 8080
    /// Seconds for the whole probe: connect, send, answer.
    var timeoutSeconds = 5.0
    var controlToken: String?
}

/// Parses `mockd`'s arguments (without the program name).
enum Options {
    static var version: String { MockdVersion.current }

    static let help = """
        OVERVIEW: mockd — a local mock HTTP server that replays recorded traffic (HAR) for a named scenario.

        USAGE: mockd --config <name> [--root <dir>] [--port <n>] [--host <addr>] [--threads <n>] [--quiet]
                     [--control-token <t>] [--max-sessions <n>] [--session-timeout <s>] [--journal-limit <n>]
               mockd --set <name> [same options]
               mockd --config <name> --on-miss proxy --upstream <url> [--record-misses] [same options]
               mockd record --upstream <url> --set <name> [--har <file>] [--merge | --force] [same options]
               mockd import-har <file.har> --set <name> [--root <dir>] [--host <host>]... [--force]
               mockd import-wiremock <dir|file.json> --set <name> [--root <dir>] [--force]
               mockd validate --config <name> [--root <dir>]
               mockd lint mocks/<name>
               mockd health [--port <n>] [--host <addr>] [--timeout <s>] [--control-token <t>]

        COMMANDS:
          record                  Reverse-proxy an upstream and record every exchange into a HAR and a mock set
                                  (see `mockd record --help`).
          import-har              Compile a HAR file into a mock set (see `mockd import-har --help`).
          import-wiremock         Turn WireMock stub mappings into a mock set and a scenario (see `mockd import-wiremock --help`).
          validate                Check a scenario and the files it names (see `mockd validate --help`).
          lint                    Find secrets and personal data left in a mock set (see `mockd lint --help`).
          health                  Exit 0 when a running mockd answers its health check (see `mockd health --help`).

        OPTIONS:
          --config <name>         Scenario to serve: configs/<name>.json under the root, or a path to a .json file.
          --set <name>            Serve the mock set mocks/<name>/ alone, without a scenario file.
          --root <dir>            Folder holding mocks/ and configs/. (default: $MOCKD_ROOT, else the current directory)
          --port <n>              TCP port to listen on; 0 picks a free port. (default: 8080)
          --host <addr>           Address to bind; 0.0.0.0 accepts other machines. (default: 127.0.0.1)
          --threads <n>           Worker threads. (default: one per core)
          --quiet                 Do not log a line per request.
          --control-token <t>     Require `Authorization: Bearer <t>` on the control API (/__mockd/*). (default: none)
          --max-sessions <n>      Test sessions kept besides the default one; least recently used go first. (default: 1000)
          --session-timeout <s>   Remove a session idle this many seconds. (default: 1800)
          --journal-limit <n>     Journal entries kept per session; older ones are dropped and counted. (default: 10000)
          --max-header-bytes <b>  Memory per connection for the request line and headers, in bytes; bigger
                                  requests get 431 (414 for a long URL). Raise it for query strings over
                                  ~450 parameters, at some cost per new connection. (default: 32768)
          --max-body <b>          Largest request body in bytes; a bigger one gets 413 without being read.
                                  (default: 33554432, 32 MiB)
          --max-connections <n>   Open connections at most; more are refused at accept. (default: 10000)
          --connection-timeout <s> Close a connection idle this many seconds (slow or stalled clients
                                  included). (default: 60)
          --shutdown-timeout <s>  On SIGTERM or SIGINT, stop accepting connections and give requests in flight
                                  (latency included) this many seconds to finish; 0 cuts them at once. (default: 5)
          --on-miss <proxy|404>   What unmatched requests get: the engine's 404 naming the nearest stubs, or the
                                  upstream's answer (needs --upstream). (default: 404)
          --upstream <url>        The server unmatched requests go to, as an origin: https://api.example.com.
          --upstream-timeout <s>  Whole-exchange limit per upstream request; past it the client gets 504. (default: 30)
          --upstream-insecure     Do not verify the upstream's TLS certificate (a warning is printed).
          --upstream-ca <file>    Also trust the CA certificates in this PEM file for the upstream.
          --record-misses         Record proxied exchanges into the mock set <name>-captured (merged into it when
                                  it exists), written with a HAR on SIGINT/SIGTERM and POST /__mockd/record/flush.
          --tls-cert <file>       Serve HTTPS with this PEM certificate chain (scripts/make-cert makes one).
          --tls-key <file>        The certificate's PEM private key (unencrypted).
          --tls-port <n>          Serve HTTPS on this port and plain HTTP on --port (one engine behind both);
                                  without it --port serves HTTPS alone.
          --version               Show the version.
          -h, --help              Show help information.

        ENVIRONMENT (a flag wins over its variable; an empty value counts as unset):
          MOCKD_CONFIG            Scenario to serve when neither --config nor --set is given.
          MOCKD_ROOT              Folder holding mocks/ and configs/ when --root is not given.
          MOCKD_HOST              Address to bind when --host is not given; `mockd health` probes it.
          MOCKD_PORT              Port when --port is not given; `mockd health` probes it.
          MOCKD_CONTROL_TOKEN     Control API token when --control-token is not given; `mockd health` sends it.

        SIGTERM and SIGINT stop gracefully: new connections are refused, requests in flight are answered for up
        to --shutdown-timeout seconds, then mockd exits 0 (a second signal stops at once).
        SIGHUP reloads the scenario and its mock sets; a broken file leaves the previous version serving.
        Once listening, mockd prints one line to stdout per port, `listening on http://ADDR:PORT` (https:// for
        HTTPS); logs go to stderr, one line per request: method, target, status, stub id, "upstream" or
        "unmatched", duration in ms.
        Exit codes: 0 success, 1 runtime failure, 64 usage error.
        """

    static let recordHelp = """
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
          --control-token <t>     Require `Authorization: Bearer <t>` on /__mockd/*.
          --shutdown-timeout <s>  On SIGINT/SIGTERM, give requests in flight this long before writing. (default: 5)
          --max-body <b>          Largest request body in bytes. (default: 33554432)
          --quiet                 Do not log a line per request.
          -h, --help              Show help information.

        Without --merge or --force an existing set is refused at start, so a recording never overwrites hand
        edits. Control API: GET /__mockd/record (counts), POST /__mockd/record/flush (write now).
        """

    static let healthHelp = """
        OVERVIEW: Ask a running mockd whether it is up: GET /__mockd/health, exit 0 on 200, else 1 with one line
        saying why. For container health checks and CI readiness loops; needs nothing but the mockd binary.

        USAGE: mockd health [--port <n>] [--host <addr>] [--timeout <s>] [--control-token <t>]

        OPTIONS:
          --port <n>              Port of the daemon. (default: $MOCKD_PORT, else 8080)
          --host <addr>           Address of the daemon; 0.0.0.0 and :: mean this machine. (default: $MOCKD_HOST,
                                  else 127.0.0.1)
          --timeout <s>           Seconds for the whole check: connect, ask, read the answer. (default: 5)
          --control-token <t>     Sent as `Authorization: Bearer <t>`. (default: $MOCKD_CONTROL_TOKEN)
          -h, --help              Show help information.
        """

    static let validateHelp = """
        OVERVIEW: Check a scenario (or one mock set) and every file it names, reporting every problem.

        Each problem is one line, `file: JSON path: message`; the exit code is 1 when there is any.

        USAGE: mockd validate --config <name> [--root <dir>]
               mockd validate --set <name> [--root <dir>]

        OPTIONS:
          --config <name>         Scenario to check: configs/<name>.json, its includes and its mock sets.
          --set <name>            Mock set to check: mocks/<name>/index.json and its body files.
          --root <dir>            Folder holding mocks/ and configs/. (default: $MOCKD_ROOT, else the current directory)
          -h, --help              Show help information.
        """

    static let importHelp = """
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
          --ws-time-scale <f>     Multiply recorded WebSocket frame delays by f; 0 sends them at once. (default: 1)
          --ws-wait-for-client    Replay server frames only after the client frame that preceded them in the recording.
          --keep-secrets          Keep secrets and personal data as recorded (no redaction).
          --keep-header <name>    Store this unstable header after all; repeat for several.
          --drop-header <name>    Also leave out this response header; repeat for several.
          --ignore-query <name>   Leave this query parameter out of keys (here and when serving); a trailing *
                                  matches a prefix (utm_*); repeat for several. (`_` is ignored when recorded)
          --ignore-body-field <p> Leave this JSON/form field out of request-body matching: a name (any depth)
                                  or a path like meta.sentAt or items[].id; repeat for several.
          --normalize <file>      Read more rules from a JSON file shaped like a set's "normalize" (see docs/FORMAT.md).
          --failed <skip|keep>    Failed attempts (status 0/-1): leave out, or replay as a connection reset in
                                  their place in the sequence. (default: skip)
          --cors                  Answer CORS preflights the recording lacks with a permissive 204.
          --flatten-hosts         With several hosts, leave hosts out of keys anyway (collisions are reported).
          --merge                 Merge into an existing set: stubs this HAR records are replaced, others (and
                                  hand edits to them) kept.
          -h, --help              Show help information.
        """

    static let lintHelp = """
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

    static let importWireMockHelp = """
        OVERVIEW: Turn WireMock stub mappings into the mock set mocks/<name>/ and the scenario configs/<name>.json.

        Mappings matching an exact method and url only go to the mock set index; every other mapping (url
        patterns, query/header/body matchers, scenario states, priorities, delays, faults) becomes a scenario
        override, with priority = -(WireMock priority) so WireMock's order is kept. bodyFileName resolves in the
        __files/ folder beside mappings/ (never outside it). What mockd cannot reproduce is listed at the end as
        `file: JSON path: reason`. Nothing is written when a file is not JSON, has wrong types or an invalid regex.
        Serve the result with `mockd --config <name>`.

        USAGE: mockd import-wiremock <dir|file.json> --set <name> [--root <dir>] [--force]

        ARGUMENTS:
          <dir|file.json>         A mapping file (one mapping, or {"mappings": [...]}), a WireMock root folder
                                  (mappings/ + __files/), a mappings/ folder, or any folder of *.json mappings.

        OPTIONS:
          --set <name>            Name of the mock set and scenario to write (letters, digits, '.', '_', '-').
          --root <dir>            Folder holding mocks/ and configs/. (default: $MOCKD_ROOT, else the current directory)
          --force                 Replace the mock set and scenario if they exist.
          -h, --help              Show help information.
        """

    /// - Parameter environment: The process environment, for `MOCKD_*` defaults (see `EnvironmentDefaults`).
    /// - Throws: `UsageError` for unknown flags, missing values, contradictions and invalid `MOCKD_*` values.
    static func parse(_ arguments: [String], environment: [String: String] = [:]) throws -> Command {
        if arguments.first == "health" { return try parseHealth(Array(arguments.dropFirst()), environment: environment) }
        if arguments.first == "import-wiremock" { return try parseImportWireMock(Array(arguments.dropFirst())) }
        if arguments.first == "import-har" { return try parseImport(Array(arguments.dropFirst())) }
        if arguments.first == "record" { return try parseRecord(Array(arguments.dropFirst()), environment: environment) }
        if arguments.first == "serve" { return try parseServe(Array(arguments.dropFirst()), environment: environment) }
        if arguments.first == "validate" { return try parseValidate(Array(arguments.dropFirst())) }
        if arguments.first == "lint" { return try parseLint(Array(arguments.dropFirst())) }
        return try parseServe(arguments, environment: environment)
    }

    private static func parseServe(_ arguments: [String], environment: [String: String]) throws -> Command {
        var options = ServeOptions()
        var given: Set<String> = []
        var reader = ArgumentReader(arguments)
        while let argument = reader.next() {
            switch argument {
            case "-h", "--help": return .help(help)
            case "--version": return .version
            case "--config": options.config = try reader.value(for: argument)
            case "--set": options.set = try reader.value(for: argument)
            case "--root": options.root = try reader.value(for: argument)
            case "--port": options.port = try reader.integer(for: argument, in: 0...65535)
            case "--host": options.host = try reader.value(for: argument)
            case "--threads": options.threads = try reader.integer(for: argument, in: 1...1024)
            case "--quiet": options.quiet = true
            case "--control-token": options.controlToken = try reader.value(for: argument)
            case "--max-sessions": options.maxSessions = try reader.integer(for: argument, in: 1...1_000_000)
            case "--session-timeout": options.sessionTimeoutSeconds = try reader.integer(for: argument, in: 1...31_536_000)
            case "--journal-limit": options.journalLimit = try reader.integer(for: argument, in: 1...10_000_000)
            case "--max-header-bytes", "--connection-memory": options.connectionMemory = try reader.integer(for: argument, in: 8192...16_777_216)
            case "--max-body": options.maxBodyBytes = try reader.integer(for: argument, in: 0...4_294_967_296)
            case "--max-connections": options.maxConnections = try reader.integer(for: argument, in: 1...1_000_000)
            case "--connection-timeout": options.connectionTimeoutSeconds = try reader.integer(for: argument, in: 1...86_400)
            case "--shutdown-timeout": options.shutdownTimeoutSeconds = try reader.seconds(for: argument, in: 0...3600)
            case "--on-miss":
                let value = try reader.value(for: argument)
                guard value == "proxy" || value == "404" else { throw UsageError("--on-miss expects proxy or 404, got '\(value)'") }
                options.onMissProxy = value == "proxy"
            case "--record-misses": options.recordMisses = true
            default:
                guard try parseProxyOrTLS(argument, &reader, into: &options) else { throw unknown(argument) }
            }
            given.insert(argument)
        }
        if given.contains("--host") { try EnvironmentDefaults.checkHost(options.host, name: "--host") }
        try EnvironmentDefaults.apply(environment, to: &options, given: given)
        try checkProxyAndTLS(options, given: given, proxying: options.onMissProxy)
        if options.recordMisses, !options.onMissProxy { throw UsageError("--record-misses needs --on-miss proxy") }
        if options.onMissProxy, options.upstream.origin == nil { throw UsageError("--on-miss proxy needs --upstream <url>") }
        switch (options.config, options.set) {
        case (nil, nil): throw UsageError("say what to serve: --config <name> or --set <name>")
        case (.some, .some): throw UsageError("--config and --set cannot be used together")
        default: return .serve(options)
        }
    }

    /// `mockd record --upstream URL --set NAME [...]`
    private static func parseRecord(_ arguments: [String], environment: [String: String]) throws -> Command {
        var options = RecordOptions()
        var set: String?
        var given: Set<String> = []
        var reader = ArgumentReader(arguments)
        while let argument = reader.next() {
            switch argument {
            case "-h", "--help": return .help(recordHelp)
            case "--set": set = try reader.value(for: argument)
            case "--root": options.serve.root = try reader.value(for: argument)
            case "--port": options.serve.port = try reader.integer(for: argument, in: 0...65535)
            case "--host": options.serve.host = try reader.value(for: argument)
            case "--threads": options.serve.threads = try reader.integer(for: argument, in: 1...1024)
            case "--quiet": options.serve.quiet = true
            case "--control-token": options.serve.controlToken = try reader.value(for: argument)
            case "--shutdown-timeout": options.serve.shutdownTimeoutSeconds = try reader.seconds(for: argument, in: 0...3600)
            case "--max-body": options.serve.maxBodyBytes = try reader.integer(for: argument, in: 0...4_294_967_296)
            case "--har": options.har = try reader.value(for: argument)
            case "--merge": options.merge = true
            case "--force": options.force = true
            default:
                guard try parseProxyOrTLS(argument, &reader, into: &options.serve) else { throw unknown(argument) }
            }
            given.insert(argument)
        }
        if given.contains("--host") { try EnvironmentDefaults.checkHost(options.serve.host, name: "--host") }
        try EnvironmentDefaults.apply(environment, to: &options.serve, given: given)
        // MOCKD_CONFIG names a scenario to serve; recording serves none.
        options.serve.config = nil
        guard options.serve.upstream.origin != nil else { throw UsageError("record needs --upstream <url>: the server to record, e.g. https://api.example.com") }
        guard let set else { throw UsageError("record needs --set <name> to name the mock set to write") }
        guard MockdRoot.isValidName(set) else {
            throw UsageError("--set '\(set)' is not a valid mock set name (use letters, digits, '.', '_' and '-')")
        }
        if options.merge, options.force { throw UsageError("--merge and --force cannot be used together") }
        try checkProxyAndTLS(options.serve, given: given, proxying: true)
        options.set = set
        options.serve.set = set
        return .record(options)
    }

    /// The upstream and TLS flags shared by serving and recording; `false` when `argument` is none of them.
    private static func parseProxyOrTLS(_ argument: String, _ reader: inout ArgumentReader, into options: inout ServeOptions) throws -> Bool {
        switch argument {
        case "--upstream": options.upstream.origin = try upstreamOrigin(try reader.value(for: argument))
        case "--upstream-timeout": options.upstream.timeoutSeconds = try reader.seconds(for: argument, in: 0.001...3600)
        case "--upstream-insecure": options.upstream.insecure = true
        case "--upstream-ca": options.upstream.caFile = try reader.value(for: argument)
        case "--tls-cert": options.tlsCertificate = try reader.value(for: argument)
        case "--tls-key": options.tlsKey = try reader.value(for: argument)
        case "--tls-port": options.tlsPort = try reader.integer(for: argument, in: 0...65535)
        default: return false
        }
        return true
    }

    /// Contradictions among the upstream and TLS flags.
    private static func checkProxyAndTLS(_ options: ServeOptions, given: Set<String>, proxying: Bool) throws {
        if !proxying {
            for flag in ["--upstream", "--upstream-timeout", "--upstream-insecure", "--upstream-ca"] where given.contains(flag) {
                throw UsageError("\(flag) needs --on-miss proxy (or mockd record)")
            }
        }
        if options.upstream.insecure, options.upstream.caFile != nil { throw UsageError("--upstream-insecure and --upstream-ca cannot be used together") }
        if (options.tlsCertificate == nil) != (options.tlsKey == nil) { throw UsageError("--tls-cert and --tls-key go together: give both") }
        if options.tlsPort != nil, options.tlsCertificate == nil { throw UsageError("--tls-port needs --tls-cert and --tls-key") }
        if let tlsPort = options.tlsPort, tlsPort != 0, tlsPort == options.port { throw UsageError("--tls-port must differ from --port") }
    }

    /// `https://api.example.com` from `--upstream`: http or https, a host, an optional port, no path.
    static func upstreamOrigin(_ text: String) throws -> String {
        let problem = UsageError("--upstream '\(text)' is not an origin: expected http(s)://host[:port], e.g. https://api.example.com (no path or query)")
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.host, !host.isEmpty, components.user == nil, components.query == nil, components.fragment == nil,
            components.path.isEmpty || components.path == "/"
        else { throw problem }
        let hostPart = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(scheme)://\(hostPart.lowercased())" + (components.port.map { ":\($0)" } ?? "")
    }

    private static func parseValidate(_ arguments: [String]) throws -> Command {
        var options = ValidateOptions()
        var reader = ArgumentReader(arguments)
        while let argument = reader.next() {
            switch argument {
            case "-h", "--help": return .help(validateHelp)
            case "--config": options.config = try reader.value(for: argument)
            case "--set": options.set = try reader.value(for: argument)
            case "--root": options.root = try reader.value(for: argument)
            default: throw unknown(argument)
            }
        }
        guard (options.config == nil) != (options.set == nil) else {
            throw UsageError("validate needs exactly one of --config <name> or --set <name>")
        }
        return .validate(options)
    }

    private static func parseImport(_ arguments: [String]) throws -> Command {
        var file: String?
        var set: String?
        var options = ImportHAROptions(file: "", set: "")
        var reader = ArgumentReader(arguments)
        while let argument = reader.next() {
            switch argument {
            case "-h", "--help": return .help(importHelp)
            case "--set": set = try reader.value(for: argument)
            case "--root": options.root = try reader.value(for: argument)
            case "--host": options.hosts.append(try reader.value(for: argument))
            case "--match-header": options.matchHeaders = (options.matchHeaders ?? []) + [try reader.value(for: argument)]
            case "--force": options.force = true
            case "--ws-time-scale":
                let text = try reader.value(for: argument)
                guard let scale = Double(text), scale >= 0, scale.isFinite else {
                    throw UsageError("--ws-time-scale expects a number ≥ 0, got '\(text)'")
                }
                options.webSocketTimeScale = scale
            case "--ws-wait-for-client": options.webSocketWaitForClient = true
            case "--keep-secrets": options.keepSecrets = true
            case "--keep-header": options.keepHeaders.append(try reader.value(for: argument).lowercased())
            case "--drop-header": options.dropHeaders.append(try reader.value(for: argument).lowercased())
            case "--ignore-query": options.ignoreQuery.append(try reader.value(for: argument))
            case "--ignore-body-field": options.ignoreBodyFields.append(try reader.value(for: argument))
            case "--normalize": options.normalizeFile = try reader.value(for: argument)
            case "--failed":
                let policy = try reader.value(for: argument)
                guard policy == "skip" || policy == "keep" else { throw UsageError("--failed expects skip or keep, got '\(policy)'") }
                options.failed = policy
            case "--cors": options.cors = true
            case "--flatten-hosts": options.flattenHosts = true
            case "--merge": options.merge = true
            default:
                if argument.hasPrefix("-") { throw unknown(argument) }
                guard file == nil else { throw UsageError("import-har takes one HAR file; got '\(file!)' and '\(argument)'") }
                file = argument
            }
        }
        guard let file else { throw UsageError("import-har needs a HAR file: mockd import-har <file.har> --set <name>") }
        guard let set else { throw UsageError("import-har needs --set <name> to name the mock set to write") }
        if options.merge, options.force { throw UsageError("--merge and --force cannot be used together") }
        options.file = file
        options.set = set
        return .importHAR(options)
    }

    private static func parseLint(_ arguments: [String]) throws -> Command {
        var target: String?
        var root: String?
        var reader = ArgumentReader(arguments)
        while let argument = reader.next() {
            switch argument {
            case "-h", "--help": return .help(lintHelp)
            case "--root": root = try reader.value(for: argument)
            default:
                if argument.hasPrefix("-") { throw unknown(argument) }
                guard target == nil else { throw UsageError("lint takes one mock set; got '\(target!)' and '\(argument)'") }
                target = argument
            }
        }
        guard let target else { throw UsageError("lint needs a mock set: mockd lint mocks/<name>") }
        return .lint(LintOptions(target: target, root: root))
    }

    private static func parseImportWireMock(_ arguments: [String]) throws -> Command {
        var source: String?
        var options = ImportWireMockOptions(source: "", set: "")
        var set: String?
        var reader = ArgumentReader(arguments)
        while let argument = reader.next() {
            switch argument {
            case "-h", "--help": return .help(importWireMockHelp)
            case "--set": set = try reader.value(for: argument)
            case "--root": options.root = try reader.value(for: argument)
            case "--force": options.force = true
            default:
                if argument.hasPrefix("-") { throw unknown(argument) }
                guard source == nil else { throw UsageError("import-wiremock takes one folder or file; got '\(source!)' and '\(argument)'") }
                source = argument
            }
        }
        guard let source else {
            throw UsageError("import-wiremock needs a WireMock folder or mapping file: mockd import-wiremock <dir|file.json> --set <name>")
        }
        guard let set else { throw UsageError("import-wiremock needs --set <name> to name the mock set and scenario to write") }
        options.source = source
        options.set = set
        return .importWireMock(options)
    }

    private static func parseHealth(_ arguments: [String], environment: [String: String]) throws -> Command {
        var options = HealthOptions()
        var given: Set<String> = []
        var reader = ArgumentReader(arguments)
        while let argument = reader.next() {
            switch argument {
            case "-h", "--help": return .help(healthHelp)
            case "--port": options.port = try reader.integer(for: argument, in: 1...65535)
            case "--host": options.host = try reader.value(for: argument)
            case "--timeout": options.timeoutSeconds = try reader.seconds(for: argument, in: 0.001...3600)
            case "--control-token": options.controlToken = try reader.value(for: argument)
            default: throw unknown(argument)
            }
            given.insert(argument)
        }
        if given.contains("--host") { try EnvironmentDefaults.checkHost(options.host, name: "--host") }
        try EnvironmentDefaults.apply(environment, to: &options, given: given)
        return .health(options)
    }

    private static func unknown(_ argument: String) -> UsageError {
        argument.hasPrefix("-") ? UsageError("unknown option '\(argument)'") : UsageError("unexpected argument '\(argument)'")
    }
}
