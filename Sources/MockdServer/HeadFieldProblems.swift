import CMicroHTTPD
import Foundation

/// What reading a request head field by field found that makes its fields or framing unreliable, gathered while
/// the fields are packed (one pass over the names and values libmicrohttpd hands over, nothing else) and judged by
/// `RequestCheck.framingRejection(of:)`.
///
/// libmicrohttpd 1.0.x refuses malformed field lines itself (client discipline 1: see `CMicroHTTPD_startDaemon`).
/// 0.9.75's parser lets through what these checks then see in the names and values as handed over: whitespace
/// before the colon stays part of the name (`Transfer-Encoding ` is then not the framing field), and an obs-fold
/// line is appended to the *name* of the field before it (`Transfer-Encoding:\r\n chunked` arrives as the field
/// `Transfer-Encodingchunked` with an empty value), which `foldedIntoFramingName` catches for the framing fields.
struct HeadFieldProblems {
    /// A field name with whitespace (before the colon or inside), a control byte, DEL or a byte ≥ 0x80.
    static let nameNotToken: UInt8 = 1
    /// A name that starts with `Transfer-Encoding` or `Content-Length` and goes on: libmicrohttpd 0.9.75 appends an
    /// obs-fold line to the field's name. Judged only where the running library does that
    /// (`CMicroHTTPD_hasLegacyHeadParser`).
    static let foldedIntoFramingName: UInt8 = 2
    /// A CR inside a field value.
    static let bareCR: UInt8 = 4

    var flags: UInt8 = 0
    var hostFields: UInt8 = 0
    var transferEncodingFields: UInt8 = 0
    /// `Content-Length` fields, which `RequestCheck` then reads (most requests have none: it need not look).
    var contentLengthFields: UInt8 = 0

    /// Whether `RequestCheck` has to look closer: a problem, a second Host, or any Transfer-Encoding.
    var needsCheck: Bool { flags != 0 || hostFields > 1 || transferEncodingFields != 0 }

    /// Looks at one field as libmicrohttpd handed it over (its name and value bytes, packed as read).
    ///
    /// Eight bytes at a time (`Word`): this runs for every field of every request whose fields are not its
    /// connection's previous request's, and a byte-by-byte token check cost a plain keep-alive request about 2% more
    /// instructions.
    mutating func inspect(name fieldName: UnsafeBufferPointer<UInt8>, value fieldValue: UnsafeBufferPointer<UInt8>) {
        if let name = fieldName.baseAddress, !fieldName.isEmpty {
            inspect(name: UnsafeRawPointer(name), keySize: fieldName.count)
        } else {
            flags |= HeadFieldProblems.nameNotToken
        }
        guard let value = fieldValue.baseAddress, !fieldValue.isEmpty else { return }
        if Word.any(in: UnsafeRawPointer(value), count: fieldValue.count, where: Word.hasCR) {
            flags |= HeadFieldProblems.bareCR
        }
    }

    private mutating func inspect(name: UnsafeRawPointer, keySize: Int) {
        // Whitespace, a control byte, DEL or a byte ≥ 0x80: what lets two parsers read a name differently. The
        // separators RFC 9110 also keeps out of tokens (`(),/;<=>?@[\]{}"`) are let through: a test for them cost
        // every request 300 instructions per field, and they cannot change how a request is framed.
        if Word.any(in: name, count: keySize, where: Word.hasByteOutsideName) {
            flags |= HeadFieldProblems.nameNotToken
        }
        if keySize == 4 {
            if name.loadUnaligned(as: UInt32.self) | 0x2020_2020 == 0x7473_6f68 {  // "host", little-endian
                hostFields &+= hostFields < 255 ? 1 : 0
            }
        } else if keySize >= 17,
            HeadFieldProblems.lowercasedEquals(name.assumingMemoryBound(to: UInt8.self), "transfer-encoding")
        {
            if keySize == 17 {
                transferEncodingFields &+= transferEncodingFields < 255 ? 1 : 0
            } else {
                flags |= HeadFieldProblems.foldedIntoFramingName
            }
        } else if keySize >= 14,
            HeadFieldProblems.lowercasedEquals(name.assumingMemoryBound(to: UInt8.self), "content-length")
        {
            if keySize == 14 {
                contentLengthFields &+= contentLengthFields < 255 ? 1 : 0
            } else {
                flags |= HeadFieldProblems.foldedIntoFramingName
            }
        }
    }

    /// Tests on eight bytes at once (SWAR), over a range read with overlapping unaligned loads, so no byte outside
    /// the range is read.
    enum Word {
        static let ones: UInt64 = 0x0101_0101_0101_0101
        static let highs: UInt64 = 0x8080_8080_8080_8080

        /// Whether any byte of `word` is zero.
        @inline(__always)
        static func hasZero(_ word: UInt64) -> Bool { (word &- ones) & ~word & highs != 0 }

        /// Whether any byte of `word` equals `byte`.
        @inline(__always)
        static func has(_ word: UInt64, _ byte: UInt8) -> Bool { hasZero(word ^ (ones &* UInt64(byte))) }

        /// A byte no token has and the common ones: ≤ 0x20 (whitespace, controls), DEL, ≥ 0x80.
        @inline(__always)
        static func hasByteOutsideName(_ word: UInt64) -> Bool {
            // A byte below 0x21 borrows into its high bit; one ≥ 0x7F has it set, by itself or once 1 is added.
            ((word &- ones &* 0x21) & ~word | (word &+ ones) | word) & highs != 0
        }

        @inline(__always)
        static func hasCR(_ word: UInt64) -> Bool { has(word, 0x0D) }

        /// Whether `test` holds for any word of the `count` bytes at `start` (bytes short of a word are read as part
        /// of an overlapping word, or widened from 1, 2 or 4 bytes with the rest set to a byte that passes: 'a').
        @inline(__always)
        static func any(in start: UnsafeRawPointer, count: Int, where test: (UInt64) -> Bool) -> Bool {
            if count >= 8 {
                var offset = 0
                while offset + 8 <= count {
                    if test(start.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) { return true }
                    offset += 8
                }
                return offset < count && test(start.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self))
            }
            let filler = ones &* 0x61
            var word = filler
            if count >= 4 {
                let low = UInt64(start.loadUnaligned(as: UInt32.self))
                let high = UInt64(start.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self))
                word = low | high << 32
            } else {
                let bytes = start.assumingMemoryBound(to: UInt8.self)
                for index in 0..<count {
                    word = word & ~(0xFF << (8 * UInt64(index))) | UInt64(bytes[index]) << (8 * UInt64(index))
                }
            }
            return test(word)
        }
    }

    /// Whether the `literal.utf8.count` bytes at `bytes` equal `literal` (lowercase ASCII), ignoring case.
    @inline(__always)
    static func lowercasedEquals(_ bytes: UnsafePointer<UInt8>, _ literal: StaticString) -> Bool {
        let expected = literal.utf8Start
        for index in 0..<literal.utf8CodeUnitCount where bytes[index] | 0x20 != expected[index] {
            // `| 0x20` folds ASCII letters; '-' (0x2D) is unchanged by it.
            return false
        }
        return true
    }
}
