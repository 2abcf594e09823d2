/// Refuses regular expressions that can backtrack for exponential time, before they are compiled, and bounds the
/// values they run on.
///
/// Foundation's `NSRegularExpression` on Linux (ICU underneath) and Swift's `Regex` have no time limit, and a
/// pattern such as `(a+)+$` takes seconds on a 30-byte value: on libmicrohttpd's shared workers, one session's
/// stub would stall every other session. Every pattern that reaches mockd from a file or over HTTP (`pathPattern`,
/// `urlPattern`, the `matches`/`doesNotMatch` operators, `normalize` rules, WebSocket `regex` replies) passes
/// `check(_:)` when it is loaded, and a value longer than `subjectLimit(for:)` never matches.
///
/// Refused, with a message that names the group:
/// - a **nested quantifier**: a group repeated by `*`, `+` or `{n,m}` (m > 1) that contains a quantifier itself,
///   `(a+)+`, `(a*b?)*`, `((ab)+c)*`;
/// - **overlapping alternatives** under a repetition: `(a|ab)+`, `(\d|x)*` — allowed only when every alternative
///   is a literal and no two start with the same character (`(GET|POST)+`);
/// - more than two **unbounded wildcards** (`.*`, `.+`, `.{n,}`): each one multiplies the work on a value that
///   almost matches by its length (`.*.*.*x` took 1.75 s on 2,000 bytes).
///
/// Not refused: two wildcards, or repeated classes (`[^/]+/[^/]+`), cost at most a polynomial in the value's
/// length, which `subjectLimit(for:)` bounds: 4 KiB, or 1 KiB for a pattern with two wildcards (`.*.*x` took
/// 270 ms on 4 KiB, about 25 ms on 1 KiB, measured in docs/BENCHMARKS.md). Classes that overlap, repeated
/// three times or more (`\w*\w*\w*x`), are not recognised here: the matching budget (`BoundedRegex`) bounds them.
public enum RegexGuard {
    /// Values longer than this many UTF-8 bytes never match a pattern (4 KiB).
    public static let maxSubjectLength = 4096
    /// The limit for a pattern with two unbounded wildcards, whose cost grows with the square of the length.
    public static let maxSubjectLengthWithTwoWildcards = 1024

    /// The longest value, in UTF-8 bytes, that `pattern` is run on; longer ones never match.
    public static func subjectLimit(for pattern: String) -> Int {
        scan(pattern).wildcards >= 2 ? maxSubjectLengthWithTwoWildcards : maxSubjectLength
    }

    /// Whether `text` is short enough to be matched by `pattern` (which this scans: for patterns used rarely;
    /// `FullMatchRegex` keeps its limit).
    public static func admits(_ text: String, pattern: String) -> Bool {
        text.utf8.count <= subjectLimit(for: pattern)
    }

    /// - Throws: `PatternError` naming the problem when `pattern` could backtrack exponentially.
    public static func check(_ pattern: String) throws(PatternError) {
        if let problem = problem(in: pattern) {
            throw PatternError(message: "regular expression '\(pattern)' \(problem)")
        }
    }

    /// One open group while scanning.
    private struct OpenGroup {
        /// Offset (in characters) of its `(`.
        var start: Int
        var containsQuantifier = false
        /// Per alternative: whether it is a plain literal, and its first character.
        var alternatives: [(literal: Bool, first: Character?)] = [(true, nil)]
    }

    /// Why `pattern` is refused, or `nil`.
    static func problem(in pattern: String) -> String? { scan(pattern).problem }

    /// Why `pattern` is refused (or `nil`), and how many unbounded wildcards it has.
    static func scan(_ pattern: String) -> (problem: String?, wildcards: Int) {
        let characters = Array(pattern)
        var groups = [OpenGroup(start: -1)]
        var index = 0
        var wildcards = 0
        /// Marks the current alternative of the innermost group as not a plain literal.
        func notLiteral() {
            groups[groups.count - 1].alternatives[groups[groups.count - 1].alternatives.count - 1].literal = false
        }
        func literal(_ character: Character) {
            let last = groups[groups.count - 1].alternatives.count - 1
            if groups[groups.count - 1].alternatives[last].first == nil {
                groups[groups.count - 1].alternatives[last].first = character
            }
        }
        /// The quantifier at `index`, if any: its length and whether it repeats (more than once).
        func quantifier(at index: Int) -> (length: Int, repeats: Bool)? {
            guard index < characters.count else { return nil }
            var length: Int
            var repeats: Bool
            switch characters[index] {
            case "*", "+":
                (length, repeats) = (1, true)
            case "?":
                (length, repeats) = (1, false)
            case "{":
                guard let close = characters[index...].firstIndex(of: "}") else { return nil }
                let body = String(characters[(index + 1)..<close])
                let parts = body.split(separator: ",", omittingEmptySubsequences: false)
                guard (1...2).contains(parts.count), parts.allSatisfy({ $0.allSatisfy(\.isNumber) }),
                    !parts[0].isEmpty
                else { return nil }
                length = close - index + 1
                repeats =
                    parts.count == 2
                    ? (parts[1].isEmpty || Int(parts[1]).map { $0 > 1 } ?? true) : (Int(parts[0]) ?? 2) > 1
            default:
                return nil
            }
            // Lazy and possessive suffixes.
            if index + length < characters.count, characters[index + length] == "?" || characters[index + length] == "+"
            {
                length += 1
            }
            return (length, repeats)
        }
        while index < characters.count {
            let character = characters[index]
            switch character {
            case "\\":
                if index + 1 < characters.count, characters[index + 1] == "Q" {
                    // \Q…\E: a literal run.
                    var end = index + 2
                    while end + 1 < characters.count, !(characters[end] == "\\" && characters[end + 1] == "E") {
                        end += 1
                    }
                    if index + 2 < characters.count { literal(characters[index + 2]) }
                    index = min(characters.count, end + 2)
                    continue
                }
                notLiteral()
                index += 2
            case "[":
                notLiteral()
                var end = index + 1
                if end < characters.count, characters[end] == "^" { end += 1 }
                if end < characters.count, characters[end] == "]" { end += 1 }
                var depth = 1
                while end < characters.count, depth > 0 {
                    if characters[end] == "\\" {
                        end += 2
                        continue
                    }
                    if characters[end] == "[" { depth += 1 }
                    if characters[end] == "]" { depth -= 1 }
                    end += 1
                }
                index = end
            case "(":
                notLiteral()
                groups.append(OpenGroup(start: index))
                index += 1
                // `(?:`, `(?i)`, `(?<name>`, lookarounds: skip the marker, it is no quantifier.
                if index < characters.count, characters[index] == "?" {
                    index += 1
                    while index < characters.count,
                        characters[index] != ":" && characters[index] != ")"
                            && characters[index] != "=" && characters[index] != "!" && characters[index] != ">"
                    {
                        index += 1
                    }
                    if index < characters.count, characters[index] != ")" { index += 1 }
                }
                continue
            case ")":
                guard groups.count > 1 else { return (nil, wildcards) }  // unbalanced: NSRegularExpression reports it
                let group = groups.removeLast()
                index += 1
                if let (length, repeats) = quantifier(at: index) {
                    if repeats, group.containsQuantifier {
                        return (
                            "repeats a group that repeats itself (the group at offset \(group.start)): a nested "
                                + "quantifier can take exponential time on a value that almost matches; write it without the inner "
                                + "quantifier or make the group match a fixed length", wildcards
                        )
                    }
                    if repeats, group.alternatives.count > 1,
                        !group.alternatives.allSatisfy(\.literal)
                            || Set(group.alternatives.compactMap(\.first)).count < group.alternatives.count
                    {
                        return (
                            "repeats a group whose alternatives can match the same text (the group at offset "
                                + "\(group.start)): this can take exponential time on a value that almost matches; make the "
                                + "alternatives start differently", wildcards
                        )
                    }
                    index += length
                    groups[groups.count - 1].containsQuantifier = true
                } else if group.containsQuantifier {
                    groups[groups.count - 1].containsQuantifier = true
                }
                continue
            case "|":
                groups[groups.count - 1].alternatives.append((true, nil))
                index += 1
                continue
            case ".", "^", "$":
                notLiteral()
                index += 1
            default:
                literal(character)
                index += 1
            }
            if let (length, repeats) = quantifier(at: index) {
                notLiteral()
                groups[groups.count - 1].containsQuantifier = true
                let unbounded =
                    characters[index] != "{" || String(characters[index..<(index + length)]).contains(",}")
                if repeats, character == ".", unbounded { wildcards += 1 }
                index += length
            }
        }
        if wildcards > 2 {
            return (
                "has \(wildcards) unbounded wildcards (.* or .+): each multiplies the time taken on a value that "
                    + "almost matches by its length; keep at most two, or match the parts between them with a class "
                    + "such as [^/]*", wildcards
            )
        }
        return (nil, wildcards)
    }
}
