import MockdFormat

/// The fault `import-har --failed keep` replays for a failed attempt, read from the error its producer recorded
/// (`_error`, `_failureText`).
///
/// A failure only the client saw — no connection, a name that did not resolve, a certificate or TLS error, a
/// timeout, a request the browser cancelled — becomes that client fault, which `MockdAppRedirect` raises in the app
/// as the same `URLError` and other clients get as its wire fallback (a reset; no answer for `timeout`). Error names
/// are Chromium's (`net::ERR_…`, net/base/net_error_list.h) and Firefox's (`NS_ERROR_…`, `NS_BINDING_ABORTED`, NSS's
/// `SEC_ERROR_…` / `SSL_ERROR_…`); anything else replays as `connectionReset`.
enum RecordedFailure {
    /// The client fault `errorText` names, or `nil`.
    static func clientFault(_ errorText: String?) -> Fault? {
        guard let errorText else { return nil }
        let names = errorText.uppercased().split { !($0.isLetter || $0.isNumber || $0 == "_") }
        for name in names {
            if let fault = exact[String(name)] { return fault }
            if tlsPrefixes.contains(where: { name.hasPrefix($0) }) { return .tlsFailure }
        }
        return nil
    }

    private static let exact: [String: Fault] = [
        "ERR_INTERNET_DISCONNECTED": .offline, "NS_ERROR_OFFLINE": .offline,
        "ERR_NAME_NOT_RESOLVED": .dnsFailure, "ERR_NAME_RESOLUTION_FAILED": .dnsFailure,
        "NS_ERROR_UNKNOWN_HOST": .dnsFailure,
        "ERR_TIMED_OUT": .timeout, "ERR_CONNECTION_TIMED_OUT": .timeout, "NS_ERROR_NET_TIMEOUT": .timeout,
        "ERR_ABORTED": .cancelled, "NS_BINDING_ABORTED": .cancelled,
        "ERR_BAD_SSL_CLIENT_AUTH_CERT": .tlsFailure,
    ]

    private static let tlsPrefixes = ["ERR_CERT_", "ERR_SSL_", "SEC_ERROR_", "SSL_ERROR_", "MOZILLA_PKIX_ERROR_"]
}
