import Foundation

/// `Name: value` header lines as written in mock set files.
enum HeaderLine {
    static func parse(_ line: String) -> HTTPHeaders.Field? {
        // Searched by byte (a `Character` search costs ~300 instructions a character); the name is ASCII.
        guard let colon = line.utf8.firstIndex(of: UInt8(ascii: ":")), colon != line.startIndex || line.hasPrefix(":")
        else { return nil }
        // HTTP/2 pseudo-headers (`:status: 200`) start with a colon; split after the name.
        let nameEnd: String.Index
        if line.hasPrefix(":") {
            guard let second = line.utf8[line.utf8.index(after: line.startIndex)...].firstIndex(of: UInt8(ascii: ":"))
            else { return nil }
            nameEnd = second
        } else {
            nameEnd = colon
        }
        let name = line[..<nameEnd].trimmingWhitespace
        guard !name.isEmpty else { return nil }
        let value = line[line.index(after: nameEnd)...].trimmingWhitespace
        return HTTPHeaders.Field(name: name, value: value)
    }

    static func format(_ field: HTTPHeaders.Field) -> String { "\(field.name): \(field.value)" }

    /// A field value may not contain CR, LF or NUL (RFC 9110 §5.5): they would split the response.
    static func isValidValue(_ value: String) -> Bool {
        !value.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }
    }
}
