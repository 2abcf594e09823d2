/// An answer the server bridge gives without matching the request, because of what its head or body is (RFC 9110,
/// RFC 9112). It is journaled in the request's session like any answer (`MockEngine.reject(_:_:)`).
public enum FixedAnswer: Sendable, Equatable {
    /// A malformed or ambiguous request: a method that is not a token, conflicting framing (400).
    case badRequest(String)
    /// A body over the limit, declared or read (413).
    case payloadTooLarge(limitBytes: Int)
    /// A request mockd understands but does not implement, such as a transfer coding other than chunked (501).
    case notImplemented(String)

    /// The answer, in the `MockResponse.jsonError` shape.
    public var response: MockResponse {
        switch self {
        case .badRequest(let message):
            return .jsonError(status: 400, code: "bad_request", message: message)
        case .payloadTooLarge(let limit):
            return .jsonError(status: 413, code: "payload_too_large", message: "request body exceeds \(limit) bytes")
        case .notImplemented(let message):
            return .jsonError(status: 501, code: "not_implemented", message: message)
        }
    }
}
