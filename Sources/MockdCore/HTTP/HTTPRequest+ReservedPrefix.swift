extension HTTPRequest {
    /// Whether the target starts with `/__`, the prefix mockd reserves (`/__mockd/…` control API, `/__session/ID/…`
    /// and `/__host/NAME/…` routing): a three-byte comparison instead of string prefix checks, asked of every request.
    @inline(__always)
    var hasReservedPrefix: Bool {
        // Over the contiguous bytes (every target here is native): the iterator cost ~80 instructions per call.
        target.utf8.withContiguousStorageIfAvailable { bytes in
            bytes.count >= 3 && bytes[0] == UInt8(ascii: "/") && bytes[1] == UInt8(ascii: "_")
                && bytes[2] == UInt8(ascii: "_")
        } ?? target.utf8.starts(with: "/__".utf8)
    }
}

/// The routing prefixes under `/__`, shared by the routers that strip them and the URL rewriting that writes them.
enum ReservedPrefix {
    /// `/__host/NAME/…`: the recorded host a request is for (`HostRouting`).
    static let host = "/__host/"
    /// `/__session/ID/…`: the session a request belongs to (`SessionRouting`).
    static let session = "/__session/"
}
