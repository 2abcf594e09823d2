import Foundation
import Testing

@testable import mockd

/// `mockd`'s command line parsed in process: each command's options, environment defaults, `--name=value`,
/// help and version requests, and every usage error's exact message. (`HelpTextTests` pins the help texts;
/// `CLITests` runs the binary for exit codes and output.)
struct CommandLineParsingTests {
    /// Parses as `Mockd.main` does: the command the first argument names (else `serve`), then its options.
    static func parse(_ arguments: [String], environment: [String: String] = [:]) throws -> any MockdCommand {
        let (command, rest) = Mockd.select(arguments)
        return try command.parse(rest, environment: environment)
    }

    // MARK: Dispatch and the command table

    @Test func theFirstArgumentNamesTheCommandElseItIsServe() throws {
        #expect(Mockd.select(["--config", "a"]).command.name == Serve.name)
        #expect(Mockd.select(["--config", "a"]).arguments == ["--config", "a"])
        #expect(Mockd.select(["serve", "--config", "a"]).arguments == ["--config", "a"])
        #expect(Mockd.select([]).command.name == Serve.name)
        // A command's name is only a command in first place.
        #expect(Mockd.select(["--config", "record"]).command.name == Serve.name)
        for command in Mockd.commands {
            let selected = Mockd.select([command.name, "--x"])
            #expect(selected.command.name == command.name)
            #expect(selected.arguments == ["--x"])
        }
    }

    @Test func commandNamesAreUniqueAndOnlyTheDefaultHasNoAbstract() {
        let names = Mockd.commands.map { $0.name }
        #expect(Set(names).count == names.count)
        #expect(Mockd.commands.filter { $0.abstract == nil }.map { $0.name } == [Mockd.defaultCommand.name])
    }

    /// COMMANDS is generated from `Mockd.commands`: every command but the default one (whose help this is)
    /// has its line, in table order, pointing to its own help.
    @Test func everyCommandInTheTableIsInTheTopLevelHelp() throws {
        let help = Serve.help
        let commands = try #require(help.range(of: "\nCOMMANDS:\n"))
        let section = String(help[commands.upperBound...]).components(separatedBy: "\n\n")[0]
        // Entry lines start `  name`; a wrapped pointer continues at column 26.
        let listed = section.split(separator: "\n").filter { !$0.hasPrefix("   ") }.map {
            String($0.split(separator: " ")[0])
        }
        let expected = Mockd.commands.filter { $0.abstract != nil }.map { $0.name }
        #expect(listed == expected)
        for command in Mockd.commands where command.abstract != nil {
            #expect(section.contains("(see `mockd \(command.name) --help`)."))
        }
        for line in Mockd.commands.flatMap({ $0.synopsis }) {
            #expect(help.contains(line), "USAGE lacks: \(line)")
        }
    }

    @Test func everyCommandHasOverviewUsageAndHelpFlagInItsHelp() {
        for command in Mockd.commands {
            #expect(command.help.hasPrefix("OVERVIEW: "), "\(command.name)")
            #expect(command.help.contains("\nUSAGE: mockd"), "\(command.name)")
            #expect(command.help.contains("\n  -h, --help              Show help information."), "\(command.name)")
            #expect(command.help.split(separator: "\n").allSatisfy { $0.count <= Mockd.helpWidth }, "\(command.name)")
        }
    }

    // MARK: Help and version

    @Test(arguments: ["-h", "--help", "--help=x"])
    func helpIsAskedForByEveryCommand(_ flag: String) throws {
        for command in Mockd.commands {
            #expect(throws: InformationRequest.help) { try command.parse([flag], environment: [:]) }
            // Flags before it still count; after it nothing is read.
            #expect(throws: InformationRequest.help) { try command.parse([flag, "--bogus"], environment: [:]) }
        }
        #expect(throws: UsageError("unknown option '--bogus'")) { try Self.parse(["--bogus", flag]) }
        #expect(throws: UsageError("--port expects a whole number in 0–65535, got 'x'")) {
            try Self.parse(["--port", "x", flag])
        }
    }

    @Test func onlyServeAnswersVersion() throws {
        #expect(throws: InformationRequest.version) { try Self.parse(["--version"]) }
        #expect(throws: InformationRequest.version) { try Self.parse(["serve", "--config", "a", "--version"]) }
        #expect(throws: UsageError("unknown option '--version'")) { try Self.parse(["validate", "--version"]) }
    }

    // MARK: serve and record

    /// Every flag the two commands share, in both spellings of a value.
    static let sharedFlags = [
        "--root", "/srv/mocks", "--port", "0", "--host", "::1", "--threads", "3", "--quiet", "--control-token",
        "t0k-0123456789abc",
        "--shutdown-timeout", "0.5", "--max-body", "1024", "--upstream", "HTTPS://API.Example.com:8443/",
        "--upstream-timeout", "2.5", "--upstream-ca", "ca.pem", "--tls-cert", "c.pem", "--tls-key", "k.pem",
        "--tls-port", "8443",
    ]
    static let sharedFlagsWithEquals = [
        "--root=/srv/mocks", "--port=0", "--host=::1", "--threads=3", "--quiet", "--control-token=t0k-0123456789abc",
        "--shutdown-timeout=0.5", "--max-body=1024", "--upstream=HTTPS://API.Example.com:8443/",
        "--upstream-timeout=2.5", "--upstream-ca=ca.pem", "--tls-cert=c.pem", "--tls-key=k.pem", "--tls-port=8443",
    ]
    static let sharedParsed = ServerFlags(
        root: "/srv/mocks",
        port: 0,
        host: "::1",
        threads: 3,
        quiet: true,
        controlToken: "t0k-0123456789abc",
        maxBodyBytes: 1024,
        shutdownTimeoutSeconds: 0.5,
        upstream: UpstreamFlags(origin: "https://api.example.com:8443", timeoutSeconds: 2.5, caFile: "ca.pem"),
        tlsCertificate: "c.pem",
        tlsKey: "k.pem",
        tlsPort: 8443
    )

    @Test(arguments: [sharedFlags, sharedFlagsWithEquals])
    func serveAndRecordParseTheSharedFlagsAlike(_ flags: [String]) throws {
        let serve = try Serve.parse(["--config", "a", "--on-miss", "proxy"] + flags, environment: [:])
        let record = try Record.parse(["--set", "s"] + flags, environment: [:])
        #expect(serve == Serve(config: "a", server: Self.sharedParsed, onMissProxy: true))
        #expect(record == Record(server: Self.sharedParsed, set: "s"))
    }

    @Test func serveDefaults() throws {
        #expect(try Serve.parse(["--config", "chat_happy_path"], environment: [:]) == Serve(config: "chat_happy_path"))
        #expect(try Serve.parse(["--set", "chat"], environment: [:]) == Serve(set: "chat"))
        let defaults = Serve(config: "a")
        #expect(
            defaults.server
                == ServerFlags(port: 8080, host: "127.0.0.1", maxBodyBytes: 33_554_432, shutdownTimeoutSeconds: 5)
        )
        #expect(
            defaults.limits
                == ServeLimits(
                    maxSessions: 1000,
                    sessionTimeoutSeconds: 1800,
                    journalLimit: 10_000,
                    maxHeaderBytes: 32768,
                    maxConnections: 10_000,
                    connectionTimeoutSeconds: 60
                )
        )
        #expect(
            defaults.server.upstream == UpstreamFlags(origin: nil, timeoutSeconds: 30, insecure: false, caFile: nil)
        )
    }

    @Test func serveOnlyFlags() throws {
        let serve = try Serve.parse(
            [
                "--config", "chat", "--max-sessions", "5", "--session-timeout", "60", "--journal-limit=100",
                "--max-header-bytes", "65536",
                "--max-connections", "50", "--connection-timeout", "2", "--on-miss", "proxy", "--upstream",
                "http://127.0.0.1:9",
                "--upstream-insecure", "--record-misses",
            ],
            environment: [:]
        )
        let limits = ServeLimits(
            maxSessions: 5,
            sessionTimeoutSeconds: 60,
            journalLimit: 100,
            maxHeaderBytes: 65536,
            maxConnections: 50,
            connectionTimeoutSeconds: 2
        )
        let upstream = UpstreamFlags(origin: "http://127.0.0.1:9", insecure: true)
        #expect(
            serve
                == Serve(
                    config: "chat",
                    server: ServerFlags(upstream: upstream),
                    limits: limits,
                    onMissProxy: true,
                    recordMisses: true
                )
        )
        #expect(try Serve.parse(["--set", "s", "--on-miss", "404"], environment: [:]) == Serve(set: "s"))
        #expect(
            try Serve.parse(
                ["--config", "a", "--tls-cert", "c", "--tls-key", "k", "--tls-port", "0", "--port", "0"],
                environment: [:]
            ).server.tlsPort == 0
        )
    }

    @Test func recordOptions() throws {
        let record = try Record.parse(
            ["--upstream", "http://[::1]:9000", "--set", "api", "--har", "r.har", "--merge"],
            environment: [:]
        )
        #expect(
            record
                == Record(
                    server: ServerFlags(upstream: UpstreamFlags(origin: "http://[::1]:9000")),
                    set: "api",
                    har: "r.har",
                    merge: true
                )
        )
        #expect(try Record.parse(["--upstream", "https://x", "--set", "api", "--force"], environment: [:]).force)
    }

    // MARK: Environment defaults

    static let environment = [
        "MOCKD_CONFIG": "from_env", "MOCKD_HOST": "0.0.0.0", "MOCKD_PORT": "9090",
        "MOCKD_CONTROL_TOKEN": "env-token-0123456789",
    ]

    @Test func variablesFillWhatTheFlagsLeaveUnset() throws {
        let serve = try Serve.parse([], environment: Self.environment)
        let server = ServerFlags(
            port: 9090,
            host: "0.0.0.0",
            controlToken: "env-token-0123456789",
            hostSource: "MOCKD_HOST",
            portSource: "MOCKD_PORT"
        )
        #expect(serve == Serve(config: "from_env", server: server))
    }

    @Test func flagsWinOverVariablesAndSetOverridesConfig() throws {
        let serve = try Serve.parse(
            ["--set", "shop", "--host", "127.0.0.2", "--port=1", "--control-token", "flag-0123456789ab"],
            environment: Self.environment
        )
        #expect(
            serve
                == Serve(
                    set: "shop",
                    server: ServerFlags(port: 1, host: "127.0.0.2", controlToken: "flag-0123456789ab")
                )
        )
        #expect(try Serve.parse(["--config", "flag"], environment: Self.environment).config == "flag")
    }

    @Test func emptyVariablesCountAsUnset() throws {
        let empty = ["MOCKD_CONFIG": "", "MOCKD_HOST": "", "MOCKD_PORT": ""]
        #expect(try Serve.parse(["--set", "chat"], environment: empty) == Serve(set: "chat"))
        #expect(try HealthCheck.parse([], environment: empty) == HealthCheck())
    }

    @Test func recordReadsTheServerVariablesButNotTheScenario() throws {
        let record = try Record.parse(["--upstream", "http://x", "--set", "s"], environment: Self.environment)
        let server = ServerFlags(
            port: 9090,
            host: "0.0.0.0",
            controlToken: "env-token-0123456789",
            hostSource: "MOCKD_HOST",
            portSource: "MOCKD_PORT",
            upstream: UpstreamFlags(origin: "http://x")
        )
        #expect(record == Record(server: server, set: "s"))
    }

    @Test func healthProbesWhatTheVariablesName() throws {
        #expect(
            try HealthCheck.parse([], environment: Self.environment)
                == HealthCheck(host: "0.0.0.0", port: 9090, controlToken: "env-token-0123456789")
        )
        let flags = try HealthCheck.parse(
            ["--host=::1", "--port", "1", "--timeout", "0.25", "--control-token", "f-0123456789abcde"],
            environment: Self.environment
        )
        #expect(flags == HealthCheck(host: "::1", port: 1, timeoutSeconds: 0.25, controlToken: "f-0123456789abcde"))
        #expect(
            try HealthCheck.parse([], environment: [:])
                == HealthCheck(host: "127.0.0.1", port: 8080, timeoutSeconds: 5, controlToken: nil)
        )
    }

    // MARK: The other commands

    @Test func importHAROptions() throws {
        let parsed = try ImportHAR.parse(
            [
                "app.har", "--set=api", "--root", "/r", "--host", "api.example.com", "--host", "cdn.example.com:8443",
                "--match-header", "Accept", "--match-header", "X-Client", "--ws-time-scale", "0.5",
                "--ws-wait-for-client",
                "--keep-secrets", "--keep-header", "Date", "--drop-header", "X-Served-By", "--ignore-query", "utm_*",
                "--ignore-body-field", "meta.sentAt", "--normalize", "rules.json", "--failed", "keep", "--cors",
                "--flatten-hosts",
                "--merge",
            ],
            environment: [:]
        )
        let expected = ImportHAR(
            file: "app.har",
            set: "api",
            root: "/r",
            hosts: ["api.example.com", "cdn.example.com:8443"],
            matchHeaders: ["Accept", "X-Client"],
            webSocketTimeScale: 0.5,
            webSocketWaitForClient: true,
            keepSecrets: true,
            keepHeaders: ["date"],
            dropHeaders: ["x-served-by"],
            ignoreQuery: ["utm_*"],
            ignoreBodyFields: ["meta.sentAt"],
            normalizeFile: "rules.json",
            failed: "keep",
            cors: true,
            flattenHosts: true,
            merge: true
        )
        #expect(parsed == expected)
        #expect(
            try ImportHAR.parse(["--set", "s", "x.har", "--force"], environment: [:])
                == ImportHAR(file: "x.har", set: "s", force: true)
        )
    }

    @Test func importWireMockValidateAndLintOptions() throws {
        #expect(
            try ImportWireMock.parse(["wm/", "--set", "legacy", "--root", "/r", "--force"], environment: [:])
                == ImportWireMock(source: "wm/", set: "legacy", root: "/r", force: true)
        )
        #expect(
            try Validate.parse(["--config", "chat_happy_path"], environment: [:]) == Validate(config: "chat_happy_path")
        )
        #expect(try Validate.parse(["--set=chat", "--root=/r"], environment: [:]) == Validate(set: "chat", root: "/r"))
        #expect(try Lint.parse(["mocks/chat"], environment: [:]) == Lint(target: "mocks/chat"))
        #expect(try Lint.parse(["--root", "/r", "chat"], environment: [:]) == Lint(target: "chat", root: "/r"))
    }

    @Test func aValueMayStartWithDashesOnlyAfterEquals() throws {
        #expect(
            try Serve.parse(["--config", "a", "--control-token=--x-0123456789abcd"], environment: [:]).server
                .controlToken
                == "--x-0123456789abcd"
        )
        #expect(throws: UsageError("--control-token needs a value")) {
            try Serve.parse(["--config", "a", "--control-token", "--x"], environment: [:])
        }
    }

    // MARK: Usage errors

    /// A command line that is a usage error, and its message (what follows `mockd: `, before ` (see mockd --help)`).
    struct UsageCase: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        let environment: [String: String]
        let message: String

        init(_ arguments: [String], environment: [String: String] = [:], _ message: String) {
            self.arguments = arguments
            self.environment = environment
            self.message = message
        }

        var testDescription: String {
            (["mockd"] + arguments).joined(separator: " ") + (environment.isEmpty ? "" : " with \(environment)")
        }
    }

    static let usageCases: [UsageCase] = [
        UsageCase([], "say what to serve: --config <name> or --set <name>"),
        UsageCase(["--bogus"], "unknown option '--bogus'"),
        UsageCase(["extra"], "unexpected argument 'extra'"),
        UsageCase(["--config", "a", "--set", "b"], "--config and --set cannot be used together"),
        UsageCase(["--config"], "--config needs a value"),
        UsageCase(["--config", "--set", "b"], "--config needs a value"),
        UsageCase(["--config", "a", "--port", "70000"], "--port expects a whole number in 0–65535, got '70000'"),
        UsageCase(["--config", "a", "--port=http"], "--port expects a whole number in 0–65535, got 'http'"),
        UsageCase(["--config", "a", "--threads", "0"], "--threads expects a whole number in 1–1024, got '0'"),
        UsageCase(
            ["--config", "a", "--max-sessions", "0"],
            "--max-sessions expects a whole number in 1–1000000, got '0'"
        ),
        UsageCase(
            ["--config", "a", "--session-timeout", "0"],
            "--session-timeout expects a whole number in 1–31536000, got '0'"
        ),
        UsageCase(
            ["--config", "a", "--journal-limit", "0"],
            "--journal-limit expects a whole number in 1–10000000, got '0'"
        ),
        UsageCase(
            ["--config", "a", "--max-header-bytes", "100"],
            "--max-header-bytes expects a whole number in 8192–16777216, got '100'"
        ),
        UsageCase(
            ["--config", "a", "--max-body", "-1"],
            "--max-body expects a whole number in 0–4294967296, got '-1'"
        ),
        UsageCase(
            ["--config", "a", "--max-connections", "0"],
            "--max-connections expects a whole number in 1–1000000, got '0'"
        ),
        UsageCase(
            ["--config", "a", "--connection-timeout", "0"],
            "--connection-timeout expects a whole number in 1–86400, got '0'"
        ),
        UsageCase(
            ["--config", "a", "--shutdown-timeout", "5000"],
            "--shutdown-timeout expects a number of seconds in 0–3600, got '5000'"
        ),
        UsageCase(
            ["--config", "a", "--shutdown-timeout", "inf"],
            "--shutdown-timeout expects a number of seconds in 0–3600, got 'inf'"
        ),
        UsageCase(
            ["--config", "a", "--upstream-timeout", "0"],
            "--upstream-timeout expects a number of seconds in 0.001–3600, got '0'"
        ),
        UsageCase(["--config", "a", "--on-miss", "maybe"], "--on-miss expects proxy or 404, got 'maybe'"),
        UsageCase(["--config", "a", "--record-misses"], "--record-misses needs --on-miss proxy"),
        UsageCase(["--config", "a", "--on-miss", "proxy"], "--on-miss proxy needs --upstream <url>"),
        UsageCase(["--config", "a", "--upstream", "http://x"], "--upstream needs --on-miss proxy (or mockd record)"),
        UsageCase(
            ["--config", "a", "--upstream-timeout", "3"],
            "--upstream-timeout needs --on-miss proxy (or mockd record)"
        ),
        UsageCase(
            ["--config", "a", "--upstream-insecure"],
            "--upstream-insecure needs --on-miss proxy (or mockd record)"
        ),
        UsageCase(
            ["--config", "a", "--upstream-ca", "ca.pem"],
            "--upstream-ca needs --on-miss proxy (or mockd record)"
        ),
        UsageCase(
            ["--config", "a", "--on-miss", "proxy", "--upstream", "https://x/v2"],
            "--upstream 'https://x/v2' is not an origin: expected http(s)://host[:port], e.g. https://api.example.com (no path or query)"
        ),
        UsageCase(
            ["--config", "a", "--on-miss", "proxy", "--upstream", "ftp://x"],
            "--upstream 'ftp://x' is not an origin: expected http(s)://host[:port], e.g. https://api.example.com (no path or query)"
        ),
        UsageCase(
            [
                "--config", "a", "--on-miss", "proxy", "--upstream", "https://x", "--upstream-insecure",
                "--upstream-ca", "ca.pem",
            ],
            "--upstream-insecure and --upstream-ca cannot be used together"
        ),
        UsageCase(["--config", "a", "--tls-cert", "c.pem"], "--tls-cert and --tls-key go together: give both"),
        UsageCase(["--config", "a", "--tls-key", "k.pem"], "--tls-cert and --tls-key go together: give both"),
        UsageCase(["--config", "a", "--tls-port", "8443"], "--tls-port needs --tls-cert and --tls-key"),
        UsageCase(
            ["--config", "a", "--tls-cert", "c.pem", "--tls-key", "k.pem", "--tls-port", "8080"],
            "--tls-port must differ from --port"
        ),
        UsageCase(
            ["--config", "a", "--host", "0.0.0.0:8080"],
            "--host expects an address such as 127.0.0.1, 0.0.0.0 or ::1 (no scheme or port), got '0.0.0.0:8080'"
        ),
        UsageCase(
            ["--config", "a"],
            environment: ["MOCKD_PORT": "http"],
            "MOCKD_PORT expects a whole number in 0–65535, got 'http'"
        ),
        UsageCase(
            ["--config", "a"],
            environment: ["MOCKD_PORT": "70000"],
            "MOCKD_PORT expects a whole number in 0–65535, got '70000'"
        ),
        UsageCase(
            ["--config", "a"],
            environment: ["MOCKD_HOST": "http://localhost"],
            "MOCKD_HOST expects an address such as 127.0.0.1, 0.0.0.0 or ::1 (no scheme or port), got 'http://localhost'"
        ),
        UsageCase(
            ["--config", "a"],
            environment: ["MOCKD_CONTROL_TOKEN": "a\nb"],
            "MOCKD_CONTROL_TOKEN must not contain control characters such as a newline"
        ),
        UsageCase(
            ["--config", "a", "--connection-memory", "40000"],
            "unknown option '--connection-memory': use --max-header-bytes <b>"
        ),
        UsageCase(["--bogus", "--help"], "unknown option '--bogus'"),
        UsageCase(["serve", "--config", "a", "--set", "b"], "--config and --set cannot be used together"),
        UsageCase(["record"], "record needs --upstream <url>: the server to record, e.g. https://api.example.com"),
        UsageCase(
            ["record", "--set", "x"],
            "record needs --upstream <url>: the server to record, e.g. https://api.example.com"
        ),
        UsageCase(
            ["record", "--upstream", "https://api.example.com"],
            "record needs --set <name> to name the mock set to write"
        ),
        UsageCase(
            ["record", "--upstream", "http://x", "--set", "../x"],
            "--set '../x' is not a valid mock set name (use letters, digits, '.', '_' and '-')"
        ),
        UsageCase(
            ["record", "--upstream", "http://x", "--set", "x", "--merge", "--force"],
            "--merge and --force cannot be used together"
        ),
        UsageCase(
            ["record", "--upstream", "http://x", "--set", "x", "--max-sessions", "5"],
            "unknown option '--max-sessions'"
        ),
        UsageCase(
            ["record", "--upstream", "http://x", "--set", "x", "--connection-memory", "40000"],
            "unknown option '--connection-memory'"
        ),
        UsageCase(["record", "--upstream", "http://x", "--set", "x", "--version"], "unknown option '--version'"),
        UsageCase(
            ["record", "--upstream", "http://x", "--set", "x", "--tls-port", "8443"],
            "--tls-port needs --tls-cert and --tls-key"
        ),
        UsageCase(
            ["record", "--upstream", "http://x", "--set", "x", "--upstream-insecure", "--upstream-ca", "ca.pem"],
            "--upstream-insecure and --upstream-ca cannot be used together"
        ),
        UsageCase(
            ["record", "--upstream", "http://x", "--set", "x"],
            environment: ["MOCKD_HOST": "0.0.0.0:8080"],
            "MOCKD_HOST expects an address such as 127.0.0.1, 0.0.0.0 or ::1 (no scheme or port), got '0.0.0.0:8080'"
        ),
        UsageCase(["import-har"], "import-har needs a HAR file: mockd import-har <file.har> --set <name>"),
        UsageCase(["import-har", "x.har"], "import-har needs --set <name> to name the mock set to write"),
        UsageCase(
            ["import-har", "--set", "s"],
            "import-har needs a HAR file: mockd import-har <file.har> --set <name>"
        ),
        UsageCase(
            ["import-har", "x.har", "y.har", "--set", "s"],
            "import-har takes one HAR file; got 'x.har' and 'y.har'"
        ),
        UsageCase(["import-har", "x.har", "--set", "s", "--frobnicate"], "unknown option '--frobnicate'"),
        UsageCase(
            ["import-har", "x.har", "--set", "s", "--merge", "--force"],
            "--merge and --force cannot be used together"
        ),
        UsageCase(
            ["import-har", "x.har", "--set", "s", "--ws-time-scale", "-1"],
            "--ws-time-scale expects a number ≥ 0, got '-1'"
        ),
        UsageCase(
            ["import-har", "x.har", "--set", "s", "--failed", "maybe"],
            "--failed expects skip or keep, got 'maybe'"
        ),
        UsageCase(["import-har", "x.har", "--set"], "--set needs a value"),
        UsageCase(
            ["import-wiremock"],
            "import-wiremock needs a WireMock folder or mapping file: mockd import-wiremock <dir|file.json> --set <name>"
        ),
        UsageCase(
            ["import-wiremock", "mappings"],
            "import-wiremock needs --set <name> to name the mock set and scenario to write"
        ),
        UsageCase(
            ["import-wiremock", "mappings", "more", "--set", "s"],
            "import-wiremock takes one folder or file; got 'mappings' and 'more'"
        ),
        UsageCase(["import-wiremock", "mappings", "--set", "s", "--merge"], "unknown option '--merge'"),
        UsageCase(["validate"], "validate needs exactly one of --config <name> or --set <name>"),
        UsageCase(
            ["validate", "--config", "a", "--set", "b"],
            "validate needs exactly one of --config <name> or --set <name>"
        ),
        UsageCase(["validate", "extra"], "unexpected argument 'extra'"),
        UsageCase(["lint"], "lint needs a mock set: mockd lint mocks/<name>"),
        UsageCase(["lint", "a", "b"], "lint takes one mock set; got 'a' and 'b'"),
        UsageCase(["lint", "--bogus"], "unknown option '--bogus'"),
        UsageCase(["health", "--port", "0"], "--port expects a whole number in 1–65535, got '0'"),
        UsageCase(["health", "--timeout", "0"], "--timeout expects a number of seconds in 0.001–3600, got '0'"),
        UsageCase(
            ["health", "--host", "1.2.3.4:80"],
            "--host expects an address such as 127.0.0.1, 0.0.0.0 or ::1 (no scheme or port), got '1.2.3.4:80'"
        ),
        UsageCase(
            ["health"],
            environment: ["MOCKD_PORT": "0"],
            "MOCKD_PORT is 0 (a free port, chosen at start); pass the port mockd printed with --port"
        ),
        UsageCase(
            ["health"],
            environment: ["MOCKD_PORT": "70000"],
            "MOCKD_PORT expects a whole number in 1–65535, got '70000'"
        ),
        UsageCase(
            ["health"],
            environment: ["MOCKD_CONTROL_TOKEN": "a\tb"],
            "MOCKD_CONTROL_TOKEN must not contain control characters such as a newline"
        ),
        UsageCase(["health", "extra"], "unexpected argument 'extra'"),
    ]

    @Test(arguments: usageCases)
    func usageErrorsSayWhatIsWrong(_ usage: UsageCase) {
        #expect(throws: UsageError(usage.message)) { try Self.parse(usage.arguments, environment: usage.environment) }
    }
}
