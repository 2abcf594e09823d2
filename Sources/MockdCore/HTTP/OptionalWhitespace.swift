import Foundation

extension Substring {
    /// The text without leading and trailing white space, as `trimmingCharacters(in: .whitespaces)` gives it, found
    /// on the UTF-8 bytes when both ends are ASCII: header lines and media types (space and tab, RFC 9110 §5.6.3
    /// OWS), of which a set of 100,000 stubs has several per stub. Foundation's trim was 45% of the instructions of
    /// a start with 10,000 imported stubs. Text ending in a non-ASCII character takes Foundation's path, which
    /// knows every Unicode space.
    var trimmingWhitespace: String {
        let bytes = utf8
        guard let first = bytes.first, let last = bytes.last, first < 0x80, last < 0x80 else {
            return trimmingCharacters(in: .whitespaces)
        }
        func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
        guard isBlank(first) || isBlank(last) else { return String(self) }
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, isBlank(bytes[start]) { start = bytes.index(after: start) }
        while end > start, isBlank(bytes[bytes.index(before: end)]) { end = bytes.index(before: end) }
        // A non-ASCII character now at an end (after blanks were dropped) may itself be a space: Foundation decides.
        if start < end, bytes[start] >= 0x80 || bytes[bytes.index(before: end)] >= 0x80 {
            return trimmingCharacters(in: .whitespaces)
        }
        return String(decoding: self.utf8[start..<end], as: UTF8.self)
    }
}

extension String {
    /// See `Substring.trimmingWhitespace`; the string itself, not a copy, when neither end is blank.
    var trimmingWhitespace: String {
        let bytes = utf8
        if let first = bytes.first, let last = bytes.last, first < 0x80, last < 0x80, first != 0x20, first != 0x09,
            last != 0x20, last != 0x09
        {
            return self
        }
        return self[...].trimmingWhitespace
    }
}
