/// One reference token of a JSON Pointer (RFC 6901 §3–4).
public enum JSONPointerToken {
    /// `token` with its escapes undone: `~1` is `/` and `~0` is `~`, read left to right in one pass, so `~01` is `~1`
    /// (RFC 6901 §4). Any other `~` is kept as written. A token without `~` (nearly every one) is copied as it is.
    /// - Parameter token: One token: the text between two `/` of a pointer, without the slashes.
    /// - Returns: The member name or array index the token stands for.
    public static func unescaped(_ token: some StringProtocol) -> String {
        guard token.utf8.contains(UInt8(ascii: "~")) else { return String(token) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(token.utf8.count)
        var pendingTilde = false
        for byte in token.utf8 {
            if pendingTilde {
                pendingTilde = false
                switch byte {
                case UInt8(ascii: "1"):
                    bytes.append(UInt8(ascii: "/"))
                    continue
                case UInt8(ascii: "0"):
                    bytes.append(UInt8(ascii: "~"))
                    continue
                default: bytes.append(UInt8(ascii: "~"))
                }
            }
            if byte == UInt8(ascii: "~") { pendingTilde = true } else { bytes.append(byte) }
        }
        if pendingTilde { bytes.append(UInt8(ascii: "~")) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
