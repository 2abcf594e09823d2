import Foundation

/// Writes a parsed JSON document (what `JSONSerialization.jsonObject` gives, after the body rules) as compact JSON with
/// sorted keys: byte for byte what `JSONSerialization.data(withJSONObject:options: [.sortedKeys, .fragmentsAllowed,
/// .withoutEscapingSlashes])` writes, keys in the same order (`NSString.compare` with `.numeric`, `.caseInsensitive`,
/// `.forcedOrdering` in the system locale, as swift-corelibs-foundation sorts them) and strings escaped the same way
/// (`JSONTokens.appendQuoted`).
///
/// Why not `JSONSerialization` itself: on Linux it casts every object and array it writes to
/// `Dictionary<AnyHashable, Any?>` and `Array<Any?>`, re-boxing each member; a 1 MB request body took about a second
/// to write, on the worker that answers it. Here the parser's own `[String: Any]` and `[Any]` are read as they are.
///
/// Knows strings, objects, arrays, `null` and the parser's two booleans; any other value (a number the parser made,
/// which `ExactJSONNumbers` never lets it make) gives `nil`, and the caller writes the document with
/// `JSONSerialization`.
enum CanonicalJSONWriter {
    /// `value` as compact, key-sorted JSON, or `nil` when it holds a value this writer does not know.
    static func data(_ value: Any) -> Data? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(1024)
        let locale = NSLocale.system
        guard write(value, into: &bytes, locale: locale) else { return nil }
        return Data(bytes)
    }

    private static let keyOrder: NSString.CompareOptions = [.numeric, .caseInsensitive, .forcedOrdering]
    /// The parser's booleans are these shared instances; any other `NSNumber` is left to `JSONSerialization`.
    private static let trueNumber = NSNumber(value: true)
    private static let falseNumber = NSNumber(value: false)

    private static func write(_ value: Any, into bytes: inout [UInt8], locale: Locale) -> Bool {
        switch value {
        case let string as String:
            JSONTokens.appendQuoted(string, to: &bytes)
        case let object as [String: Any]:
            bytes.append(UInt8(ascii: "{"))
            let members = object.sorted {
                $0.key.compare($1.key, options: keyOrder, range: $0.key.startIndex..<$0.key.endIndex, locale: locale)
                    == .orderedAscending
            }
            for (position, member) in members.enumerated() {
                if position > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONTokens.appendQuoted(member.key, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                guard write(member.value, into: &bytes, locale: locale) else { return false }
            }
            bytes.append(UInt8(ascii: "}"))
        case let array as [Any]:
            bytes.append(UInt8(ascii: "["))
            for (position, element) in array.enumerated() {
                if position > 0 { bytes.append(UInt8(ascii: ",")) }
                guard write(element, into: &bytes, locale: locale) else { return false }
            }
            bytes.append(UInt8(ascii: "]"))
        case is NSNull:
            bytes.append(contentsOf: "null".utf8)
        case let number as NSNumber where number === trueNumber:
            bytes.append(contentsOf: "true".utf8)
        case let number as NSNumber where number === falseNumber:
            bytes.append(contentsOf: "false".utf8)
        default:
            return false
        }
        return true
    }
}
