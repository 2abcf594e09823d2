/// Answers CORS preflight requests that no stub or override matched, for sets recorded without them
/// (`"cors": true`, written by `mockd import-har --cors`).
///
/// A preflight is an `OPTIONS` request with `Origin` and `Access-Control-Request-Method` (Fetch standard,
/// §3.2 "CORS protocol"). The answer allows exactly what was asked: the origin, the method and the
/// requested headers, with credentials, cached for 10 minutes.
enum CORSPreflight {
    static func response(to request: HTTPRequest) -> MockResponse? {
        guard request.method == "OPTIONS", let method = request.headers["access-control-request-method"] else {
            return nil
        }
        let origin = request.headers["origin"] ?? "*"
        var headers = HTTPHeaders([
            ("Access-Control-Allow-Origin", origin),
            ("Access-Control-Allow-Methods", method),
            ("Access-Control-Max-Age", "600"),
            ("Vary", "Origin, Access-Control-Request-Method, Access-Control-Request-Headers"),
        ])
        if origin != "*" { headers.add(name: "Access-Control-Allow-Credentials", value: "true") }
        if let requested = request.headers["access-control-request-headers"], !requested.isEmpty {
            headers.add(name: "Access-Control-Allow-Headers", value: requested)
        }
        return MockResponse(status: 204, headers: headers)
    }
}
