import Foundation
public import MockdFormat
import MockdPlatform

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

    struct CompiledRule: Sendable {
        let name: String?
        let field: FieldPath?
        let regex: BoundedRegex?
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
            var regex: BoundedRegex?
            if let pattern = rule.pattern {
                guard (try? RegexGuard.check(pattern)) != nil, let compiled = try? BoundedRegex(pattern) else {
                    return nil
                }
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
            // A number read exactly (`ExactJSONNumbers`) is matched by its decimal text.
            text = ExactJSONNumbers.number(in: string) ?? string
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
    /// Whether `regex` matches somewhere in `text`; a match that ran out of its budget (`BoundedRegex`) does not, so
    /// the value stays as sent rather than becoming a placeholder it may not deserve.
    static func found(_ regex: BoundedRegex, in text: String) -> Bool {
        RegexGuard.admits(text, pattern: regex.pattern) && regex.firstMatch(in: text) == .match
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
