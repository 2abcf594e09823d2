/// Host names as mockd compares them, on both sides of a match (a recorded URL, a stub's `host`, a request's
/// `/__host/NAME/` prefix, `X-Forwarded-Host` or `Host`): lower case, without a trailing dot, and without the
/// default port of HTTP or HTTPS (RFC 9110 §4.2: `api.example.com:443` and `api.example.com` are one origin's host
/// for https, `:80` for http). A request does not say which scheme its client used, so both default ports are left
/// out whatever the scheme; another port is kept (`localhost:8443`).
enum HostName {
    static func normalized(_ text: some StringProtocol) -> String {
        var host = Substring(String(text).trimming([" ", "\t"]).asciiLowercased)
        let portStart: String.Index?
        if host.hasPrefix("[") {
            // An IPv6 literal: the port follows the closing bracket.
            portStart = host.firstIndex(of: "]").flatMap { close in
                host.index(after: close) < host.endIndex && host[host.index(after: close)] == ":"
                    ? host.index(after: close) : nil
            }
        } else {
            portStart = host.lastIndex(of: ":")
        }
        var port: Substring = ""
        if let portStart {
            port = host[host.index(after: portStart)...]
            host = host[..<portStart]
        }
        if host.hasSuffix(".") { host = host.dropLast() }
        guard !port.isEmpty, port != "80", port != "443" else { return String(host) }
        return "\(host):\(port)"
    }
}
