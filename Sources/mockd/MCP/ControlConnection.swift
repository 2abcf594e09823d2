import Foundation

/// A daemon's control API (`/__mockd/*`) as `mockd mcp` reaches it: its base URL (`http://127.0.0.1:8080`, a
/// `/__session/…`-free path prefix allowed) and the control token, if any.
struct ControlConnection: Sendable {
    let host: String
    let port: Int
    /// Path before `/__mockd` (usually empty).
    let prefix: String
    let token: String?

    /// - Throws: `UsageError` when `url` is not `http://host:port[/path]`.
    init(url: String, token: String?) throws {
        guard let components = URLComponents(string: url), components.scheme?.lowercased() == "http",
            let host = components.host, !host.isEmpty
        else {
            throw UsageError("--attach expects the daemon's base URL, e.g. http://127.0.0.1:8080, got '\(url)'")
        }
        self.host = host
        port = components.port ?? 80
        prefix =
            components.percentEncodedPath.hasSuffix("/")
            ? String(components.percentEncodedPath.dropLast()) : components.percentEncodedPath
        self.token = token
    }

    /// What one control call answered: the status and the body (JSON from mockd).
    struct Answer {
        let status: Int
        let body: Data
        var text: String { String(decoding: body, as: UTF8.self) }
        /// The `message` of mockd's JSON error shape, else the body.
        var message: String {
            (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["message"] as? String ?? text
        }
    }

    /// `method /__mockd/route` in `session` (the default session when `nil`).
    /// - Throws: `HTTPProbe.Failure` when the daemon does not answer.
    func call(_ method: String, _ route: String, session: String?, body: Data? = nil) throws -> Answer {
        let authority = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        var headers = [("Host", authority), ("Connection", "close")]
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        if let session { headers.append(("X-Mockd-Session", session)) }
        if body != nil { headers.append(("Content-Type", "application/json")) }
        let answer = try HTTPProbe.request(
            method: method,
            host: host,
            port: port,
            path: prefix + "/__mockd/" + route,
            headers: headers,
            body: body,
            timeoutMs: 30_000
        )
        return Answer(status: answer.status, body: answer.body)
    }
}
