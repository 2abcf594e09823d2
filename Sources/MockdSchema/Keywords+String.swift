internal import Foundation
import MockdFormat
import MockdPlatform

extension SchemaEvaluation {
    /// `maxLength`, `minLength` (in Unicode code points, 2020-12 Validation §6.3.1) and `pattern` (an ECMA-262
    /// regular expression, unanchored; run with ICU through `NSRegularExpression`, which agrees with ECMA-262 on
    /// everything the suite's required tests use).
    func evaluateStringKeywords(_ context: KeywordContext, into outcome: inout SchemaOutcome) {
        guard case .string(let text) = context.instance else { return }
        let members = context.members
        let length = members["maxLength"] != nil || members["minLength"] != nil ? text.unicodeScalars.count : 0
        if let maximum = members["maxLength"]?.numberValue, Double(length) > maximum {
            outcome.fail(
                context.instancePath,
                context.path("maxLength"),
                "\(length) characters, more than \(maximum.clean)"
            )
        }
        if let minimum = members["minLength"]?.numberValue, Double(length) < minimum {
            outcome.fail(
                context.instancePath,
                context.path("minLength"),
                "\(length) characters, fewer than \(minimum.clean)"
            )
        }
        if case .string(let pattern)? = members["pattern"] {
            switch RegexCache.shared.firstMatch(pattern, text) {
            case .match: break
            case .noMatch:
                outcome.fail(
                    context.instancePath,
                    context.path("pattern"),
                    "\(context.instance.briefText) does not match \(pattern)"
                )
            case .overBudget:
                outcome.fail(
                    context.instancePath,
                    context.path("pattern"),
                    "matching \(context.instance.briefText) against \(pattern) ran out of its matching budget (the pattern backtracks too much to tell)"
                )
            }
        }
    }
}

/// Compiled `pattern`/`patternProperties` expressions, shared by every validator (a pattern is compiled once per
/// process), each run on a budget (`BoundedRegex`). A pattern ICU cannot compile matches nothing.
final class RegexCache: Sendable {
    static let shared = RegexCache()
    private let compiled = Mutex<[String: BoundedRegex?]>([:])

    /// Whether `pattern` matches somewhere in `text` (`.overBudget` when that cannot be told in budget).
    func firstMatch(_ pattern: String, _ text: String) -> BoundedRegex.Outcome {
        let expression = compiled.withLock { cache in
            if let known = cache[pattern] { return known }
            let made = try? BoundedRegex(pattern)
            cache[pattern] = made
            return made
        }
        return expression?.firstMatch(in: text) ?? .noMatch
    }

    /// Whether `pattern` matches somewhere in `text` (not when that cannot be told in budget).
    func matches(_ pattern: String, _ text: String) -> Bool { firstMatch(pattern, text) == .match }
}
