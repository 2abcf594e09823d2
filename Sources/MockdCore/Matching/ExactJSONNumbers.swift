import Foundation

/// JSON numbers compared by their exact decimal value (RFC 8259 §6 leaves precision to implementations; a request
/// matcher must not): `275`, `275.00`, `2.75e2` and `27500e-2` are one value, `9007199254740993` and
/// `9.007199254740993e15` are not `9007199254740992` (as they would be as IEEE doubles), and nothing is rounded.
///
/// `JSONSerialization` reads every number with a fraction or an exponent as a `Double`, so before parsing each
/// number literal (outside strings) is replaced by a marked string holding its canonical decimal text, and after
/// serialising the markers are turned back into bare numbers.
enum ExactJSONNumbers {
    /// The marker a number literal becomes while the document is parsed: a string no JSON text produces unescaped.
    static let marker = "\u{0}num:"
    private static let escapedMarker = Array(#""\u0000num:"#.utf8)

    /// `json` with every number literal outside strings replaced by `"\u0000num:CANONICAL"`; `nil` when a number is
    /// malformed or its exponent is absurd (more than 9 digits): the body is then not compared as JSON.
    static func markingNumbers(_ json: Data) -> Data? {
        // Built as an array: `Data` pays a representation check on every byte appended (a fifth of canonicalising a
        // large body went there).
        var output: [UInt8] = []
        output.reserveCapacity(json.count + 16)
        let bytes = [UInt8](json)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                // Copy the string through its closing quote, skipping escaped characters.
                var end = index + 1
                while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
                    end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
                }
                end = min(end, bytes.count - 1)
                output.append(contentsOf: bytes[index...end])
                index = end + 1
            } else if byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                var end = index
                while end < bytes.count, isNumberByte(bytes[end]) { end += 1 }
                guard let canonical = canonical(bytes[index..<end]) else { return nil }
                output.append(contentsOf: escapedMarker)
                output.append(contentsOf: canonical.utf8)
                output.append(UInt8(ascii: "\""))
                index = end
            } else {
                output.append(byte)
                index += 1
            }
        }
        return Data(output)
    }

    /// Serialised JSON with each marked string turned back into its bare canonical number.
    static func unmarkingNumbers(_ json: Data) -> Data {
        guard ByteSearch.contains(escapedMarker, in: json) else { return json }
        var output = Data()
        output.reserveCapacity(json.count)
        var copied = 0
        var offset = 0
        while let hit = ByteSearch.firstOffset(of: escapedMarker, in: json, from: offset) {
            let start = hit + escapedMarker.count
            guard let close = ByteSearch.firstOffset(of: [UInt8(ascii: "\"")], in: json, from: start) else { break }
            output.append(json[(json.startIndex + copied)..<(json.startIndex + hit)])
            output.append(json[(json.startIndex + start)..<(json.startIndex + close)])
            offset = close + 1
            copied = offset
        }
        output.append(json[(json.startIndex + copied)...])
        return output
    }

    /// The number a marked string stands for, or `nil` for an ordinary string.
    static func number(in string: String) -> String? {
        string.hasPrefix(marker) ? String(string.dropFirst(marker.count)) : nil
    }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."),
            UInt8(ascii: "e"), UInt8(ascii: "E"):
            return true
        default:
            return false
        }
    }

    /// The canonical decimal text of a JSON number literal (RFC 8259 §6 grammar): no sign for zero, no leading or
    /// trailing zeros, plain notation while within 30 digits of the point (`275`, `0.5`, `-12.25`), else
    /// `D.DDDe±N`. `nil` when `literal` is not a JSON number.
    static func canonical(_ literal: ArraySlice<UInt8>) -> String? {
        var index = literal.startIndex
        let negative = index < literal.endIndex && literal[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        func digits() -> ArraySlice<UInt8> {
            let start = index
            while index < literal.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(literal[index]) {
                index += 1
            }
            return literal[start..<index]
        }
        let integer = digits()
        guard !integer.isEmpty, integer.count == 1 || integer.first != UInt8(ascii: "0") else { return nil }
        var fraction: ArraySlice<UInt8> = []
        if index < literal.endIndex, literal[index] == UInt8(ascii: ".") {
            index += 1
            fraction = digits()
            guard !fraction.isEmpty else { return nil }
        }
        var exponent = 0
        if index < literal.endIndex, literal[index] == UInt8(ascii: "e") || literal[index] == UInt8(ascii: "E") {
            index += 1
            var exponentNegative = false
            if index < literal.endIndex, literal[index] == UInt8(ascii: "+") || literal[index] == UInt8(ascii: "-") {
                exponentNegative = literal[index] == UInt8(ascii: "-")
                index += 1
            }
            let exponentDigits = digits()
            guard !exponentDigits.isEmpty, exponentDigits.count <= 9 else { return nil }
            exponent = Int(String(decoding: exponentDigits, as: UTF8.self))! * (exponentNegative ? -1 : 1)
        }
        guard index == literal.endIndex else { return nil }
        // value = significand × 10^scale, significand without leading or trailing zeros.
        var significand = Array((integer + fraction).drop { $0 == UInt8(ascii: "0") })
        var scale = exponent - fraction.count
        while significand.last == UInt8(ascii: "0") {
            significand.removeLast()
            scale += 1
        }
        guard !significand.isEmpty else { return "0" }
        let text = String(decoding: significand, as: UTF8.self)
        let sign = negative ? "-" : ""
        let pointPosition = text.count + scale  // digits before the decimal point
        if scale >= 0, pointPosition <= 30 {
            return sign + text + String(repeating: "0", count: scale)
        }
        if scale < 0, pointPosition > 0 {
            let cut = text.index(text.startIndex, offsetBy: pointPosition)
            return sign + text[..<cut] + "." + text[cut...]
        }
        if scale < 0, pointPosition > -30 {
            return sign + "0." + String(repeating: "0", count: -pointPosition) + text
        }
        let rest = text.dropFirst()
        return sign + String(text.prefix(1)) + (rest.isEmpty ? "" : "." + rest) + "e" + String(pointPosition - 1)
    }
}
