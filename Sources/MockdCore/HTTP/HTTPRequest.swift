public import Foundation

/// A complete HTTP request as the server received it.
///
/// `target` is the raw request-target (RFC 9112 §3.2) exactly as sent, before any percent-decoding,
/// so that `%2F` stays distinct from `/`. `path` and `query` split it at the first `?`.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The raw request-target, e.g. `/v1/messages?limit=20`.
    public var target: String
    public var headers: HTTPHeaders
    /// The request body bytes (empty when the request has none).
    public var body: Data

    public init(method: String, target: String, headers: HTTPHeaders = HTTPHeaders(), body: Data = Data()) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
    }

    /// The raw path: the target up to the first `?` (a fragment, never sent by clients, is dropped too).
    public var path: Substring {
        let end = target.firstIndex(where: { $0 == "?" || $0 == "#" }) ?? target.endIndex
        return target[..<end]
    }

    /// The raw query: the target after the first `?`, without a fragment; empty when absent.
    public var query: Substring {
        guard let mark = target.firstIndex(of: "?") else { return "" }
        let rest = target[target.index(after: mark)...]
        let end = rest.firstIndex(of: "#") ?? rest.endIndex
        return rest[..<end]
    }
}
