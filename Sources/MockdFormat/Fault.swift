/// A failure injected at the socket instead of (part of) the answer: `fault` in a scenario step, a runtime stub
/// or a mock set response (a recorded failed attempt, `import-har --failed keep`).
///
/// What a client sees (curl's exit code in brackets) is documented in docs/FORMAT.md; the server's
/// `FaultInjector` carries each case out.
public enum Fault: String, Codable, Sendable, CaseIterable {
    /// The connection is reset (TCP RST) without a response (curl 56).
    case connectionReset
    /// The connection is closed without a response: the client sees an empty reply (curl 52).
    case emptyResponse
    /// Headers with the full `Content-Length`, then half the body, then the connection closes (curl 18).
    case truncatedBody
    /// `Transfer-Encoding: chunked` with an invalid chunk-size line, then the connection closes (curl 56).
    case malformedChunk
    /// The request is never answered; the connection stays open until the client gives up (curl 28).
    case noResponse
}
