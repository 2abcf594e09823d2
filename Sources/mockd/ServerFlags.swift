import Foundation

/// The flags `serve` and `record` share: where the server listens, how it runs, its upstream and its TLS.
/// Both commands parse them here, so a shared flag has the same name, range and message in both.
struct ServerFlags: Equatable {
    /// `--root`: the folder holding `mocks/` and `configs/`; `nil` is `$MOCKD_ROOT`, else the current directory.
    var root: String?
    var port = 8080
    var host = "127.0.0.1"
    /// Worker threads; `nil` is one per core.
    var threads: Int?
    /// No line per request.
    var quiet = false
    var controlToken: String?
    /// `--insecure-control` (or `MOCKD_INSECURE_CONTROL=1`): serve the control API without a token on a non-loopback
    /// address, knowingly (a CI job's private network).
    var insecureControl = false
    /// `--summary FILE`: at shutdown, the coverage of every session (stubs and overrides never used) as JSON.
    var summaryFile: String?
    /// Largest request body, in bytes.
    var maxBodyBytes = 32 * 1024 * 1024
    /// On SIGTERM/SIGINT, how long requests in flight may take to finish, in seconds.
    var shutdownTimeoutSeconds = 5.0
    /// `--stop-on-stdin-eof`: stop as on SIGTERM when standard input ends (the parent that holds its other end
    /// exited, crashed or closed it).
    var stopOnStdinEOF = false
    /// What set the host and port, for error messages: the flag, or `MOCKD_HOST` / `MOCKD_PORT`.
    var hostSource = "--host"
    var portSource = "--port"
    var upstream = UpstreamFlags()
    /// `--tls-cert` and `--tls-key`: PEM file paths, both or neither.
    var tlsCertificate: String?
    var tlsKey: String?
    /// `--tls-port`: HTTPS here and plain HTTP on `port`; `nil` serves HTTPS on `port` alone (with TLS).
    var tlsPort: Int?
    /// `--openapi`: the OpenAPI document requests are checked against when the journal is read.
    var openAPI: String?
    /// `--webhook-allow` (serve only): hosts webhooks may reach besides loopback addresses, `host` or `host:port`.
    var webhookAllow: [String] = []

    /// Reads `flag` and its value when it is one of the shared flags.
    /// - Returns: `false` when `flag` is not a shared flag (nothing was read).
    /// - Throws: `UsageError` for a missing or out-of-range value.
    mutating func parse(_ flag: String, from reader: inout ArgumentReader) throws -> Bool {
        switch flag {
        case "--root": root = try reader.value(for: flag)
        case "--port": port = try reader.integer(for: flag, in: 0...65535)
        case "--host": host = try reader.value(for: flag)
        case "--threads": threads = try reader.integer(for: flag, in: 1...1024)
        case "--quiet": quiet = true
        case "--control-token": controlToken = try ControlTokenRule.checked(reader.value(for: flag), source: flag)
        case "--insecure-control": insecureControl = true
        case "--summary": summaryFile = try reader.value(for: flag)
        case "--shutdown-timeout": shutdownTimeoutSeconds = try reader.seconds(for: flag, in: 0...3600)
        case "--stop-on-stdin-eof": stopOnStdinEOF = true
        case "--max-body": maxBodyBytes = try reader.integer(for: flag, in: 0...4_294_967_296)
        case "--upstream": upstream.origin = try Self.upstreamOrigin(try reader.value(for: flag))
        case "--upstream-timeout": upstream.timeoutSeconds = try reader.seconds(for: flag, in: 0.001...3600)
        case "--upstream-insecure": upstream.insecure = true
        case "--upstream-ca": upstream.caFile = try reader.value(for: flag)
        case "--tls-cert": tlsCertificate = try reader.value(for: flag)
        case "--tls-key": tlsKey = try reader.value(for: flag)
        case "--tls-port": tlsPort = try reader.integer(for: flag, in: 0...65535)
        case "--openapi": openAPI = try reader.value(for: flag)
        default: return false
        }
        return true
    }

    /// Once every flag is read: checks `--host`, then fills host, port and control token from `MOCKD_*`
    /// where the command line left them unset.
    /// - Parameter given: The flags on the command line (`ArgumentReader.seen`).
    /// - Throws: `UsageError` naming `--host` or the variable.
    mutating func applyDefaults(from environment: [String: String], given: Set<String>) throws {
        if given.contains("--host") { try EnvironmentDefaults.checkHost(host, name: "--host") }
        try EnvironmentDefaults.apply(environment, to: &self, given: given)
        if !ServerLifecycle.isLoopback(host), controlToken == nil, !insecureControl {
            throw UsageError(
                "\(hostSource) \(host) opens the control API (/__mockd/) to the network: give --control-token <t> (or MOCKD_CONTROL_TOKEN), or --insecure-control (MOCKD_INSECURE_CONTROL=1) to serve it without one"
            )
        }
    }

    /// Contradictions among the upstream and TLS flags.
    /// - Parameter proxying: Whether requests go upstream (`--on-miss proxy`, `record`); without it the
    ///   upstream flags are refused.
    /// - Throws: `UsageError` naming the flags.
    func checkProxyAndTLS(given: Set<String>, proxying: Bool) throws {
        if !proxying {
            for flag in ["--upstream", "--upstream-timeout", "--upstream-insecure", "--upstream-ca"]
            where given.contains(flag) {
                throw UsageError("\(flag) needs --on-miss proxy (or mockd record)")
            }
        }
        if upstream.insecure, upstream.caFile != nil {
            throw UsageError("--upstream-insecure and --upstream-ca cannot be used together")
        }
        if (tlsCertificate == nil) != (tlsKey == nil) {
            throw UsageError("--tls-cert and --tls-key go together: give both")
        }
        if tlsPort != nil, tlsCertificate == nil { throw UsageError("--tls-port needs --tls-cert and --tls-key") }
        if let tlsPort, tlsPort != 0, tlsPort == port { throw UsageError("--tls-port must differ from --port") }
    }

    /// `https://api.example.com` from `--upstream`: http or https, a host, an optional port, no path.
    /// - Returns: The origin with scheme and host lower-cased, an IPv6 host in brackets, no trailing slash.
    /// - Throws: `UsageError` for anything else.
    static func upstreamOrigin(_ text: String) throws -> String {
        let problem = UsageError(
            "--upstream '\(text)' is not an origin: expected http(s)://host[:port], e.g. https://api.example.com (no path or query)"
        )
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https",
            let host = components.host, !host.isEmpty, components.user == nil, components.query == nil,
            components.fragment == nil,
            components.path.isEmpty || components.path == "/"
        else { throw problem }
        let hostPart = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(scheme)://\(hostPart.lowercased())" + (components.port.map { ":\($0)" } ?? "")
    }
}

/// `--upstream URL [--upstream-timeout S] [--upstream-insecure] [--upstream-ca FILE]`
struct UpstreamFlags: Equatable {
    /// The origin, normalised without a trailing slash (`https://api.example.com`).
    var origin: String?
    var timeoutSeconds = 30.0
    var insecure = false
    var caFile: String?
}

/// The limits only `serve` takes as flags; `record` runs with these defaults.
struct ServeLimits: Equatable {
    /// Test sessions kept besides the default one.
    var maxSessions = 1000
    var sessionTimeoutSeconds = 1800
    /// Journal entries kept per session.
    var journalLimit = 10_000
    /// Memory per connection for the request line and headers, in bytes.
    var maxHeaderBytes = 32 * 1024
    var maxConnections = 10_000
    /// Idle seconds before a connection is closed.
    var connectionTimeoutSeconds = 60

    /// Reads `flag` and its value when it is one of the limits.
    /// - Returns: `false` when `flag` is not a limit (nothing was read).
    /// - Throws: `UsageError` for a missing or out-of-range value, and for `--connection-memory`.
    mutating func parse(_ flag: String, from reader: inout ArgumentReader) throws -> Bool {
        switch flag {
        case "--max-sessions": maxSessions = try reader.integer(for: flag, in: 1...1_000_000)
        case "--session-timeout": sessionTimeoutSeconds = try reader.integer(for: flag, in: 1...31_536_000)
        case "--journal-limit": journalLimit = try reader.integer(for: flag, in: 1...10_000_000)
        case "--max-header-bytes": maxHeaderBytes = try reader.integer(for: flag, in: 8192...16_777_216)
        // Its old, undocumented name: refused, naming the one that help and README document.
        case "--connection-memory": throw UsageError("unknown option '--connection-memory': use --max-header-bytes <b>")
        case "--max-connections": maxConnections = try reader.integer(for: flag, in: 1...1_000_000)
        case "--connection-timeout": connectionTimeoutSeconds = try reader.integer(for: flag, in: 1...86_400)
        default: return false
        }
        return true
    }
}
