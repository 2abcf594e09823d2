extension HTTPRequest {
    /// Whether the target starts with `/__`, the prefix mockd reserves (`/__mockd/…` control API, `/__session/ID/…`
    /// and `/__host/NAME/…` routing): a three-byte comparison instead of string prefix checks, asked of every request.
    @inline(__always)
    var hasReservedPrefix: Bool {
        var utf8 = target.utf8.makeIterator()
        return utf8.next() == UInt8(ascii: "/") && utf8.next() == UInt8(ascii: "_") && utf8.next() == UInt8(ascii: "_")
    }
}
