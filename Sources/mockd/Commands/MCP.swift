import Foundation
import MockdCore
import MockdPlatform

/// `mockd mcp`: a Model Context Protocol server on stdio for coding agents. With serving options it runs the daemon
/// in this process (on `--port 0` unless given) and steers it; with `--attach URL` it steers a daemon already
/// running. stdout carries only MCP messages: the daemon's lines go to stderr.
struct MCP: MockdCommand {
    /// `--attach`: the running daemon's base URL; `nil` runs one here.
    var attach: String?
    var controlToken: String?
    /// What `mockd mcp` passes on to the daemon it runs (serve's options).
    var serve: Serve?

    static let name = "mcp"
    static let abstract: String? = "Run an MCP server on stdio so a coding agent can steer mockd"
    static let synopsis = [
        "mockd mcp (--config <name> | --set <name>) [serve options]",
        "mockd mcp --attach <url> [--control-token <t>]",
    ]
    static let help = """
        OVERVIEW: A Model Context Protocol server on stdio (JSON-RPC 2.0, MCP 2025-11-25) for coding agents. It runs
        the daemon in this process with the serving options of `mockd --config` (on --port 0 unless given; the
        daemon's lines go to stderr, stdout carries MCP only), or steers a running daemon with --attach.

        Tools: list_scenarios, use_scenario, list_stubs, add_stub, replace_stub, remove_stub, replace_group,
        add_group, remove_group, reset, read_journal, explain_miss, verify, list_sessions (on the daemon, per
        session), import_har, lint_set, validate_scenario (on files). Errors are tool results with mockd's
        one-line message. When stdin closes, mockd stops.

        USAGE: mockd mcp (--config <name> | --set <name>) [serve options]
               mockd mcp --attach <url> [--control-token <t>]

        OPTIONS:
          --attach <url>          Steer the daemon at this base URL (http://127.0.0.1:8080) instead of running one.
          --control-token <t>     The daemon's control token. (default: $MOCKD_CONTROL_TOKEN)
          -h, --help              Show help information.
          Any other option is one of `mockd --config`'s (see mockd --help).

        An agent's MCP configuration: {"mcpServers": {"mockd": {"command": "mockd", "args": ["mcp", "--config",
        "chat_happy_path", "--root", "/path/to/project"]}}}
        """

    static func parse(_ arguments: [String], environment: [String: String]) throws -> MCP {
        if arguments.contains("-h") || arguments.contains("--help") { throw InformationRequest.help }
        var mcp = MCP()
        if let position = arguments.firstIndex(of: "--attach") {
            var rest = arguments
            guard position + 1 < rest.count else { throw UsageError("--attach needs the daemon's base URL") }
            mcp.attach = rest[position + 1]
            rest.removeSubrange(position...(position + 1))
            var reader = ArgumentReader(rest)
            while let argument = try reader.next() {
                switch argument {
                case "--control-token":
                    mcp.controlToken = try ControlTokenRule.checked(reader.value(for: argument), source: argument)
                default: throw UsageError("with --attach, mcp takes only --control-token; got '\(argument)'")
                }
            }
            if mcp.controlToken == nil, let token = environment[EnvironmentDefaults.controlToken] {
                mcp.controlToken = try ControlTokenRule.checked(token, source: EnvironmentDefaults.controlToken)
            }
            _ = try ControlConnection(url: mcp.attach!, token: nil)
            return mcp
        }
        let withPort = arguments.contains("--port") ? arguments : arguments + ["--port", "0"]
        mcp.serve = try Serve.parse(withPort, environment: environment)
        mcp.controlToken = mcp.serve?.server.controlToken
        return mcp
    }

    func run() -> ExitCode {
        let executable = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        guard let serve else {
            guard let connection = try? ControlConnection(url: attach!, token: controlToken) else { return .usage }
            MCPServer(tools: MCPTools(control: connection, executable: executable, root: nil)).run()
            return .success
        }
        // The daemon runs on its own thread; MCP is read on this one until stdin closes.
        // Blocked here, before the daemon's thread starts, so that every thread blocks them and the daemon's signal
        // thread takes the SIGTERM sent below when the agent closes stdin (unblocked here, the kernel handed it to
        // this thread, whose default action ended the process with status 143 instead of a clean stop).
        SignalWaiter.blockInThisThread([SIGINT, SIGTERM])
        Output.standardGoesToError.store(true, ordering: .relaxed)
        let urls = Mutex<[String]?>(nil)
        let ready = DispatchSemaphore(value: 0)
        ServerLifecycle.listening.withLock { listener in
            listener = { baseURLs in
                urls.withLock { $0 = baseURLs }
                ready.signal()
            }
        }
        let exitCode = Mutex<ExitCode?>(nil)
        let finished = DispatchSemaphore(value: 0)
        let thread = Thread {
            let code = serve.run()
            exitCode.withLock { $0 = code }
            ready.signal()
            finished.signal()
        }
        thread.name = "mockd-daemon"
        thread.start()
        ready.wait()
        guard let base = urls.withLock({ $0 })?.first(where: { $0.hasPrefix("http://") }),
            let connection = try? ControlConnection(
                url: base.replacingOccurrences(of: "0.0.0.0", with: "127.0.0.1"),
                token: controlToken
            )
        else {
            finished.wait()
            return exitCode.withLock { $0 } ?? .failure
        }
        Output.error("mockd: mcp: serving on \(base); MCP on stdio")
        let root = MockdRoot.resolve(option: serve.server.root).url.path
        MCPServer(tools: MCPTools(control: connection, executable: executable, root: root)).run()
        // stdin closed: the agent is gone. Stop the daemon as SIGTERM does.
        kill(getpid(), SIGTERM)
        finished.wait()
        return exitCode.withLock { $0 } ?? .success
    }
}
