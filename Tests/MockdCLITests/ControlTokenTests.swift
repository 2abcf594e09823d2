import Foundation
import MockdTestSupport
import Testing

@testable import MockdCore
@testable import mockd

/// A control token that is really required (issue 34): an empty or blank token, wherever it comes from (the flag of
/// `serve`, `record`, `health` and `mcp --attach`, or `MOCKD_CONTROL_TOKEN`), is a one-line usage error and exit 64,
/// never a daemon on 0.0.0.0 that takes `Authorization: Bearer ` with nothing after it; a token needs 16 visible
/// characters. The daemon refuses an empty bearer token whatever it was started with.
struct ControlTokenTests {
    static let empty =
        "is empty (an unset CI secret?): the control API would take any caller's word for it; give at least 16 visible characters, e.g. the output of `openssl rand -hex 16`"
    static let blank =
        "is blank (an unset CI secret?): the control API would take any caller's word for it; give at least 16 visible characters, e.g. the output of `openssl rand -hex 16`"

    /// Every source of a token, each with an empty, a blank and a short one, parsed in process.
    @Test func emptyBlankOrShortTokensAreUsageErrorsFromEverySource() throws {
        let serve = ["--config", "a"]
        let record = ["--upstream", "http://127.0.0.1:9", "--set", "s"]
        let cases: [(parse: ([String], [String: String]) throws -> Any, arguments: [String])] = [
            ({ try Serve.parse($0, environment: $1) }, serve),
            ({ try Record.parse($0, environment: $1) }, record),
            ({ try HealthCheck.parse($0, environment: $1) }, []),
            ({ try MCP.parse($0, environment: $1) }, ["--attach", "http://127.0.0.1:8080"]),
        ]
        for (parse, arguments) in cases {
            for (token, problem) in [
                ("", Self.empty), ("   ", Self.blank), ("\t", Self.blank),
                (
                    "short-token",
                    "has 11 characters, fewer than 16: give at least 16 visible characters, e.g. the output of `openssl rand -hex 16`"
                ),
                (
                    "sixteen chars ok",
                    "must be visible ASCII characters only (letters, digits, punctuation; no spaces): give at least 16 visible characters, e.g. the output of `openssl rand -hex 16`"
                ),
                ("0123456789abcdef\n", "must not contain control characters such as a newline"),
            ] {
                #expect(throws: UsageError("--control-token \(problem)"), "\(arguments) '\(token)'") {
                    try parse(arguments + ["--control-token", token], [:])
                }
                #expect(throws: UsageError("--control-token \(problem)"), "\(arguments) ='\(token)'") {
                    try parse(arguments + ["--control-token=\(token)"], [:])
                }
                #expect(throws: UsageError("MOCKD_CONTROL_TOKEN \(problem)"), "\(arguments) env '\(token)'") {
                    try parse(arguments, ["MOCKD_CONTROL_TOKEN": token])
                }
            }
            // Sixteen visible characters pass, from the flag and from the variable.
            _ = try parse(arguments + ["--control-token", "0123456789abcdef"], [:])
            _ = try parse(arguments, ["MOCKD_CONTROL_TOKEN": "0123456789abcdef"])
        }
    }

    /// The CI accident itself, end to end: `--control-token "$MOCKD_TOKEN"` with the secret unset, on 0.0.0.0.
    @Test func theDaemonRefusesToStartWithAnEmptyToken() throws {
        let root = try Paths.makeRoot(scenario: #"{"sets": ["chat"]}"#)
        defer { try? FileManager.default.removeItem(at: root) }
        let serve = ["--config", "s", "--root", root.path, "--port", "0", "--host", "0.0.0.0"]
        for (arguments, environment, message) in [
            (serve + ["--control-token", ""], [:], "--control-token \(Self.empty) (see mockd --help)"),
            (serve + ["--control-token", "  "], [:], "--control-token \(Self.blank) (see mockd --help)"),
            (serve, ["MOCKD_CONTROL_TOKEN": ""], "MOCKD_CONTROL_TOKEN \(Self.empty) (see mockd --help)"),
            (
                ["mcp", "--attach", "http://127.0.0.1:9", "--control-token", ""], [:],
                "--control-token \(Self.empty) (see mockd mcp --help)"
            ),
            (
                ["health", "--port", "9"], ["MOCKD_CONTROL_TOKEN": " "],
                "MOCKD_CONTROL_TOKEN \(Self.blank) (see mockd health --help)"
            ),
        ] {
            // A daemon that starts (the bug) is stopped after 20 s rather than waited for.
            let child = try ChildProcess(Paths.mockdBinary, arguments, environment: Lifecycle.environment(environment))
            let result = try #require(child.finished(within: 20), "\(arguments) started a daemon")
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stderr == "mockd: \(message)\n", "\(arguments)")
            #expect(result.stdout.isEmpty)
        }
    }

    /// `Authorization: Bearer ` with nothing (or only spaces) after it never passes, and neither does a token that
    /// differs; the right one does.
    @Test func anEmptyBearerTokenIsNeverAccepted() throws {
        let token = "0123456789abcdef-token"
        let daemon = try RunningDaemon([
            "--set", "chat", "--root", Paths.packageRoot.path, "--port", "0", "--host", "0.0.0.0", "--quiet",
            "--control-token", token,
        ])
        defer { daemon.stop() }
        let health = "http://127.0.0.1:\(daemon.port)/__mockd/health"
        let answers = try Curl.batch(
            ["Bearer ", "Bearer  ", "Bearer", "bearer \t", "Bearer \(token)"].map {
                CurlRequest(url: health, headers: [("Authorization", $0)])
            } + [CurlRequest(url: health)]
        )
        #expect(answers.map(\.status) == [401, 401, 401, 401, 200, 401])
    }

    /// The daemon's own check, whatever its caller validated: an engine handed an empty or blank token (a library
    /// caller skipping the command line) refuses every bearer token rather than the empty one.
    @Test func anEngineWithAnEmptyTokenRefusesEveryCaller() {
        for token in ["", "  "] {
            for sent in ["Bearer ", "Bearer", "Bearer   ", "Bearer x", "bearer \t"] {
                #expect(!ControlAPI.carriesToken(token, sent), "'\(token)' '\(sent)'")
            }
        }
        #expect(ControlAPI.carriesToken("0123456789abcdef", "Bearer  0123456789abcdef "))
        #expect(!ControlAPI.carriesToken("0123456789abcdef", "Bearer 0123456789abcdeF"))
    }
}
