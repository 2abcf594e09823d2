/// RFC 9110 §5.6.2 tokens (methods, header names).
public enum HTTPToken {
    public static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy(isTokenByte)
    }

    /// RFC 9110 tchar, as a switch: it runs for every byte of every method and header name.
    @inline(__always)
    static func isTokenByte(_ byte: UInt8) -> Bool {
        if URLEncoding.isUnreserved(byte) { return true }
        switch byte {
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"),
            UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "^"), UInt8(ascii: "`"), UInt8(ascii: "|"):
            return true
        default:
            return false
        }
    }
}
