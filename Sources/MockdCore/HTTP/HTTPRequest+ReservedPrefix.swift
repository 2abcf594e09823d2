extension HTTPRequest {
    /// Whether the target starts with `/__`, the prefix mockd reserves (`/__mockd/…` control API, `/__session/ID/…`
    /// and `/__host/NAME/…` routing): a three-byte comparison instead of string prefix checks, asked of every request.
    @inline(__always)
    var hasReservedPrefix: Bool {
        var utf8 = target.utf8.makeIterator()
        return utf8.next() == UInt8(ascii: "/") && utf8.next() == UInt8(ascii: "_") && utf8.next() == UInt8(ascii: "_")
    }
}

/// The routing prefixes under `/__`, shared by the routers that strip them and the URL rewriting that writes them.
enum ReservedPrefix {
    /// `/__host/NAME/…`: the recorded host a request is for (`HostRouting`).
    static let host = "/__host/"
    /// `/__session/ID/…`: the session a request belongs to (`SessionRouting`).
    static let session = "/__session/"
}
