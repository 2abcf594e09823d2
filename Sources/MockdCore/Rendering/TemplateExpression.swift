import Foundation

/// Why a template cannot be used, in one line naming the placeholder (`{{fake.nmae}}: unknown helper 'fake.nmae' (did
/// you mean 'fake.name'?)`). A body or header with one is refused where it is loaded (`mockd validate`, the daemon's
/// start, `POST /__mockd/stubs`), never sent with the placeholder as written.
public struct TemplateProblem: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String

    init(_ message: String) { self.message = message }

    public var description: String { message }
}

/// One `{{…}}` value: a helper and its arguments, parsed once when the template loads.
///
/// The helpers and their arguments are listed in `TemplateHelpers`; anything else is a `TemplateProblem`.
struct TemplateExpression: Sendable {
    indirect enum Kind: Sendable {
        case now(offset: DateOffset?, output: DateOutput)
        case uuid
        case counter
        case retryAfter
        case requestMethod, requestPath, requestURL, requestBody, requestQueryString
        /// The Nth path segment, 0-based, decoded.
        case requestPathSegment(Int)
        /// A decoded query parameter: the first value, or the Nth.
        case requestQuery(name: String, index: Int?)
        case requestHeader(String)
        case requestCookie(String)
        /// A value of the JSON request body by dot path with `[i]`; `nil` for the whole body.
        case requestJSON(String?)
        /// `resources.NAME.count` or `resources.NAME.ID.PATH` (the part after `resources.`).
        case resource(String)
        /// A fixed value of a redacted secret (`FakeValues`).
        case fixedFake(String)
        case fake(FakeHelper, key: TemplateOperand?, person: Int)
    }

    let kind: Kind
    /// The placeholder as written inside the braces, for messages.
    let text: String
    /// The position of this seeded helper among the template's (`{{fake.uuid}}` twice gives two UUIDs).
    let occurrence: Int

    /// Whether the helper is a fixed value of a redacted secret (`{{token}}`), rendered once at load.
    var isFixedFake: Bool {
        if case .fixedFake = kind { return true }
        return false
    }
}

/// A seeded fake value (`FakeData`).
enum FakeHelper: Sendable, Equatable {
    case firstName, lastName, name, email, username, phone, street, city, postcode, country, countryCode, address
    case company
    case uuid
    case int(min: Int64, max: Int64)
    case decimal(min: Double, max: Double, places: Int)
    case bool
    case word
    case words(Int)
    case sentence(Int)
    case digits(Int)
    case hex(Int)
    case pick([String])

    /// The helper and its arguments as text, part of what its value is drawn for (written out rather than taken from
    /// Swift's description of the case, so the values stay the same across compilers).
    var identity: String {
        switch self {
        case .firstName: "firstName"
        case .lastName: "lastName"
        case .name: "name"
        case .email: "email"
        case .username: "username"
        case .phone: "phone"
        case .street: "street"
        case .city: "city"
        case .postcode: "postcode"
        case .country: "country"
        case .countryCode: "countryCode"
        case .address: "address"
        case .company: "company"
        case .uuid: "uuid"
        case .int(let low, let high): "int:\(low):\(high)"
        case .decimal(let low, let high, let places): "decimal:\(low):\(high):\(places)"
        case .bool: "bool"
        case .word: "word"
        case .words(let count): "words:\(count)"
        case .sentence(let count): "sentence:\(count)"
        case .digits(let length): "digits:\(length)"
        case .hex(let length): "hex:\(length)"
        case .pick(let options): "pick:" + options.joined(separator: "\u{1}")
        }
    }

    /// Whether the helper describes the placeholder's person (the same one for every person field with its key).
    var isPersonField: Bool {
        switch self {
        case .firstName, .lastName, .name, .email, .username, .phone, .street, .city, .postcode, .country,
            .countryCode, .address, .company:
            true
        default: false
        }
    }
}

/// An operand of a condition or a `key=` argument: a helper's value or a literal.
indirect enum TemplateOperand: Sendable {
    case expression(TemplateExpression)
    case text(String)
    case number(String)
    case bool(Bool)
    case null
}

/// `{{#if A}}`, `{{#if A == B}}`, `{{#unless A}}`, `{{else if A}}`.
struct TemplateCondition: Sendable {
    enum Comparison: String, Sendable, CaseIterable {
        case equal = "=="
        case notEqual = "!="
        case less = "<"
        case lessOrEqual = "<="
        case greater = ">"
        case greaterOrEqual = ">="
        case contains
    }

    let left: TemplateOperand
    let comparison: (Comparison, TemplateOperand)?
    /// `#unless`: the branch runs when the condition does not hold.
    let negated: Bool
}

/// What the inside of one `{{…}}` is.
enum TemplateTag: Sendable {
    case value(TemplateExpression)
    case blockOpen(TemplateCondition, keyword: String)
    case elseBranch(TemplateCondition?)
    case blockClose(keyword: String)
}

/// The lexer and parser of what is inside `{{…}}`.
struct TemplateTagParser {
    /// Counts seeded helpers across one template (`TemplateExpression.occurrence`).
    var occurrences = 0

    enum Token: Equatable {
        case word(String)
        case string(String)
        case equals
        case comparison(String)
    }

    /// The tokens of `content`: words, quoted strings (`"…"`, `'…'`, or `\"…\"` inside a JSON string), `=` and the
    /// comparison operators.
    static func tokens(_ content: String) throws(TemplateProblem) -> [Token] {
        var tokens: [Token] = []
        let characters = Array(content)
        var index = 0
        func unterminated() -> TemplateProblem { TemplateProblem("unterminated quoted text") }
        while index < characters.count {
            let character = characters[index]
            if character.isWhitespace {
                index += 1
                continue
            }
            if character == "\\", index + 1 < characters.count, characters[index + 1] == "\"" {
                // `\"…\"`: quotes escaped because the template sits in a JSON string.
                var end = index + 2
                while end + 1 < characters.count, !(characters[end] == "\\" && characters[end + 1] == "\"") { end += 1 }
                guard end + 1 < characters.count else { throw unterminated() }
                tokens.append(.string(String(characters[(index + 2)..<end])))
                index = end + 2
                continue
            }
            if character == "\"" || character == "'" {
                var text = ""
                var end = index + 1
                while end < characters.count, characters[end] != character {
                    if characters[end] == "\\", end + 1 < characters.count {
                        end += 1
                    }
                    text.append(characters[end])
                    end += 1
                }
                guard end < characters.count else { throw unterminated() }
                tokens.append(.string(text))
                index = end + 1
                continue
            }
            let two = index + 1 < characters.count ? String(characters[index...(index + 1)]) : ""
            if ["==", "!=", "<=", ">="].contains(two) {
                tokens.append(.comparison(two))
                index += 2
                continue
            }
            if character == "<" || character == ">" {
                tokens.append(.comparison(String(character)))
                index += 1
                continue
            }
            if character == "=" {
                tokens.append(.equals)
                index += 1
                continue
            }
            var end = index
            while end < characters.count, !characters[end].isWhitespace, !"\"'=<>".contains(characters[end]),
                !(characters[end] == "!" && end + 1 < characters.count && characters[end + 1] == "=")
            {
                end += 1
            }
            guard end > index else { throw TemplateProblem("unexpected '\(character)'") }
            tokens.append(.word(String(characters[index..<end])))
            index = end
        }
        return tokens
    }

    /// Whether `content` (trimmed) is meant as a placeholder: it starts with a letter, `#` or `/`. Anything else
    /// between braces (`{{ }}`, `{{{…}}}`, `{{0}}`) is text.
    static func isTag(_ content: Substring) -> Bool {
        guard let first = content.first else { return false }
        return (first.isASCII && first.isLetter) || first == "#" || first == "/"
    }

    mutating func parse(_ content: String) throws(TemplateProblem) -> TemplateTag {
        let tokens = try TemplateTagParser.tokens(content)
        guard case .word(let head)? = tokens.first else { throw TemplateProblem("expected a helper name") }
        switch head {
        case "#if", "#unless":
            return .blockOpen(
                try condition(Array(tokens.dropFirst()), negated: head == "#unless", keyword: head),
                keyword: String(head.dropFirst())
            )
        case "else":
            if tokens.count == 1 { return .elseBranch(nil) }
            guard tokens[1] == .word("if") else { throw TemplateProblem("write {{else}} or {{else if CONDITION}}") }
            return .elseBranch(try condition(Array(tokens.dropFirst(2)), negated: false, keyword: "else if"))
        case "/if", "/unless":
            guard tokens.count == 1 else { throw TemplateProblem("{{\(head)}} takes nothing") }
            return .blockClose(keyword: String(head.dropFirst()))
        default:
            if head.hasPrefix("#") {
                throw TemplateProblem("unknown block '\(head)' (blocks are #if and #unless)")
            }
            if head.hasPrefix("/") { throw TemplateProblem("unknown block end '\(head)' (write /if or /unless)") }
            return .value(try expression(head, Array(tokens.dropFirst()), text: content))
        }
    }

    private mutating func condition(
        _ tokens: [Token],
        negated: Bool,
        keyword: String
    ) throws(TemplateProblem) -> TemplateCondition {
        guard !tokens.isEmpty else { throw TemplateProblem("{{#\(keyword)}} needs a condition") }
        // The left operand runs up to a comparison operator (a helper's `key=value` arguments included).
        let split = tokens.firstIndex {
            if case .comparison = $0 { return true }
            return $0 == .word("contains")
        }
        let leftTokens = split.map { Array(tokens[..<$0]) } ?? tokens
        let left = try operand(leftTokens)
        guard let split else { return TemplateCondition(left: left, comparison: nil, negated: negated) }
        let symbol: String
        switch tokens[split] {
        case .comparison(let text): symbol = text
        default: symbol = "contains"
        }
        let right = try operand(Array(tokens[(split + 1)...]))
        return TemplateCondition(
            left: left,
            comparison: (TemplateCondition.Comparison(rawValue: symbol)!, right),
            negated: negated
        )
    }

    private mutating func operand(_ tokens: [Token]) throws(TemplateProblem) -> TemplateOperand {
        guard let first = tokens.first else { throw TemplateProblem("a comparison needs a value on both sides") }
        if tokens.count == 1, let literal = TemplateTagParser.literal(first) { return literal }
        guard case .word(let name) = first else { throw TemplateProblem("expected a value") }
        return .expression(try expression(name, Array(tokens.dropFirst()), text: name))
    }

    /// A quoted string, a number, `true`, `false` or `null`.
    static func literal(_ token: Token) -> TemplateOperand? {
        switch token {
        case .string(let text): return .text(text)
        case .word("true"): return .bool(true)
        case .word("false"): return .bool(false)
        case .word("null"): return .null
        case .word(let text) where Double(text) != nil && text.first != "+" && !text.contains(where: \.isLetter):
            return .number(text)
        default: return nil
        }
    }

    /// The helper `name` with the arguments in `tokens`: `key=value` pairs and positional values.
    private mutating func expression(
        _ name: String,
        _ tokens: [Token],
        text: String
    ) throws(TemplateProblem) -> TemplateExpression {
        var named: [(String, Token)] = []
        var positional: [Token] = []
        var index = 0
        while index < tokens.count {
            if case .word(let key) = tokens[index], index + 1 < tokens.count, tokens[index + 1] == .equals {
                guard index + 2 < tokens.count else { throw TemplateProblem("\(key)= needs a value") }
                if named.contains(where: { $0.0 == key }) { throw TemplateProblem("\(key)= is given twice") }
                named.append((key, tokens[index + 2]))
                index += 3
                continue
            }
            if tokens[index] == .equals { throw TemplateProblem("'=' needs a name before it (name=value)") }
            if case .comparison(let symbol) = tokens[index] {
                throw TemplateProblem("'\(symbol)' compares only inside {{#if …}}")
            }
            positional.append(tokens[index])
            index += 1
        }
        return try TemplateHelpers.expression(
            name,
            named: named,
            positional: positional,
            text: text,
            parser: &self
        )
    }

    /// The next seeded helper's position.
    mutating func nextOccurrence() -> Int {
        defer { occurrences += 1 }
        return occurrences
    }

    /// A `key=` argument: a helper's value (a request value, usually) or a literal.
    mutating func keyOperand(_ token: Token) throws(TemplateProblem) -> TemplateOperand {
        if let literal = TemplateTagParser.literal(token) { return literal }
        guard case .word(let name) = token else { throw TemplateProblem("key= needs a value") }
        return .expression(try expression(name, [], text: name))
    }
}
