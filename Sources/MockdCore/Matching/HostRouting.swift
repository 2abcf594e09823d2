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
    ///
    /// - Parameter recordedHosts: When given, `Host` names an upstream only if it is one of these: a client reaching
    ///   mockd as `10.0.2.2:8080` (the Android emulator), a LAN address or a compose service name sends that
    ///   address, not a backend's name. `/__host/` and `X-Forwarded-Host` always name one.
    public static func host(of request: HTTPRequest, recordedHosts: Set<String>? = nil) -> String? {
        if let explicit = explicitHost(of: request) { return explicit }
        guard let host = request.headers["host"]?.trimming([" ", "\t"]).asciiLowercased, !host.isEmpty else {
            return nil
        }
        if isMockServer(host) { return nil }
        let normalized = HostName.normalized(host)
        if let recordedHosts, !recordedHosts.contains(normalized) { return nil }
        return normalized
    }

    /// The host a `/__host/NAME/` prefix or `X-Forwarded-Host` names; `nil` without either.
    public static func explicitHost(of request: HTTPRequest) -> String? {
        if let routed = request.routedHost { return routed }
        if let forwarded = request.headers["x-forwarded-host"] {
            let first = forwarded.split(separator: ",").first.map { String($0).trimming([" ", "\t"]) } ?? ""
            if !first.isEmpty { return HostName.normalized(first) }
        }
        return nil
    }

    /// `127.0.0.1:8080`, `localhost`, `[::1]:80`, `0.0.0.0`: names of this machine, not of a recorded backend.
    static func isMockServer(_ host: String) -> Bool {
        var name = Substring(host)
        if name.hasPrefix("[") {
            name = name.dropFirst().prefix { $0 != "]" }
        } else if let colon = name.lastIndex(of: ":") {
            name = name[..<colon]
        }
        if name.hasSuffix(".") { name = name.dropLast() }
        let octets = name.split(separator: ".", omittingEmptySubsequences: false)
        let isLoopbackAddress = octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
        return name == "localhost" || isLoopbackAddress || name == "::1" || name == "0.0.0.0"
            || name.hasSuffix(".localhost")
    }
}
