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
    /// The upstream host named by a `/__host/NAME/` path prefix (already removed from `target`).
    public var routedHost: String?
    /// The session named by a `/__session/ID/` path prefix (already removed from `target`); `nil` when the session
    /// came from a header, a cookie, or none. Kept so rewritten URLs (`OriginRewrite`) stay in the session.
    public var routedSession: String?
    /// The canonical forms of a large body, made once per request (`nil` for a body under
    /// `CanonicalBodyMemo.threshold` bytes).
    let canonicalBodies: CanonicalBodyMemo?

    public init(method: String, target: String, headers: HTTPHeaders = HTTPHeaders(), body: Data = Data()) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        canonicalBodies = body.count >= CanonicalBodyMemo.threshold ? CanonicalBodyMemo() : nil
    }

    /// The raw path: the target up to the first `?` (a fragment, never sent by clients, is dropped too).
    public var path: Substring {
        // Scanned as UTF-8 bytes, never by Character (grapheme breaking) or the generic index walk: a native string is
        // scanned in place as a buffer.
        let utf8 = target.utf8
        if let offset = utf8.withContiguousStorageIfAvailable({ bytes in
            bytes.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.count
        }) {
            return target[..<utf8.index(utf8.startIndex, offsetBy: offset)]
        }
        let end = utf8.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) ?? utf8.endIndex
        return target[..<end]
    }

    /// The raw query: the target after the first `?`, without a fragment; empty when absent.
    public var query: Substring {
        let utf8 = target.utf8
        if let range = utf8.withContiguousStorageIfAvailable({ bytes -> Range<Int>? in
            guard let mark = bytes.firstIndex(of: UInt8(ascii: "?")) else { return nil }
            let end = bytes[(mark + 1)...].firstIndex(of: UInt8(ascii: "#")) ?? bytes.count
            return (mark + 1)..<end
        }) {
            guard let range else { return "" }
            return target[
                utf8.index(
                    utf8.startIndex,
                    offsetBy: range.lowerBound
                )..<utf8.index(utf8.startIndex, offsetBy: range.upperBound)
            ]
        }
        guard let mark = utf8.firstIndex(of: UInt8(ascii: "?")) else { return "" }
        let rest = utf8[utf8.index(after: mark)...]
        let end = rest.firstIndex(of: UInt8(ascii: "#")) ?? rest.endIndex
        return target[utf8.index(after: mark)..<end]
    }
}
