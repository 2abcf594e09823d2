import MockdFormat

/// The structure of JSON bodies: every path that occurs (`$.user.name`, `$.items[].id`) and the JSON types seen
/// there, over one or more bodies. Array elements all share the path `[]`, so an array's item shape is the union
/// of its elements' shapes.
struct JSONShape: Equatable {
    /// Path → the types seen there (`string`, `number`, `boolean`, `null`, `object`, `array`).
    private(set) var types: [String: Set<String>] = [:]

    /// Adds `value` at `path` (default the root, `$`).
    mutating func add(_ value: JSONValue, at path: String = "$") {
        switch value {
        case .null: types[path, default: []].insert("null")
        case .bool: types[path, default: []].insert("boolean")
        case .int, .double: types[path, default: []].insert("number")
        case .string: types[path, default: []].insert("string")
        case .array(let elements):
            types[path, default: []].insert("array")
            for element in elements { add(element, at: path + "[]") }
        case .object(let members):
            types[path, default: []].insert("object")
            for (key, member) in members { add(member, at: path + "." + Self.member(key)) }
        }
    }

    /// `name`, or `["na.me"]` when the key is not a plain identifier.
    static func member(_ key: String) -> String {
        let plain = !key.isEmpty && key.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }
        return plain ? key : "[\"\(key)\"]"
    }

    /// The structural changes from `old` to `self`, sorted by path; a path under a removed or added parent is
    /// reported once, at the parent.
    func changes(from old: JSONShape) -> [BodyChange] {
        var changes: [BodyChange] = []
        let paths = Set(types.keys).union(old.types.keys).sorted()
        var reportedPrefixes: [String] = []
        for path in paths {
            if reportedPrefixes.contains(where: { path.hasPrefix($0 + ".") || path.hasPrefix($0 + "[") }) { continue }
            let before = old.types[path]
            let after = types[path]
            switch (before, after) {
            case (nil, let after?):
                changes.append(BodyChange(kind: .added, path: path, before: nil, after: Self.spell(after)))
                reportedPrefixes.append(path)
            case (let before?, nil):
                changes.append(BodyChange(kind: .removed, path: path, before: Self.spell(before), after: nil))
                reportedPrefixes.append(path)
            case (let before?, let after?) where before != after:
                changes.append(
                    BodyChange(kind: .typeChanged, path: path, before: Self.spell(before), after: Self.spell(after))
                )
            default: break
            }
        }
        return changes
    }

    private static func spell(_ types: Set<String>) -> String { types.sorted().joined(separator: "|") }
}
