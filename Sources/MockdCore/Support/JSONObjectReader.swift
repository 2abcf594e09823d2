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
                guard object.updateValue(value, forKey: key) == nil, let more = readSeparator(closing: "}") else {
                    return nil
                }
                if !more { return object }
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
                guard let more = readSeparator(closing: "]") else { return nil }
                if !more { return array }
            }
        }

        /// After a member or an element: `true` past a `,` (another follows), `false` past `closing`, `nil` for
        /// anything else.
        private mutating func readSeparator(closing: Unicode.Scalar) -> Bool? {
            skipWhitespace()
            guard position < bytes.count else { return nil }
            let byte = bytes[position]
            position += 1
            if byte == UInt8(ascii: ",") {
                skipWhitespace()
                return true
            }
            return byte == UInt8(ascii: closing) ? false : nil
        }

        /// A string from the opening quote at `position`; `nil` where `JSONTokens` refuses it, and for a U+FEFF, raw
        /// or escaped (Foundation's parser drops a raw one in some places).
        mutating func readString() -> String? {
            guard let (text, end) = JSONTokens.string(in: bytes, at: position),
                // U+FEFF is EF BB BF in UTF-8: the scalars are looked at only when that byte is there.
                !(text.utf8.withContiguousStorageIfAvailable { $0.contains(0xEF) } ?? true)
                    || !text.unicodeScalars.contains("\u{FEFF}")
            else { return nil }
            position = end
            return text
        }

        /// A number in RFC 8259's grammar, as Foundation's `fromJSONNumber` makes it; `nil` for the cases it
        /// handles apart (an integer beyond 64 bits, an `E`, a value out of range). A digit after a leading zero
        /// ends the number here, and the reader then finds no separator.
        private mutating func readNumber() -> Any? {
            let start = position
            guard let end = JSONTokens.numberEnd(in: bytes, from: start) else { return nil }
            let span = UnsafeBufferPointer(rebasing: bytes[start..<end])
            // `E`: Foundation's to judge (its rule looks for a lower-case `e` only).
            guard !span.contains(UInt8(ascii: "E")) else { return nil }
            position = end
            let text = String(decoding: span, as: UTF8.self)
            if !span.contains(UInt8(ascii: ".")), !span.contains(UInt8(ascii: "e")) {
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
    }
}
