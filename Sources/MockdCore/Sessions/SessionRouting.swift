import Foundation

/// Finds a request's session and strips a `/__session/ID` prefix.
enum SessionRouting {
    static let header = "X-Mockd-Session"
    static let cookie = "mockd_session"
    static let pathPrefix = ReservedPrefix.session
    /// `header` and `Cookie`, the fields that may name a session.
    static let fields = HTTPHeaders.NameSignature("x-mockd-session", "cookie")

    /// The session id and the request as it should be matched (prefix removed).
    /// - Returns: `nil` id for the default session; `.failure` when an id is not a valid session name.
    static func route(_ request: HTTPRequest) -> Result<(id: String?, request: HTTPRequest), RoutingError> {
        var request = request
        return route(&request).map { ($0, request) }
    }

    /// The session id, with a `/__session/ID` prefix removed from `request` in place (no copy of the request on the
    /// way).
    static func route(_ request: inout HTTPRequest) -> Result<String?, RoutingError> {
        var id: String?
        if request.hasReservedPrefix, request.target.hasPrefix(pathPrefix) {
            let rest = request.target.dropFirst(pathPrefix.count)
            let end = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
            id = String(rest[..<end])
            request.routedSession = id
            let remainder = rest[end...]
            request.target = remainder.hasPrefix("/") ? String(remainder) : "/" + remainder
        } else if !request.headers.mayContain(anyOf: fields) {
            // Neither field is there (one test of the names signature): the default session, no field looked up.
        } else if let header = request.headers[header] {
            id = header.trimming([" ", "\t"])
        } else if request.headers.contains(name: "cookie"),
            let value = request.headers.values(named: "cookie").lazy.compactMap({ cookieValue($0, named: cookie) })
                .first, isValidID(value)
        {
            // Every Cookie field counts (HTTP/2 clients and proxies may split them, RFC 9113 §8.2.3); a cookie
            // the app did not set on purpose (empty, garbled) never breaks its requests.
            id = value
        }
        if let id, !isValidID(id) { return .failure(RoutingError(id: id)) }
        return .success(id)
    }

    static func isValidID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 128 && id.utf8.allSatisfy { URLEncoding.isUnreserved($0) }
    }

    static func cookieValue(_ header: String, named name: String) -> String? {
        for pair in header.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, String(parts[0]).trimming([" "]) == name {
                return String(parts[1]).trimming([" ", "\""])
            }
        }
        return nil
    }

    struct RoutingError: Error {
        let id: String
    }
}

extension String {
    func trimming(_ characters: Set<Character>) -> String {
        var result = Substring(self)
        while let first = result.first, characters.contains(first) { result = result.dropFirst() }
        while let last = result.last, characters.contains(last) { result = result.dropLast() }
        return String(result)
    }
}
