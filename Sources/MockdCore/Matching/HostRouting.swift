/// Which upstream host a request is meant for, in scenarios whose sets keep several recorded hosts apart.
///
/// In order: a `/__host/NAME/` path prefix (removed before matching, so an app can give each backend its
/// own base URL such as `http://127.0.0.1:8080/__host/api.example.com`), then `X-Forwarded-Host`, then
/// `Host` unless it names the mock server itself (loopback addresses and `localhost`).
public enum HostRouting {
    public static let pathPrefix = ReservedPrefix.host

    /// Removes a `/__host/NAME` prefix from `request.target` and records NAME (lower-cased) in `routedHost`.
    public static func strip(_ request: inout HTTPRequest) {
        guard request.hasReservedPrefix, request.target.hasPrefix(pathPrefix) else { return }
        let rest = request.target.dropFirst(pathPrefix.count)
        let end = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        let host = rest[..<end]
        guard !host.isEmpty else { return }
        request.routedHost = HostName.normalized(host)
        let remainder = rest[end...]
        request.target = remainder.hasPrefix("/") ? String(remainder) : "/" + remainder
    }

    /// The host `request` names, as `HostName.normalized` (lower case, no default port), or `nil` when it only
    /// names the mock server.
    public static func host(of request: HTTPRequest) -> String? {
        if let routed = request.routedHost { return routed }
        if let forwarded = request.headers["x-forwarded-host"] {
            let first = forwarded.split(separator: ",").first.map { String($0).trimming([" ", "\t"]) } ?? ""
            if !first.isEmpty { return HostName.normalized(first) }
        }
        guard let host = request.headers["host"]?.trimming([" ", "\t"]).asciiLowercased, !host.isEmpty else {
            return nil
        }
        return isMockServer(host) ? nil : HostName.normalized(host)
    }

    /// `127.0.0.1:8080`, `localhost`, `[::1]:80`, `0.0.0.0`: names of this machine, not of a recorded backend.
    static func isMockServer(_ host: String) -> Bool {
        var name = Substring(host)
        if name.hasPrefix("[") {
            name = name.dropFirst().prefix { $0 != "]" }
        } else if let colon = name.lastIndex(of: ":") {
            name = name[..<colon]
        }
        return name == "localhost" || name.hasPrefix("127.") || name == "::1" || name == "0.0.0.0"
            || name.hasSuffix(".localhost")
    }
}
