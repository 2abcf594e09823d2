import Foundation

/// Rules that make volatile parts of a request irrelevant to matching: cache-busting query parameters,
/// nonces and timestamps in JSON bodies, redacted secrets.
///
/// Written as `normalize` in a mock set index (per set) and in a scenario file (per scenario). The same
/// rules run over the recorded request when `mockd import-har` writes the key and over every live request
/// before lookup, so both sides always agree. A scenario applies the union of its own rules and those of
/// every set it serves.
///
/// ```json
/// "normalize": {
///   "ignoreQuery": ["_", "timestamp", "utm_*"],
///   "queryValues": [{"name": "api_key", "placeholder": "apiKey"},
///                   {"pattern": "^[0-9]{13}$", "placeholder": "timestampMs"}],
///   "ignoreBodyFields": ["requestId", "meta.sentAt"],
///   "bodyValues": [{"name": "password", "placeholder": "secret"}]
/// }
/// ```
public struct RequestNormalization: Codable, Sendable, Equatable {
    /// Query parameter names left out of the key (decoded names; a trailing `*` matches a prefix).
    public var ignoreQuery: [String]?
    /// Query values replaced by `{{placeholder}}` on both sides.
    public var queryValues: [ValueRule]?
    /// JSON body fields (and form fields) left out of the body digest. A single name matches the field at
    /// any depth; a dotted path (`meta.sentAt`, `items[].id`, `*` for any key) matches from the root.
    public var ignoreBodyFields: [String]?
    /// JSON body values (strings and numbers) replaced by `"{{placeholder}}"` on both sides.
    public var bodyValues: [ValueRule]?

    /// A value rule: values of parameter/field `name` (any when absent) that match `pattern` (any when
    /// absent; an ICU regular expression searched in the value, anchor it with `^…$`) become `{{placeholder}}`.
    public struct ValueRule: Codable, Sendable, Equatable, Hashable {
        public var name: String?
        public var pattern: String?
        public var placeholder: String

        public init(name: String? = nil, pattern: String? = nil, placeholder: String) {
            self.name = name
            self.pattern = pattern
            self.placeholder = placeholder
        }
    }

    public init(
        ignoreQuery: [String]? = nil, queryValues: [ValueRule]? = nil, ignoreBodyFields: [String]? = nil,
        bodyValues: [ValueRule]? = nil
    ) {
        self.ignoreQuery = ignoreQuery
        self.queryValues = queryValues
        self.ignoreBodyFields = ignoreBodyFields
        self.bodyValues = bodyValues
    }

    /// Whether no rule is set.
    public var isEmpty: Bool {
        (ignoreQuery ?? []).isEmpty && (queryValues ?? []).isEmpty && (ignoreBodyFields ?? []).isEmpty
            && (bodyValues ?? []).isEmpty
    }

    /// Both rule lists together, duplicates removed, order kept (`self` first).
    public func merged(with other: RequestNormalization) -> RequestNormalization {
        func union<T: Hashable>(_ a: [T]?, _ b: [T]?) -> [T]? {
            var seen = Set<T>()
            let items = ((a ?? []) + (b ?? [])).filter { seen.insert($0).inserted }
            return items.isEmpty ? nil : items
        }
        return RequestNormalization(
            ignoreQuery: union(ignoreQuery, other.ignoreQuery), queryValues: union(queryValues, other.queryValues),
            ignoreBodyFields: union(ignoreBodyFields, other.ignoreBodyFields), bodyValues: union(bodyValues, other.bodyValues)
        )
    }

    /// Problems with the rules as `(JSON path below normalize, message)`: empty names, invalid regular
    /// expressions, placeholder names that are not `letters, digits, ._-`.
    public func problems() -> [(path: String, message: String)] {
        var result: [(String, String)] = []
        for (index, name) in (ignoreQuery ?? []).enumerated() where name.isEmpty || name == "*" {
            result.append(("ignoreQuery[\(index)]", "name a query parameter (a trailing * matches a prefix)"))
        }
        for (index, path) in (ignoreBodyFields ?? []).enumerated() where FieldPath(path) == nil {
            result.append(("ignoreBodyFields[\(index)]", "'\(path)' is not a field path (name, a.b.c, items[].id)"))
        }
        for (list, rules) in [("queryValues", queryValues ?? []), ("bodyValues", bodyValues ?? [])] {
            for (index, rule) in rules.enumerated() {
                let path = "\(list)[\(index)]"
                if rule.name == nil, rule.pattern == nil {
                    result.append((path, "give a name, a pattern or both"))
                }
                if let pattern = rule.pattern, (try? NSRegularExpression(pattern: pattern)) == nil {
                    result.append(("\(path).pattern", "'\(pattern)' is not a valid regular expression"))
                }
                if !Template.isPlaceholderName(rule.placeholder) {
                    result.append(("\(path).placeholder", "'\(rule.placeholder)' is not a placeholder name (letters, digits, . _ -)"))
                }
                if list == "bodyValues", let name = rule.name, FieldPath(name) == nil {
                    result.append(("\(path).name", "'\(name)' is not a field path"))
                }
            }
        }
        return result
    }
}

/// `RequestNormalization` compiled for use on every request; `RequestNormalizer.none` costs nothing.
public struct RequestNormalizer: Sendable {
    public static let none = RequestNormalizer(RequestNormalization())

    public let rules: RequestNormalization
    let isEmpty: Bool
    private let ignoredNames: Set<String>
    private let ignoredPrefixes: [String]
    private let queryRules: [CompiledRule]
    private let ignoredFields: [FieldPath]
    private let bodyRules: [CompiledRule]

    struct CompiledRule: @unchecked Sendable {  // NSRegularExpression is immutable and thread-safe
        let name: String?
        let field: FieldPath?
        let regex: NSRegularExpression?
        let placeholder: String
    }

    /// Compiles `rules`; rules that `RequestNormalization.problems()` reports are skipped.
    public init(_ rules: RequestNormalization) {
        self.rules = rules
        isEmpty = rules.isEmpty
        let ignore = rules.ignoreQuery ?? []
        ignoredNames = Set(ignore.filter { !$0.hasSuffix("*") })
        ignoredPrefixes = ignore.filter { $0.hasSuffix("*") && $0.count > 1 }.map { String($0.dropLast()) }
        func compile(_ rule: RequestNormalization.ValueRule, field: Bool) -> CompiledRule? {
            if rule.name == nil, rule.pattern == nil { return nil }
            var regex: NSRegularExpression?
            if let pattern = rule.pattern {
                guard let compiled = try? NSRegularExpression(pattern: pattern) else { return nil }
                regex = compiled
            }
            let path = field ? rule.name.flatMap(FieldPath.init) : nil
            if field, rule.name != nil, path == nil { return nil }
            return CompiledRule(name: rule.name, field: path, regex: regex, placeholder: "{{\(rule.placeholder)}}")
        }
        queryRules = (rules.queryValues ?? []).compactMap { compile($0, field: false) }
        ignoredFields = (rules.ignoreBodyFields ?? []).compactMap(FieldPath.init)
        bodyRules = (rules.bodyValues ?? []).compactMap { compile($0, field: true) }
    }

    /// Whether query parameter `name` (decoded) is left out of keys.
    func ignoresQuery(_ name: String) -> Bool {
        ignoredNames.contains(name) || ignoredPrefixes.contains { name.hasPrefix($0) }
    }

    /// The value stored in the key for parameter `name` (both decoded).
    func queryValue(name: String, value: String) -> String {
        for rule in queryRules {
            if let ruleName = rule.name, ruleName != name { continue }
            if let regex = rule.regex, !NormalizerRegex.found(regex, in: value) { continue }
            return rule.placeholder
        }
        return value
    }

    /// Whether any body rule is set (body digests need re-computing only then).
    var hasBodyRules: Bool { !ignoredFields.isEmpty || !bodyRules.isEmpty }

    /// A parsed JSON body with ignored fields removed and rule values replaced.
    func normalizeJSON(_ value: Any) -> Any {
        normalize(value, path: [])
    }

    private func normalize(_ value: Any, path: [FieldPath.Step]) -> Any {
        if var object = value as? [String: Any] {
            for (key, member) in object {
                let memberPath = path + [.key(key)]
                if ignoredFields.contains(where: { $0.matches(memberPath) }) {
                    object[key] = nil
                } else {
                    object[key] = normalize(member, path: memberPath)
                }
            }
            return object
        }
        if let array = value as? [Any] {
            return array.enumerated().compactMap { offset, element -> Any? in
                let elementPath = path + [.index]
                if ignoredFields.contains(where: { $0.matches(elementPath) }) { return nil }
                return normalize(element, path: elementPath)
            }
        }
        let text: String
        if let string = value as? String {
            text = string
        } else if let number = value as? NSNumber, !(value is Bool) {
            text = number.stringValue
        } else {
            return value
        }
        for rule in bodyRules {
            if let field = rule.field, !field.matches(path) { continue }
            if let regex = rule.regex, !NormalizerRegex.found(regex, in: text) { continue }
            return rule.placeholder
        }
        return value
    }

    /// Whether form field `name` is left out of a form body digest.
    func ignoresFormField(_ name: String) -> Bool {
        ignoredFields.contains { $0.matches([.key(name)]) }
    }

    /// The value stored for form field `name`.
    func formValue(name: String, value: String) -> String {
        for rule in bodyRules {
            if let field = rule.field, !field.matches([.key(name)]) { continue }
            if let regex = rule.regex, !NormalizerRegex.found(regex, in: value) { continue }
            return rule.placeholder
        }
        return value
    }
}

enum NormalizerRegex {
    static func found(_ regex: NSRegularExpression, in text: String) -> Bool {
        regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }
}

/// A JSON field path: `name` (any depth), `a.b.c` (from the root), `items[].id` or `items.*.id`.
struct FieldPath: Sendable, Hashable {
    enum Step: Hashable, Sendable {
        case key(String)
        case index
    }

    enum Pattern: Hashable, Sendable {
        case key(String)
        case anyKey
        case anyIndex
    }

    let patterns: [Pattern]
    /// A single name: matches the field wherever it is.
    let anyDepth: Bool

    init?(_ text: String) {
        var text = Substring(text)
        if text.hasPrefix("$.") { text = text.dropFirst(2) }
        guard !text.isEmpty else { return nil }
        var patterns: [Pattern] = []
        for part in text.split(separator: ".", omittingEmptySubsequences: false) {
            var name = part
            var indexes = 0
            while name.hasSuffix("[]") {
                name = name.dropLast(2)
                indexes += 1
            }
            if name == "*" {
                patterns.append(.anyKey)
            } else if name.isEmpty {
                if indexes == 0 { return nil }
            } else {
                patterns.append(.key(String(name)))
            }
            patterns += Array(repeating: .anyIndex, count: indexes)
        }
        guard !patterns.isEmpty else { return nil }
        self.patterns = patterns
        anyDepth = patterns.count == 1 && !text.hasPrefix("$")
    }

    func matches(_ path: [Step]) -> Bool {
        if anyDepth {
            guard let last = path.last, case .key(let name) = last, case .key(let wanted) = patterns[0] else {
                return patterns[0] == .anyKey && path.last.map { if case .key = $0 { true } else { false } } == true
            }
            return name == wanted
        }
        guard path.count == patterns.count else { return false }
        for (step, pattern) in zip(path, patterns) {
            switch (step, pattern) {
            case (.key(let name), .key(let wanted)) where name == wanted: continue
            case (.key, .anyKey), (.index, .anyIndex): continue
            default: return false
            }
        }
        return true
    }
}
