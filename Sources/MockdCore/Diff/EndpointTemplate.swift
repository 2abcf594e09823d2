/// The path template of a recorded path, for grouping stubs by endpoint in a changelog: segments that look like
/// identifiers become `{id}` (`/v1/users/1042/orders` → `/v1/users/{id}/orders`), the `{name}` form scenarios
/// match with.
///
/// An identifier segment is all digits, a UUID (RFC 4122), 16 or more hex digits, a short prefix and three or
/// more digits (`c_1001`, `usr-77812`), or a placeholder (`{{token}}`). Everything else (`v1`, `me`, `search`)
/// stays literal.
enum EndpointTemplate {
    static func template(ofPath path: String) -> String {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        return segments.map { isIdentifier($0) ? "{id}" : String($0) }.joined(separator: "/")
    }

    static func isIdentifier(_ segment: Substring) -> Bool {
        guard !segment.isEmpty else { return false }
        if segment.hasPrefix("{{") { return true }
        if segment.allSatisfy(\.isASCIIDigit) { return true }
        let hex = segment.filter { $0 != "-" }
        if segment.count == 36, hex.count == 32, hex.allSatisfy(\.isHexDigit) { return true }
        if segment.count >= 16, segment.allSatisfy(\.isHexDigit), segment.contains(where: \.isASCIIDigit) {
            return true
        }
        let digits = segment.reversed().prefix(while: \.isASCIIDigit).count
        let prefix = segment.dropLast(digits)
        let letters = prefix.last == "_" || prefix.last == "-" ? prefix.dropLast() : prefix
        return digits >= 3 && letters.count <= 4 && letters.allSatisfy(\.isLetter)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
