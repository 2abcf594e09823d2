import Foundation

/// Where a JSON syntax error is, for one-line messages that name the line: `JSONSerialization`'s messages name a
/// byte offset (or say the file ended inside a value), which a user can act on only as a line number. Used for
/// scenario and mock set files, HARs (whole and streamed) and WireMock mappings.
enum JSONSyntaxLocation {
    /// What the JSON parser says about a file that ends inside a value.
    static let truncatedDetail = "Unexpected end of file during JSON parse."

    /// The parser's own message for a `JSONSerialization` error.
    static func parserDetail(_ error: any Error) -> String {
        (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? error.localizedDescription
    }

    /// 1 + the number of line feeds in `bytes`.
    static func lineNumber(_ bytes: some Collection<UInt8>) -> Int {
        bytes.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
    }

    /// The line of the last byte that is not JSON whitespace, `nil` when there is none.
    static func lastContentLine(_ bytes: Data) -> Int? {
        guard let last = bytes.lastIndex(where: { !isJSONWhitespace($0) }) else { return nil }
        return lineNumber(bytes[..<last])
    }

    /// Space, tab, line feed and carriage return: the only whitespace JSON allows between tokens.
    @inline(__always)
    static func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// The byte offset named in a JSON parser message (`… around character 123.` / `… at offset 123`), if any.
    static func firstInvalidOffset(detail: String) -> Int? {
        for marker in ["character ", "offset "] {
            if let range = detail.range(of: marker, options: .backwards) {
                let digits = detail[range.upperBound...].prefix { $0.isNumber }
                if let offset = Int(digits) { return offset }
            }
        }
        return nil
    }

    /// ` at line N` for the offset the parser's `detail` names (or, for a file cut off inside a value, the line of
    /// its last content), else an empty string.
    /// - Parameters:
    ///   - line: The 1-based line of a byte offset, `nil` when out of range.
    ///   - lastLine: The line of the file's last non-whitespace byte.
    static func atLine(detail: String, line: (Int) -> Int?, lastLine: () -> Int?) -> String {
        if let offset = firstInvalidOffset(detail: detail), let line = line(offset) { return " at line \(line)" }
        if detail == truncatedDetail, let line = lastLine() { return " at line \(line)" }
        return ""
    }

    /// `atLine` for a file whose bytes are all at hand.
    static func atLine(detail: String, in data: Data) -> String {
        atLine(
            detail: detail,
            line: { offset in offset <= data.count ? lineNumber(data.prefix(offset)) : nil },
            lastLine: { lastContentLine(data) }
        )
    }
}
