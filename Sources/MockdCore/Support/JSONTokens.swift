/// RFC 8259 tokens read straight from UTF-8 bytes (a string literal unescaped, the extent of a number) and a string
/// literal written. Shared by the readers that skip Foundation's value tree (`MockSetFastDecoder`, `JSONObjectReader`),
/// each deciding what a token means to it, and by the writers that print as Foundation prints
/// (`CanonicalJSONWriter`, `IndexStubPrinter`).
enum JSONTokens {
    /// Appends `text` as a string literal escaped as Foundation's writers escape it (`JSONSerialization` and
    /// `JSONEncoder`, with slashes left as they are): `"` and `\`, the short forms `\b` `\f` `\n` `\r` `\t`, other
    /// control characters as `\u00xx` (lowercase hex), everything else raw. Runs without escapes are copied at once.
    static func appendQuoted(_ text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            var runStart = 0
            // A control byte is a whole scalar in UTF-8, so escaping bytes escapes scalars.
            for (offset, byte) in bytes.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<offset]))
                runStart = offset + 1
                output.append(UInt8(ascii: "\\"))
                switch byte {
                case 0x22, 0x5C: output.append(byte)
                case 0x08: output.append(UInt8(ascii: "b"))
                case 0x09: output.append(UInt8(ascii: "t"))
                case 0x0A: output.append(UInt8(ascii: "n"))
                case 0x0C: output.append(UInt8(ascii: "f"))
                case 0x0D: output.append(UInt8(ascii: "r"))
                default:
                    output.append(contentsOf: "u00".utf8)
                    output.append(lowercaseHex[Int(byte >> 4)])
                    output.append(lowercaseHex[Int(byte & 0xF)])
                }
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
        }
        output.append(UInt8(ascii: "\""))
    }

    private static let lowercaseHex = Array("0123456789abcdef".utf8)

    /// The string literal whose opening quote is at `quote`: its text, and the index after its closing quote.
    /// - Returns: `nil` for an unterminated string, a raw control character, a bad escape, a lone surrogate or
    ///   invalid UTF-8.
    static func string(in bytes: UnsafeBufferPointer<UInt8>, at quote: Int) -> (text: String, end: Int)? {
        let start = quote + 1
        var index = start
        var ascii = true
        // Fast scan: no escapes.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = UnsafeBufferPointer(rebasing: bytes[start..<index])
                guard
                    let string = ascii ? String(decoding: text, as: UTF8.self) : String(validating: text, as: UTF8.self)
                else { return nil }
                return (string, index + 1)
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { return nil }
            if byte >= 0x80 { ascii = false }
            index += 1
        }
        guard index < bytes.count else { return nil }
        // With escapes.
        var output = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                guard let string = String(validating: output, as: UTF8.self) else { return nil }
                return (string, index + 1)
            }
            if byte < 0x20 { return nil }
            guard byte == UInt8(ascii: "\\") else {
                output.append(byte)
                index += 1
                continue
            }
            guard index + 1 < bytes.count else { return nil }
            let escape = bytes[index + 1]
            index += 2
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(escape)
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "t"): output.append(0x09)
            case UInt8(ascii: "u"):
                guard var scalar = hex4(in: bytes, at: index) else { return nil }
                index += 4
                if (0xD800..<0xDC00).contains(scalar) {
                    // A high surrogate must be followed by an escaped low one.
                    guard index + 6 <= bytes.count, bytes[index] == UInt8(ascii: "\\"),
                        bytes[index + 1] == UInt8(ascii: "u"),
                        let low = hex4(in: bytes, at: index + 2), (0xDC00..<0xE000).contains(low)
                    else { return nil }
                    index += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00..<0xE000).contains(scalar) {
                    return nil
                }
                guard let unicode = Unicode.Scalar(scalar) else { return nil }
                output.append(contentsOf: UTF8.encode(unicode)!)
            default:
                return nil
            }
        }
        return nil
    }

    /// The index after the number starting at `start` (RFC 8259 §6: `-`, an integer without a leading zero, an
    /// optional fraction, an optional `e` or `E` exponent), or `nil` when none starts there.
    static func numberEnd(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var index = start
        func digits() -> Bool {
            let first = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
            return index > first
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { return nil }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else if !digits() {
            return nil
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() else { return nil }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard digits() else { return nil }
        }
        return index
    }

    /// The value of the four hex digits at `index` (a `\u` escape's), or `nil`.
    private static func hex4(in bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> UInt32? {
        guard index + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for offset in 0..<4 {
            let byte = bytes[index + offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }
}
