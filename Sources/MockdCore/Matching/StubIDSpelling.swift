/// How `mockd import-har` spells a stub's id from its request key (`GET_v1_messages__limit-20`), in one place: the
/// importer names stubs and body files with it, and a loaded stub whose id is that spelling keeps no bytes of it
/// (`StubTextArena`): the id is spelt again from the key when asked.
enum StubIDSpelling {
    /// Writes the id of a stub keyed by `method`, `path` and `query` (the canonical forms of `RequestKey`): the
    /// method, `_`, the path's segments joined by `_` (empty ones left out; `root` for `/`), and for a query `__` and
    /// the query with `=` as `-` and `&` as a separator; every run of bytes other than ASCII letters, digits, `-` and
    /// `.` one `_`, leading dots of the path and of the query left out.
    static func write(
        method: UnsafeRawBufferPointer,
        path: UnsafeRawBufferPointer,
        query: UnsafeRawBufferPointer,
        to writer: inout ByteWriter
    ) {
        writer.write(method)
        writer.write(UInt8(ascii: "_"))
        var start = 0
        var end = path.count
        while start < end, path[start] == UInt8(ascii: "/") { start += 1 }
        while end > start, path[end - 1] == UInt8(ascii: "/") { end -= 1 }
        writeSanitized(UnsafeRawBufferPointer(rebasing: path[start..<end]), to: &writer)
        if path.count == 1, path[0] == UInt8(ascii: "/") { writer.write("root" as StaticString) }
        if !query.isEmpty {
            writer.write("__" as StaticString)
            // `=` reads as `-` and `&` as a separator.
            writeSanitized(query, to: &writer, equalsAsDash: true)
        }
    }

    /// Writes the UTF-8 text `text` with every run of bytes other than ASCII letters, digits, `-` and `.` as one `_`
    /// (a byte of a multi-byte character is never kept, so a character outside ASCII is one `_`), and leading dots
    /// left out; with `equalsAsDash`, `=` is kept as `-`.
    static func writeSanitized(_ text: UnsafeRawBufferPointer, to writer: inout ByteWriter, equalsAsDash: Bool = false)
    {
        var wroteAny = false
        var lastWasUnderscore = false
        for byte in text {
            var kept = byte
            if equalsAsDash, byte == UInt8(ascii: "=") { kept = UInt8(ascii: "-") }
            if isKept(kept) {
                if kept == UInt8(ascii: "."), !wroteAny { continue }
                writer.write(kept)
                wroteAny = true
                lastWasUnderscore = false
            } else if !lastWasUnderscore {
                writer.write(UInt8(ascii: "_"))
                wroteAny = true
                lastWasUnderscore = true
            }
        }
    }

    @inline(__always)
    private static func isKept(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."):
            return true
        default:
            return false
        }
    }
}
