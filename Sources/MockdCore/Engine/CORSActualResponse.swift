/// The CORS headers of an actual answer (not a preflight) when CORS is on (`"cors": true`), so that a web app served
/// from another origin (`http://localhost:3000`) may read every answer mockd gives it.
///
/// Follows the Fetch standard, §3.2.3 "HTTP responses" and §3.2.5 "CORS check": a response to a request with an
/// `Origin` passes the check when `Access-Control-Allow-Origin` is that origin byte for byte (a credentialed
/// request — cookies, `credentials: "include"` — does not accept `*`) and `Access-Control-Allow-Credentials` is
/// `true`. A recorded production `Access-Control-Allow-Origin` (`https://app.example.com`) would fail that check on
/// localhost, so the recorded CORS headers are replaced rather than kept.
enum CORSActualResponse {
    /// The response headers that scripts may read without being listed in `Access-Control-Expose-Headers` (the
    /// CORS-safelisted response-header names, Fetch §2.2.6), lowercased.
    private static let safelisted: Set<String> = [
        "cache-control", "content-language", "content-length", "content-type", "expires", "last-modified", "pragma",
    ]

    /// Rewrites `response` to allow `request`'s origin; leaves it alone when the request has no `Origin` (not a CORS
    /// request: a same-origin page, curl, a native app).
    ///
    /// Sets `Access-Control-Allow-Origin` to the request's `Origin` (also `null`, as sandboxed frames send),
    /// `Access-Control-Allow-Credentials: true`, `Access-Control-Expose-Headers` listing the response's other
    /// header names (with credentials a `*` there would not be a wildcard; not on a preflight) and adds `Origin` to `Vary` so that a
    /// cache keeps one answer per origin. A preflight a stub answers (`OPTIONS` with
    /// `Access-Control-Request-Method`) also gets the requested method and headers allowed, as `CORSPreflight` gives
    /// an unmatched one.
    /// - Returns: Whether the response changed.
    static func allowOrigin(of request: HTTPRequest, in response: inout MockResponse) -> Bool {
        guard let origin = request.headers["origin"] else { return false }
        var headers = response.headers
        for name in [
            "Access-Control-Allow-Origin", "Access-Control-Allow-Credentials", "Access-Control-Expose-Headers",
        ] {
            headers.remove(name: name)
        }
        let preflight = request.method == "OPTIONS" ? request.headers["access-control-request-method"] : nil
        let exposed = preflight == nil ? exposedNames(headers) : []
        headers.add(name: "Access-Control-Allow-Origin", value: origin)
        headers.add(name: "Access-Control-Allow-Credentials", value: "true")
        if !exposed.isEmpty {
            headers.add(name: "Access-Control-Expose-Headers", value: exposed.joined(separator: ", "))
        }
        if let method = preflight {
            headers.remove(name: "Access-Control-Allow-Methods")
            headers.add(name: "Access-Control-Allow-Methods", value: method)
            if let requested = request.headers["access-control-request-headers"], !requested.isEmpty {
                headers.remove(name: "Access-Control-Allow-Headers")
                headers.add(name: "Access-Control-Allow-Headers", value: requested)
            }
        }
        let vary = headers.values(named: "vary")
        let varies = vary.contains { value in
            value.split(separator: ",").contains {
                let token = $0.trimmingSpaces.lowercased()
                return token == "origin" || token == "*"
            }
        }
        if !varies {
            headers.remove(name: "Vary")
            headers.add(name: "Vary", value: (vary + ["Origin"]).joined(separator: ", "))
        }
        response.headers = headers
        return true
    }

    /// The names a script cannot read without `Access-Control-Expose-Headers`, once each, in order.
    private static func exposedNames(_ headers: HTTPHeaders) -> [String] {
        var seen: Set<String> = []
        var names: [String] = []
        for field in headers {
            let lowered = field.name.lowercased()
            // `Set-Cookie` is never exposed to scripts (Fetch §2.2.6, forbidden response-header names).
            guard !safelisted.contains(lowered), lowered != "set-cookie", lowered != "set-cookie2",
                !lowered.hasPrefix("access-control-"), seen.insert(lowered).inserted
            else { continue }
            names.append(field.name)
        }
        return names
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var result = self
        while result.first == " " || result.first == "\t" { result = result.dropFirst() }
        while result.last == " " || result.last == "\t" { result = result.dropLast() }
        return result
    }
}
