/// A failure injected instead of (part of) the answer: `fault` in a scenario step, a runtime stub or a mock set
/// response (a recorded failed attempt, `import-har --failed keep`).
///
/// Two kinds. **Wire faults** break the exchange at the socket, as real networks and servers fail; what a client sees
/// (curl's exit code in brackets) is documented in docs/FORMAT.md, and the server's `FaultInjector` carries each out.
/// **Client faults** (`offline`, `dnsFailure`, `tlsFailure`, `timeout`, `cancelled`) are failures no server can cause:
/// the app's `MockdAppRedirect` raises them as the matching `URLError` for that one request (`urlErrorCode`); a client
/// without it gets the nearest wire behaviour (`wireFallback`), and the journal says which happened.
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
    /// The device has no connection: `URLError.notConnectedToInternet` (-1009). Wire fallback: `connectionReset`.
    case offline
    /// The host name does not resolve: `URLError.cannotFindHost` (-1003). Wire fallback: `connectionReset`.
    case dnsFailure
    /// The TLS handshake fails: `URLError.secureConnectionFailed` (-1200). Wire fallback: `connectionReset`.
    case tlsFailure
    /// The request times out: `URLError.timedOut` (-1001). Wire fallback: `noResponse`.
    case timeout
    /// The request is cancelled: `URLError.cancelled` (-999). Wire fallback: `connectionReset`.
    case cancelled

    /// Whether only the client can raise it (through `MockdAppRedirect`).
    public var isClientSide: Bool { clientError != nil }

    /// What a client without `MockdAppRedirect` gets instead of a client fault: the nearest thing a server can do
    /// (a hang for `timeout`, a reset for the others); a wire fault is itself.
    public var wireFallback: Fault {
        switch self {
        case .timeout: return .noResponse
        case .offline, .dnsFailure, .tlsFailure, .cancelled: return .connectionReset
        case .connectionReset, .emptyResponse, .truncatedBody, .malformedChunk, .noResponse: return self
        }
    }

    /// For a client fault: the `URLError.Code` `MockdAppRedirect` raises, by name and number (NSURLErrorDomain);
    /// `nil` for a wire fault.
    public var clientError: (name: String, code: Int)? {
        switch self {
        case .offline: return ("notConnectedToInternet", -1009)
        case .dnsFailure: return ("cannotFindHost", -1003)
        case .tlsFailure: return ("secureConnectionFailed", -1200)
        case .timeout: return ("timedOut", -1001)
        case .cancelled: return ("cancelled", -999)
        case .connectionReset, .emptyResponse, .truncatedBody, .malformedChunk, .noResponse: return nil
        }
    }

    /// The request header `MockdAppRedirect` sends with every request it redirects (`X-Mockd-Client-Faults: 1`): the
    /// daemon answers a client fault to such a request with `clientFaultHeader` instead of its wire fallback.
    public static let clientFaultsRequestHeader = "X-Mockd-Client-Faults"
    /// The response header naming the client fault to raise (`X-Mockd-Client-Fault: offline`); `MockdAppRedirect`
    /// reads and strips it and fails the request with the fault's `URLError`.
    public static let clientFaultHeader = "X-Mockd-Client-Fault"
}
