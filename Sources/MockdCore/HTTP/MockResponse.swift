public import Foundation

/// What the engine decided to answer: status, headers and body, as data.
///
/// The server bridge writes it as is; `Content-Length` is computed by the bridge from `body`.
public struct MockResponse: Sendable {
    /// HTTP status code (RFC 9110 §15), 100–999.
    public var status: Int
    public var headers: HTTPHeaders
    public var body: Data
    /// The id of the stub that produced this response, or `nil` when the request matched nothing.
    public var stubID: String?

    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: Data = Data(), stubID: String? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.stubID = stubID
    }
}
