import Foundation

/// JSON text read into exactly the values `JSONSerialization.jsonObject(with:options:)` gives (`[String: Any]`,
/// `[Any]`, `String`, `NSNumber`, `NSNull`), about three times faster, for the documents an import reads by the
/// hundred thousand (HAR entries and the JSON bodies they carry) and the request bodies a matcher compares.
///
/// swift-corelibs-foundation's parser builds every string through a generic initializer that looks up type
/// metadata at each call: about 38 µs for a 1 KB HAR entry, 13 µs here.
///
/// The reader takes only the plain case of RFC 8259 JSON (UTF-8, no U+FEFF, nesting below 200 levels, no repeated
/// member name, numbers within 64 bits or a `Double`'s range) and answers `nil` for anything else, valid or not, so
/// that `JSONSerialization` decides: its value, its quirks and its error messages stay what every caller had (and
/// `DuplicateKeyCheck`, which compares names as Swift strings too, finds nothing in text the reader read). A
/// number becomes the `NSNumber` Foundation's `fromJSONNumber` rule makes: `Int64` when negative, `UInt64`
/// otherwise; with a fraction or exponent, a `Decimal` past 17 characters before the exponent, else a `Double`.
enum JSONObjectReader {
    /// What `JSONSerialization.jsonObject(with: data, options: options)` returns, read by this reader when it
    /// can: a drop-in for it.
    /// - Parameters:
    ///   - data: JSON text.
    ///   - options: `[]` or `.fragmentsAllowed` (a top-level value other than an array or object accepted); with any
    ///     other option the text goes to `JSONSerialization` as it is.
    /// - Throws: What `JSONSerialization` throws for text the reader leaves to it.
    static func jsonObject(with data: Data, options: JSONSerialization.ReadingOptions = []) throws -> Any {
        if options.isSubset(of: .fragmentsAllowed),
            let value = value(of: data, fragmentsAllowed: options.contains(.fragmentsAllowed))
        {
            return value
        }
        return try JSONSerialization.jsonObject(with: data, options: options)
    }

    /// The value `JSONSerialization` would give for `data`, or `nil` when the reader leaves the text to it
    /// (anything outside the plain case above, and any text that is not JSON).
    static func value(of data: Data, fragmentsAllowed: Bool = false) -> Any? {
        data.withUnsafeBytes { raw -> Any? in
            let bytes = raw.bindMemory(to: UInt8.self)
            var reader = Reader(bytes: bytes)
            reader.skipWhitespace()
            guard reader.position < bytes.count else { return nil }
            if !fragmentsAllowed, bytes[reader.position] != UInt8(ascii: "["),
                bytes[reader.position] != UInt8(ascii: "{")
            {
                return nil
            }
            guard let value = reader.readValue(depth: 0) else { return nil }
            reader.skipWhitespace()
            return reader.position == bytes.count ? value : nil
        }
    }

    /// Deeper documents are left to Foundation, whose own limit then applies. The reader recurses per level: 200
    /// levels fit a 512 KiB stack (macOS's for a secondary thread) with room to spare.
    static let maximumDepth = 200

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0
        /// Unescaped bytes of the string being read, kept between strings so that it is allocated once.
        var scratch: [UInt8] = []

        init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        mutating func skipWhitespace() {
            while position < bytes.count {
                switch bytes[position] {
                case 0x20, 0x09, 0x0A, 0x0D: position += 1
                default: return
                }
            }
        }

        mutating func readValue(depth: Int) -> Any? {
            guard position < bytes.count else { return nil }
            switch bytes[position] {
            case UInt8(ascii: "{"): return readObject(depth: depth + 1)
            case UInt8(ascii: "["): return readArray(depth: depth + 1)
            case UInt8(ascii: "\""): return readString()
            case UInt8(ascii: "t"): return readLiteral("true") ? NSNumber(value: true) : nil
            case UInt8(ascii: "f"): return readLiteral("false") ? NSNumber(value: false) : nil
            case UInt8(ascii: "n"): return readLiteral("null") ? NSNull() : nil
            default: return readNumber()
            }
        }

        private mutating func readLiteral(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard bytes.count - position >= count else { return false }
            let pointer = word.utf8Start
            for offset in 0..<count where bytes[position + offset] != pointer[offset] { return false }
            position += count
            return true
        }

        private mutating func readObject(depth: Int) -> Any? {
            guard depth < maximumDepth else { return nil }
            position += 1
            var object: [String: Any] = [:]
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                position += 1
                return object
            }
            while true {
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\""), let key = readString() else {
                    return nil
                }
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { return nil }
                position += 1
                skipWhitespace()
                guard let value = readValue(depth: depth) else { return nil }
                // Which of two equal names counts is Foundation's to say (and a caller's to refuse).
                guard object.updateValue(value, forKey: key) == nil else { return nil }
                skipWhitespace()
                guard position < bytes.count else { return nil }
                switch bytes[position] {
                case UInt8(ascii: ","):
                    position += 1
                    skipWhitespace()
                case UInt8(ascii: "}"):
                    position += 1
                    return object
                default:
                    return nil
                }
            }
        }

        private mutating func readArray(depth: Int) -> Any? {
            guard depth < maximumDepth else { return nil }
            position += 1
            var array: [Any] = []
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                position += 1
                return array
            }
            while true {
                guard let value = readValue(depth: depth) else { return nil }
                array.append(value)
                skipWhitespace()
                guard position < bytes.count else { return nil }
                switch bytes[position] {
                case UInt8(ascii: ","):
                    position += 1
                    skipWhitespace()
                case UInt8(ascii: "]"):
                    position += 1
                    return array
                default:
                    return nil
                }
            }
        }

        /// A string from the opening quote at `position`; `nil` for a control character, a bad escape, a lone
        /// surrogate, invalid UTF-8 or a raw U+FEFF (which Foundation's parser drops in some places).
        mutating func readString() -> String? {
            position += 1
            let start = position
            var ascii = true
            while position < bytes.count {
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") {
                    let span = UnsafeBufferPointer(rebasing: bytes[start..<position])
                    position += 1
                    return ascii ? String(decoding: span, as: UTF8.self) : Self.validated(span)
                }
                if byte == UInt8(ascii: "\\") { return readEscapedString(from: start) }
                if byte < 0x20 { return nil }
                if byte >= 0x80 { ascii = false }
                position += 1
            }
            return nil
        }

        /// The rest of a string that holds an escape, unescaped into `scratch`.
        private mutating func readEscapedString(from start: Int) -> String? {
            scratch.removeAll(keepingCapacity: true)
            scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<position]))
            while position < bytes.count {
                let byte = bytes[position]
                switch byte {
                case UInt8(ascii: "\""):
                    position += 1
                    return scratch.withUnsafeBufferPointer { Self.validated($0) }
                case UInt8(ascii: "\\"):
                    guard position + 1 < bytes.count else { return nil }
                    let escape = bytes[position + 1]
                    position += 2
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(escape)
                    case UInt8(ascii: "b"): scratch.append(0x08)
                    case UInt8(ascii: "f"): scratch.append(0x0C)
                    case UInt8(ascii: "n"): scratch.append(0x0A)
                    case UInt8(ascii: "r"): scratch.append(0x0D)
                    case UInt8(ascii: "t"): scratch.append(0x09)
                    case UInt8(ascii: "u"):
                        guard let scalar = readUnicodeEscape() else { return nil }
                        scratch.append(contentsOf: UTF8.encode(scalar)!)
                    default:
                        return nil
                    }
                case 0..<0x20:
                    return nil
                default:
                    scratch.append(byte)
                    position += 1
                }
            }
            return nil
        }

        /// The scalar of `\uXXXX` (after the `u`), a surrogate pair taking the following `\uXXXX` too.
        private mutating func readUnicodeEscape() -> Unicode.Scalar? {
            guard let unit = readHexQuad() else { return nil }
            switch unit {
            case 0xD800..<0xDC00:
                guard bytes.count - position >= 6, bytes[position] == UInt8(ascii: "\\"),
                    bytes[position + 1] == UInt8(ascii: "u")
                else { return nil }
                position += 2
                guard let low = readHexQuad(), (0xDC00..<0xE000).contains(low) else { return nil }
                return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
            case 0xDC00..<0xE000, 0xFEFF:
                return nil
            default:
                return Unicode.Scalar(unit)
            }
        }

        private mutating func readHexQuad() -> UInt32? {
            guard bytes.count - position >= 4 else { return nil }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[position]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: return nil
                }
                value = value << 4 | UInt32(digit)
                position += 1
            }
            return value
        }

        /// `span` as a string when it is valid UTF-8 without a U+FEFF.
        private static func validated(_ span: UnsafeBufferPointer<UInt8>) -> String? {
            guard let text = String(validating: span, as: UTF8.self), !text.unicodeScalars.contains("\u{FEFF}") else {
                return nil
            }
            return text
        }

        /// A number in RFC 8259's grammar, as Foundation's `fromJSONNumber` makes it; `nil` for the cases it
        /// handles apart (an integer beyond 64 bits, an `E`, a value out of range).
        private mutating func readNumber() -> Any? {
            let start = position
            var isInteger = true
            if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard position < bytes.count else { return nil }
            if bytes[position] == UInt8(ascii: "0") {
                position += 1
            } else {
                guard skipDigits() else { return nil }
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
                isInteger = false
                position += 1
                guard skipDigits() else { return nil }
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: "e") {
                isInteger = false
                position += 1
                if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-")
                {
                    position += 1
                }
                guard skipDigits() else { return nil }
            }
            // `E`, or a digit after a leading zero: Foundation's to judge.
            if position < bytes.count,
                bytes[position] == UInt8(ascii: "E")
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position])
            {
                return nil
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
            if isInteger {
                if bytes[start] == UInt8(ascii: "-") {
                    return text.utf8.count <= 19 ? Int64(text).map { NSNumber(value: $0) } : nil
                }
                return text.utf8.count <= 20 ? UInt64(text).map { NSNumber(value: $0) } : nil
            }
            // Foundation counts the characters before the exponent: past 17, with an exponent Decimal can hold, it
            // makes a Decimal (Chrome writes times such as `16.378999999999998`).
            let exponentStart = text.utf8.firstIndex(of: UInt8(ascii: "e"))
            let mantissaCount = text.utf8.distance(from: text.utf8.startIndex, to: exponentStart ?? text.utf8.endIndex)
            let exponent = exponentStart.flatMap { Int(text[text.utf8.index(after: $0)...]) } ?? 0
            if mantissaCount > 17, (-128...127).contains(exponent), let decimal = Decimal(string: text),
                decimal.isFinite
            {
                return NSDecimalNumber(decimal: decimal)
            }
            guard let double = Double(text), double.isFinite else { return nil }
            return NSNumber(value: double)
        }

        /// Skips one or more digits; `false` when there is none.
        private mutating func skipDigits() -> Bool {
            let start = position
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
                position += 1
            }
            return position > start
        }
    }
}
