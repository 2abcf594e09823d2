public import Foundation

/// Why an upstream request got no answer.
public struct UpstreamFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// No connection: DNS failure, connection refused, TLS handshake or certificate failure, reset before
        /// an answer. The client gets 502.
        case unreachable
        /// No complete answer within `--upstream-timeout`. The client gets 504.
        case timeout
        /// Never sent: the request-target is not a path and query (`UpstreamTarget`). The client gets 400.
        case unsafeTarget
    }

    public var kind: Kind
    /// The client library's message, e.g. `Failed to connect to 127.0.0.1 port 9 after 0 ms: Couldn't connect to server`.
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}

/// What the upstream answered: the status line's code, every header field in order (each `Set-Cookie` on
/// its own), and the body bytes exactly as received (still content-coded when the upstream compressed them;
/// the transfer coding, e.g. chunked, already removed).
public struct UpstreamResponse: Sendable {
    /// HTTP status code.
    public var status: Int
    /// `HTTP/1.1`, `HTTP/2`…, from the status line.
    public var httpVersion: String
    public var headers: HTTPHeaders
    public var body: Data

    public init(status: Int, httpVersion: String = "HTTP/1.1", headers: HTTPHeaders, body: Data) {
        self.status = status
        self.httpVersion = httpVersion
        self.headers = headers
        self.body = body
    }
}

/// One request forwarded to the upstream and what came back, as recorded for the HAR.
public struct ProxiedExchange: Sendable {
    /// Arrival order at mockd; the HAR lists exchanges in this order (sequences replay in it).
    public var order: UInt64
    /// When the request arrived at mockd.
    public var startedAt: Date
    /// From sending upstream to the whole answer (or the failure), in ms.
    public var elapsedMs: Double
    public var method: String
    /// The absolute upstream URL: the upstream's origin plus the request-target as the client sent it.
    public var url: String
    /// The header fields sent upstream, `Host` first (the upstream's).
    public var requestHeaders: HTTPHeaders
    public var requestBody: Data
    public var result: Result<UpstreamResponse, UpstreamFailure>

    public init(
        order: UInt64,
        startedAt: Date,
        elapsedMs: Double,
        method: String,
        url: String,
        requestHeaders: HTTPHeaders,
        requestBody: Data,
        result: Result<UpstreamResponse, UpstreamFailure>
    ) {
        self.order = order
        self.startedAt = startedAt
        self.elapsedMs = elapsedMs
        self.method = method
        self.url = url
        self.requestHeaders = requestHeaders
        self.requestBody = requestBody
        self.result = result
    }
}

/// Which header fields a proxy must not pass on, in either direction.
public enum ProxyHeaders {
    /// Hop-by-hop fields (RFC 9110 §7.6.1) and fields the client library or server computes for its own
    /// connection (`Content-Length`, `Host`, `Expect`), lower-case.
    public static let neverForwarded: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer",
        "transfer-encoding", "upgrade", "host", "content-length", "expect",
    ]

    /// The fields of `headers` a proxy passes on: without hop-by-hop fields, the ones a `Connection` field
    /// names, and `extra` (lower-case names).
    public static func forwardable(_ headers: HTTPHeaders, dropping extra: Set<String> = []) -> HTTPHeaders {
        var named: Set<String> = []
        for value in headers.values(named: "connection") {
            for token in value.split(separator: ",") {
                named.insert(token.trimmingCharacters(in: .whitespaces).lowercased())
            }
        }
        return HTTPHeaders(
            headers.fields.filter {
                let name = $0.name.lowercased()
                return !neverForwarded.contains(name) && !named.contains(name) && !extra.contains(name)
            }
        )
    }
}

extension MockResponse {
    /// The answer for the client: the upstream's status, headers (hop-by-hop fields and `Content-Length` left
    /// to the server) and body bytes exactly as received, sent literally (no placeholders).
    public static func proxied(_ upstream: UpstreamResponse) -> MockResponse {
        // Fields set after init, so no placeholder scan runs over bytes that are sent literally anyway.
        var response = MockResponse(status: upstream.status)
        response.headers = ProxyHeaders.forwardable(upstream.headers)
        response.body = upstream.body
        return response
    }

    /// 502 (unreachable), 504 (timeout) or 400 (a target never sent, `UpstreamTarget`) with a JSON body naming the
    /// upstream and the error: `{"error": "upstream_unreachable", "upstream": "https://api.example.com", "message": "…"}`.
    public static func upstreamFailed(_ failure: UpstreamFailure, upstream: String) -> MockResponse {
        let (status, code) =
            switch failure.kind {
            case .timeout: (504, "upstream_timeout")
            case .unreachable: (502, "upstream_unreachable")
            case .unsafeTarget: (400, "unsafe_upstream_target")
            }
        var response = MockResponse.jsonError(
            status: status,
            code: code,
            message: failure.message,
            more: ["upstream": upstream]
        )
        response.disableTemplate()
        return response
    }
}
