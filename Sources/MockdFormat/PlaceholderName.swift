/// The names a `{{placeholder}}` may have in a body, a header value or a normalisation rule: 1–200 of the RFC 3986
/// unreserved characters (letters, digits, `-`, `.`, `_`, `~`) and `[`, `]` (`request.json.items[0].id`).
public enum PlaceholderName {
    public static func isValid(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 200 && name.utf8.allSatisfy(isNameByte)
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "["),
            UInt8(ascii: "]"):
            return true
        default:
            return false
        }
    }
}
