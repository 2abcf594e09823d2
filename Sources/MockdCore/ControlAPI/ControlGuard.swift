import Foundation
import MockdControl

/// Keeps web pages out of the control API (`/__mockd/*`), which can switch scenarios, add stubs and read what the
/// app sent: two mock servers had to fix cross-origin takeovers of their admin APIs in 2026.
///
/// - **DNS rebinding**: while the daemon listens on loopback only, a control request must name it by a loopback
///   name in `Host` (`127.0.0.1:8080`, `localhost`, `[::1]`, `*.localhost`); a page whose own host name was
///   rebound to 127.0.0.1 sends its own name and is refused. (Without `Host`, as HTTP/1.0 tools send, no browser
///   is involved.)
/// - **Cross-site requests**: a request with an `Origin` other than the daemon's own (`http(s)://` + its `Host`) is
///   refused, as is one a browser marks `Sec-Fetch-Site: cross-site` or `same-site` (Fetch standard §3.1), so
///   simple `GET`s and form posts that carry no `Origin` are refused too. The dashboard's own requests are
///   same-origin.
/// - **No CORS**: the control API never answers a preflight with `Access-Control-Allow-*`; a preflight is refused.
///
/// Mock traffic (every other path) is never looked at here.
enum ControlGuard {
    /// The 403 for a request a web page may have sent, or `nil` when it may proceed.
    static func refusal(for request: HTTPRequest, boundToLoopback: Bool) -> MockResponse? {
        let host = request.headers["host"]?.trimming([" ", "\t"])
        if boundToLoopback, let host, !isLoopbackName(host) {
            return forbidden(
                "the control API answers only to a loopback Host (127.0.0.1, localhost, [::1]) while mockd listens on loopback; Host '\(host)' may be a DNS-rebinding page"
            )
        }
        if let origin = request.headers["origin"]?.trimming([" ", "\t"]), !isOwnOrigin(origin, host: host) {
            return forbidden(
                "the control API refuses cross-origin requests (Origin '\(origin)'); it is not for web pages"
            )
        }
        if let site = request.headers["sec-fetch-site"]?.trimming([" ", "\t"]).asciiLowercased,
            site == "cross-site" || site == "same-site"
        {
            return forbidden("the control API refuses requests a browser marks Sec-Fetch-Site: \(site)")
        }
        if request.method == "OPTIONS", request.headers["access-control-request-method"] != nil {
            return forbidden("the control API answers no CORS preflight; it is not for web pages")
        }
        return nil
    }

    /// `127.0.0.1:8080`, `localhost`, `app.localhost:8080`, `[::1]:8080`: names that can only mean this machine.
    static func isLoopbackName(_ host: String) -> Bool {
        var name = Substring(host.asciiLowercased)
        if name.hasPrefix("[") {
            name = name.dropFirst().prefix { $0 != "]" }
            return name == "::1"
        }
        if let colon = name.lastIndex(of: ":") {
            guard name[name.index(after: colon)...].allSatisfy(\.isNumber) else { return false }
            name = name[..<colon]
        }
        if name.hasSuffix(".") { name = name.dropLast() }
        if name == "localhost" || name.hasSuffix(".localhost") { return true }
        let octets = name.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// Whether `origin` is the daemon's own: `http://` or `https://` followed by exactly the `Host` it was
    /// reached with.
    static func isOwnOrigin(_ origin: String, host: String?) -> Bool {
        guard let host, !host.isEmpty else { return false }
        let lower = origin.asciiLowercased
        return lower == "http://" + host.asciiLowercased || lower == "https://" + host.asciiLowercased
    }

    private static func forbidden(_ message: String) -> MockResponse {
        ControlAPI.failure(.forbidden, message)
    }
}
