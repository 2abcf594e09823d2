import Dispatch
import Foundation
import MockdControl

/// `mockd health`: GET `/__mockd/health` on a running daemon; exit 0 when it answers 200, 1 otherwise.
///
/// A plain socket rather than URLSession: FoundationNetworking would tie the binary (and the container
/// image) to libcurl for one request.
struct HealthCheck: MockdCommand, Equatable {
    var host = "127.0.0.1"
    var port = 8080
    /// Seconds for the whole probe: connect, send, answer.
    var timeoutSeconds = 5.0
    /// Sent as `Authorization: Bearer <token>`.
    var controlToken: String?

    static let name = "health"
    static let abstract: String? = "Exit 0 when a running mockd answers its health check"
    static let synopsis = ["mockd health [--port <n>] [--host <addr>] [--timeout <s>] [--control-token <t>]"]
    static let help = """
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

    static func parse(_ arguments: [String], environment: [String: String]) throws -> HealthCheck {
        var health = HealthCheck()
        var reader = ArgumentReader(arguments)
        while let argument = try reader.next() {
            switch argument {
            case "--port": health.port = try reader.integer(for: argument, in: 1...65535)
            case "--host": health.host = try reader.value(for: argument)
            case "--timeout": health.timeoutSeconds = try reader.seconds(for: argument, in: 0.001...3600)
            case "--control-token":
                health.controlToken = try ControlTokenRule.checked(reader.value(for: argument), source: argument)
            default: throw UsageError.unknown(argument)
            }
        }
        if reader.seen.contains("--host") { try EnvironmentDefaults.checkHost(health.host, name: "--host") }
        try EnvironmentDefaults.apply(environment, to: &health, given: reader.seen)
        return health
    }

    func run() -> ExitCode {
        let address = Self.probeAddress(host)
        let base = address.contains(":") ? "http://[\(address)]:\(port)" : "http://\(address):\(port)"
        let url = base + "/__mockd/health"
        var headers = [("Host", base.dropFirst("http://".count).description), ("Connection", "close")]
        if let token = controlToken { headers.append(("Authorization", "Bearer \(token)")) }
        let answer: HTTPProbe.Answer
        do {
            answer = try HTTPProbe.get(
                host: address,
                port: port,
                path: "/__mockd/health",
                headers: headers,
                timeoutMs: timeoutSeconds * 1000
            )
        } catch {
            Output.error("mockd: health: \(url): \(error)")
            return .failure
        }
        guard answer.status == 200 else {
            let hint =
                answer.status == 401
                ? " (the control API needs its token: --control-token or \(EnvironmentDefaults.controlToken))"
                : answer.status == 404 ? " (is this a mockd?)" : ""
            Output.error("mockd: health: \(url) answered \(answer.status)\(hint)")
            return .failure
        }
        Output.standard("ok: \(url) answered 200\(Self.summary(answer.body))")
        return .success
    }

    /// Where to connect for a bind address: the wildcard addresses mean this machine.
    static func probeAddress(_ host: String) -> String {
        switch host {
        case "0.0.0.0": return "127.0.0.1"
        case "::", "::0": return "::1"
        default: return host
        }
    }

    /// ` (scenario 'chat_happy_path', version 0.1.0, up 12.3 s)` from the health answer, or nothing.
    private static func summary(_ body: Data) -> String {
        guard let health = try? JSONDecoder().decode(Health.self, from: body) else { return "" }
        let serving = health.set.map { "set '\($0)'" } ?? "scenario '\(health.scenario)'"
        return " (\(serving), version \(health.version), up \(String(format: "%.1f", health.uptimeSeconds)) s)"
    }
}
