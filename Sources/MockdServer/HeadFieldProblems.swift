import CMicroHTTPD
import Foundation

/// What reading a request head field by field found that makes its fields or framing unreliable, gathered while
/// the fields are packed (one pass over names and values that were read anyway) and judged by
/// `RequestCheck.framingRejection(of:)`.
///
/// libmicrohttpd 0.9.75 parses the head in place and accepts several things RFC 9112 refuses: whitespace before
/// the colon becomes part of the name (`Transfer-Encoding ` is then not the framing field), and an obs-fold line
/// is appended to the *name* of the field before it (`Transfer-Encoding:\r\n chunked` arrives as the field
/// `Transfer-Encodingchunked` with an empty value). A name with whitespace or another non-token byte is seen
/// here directly; a folded field is seen because its name no longer sits right before its value in the read
/// buffer (libmicrohttpd moves the name to grow it, while every other field's value follows its name's NUL-ed
/// colon and optional whitespace).
struct HeadFieldProblems {
    /// A field name that is not an RFC 9110 token (whitespace before the colon, a space inside, a control byte).
    static let nameNotToken: UInt8 = 1
    /// A field that was continued on a folded line (obs-fold).
    static let folded: UInt8 = 2
    /// A CR inside a field value.
    static let bareCR: UInt8 = 4

    var flags: UInt8 = 0
    var hostFields: UInt8 = 0
    var transferEncodingFields: UInt8 = 0

    /// Whether `RequestCheck` has to look closer: a problem, a second Host, or any Transfer-Encoding.
    var needsCheck: Bool { flags != 0 || hostFields > 1 || transferEncodingFields != 0 }

    /// Looks at one field as libmicrohttpd handed it over (`key`/`value` point into its read buffer).
    @inline(__always)
    mutating func inspect(key: UnsafePointer<CChar>, keySize: Int, value: UnsafePointer<CChar>?, valueSize: Int) {
        let name = UnsafeRawPointer(key).assumingMemoryBound(to: UInt8.self)
        var notToken = keySize == 0
        for index in 0..<keySize where !HeadFieldProblems.isTokenByte(name[index]) {
            notToken = true
            break
        }
        if notToken { flags |= HeadFieldProblems.nameNotToken }
        if keySize == 4, HeadFieldProblems.lowercasedEquals(name, "host") {
            hostFields &+= hostFields < 255 ? 1 : 0
        } else if keySize == 17, HeadFieldProblems.lowercasedEquals(name, "transfer-encoding") {
            transferEncodingFields &+= transferEncodingFields < 255 ? 1 : 0
        }
        guard let value else { return }
        if valueSize > 0, memchr(value, 0x0D, valueSize) != nil { flags |= HeadFieldProblems.bareCR }
        // In place, the value follows the name, its colon (turned into a NUL) and optional whitespace.
        let gap = UnsafeRawPointer(value) - UnsafeRawPointer(name + keySize)
        if gap < 1 || gap > 4096 || name[keySize] != 0 {
            flags |= HeadFieldProblems.folded
            return
        }
        for index in 1..<gap where name[keySize + index] != 0x20 && name[keySize + index] != 0x09 {
            flags |= HeadFieldProblems.folded
            return
        }
    }

    /// RFC 9110 §5.6.2 tchar, from two 64-bit masks over ASCII.
    @inline(__always)
    static func isTokenByte(_ byte: UInt8) -> Bool {
        let low: UInt64 = 0x03ff_6cfa_0000_0000
        let high: UInt64 = 0x57ff_ffff_c7ff_fffe
        if byte < 64 { return (low >> UInt64(byte)) & 1 == 1 }
        if byte < 128 { return (high >> UInt64(byte - 64)) & 1 == 1 }
        return false
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
