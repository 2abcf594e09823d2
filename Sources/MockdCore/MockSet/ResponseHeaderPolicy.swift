/// Which recorded response headers mockd never sends, and why.
public enum ResponseHeaderPolicy {
    /// Hop-by-hop fields (RFC 9110 §7.6.1) and fields the server computes itself.
    static let neverSent: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te",
        "trailer", "transfer-encoding", "upgrade",
        // Recomputed from the body actually sent.
        "content-length",
        // Bodies are stored decoded; sending the recorded coding over them would corrupt the response.
        "content-encoding",
    ]

    /// Whether a recorded header of this name is dropped before serving; HTTP/2 pseudo-headers
    /// (`:status`) are always dropped.
    public static func isDropped(_ name: String) -> Bool {
        name.hasPrefix(":") || neverSent.contains(name.asciiLowercased)
    }

    /// `isDropped`, except that a `HEAD` answer keeps its recorded `Content-Length`: it has no body to measure, and
    /// the length is what a client asking `HEAD` wants (RFC 9110 §9.3.2, §8.6).
    public static func isDropped(_ name: String, method: String) -> Bool {
        method == "HEAD" && name.asciiLowercased == "content-length" ? false : isDropped(name)
    }
}
