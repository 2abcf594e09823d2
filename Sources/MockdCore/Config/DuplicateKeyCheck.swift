public import Foundation

/// Finds an object member whose name repeats an earlier member of the same object.
///
/// RFC 8259 §4 leaves duplicate names undefined and `JSONSerialization`/`JSONDecoder` silently keep one of
/// them, so `{"status": 200, "status": 500}` would serve whichever the parser picked. mockd refuses such
/// files instead. This is a structural scan only (strings, escapes, nesting), run on bytes a JSON parser
/// has already accepted; values are never interpreted here.
public enum DuplicateKeyCheck {
    /// A member whose name repeats an earlier one of its object.
    public struct Duplicate: Sendable, Equatable {
        /// JSON path of the repeated member (`overrides[0].match.path`).
        public let path: String
        /// Its name, decoded.
        public let name: String
        /// The earlier name when it is spelt with other bytes, equal only under Unicode canonical equivalence (`é`
        /// and `e` + U+0301, which Swift's strings and so mockd's readers take for one name); `nil` when the bytes
        /// are the same.
        public let earlier: String?

        /// `"status" appears twice in this object`, or for names equal only under canonical equivalence
        /// `"café" and "café" differ only in Unicode normalization, one name to mockd`; names JSON-quoted.
        public var phrase: String {
            guard let earlier else { return "\(Self.quoted(name)) appears twice in this object" }
            return
                "\(Self.quoted(name)) and the earlier \(Self.quoted(earlier)) differ only in Unicode normalization, one name to mockd"
        }

        static func quoted(_ name: String) -> String {
            String(
                decoding: (try? JSONSerialization.data(
                    withJSONObject: name,
                    options: [.fragmentsAllowed, .withoutEscapingSlashes]
                )) ?? Data(),
                as: UTF8.self
            )
        }
    }

    /// The first repeated member, or `nil`.
    /// - Complexity: O(n) in the byte count; nesting depth costs memory, not recursion.
    public static func firstDuplicate(in data: Data) -> Duplicate? {
        /// A member name as it is written: where, and whether it holds an escape.
        struct RawName {
            let bytes: Range<Int>
            let escaped: Bool
        }
        struct Frame {
            let isObject: Bool
            /// The names so far while they are few and plain ASCII, compared byte for byte (plain ASCII names are
            /// equal exactly when their bytes are); `nil` once the frame has switched to `names`.
            var plainNames: [Range<Int>]? = []
            /// The decoded names, compared as strings, once a name has an escape or other than ASCII (or many), each
            /// with its first spelling.
            var names: [String: String] = [:]
            var currentName: RawName?
            var index = 0
            var expectsName: Bool
        }
        /// Names per object compared byte for byte before a set takes over (most objects have a handful).
        let plainLimit = 16
        var stack: [Frame] = []
        return data.withUnsafeBytes { raw -> Duplicate? in
            let bytes = raw.bindMemory(to: UInt8.self)
            func decoded(_ name: RawName) -> String {
                let rawName = UnsafeBufferPointer(rebasing: bytes[name.bytes])
                return name.escaped ? decodeEscaped(Data(rawName)) : String(decoding: rawName, as: UTF8.self)
            }
            func path(_ frames: ArraySlice<Frame>) -> PathText {
                var text = ""
                for frame in frames {
                    if frame.isObject {
                        text = PathText(text).member(frame.currentName.map(decoded) ?? "")
                    } else {
                        text += "[\(frame.index)]"
                    }
                }
                return PathText(text)
            }
            var position = 0
            while position < bytes.count {
                let byte = bytes[position]
                switch byte {
                case UInt8(ascii: "\""):
                    let start = position + 1
                    var end = start
                    var escaped = false
                    var ascii = true
                    while end < bytes.count {
                        if bytes[end] == UInt8(ascii: "\\") {
                            escaped = true
                            end += 2
                            continue
                        }
                        if bytes[end] == UInt8(ascii: "\"") { break }
                        if bytes[end] >= 0x80 { ascii = false }
                        end += 1
                    }
                    if let last = stack.indices.last, stack[last].isObject, stack[last].expectsName {
                        let name = RawName(bytes: start..<min(end, bytes.count), escaped: escaped)
                        // Changed in place: a copy of the frame would copy its names for every member.
                        if !escaped, ascii, let plain = stack[last].plainNames, plain.count < plainLimit {
                            let length = name.bytes.count
                            let repeated = plain.contains { earlier in
                                earlier.count == length
                                    && (length == 0
                                        || memcmp(
                                            bytes.baseAddress! + earlier.lowerBound,
                                            bytes.baseAddress! + name.bytes.lowerBound,
                                            length
                                        ) == 0)
                            }
                            if repeated {
                                let text = decoded(name)
                                return Duplicate(path: path(stack.dropLast()).member(text), name: text, earlier: nil)
                            }
                            stack[last].plainNames!.append(name.bytes)
                        } else {
                            if let plain = stack[last].plainNames {
                                stack[last].names = Dictionary(
                                    plain.map { decoded(RawName(bytes: $0, escaped: false)) }.map { ($0, $0) },
                                    uniquingKeysWith: { first, _ in first }
                                )
                                stack[last].plainNames = nil
                            }
                            let text = decoded(name)
                            if let earlier = stack[last].names.updateValue(text, forKey: text) {
                                return Duplicate(
                                    path: path(stack.dropLast()).member(text),
                                    name: text,
                                    earlier: Array(earlier.utf8) == Array(text.utf8) ? nil : earlier
                                )
                            }
                        }
                        stack[last].currentName = name
                        stack[last].expectsName = false
                    }
                    position = end + 1
                    continue
                case UInt8(ascii: "{"): stack.append(Frame(isObject: true, expectsName: true))
                case UInt8(ascii: "["): stack.append(Frame(isObject: false, expectsName: false))
                case UInt8(ascii: "}"), UInt8(ascii: "]"): if !stack.isEmpty { stack.removeLast() }
                case UInt8(ascii: ","):
                    if !stack.isEmpty {
                        if stack[stack.count - 1].isObject {
                            stack[stack.count - 1].expectsName = true
                        } else {
                            stack[stack.count - 1].index += 1
                        }
                    }
                default: break
                }
                position += 1
            }
            return nil
        }
    }

    /// A JSON path being built: `a.b[0].c`, with `["odd key"]` for names that are not identifiers.
    struct PathText {
        let text: String
        init(_ text: String) { self.text = text }

        func member(_ name: String) -> String {
            let plain =
                !name.isEmpty
                && name.unicodeScalars.allSatisfy {
                    CharacterSet.alphanumerics.contains($0) || $0 == "_" || $0 == "$" || $0 == "-"
                }
            if plain { return text.isEmpty ? name : "\(text).\(name)" }
            let quoted = String(
                decoding: (try? JSONSerialization.data(withJSONObject: name, options: [.fragmentsAllowed])) ?? Data(),
                as: UTF8.self
            )
            return "\(text)[\(quoted)]"
        }
    }

    private static func decodeEscaped(_ raw: Data) -> String {
        let literal = Data([UInt8(ascii: "\"")]) + raw + Data([UInt8(ascii: "\"")])
        return (try? JSONSerialization.jsonObject(with: literal, options: [.fragmentsAllowed])) as? String
            ?? String(decoding: raw, as: UTF8.self)
    }
}
