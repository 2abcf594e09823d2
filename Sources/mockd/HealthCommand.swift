import Dispatch
import Foundation
import Glibc

/// `mockd health`: GET `/__mockd/health` on a running daemon; exit 0 when it answers 200, 1 otherwise.
///
/// A plain socket rather than URLSession: FoundationNetworking would tie the binary (and the container
/// image) to libcurl for one request.
enum HealthCommand {
    static func run(_ options: HealthOptions) -> ExitCode {
        let host = probeAddress(options.host)
        let base = host.contains(":") ? "http://[\(host)]:\(options.port)" : "http://\(host):\(options.port)"
        let url = base + "/__mockd/health"
        var headers = [("Host", base.dropFirst("http://".count).description), ("Connection", "close")]
        if let token = options.controlToken { headers.append(("Authorization", "Bearer \(token)")) }
        let answer: HTTPProbe.Answer
        do {
            answer = try HTTPProbe.get(
                host: host, port: options.port, path: "/__mockd/health", headers: headers,
                timeoutMilliseconds: options.timeoutSeconds * 1000
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
        Output.standard("ok: \(url) answered 200\(summary(answer.body))")
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

    /// ` (scenario 'chat_happy_path', version 0.1.0, up 12.3 s)` from the health JSON, or nothing.
    private static func summary(_ body: Data) -> String {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return "" }
        var parts: [String] = []
        if let scenario = object["scenario"] as? String { parts.append("scenario '\(scenario)'") }
        if let version = object["version"] as? String { parts.append("version \(version)") }
        if let uptime = object["uptimeSeconds"] as? Double { parts.append("up \(String(format: "%.1f", uptime)) s") }
        return parts.isEmpty ? "" : " (\(parts.joined(separator: ", ")))"
    }
}
