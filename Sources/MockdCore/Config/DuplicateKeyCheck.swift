public import Foundation

/// Finds an object member whose name repeats an earlier member of the same object.
///
/// RFC 8259 §4 leaves duplicate names undefined and `JSONSerialization`/`JSONDecoder` silently keep one of
/// them, so `{"status": 200, "status": 500}` would serve whichever the parser picked. mockd refuses such
/// files instead. This is a structural scan only (strings, escapes, nesting), run on bytes a JSON parser
/// has already accepted; values are never interpreted here.
public enum DuplicateKeyCheck {
    /// The JSON path of the first repeated member (`overrides[0].match.path`) and its name, or `nil`.
    /// - Complexity: O(n) in the byte count; nesting depth costs memory, not recursion.
    public static func firstDuplicate(in data: Data) -> (path: String, name: String)? {
        struct Frame {
            let isObject: Bool
            var names: Set<String> = []
            var currentName: String?
            var index = 0
            var expectsName: Bool
        }
        var stack: [Frame] = []
        return data.withUnsafeBytes { raw -> (String, String)? in
            let bytes = raw.bindMemory(to: UInt8.self)
            var position = 0
            while position < bytes.count {
                let byte = bytes[position]
                switch byte {
                case UInt8(ascii: "\""):
                    let start = position + 1
                    var end = start
                    var escaped = false
                    while end < bytes.count {
                        if bytes[end] == UInt8(ascii: "\\") {
                            escaped = true
                            end += 2
                            continue
                        }
                        if bytes[end] == UInt8(ascii: "\"") { break }
                        end += 1
                    }
                    if let last = stack.indices.last, stack[last].isObject, stack[last].expectsName {
                        let rawName = UnsafeBufferPointer(rebasing: bytes[start..<min(end, bytes.count)])
                        let name =
                            escaped ? decodeEscaped(Data(rawName)) : String(decoding: rawName, as: UTF8.self)
                        // Changed in place: a copy of the frame would copy its set of names for every member.
                        guard stack[last].names.insert(name).inserted else {
                            return (path(stack.dropLast()).member(name), name)
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

        func path(_ frames: ArraySlice<Frame>) -> PathText {
            var text = ""
            for frame in frames {
                if frame.isObject {
                    text = PathText(text).member(frame.currentName ?? "")
                } else {
                    text += "[\(frame.index)]"
                }
            }
            return PathText(text)
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
