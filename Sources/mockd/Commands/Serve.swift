import Foundation
import MockdCore
import MockdPlatform
import MockdServer

/// `mockd --config NAME` / `mockd --set NAME` (also `mockd serve …`): serve a scenario, or one mock set, until
/// SIGINT or SIGTERM, then stop gracefully. The default command: its help is the top-level help.
struct Serve: MockdCommand, Equatable {
    /// `--config`: the scenario, `configs/<name>.json` under the root or a path to a `.json` file.
    var config: String?
    /// `--set`: one mock set, served alone.
    var set: String?
    /// Port, host, threads, control token, body limit, shutdown timeout, upstream, TLS: shared with `record`.
    var server = ServerFlags()
    var limits = ServeLimits()
    /// `--on-miss proxy`: unmatched requests go to `--upstream` instead of getting 404.
    var onMissProxy = false
    /// `--record-misses`: proxied exchanges are recorded into the set `<name>-captured`.
    var recordMisses = false

    static let name = "serve"
    static let abstract: String? = nil
    static let synopsis = [
        "mockd --config <name> [--root <dir>] [--port <n>] [--host <addr>] [--threads <n>] [--quiet]",
        "      [--control-token <t>] [--max-sessions <n>] [--session-timeout <s>] [--journal-limit <n>]",
        "mockd --set <name> [same options]",
        "mockd --config <name> --on-miss proxy --upstream <url> [--record-misses] [same options]",
    ]

    /// `mockd --help`: this overview, USAGE and COMMANDS from `Mockd.commands`, then serve's options.
    static var help: String {
        [overview, Mockd.usageSection, Mockd.commandsSection, optionsSection].joined(separator: "\n\n")
    }

    static let overview =
        "OVERVIEW: mockd — a local mock HTTP server that replays recorded traffic (HAR) for a named scenario."

    /// OPTIONS, ENVIRONMENT and the notes on signals, output and exit codes.
    static let optionsSection = """
        OPTIONS:
          --config <name>         Scenario to serve: configs/<name>.json under the root, or a path to a .json file.
          --set <name>            Serve the mock set mocks/<name>/ alone, without a scenario file.
          --root <dir>            Folder holding mocks/ and configs/. (default: $MOCKD_ROOT, else the current directory)
          --port <n>              TCP port to listen on; 0 picks a free port. (default: 8080)
          --host <addr>           Address to bind; 0.0.0.0 accepts other machines. (default: 127.0.0.1)
          --threads <n>           Worker threads. (default: one per core)
          --quiet                 Do not log a line per request.
          --control-token <t>     Require `Authorization: Bearer <t>` on the control API (/__mockd/*); at least 16
                                  visible characters. (default: none; required with a non-loopback --host)
          --insecure-control      Serve the control API without a token on a non-loopback --host, knowingly.
          --summary <file>        At shutdown, write every session's coverage (stubs and overrides never used) as
                                  JSON to <file>, and one line saying how many.
          --max-sessions <n>      Test sessions kept besides the default one; least recently used go first. (default: 1000)
          --session-timeout <s>   Remove a session idle this many seconds. (default: 1800)
          --journal-limit <n>     Journal entries kept per session; older ones are dropped and counted. (default: 10000)
          --openapi <spec>        Check every request and the answer it got against this OpenAPI document:
                                  contractViolations in the journal, GET /__mockd/contract, verify with
                                  "contract": true. (default: none)
          --max-header-bytes <b>  Memory per connection for the request line and headers, in bytes; bigger
                                  requests get 431 (414 for a long URL). Raise it for query strings over
                                  ~450 parameters, at some cost per new connection. (default: 32768)
          --max-body <b>          Largest request body in bytes; a bigger one gets 413 without being read.
                                  (default: 33554432, 32 MiB)
          --max-connections <n>   Open connections at most; more are refused at accept. (default: 10000)
          --connection-timeout <s> Close a connection idle this many seconds, whose request (head and body) has
                                  not arrived whole within it, or whose client takes none of its answer for that
                                  long; a pause of mockd itself does not count. (default: 60)
          --shutdown-timeout <s>  On SIGTERM or SIGINT, stop accepting connections and give requests in flight
                                  (latency included) this many seconds to finish; 0 cuts them at once. (default: 5)
          --stop-on-stdin-eof     Stop as on SIGTERM when standard input ends: a parent that starts mockd with a
                                  pipe (MockdTestKit's MockdDaemon does) never leaves it running after it exits,
                                  crashes or is killed.
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
          --webhook-allow <host>  Let webhooks (emit[].webhook) reach this host (host or host:port; repeat it, or
                                  give a comma list) besides loopback addresses. (default: loopback only)
          --version               Show the version.
          -h, --help              Show help information.

        ENVIRONMENT (a flag wins over its variable; an empty value counts as unset):
          MOCKD_CONFIG            Scenario to serve when neither --config nor --set is given.
          MOCKD_ROOT              Folder holding mocks/ and configs/ when --root is not given.
          MOCKD_HOST              Address to bind when --host is not given; `mockd health` probes it.
          MOCKD_PORT              Port when --port is not given; `mockd health` probes it.
          MOCKD_CONTROL_TOKEN     Control API token when --control-token is not given; `mockd health` sends it.
                                  Set but empty is an error (a missing CI secret), not "no token".
          MOCKD_INSECURE_CONTROL  1: --insecure-control (the container image sets it: a CI job's network is its own).
          MOCKD_WEBHOOK_ALLOW     Hosts for --webhook-allow, comma-separated, when the flag is not given.

        SIGTERM and SIGINT stop gracefully: new connections are refused, requests in flight are answered for up
        to --shutdown-timeout seconds, then mockd exits 0 (a second signal stops at once).
        SIGHUP reloads the scenario and its mock sets; a broken file leaves the previous version serving.
        Once listening, mockd prints one line to stdout per port, `listening on http://ADDR:PORT` (https:// for
        HTTPS); logs go to stderr, one line per request: method, target, status, stub id, "upstream" or
        "unmatched", duration in ms.
        Exit codes: 0 success, 1 runtime failure, 64 usage error.
        """

    /// The hosts of a `--webhook-allow` value (or `MOCKD_WEBHOOK_ALLOW`): comma-separated `host` or `host:port`
    /// entries (`[::1]:9000` for IPv6), each checked.
    /// - Throws: `UsageError` naming `source` for an entry that is not a host with an optional port.
    static func webhookHosts(_ text: String, from source: String) throws -> [String] {
        try text.split(separator: ",").map { part in
            let entry = part.trimmingCharacters(in: .whitespaces).lowercased()
            // Read as the authority of a URL: a host and an optional port, nothing else.
            guard let components = URLComponents(string: "http://" + entry), let host = components.host,
                !host.isEmpty, components.user == nil, components.password == nil, components.path.isEmpty,
                components.query == nil, components.fragment == nil,
                components.port.map({ (1...65535).contains($0) }) ?? !entry.hasSuffix(":")
            else {
                throw UsageError(
                    "\(source) '\(entry)' is not a host or host:port (e.g. hooks.test.internal or 10.0.0.5:9000)"
                )
            }
            return entry
        }
    }

    static func parse(_ arguments: [String], environment: [String: String]) throws -> Serve {
        var serve = Serve()
        var reader = ArgumentReader(arguments)
        while let argument = try reader.next() {
            switch argument {
            case "--version": throw InformationRequest.version
            case "--config": serve.config = try reader.value(for: argument)
            case "--set": serve.set = try reader.value(for: argument)
            case "--on-miss":
                let value = try reader.value(for: argument)
                guard value == "proxy" || value == "404" else {
                    throw UsageError("--on-miss expects proxy or 404, got '\(value)'")
                }
                serve.onMissProxy = value == "proxy"
            case "--record-misses": serve.recordMisses = true
            case "--webhook-allow":
                serve.server.webhookAllow += try Self.webhookHosts(reader.value(for: argument), from: argument)
            default:
                guard try serve.server.parse(argument, from: &reader) || serve.limits.parse(argument, from: &reader)
                else {
                    throw UsageError.unknown(argument)
                }
            }
        }
        if serve.config == nil, serve.set == nil { serve.config = EnvironmentDefaults.config(in: environment) }
        if !reader.seen.contains("--webhook-allow"), let text = environment["MOCKD_WEBHOOK_ALLOW"], !text.isEmpty {
            serve.server.webhookAllow = try Self.webhookHosts(text, from: "MOCKD_WEBHOOK_ALLOW")
        }
        try serve.server.applyDefaults(from: environment, given: reader.seen)
        try serve.server.checkProxyAndTLS(given: reader.seen, proxying: serve.onMissProxy)
        if serve.recordMisses, !serve.onMissProxy { throw UsageError("--record-misses needs --on-miss proxy") }
        if serve.onMissProxy, serve.server.upstream.origin == nil {
            throw UsageError("--on-miss proxy needs --upstream <url>")
        }
        switch (serve.config, serve.set) {
        case (nil, nil): throw UsageError("say what to serve: --config <name> or --set <name>")
        case (.some, .some): throw UsageError("--config and --set cannot be used together")
        default: return serve
        }
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
        let scenario: Scenario
        do {
            scenario = try load(root: root)
        } catch {
            Output.errorLines(error)
            return .failure
        }

        var recorder: Recorder?
        if recordMisses {
            let set = scenario.name + "-captured"
            guard MockdRoot.isValidName(set) else {
                Output.error(
                    "mockd: --record-misses: '\(set)' is not a valid mock set name; serve the scenario by name (--config NAME)"
                )
                return .failure
            }
            recorder = Record.makeRecorder(
                set: set,
                root: root,
                harURL: Record.defaultHAR(root: root, set: set),
                existing: .merge,
                upstream: server.upstream.origin ?? ""
            )
        }
        let stubCount = scenario.index.stubs.count
        let stubs = "\(stubCount) stub\(stubCount == 1 ? "" : "s")"
        var banner =
            scenario.isSingleSet
            ? "mockd: set '\(scenario.name)', \(stubs)"
            : "mockd: scenario '\(scenario.name)' (sets: \(scenario.sets.joined(separator: ", "))), \(stubs)"
        if onMissProxy, let origin = server.upstream.origin {
            banner += "; unmatched requests go to \(origin)"
            if let recorder { banner += ", recorded into mocks/\(recorder.set)/ (HAR: \(recorder.harDisplay))" }
        }
        // Overrides kept from answering by others (`mockd validate` lists them); skipped for very large scenarios,
        // where the pairwise check would hold the start up.
        if let config, scenario.overrides.count <= 1000 {
            let shadowed = scenario.shadowWarnings().count
            if shadowed > 0 {
                Output.error(
                    "mockd: warning: \(shadowed) override\(shadowed == 1 ? "" : "s") can never answer or lose\(shadowed == 1 ? "s" : "") requests to a later one of the same priority; mockd validate --config \(config) lists them"
                )
            }
        }
        return ServerLifecycle.run(
            server,
            limits: limits,
            proxying: onMissProxy,
            scenario: scenario,
            root: root,
            loader: { [self] in try load(root: root) },
            recorder: recorder,
            banner: banner + "; Ctrl-C to stop"
        )
    }

    /// The scenario `--config` names, or one made of the `--set` alone.
    /// - Throws: `ConfigError` (or `ConfigErrors`) naming the file and JSON path.
    func load(root: MockdRoot) throws -> Scenario {
        defer {
            // Parsing a large index leaves megabytes of freed buffers in malloc's arenas; hand them back once the
            // decoded index is released (on another thread), so the daemon's resident size reflects what it keeps.
            DispatchQueue.global(qos: .utility).async {
                MockSetLoader.waitForReleases()
                ProcessMemory.returnFreedMemory()
            }
        }
        if let config { return try Scenario.load(named: config, root: root) }
        return try Scenario.single(set: set!, root: root)
    }
}
