import Foundation
public import MockdFormat

extension RequestNormalization {
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
                } else if let pattern = rule.pattern, let problem = RegexGuard.problem(in: pattern) {
                    result.append(("\(path).pattern", "regular expression '\(pattern)' \(problem)"))
                }
                if !PlaceholderName.isValid(rule.placeholder) {
                    result.append(
                        (
                            "\(path).placeholder",
                            "'\(rule.placeholder)' is not a placeholder name (letters, digits, . _ -)"
                        )
                    )
                }
                if list == "bodyValues", let name = rule.name, FieldPath(name) == nil {
                    result.append(("\(path).name", "'\(name)' is not a field path"))
                }
            }
        }
        return result
    }
}
