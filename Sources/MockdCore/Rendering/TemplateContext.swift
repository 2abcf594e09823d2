public import Foundation

/// What placeholders can refer to while one response is rendered: the request, the call number, the session's clock
/// and seed, the stub's id and the session's resources.
public final class TemplateContext {
    let request: HTTPRequest
    /// 1-based call number of the answering stub or override in the session.
    let call: Int
    /// The session's clock (its virtual clock) when the answer is made.
    let now: Date
    /// The scheme the client reached mockd with (`http`, `https`), for rewritten URLs (`OriginRewrite`).
    var scheme = "http"
    /// The seconds of a rate limit's `Retry-After`, for `{{retryAfter}}` in its answer body.
    var retryAfter: Int?
    /// The answering stub's or override's id: with the call number, what `{{fake.…}}` values are drawn for.
    var stubID = ""
    /// The session's seed (`POST /__mockd/switches {"seed": N}`), read only when a `{{fake.…}}` placeholder renders.
    var seed: () -> UInt64 = { 1 }
    /// Reads `{{resources.NAME.count}}` and `{{resources.NAME.ID.FIELD…}}` (the part after `resources.`) from the
    /// session's stateful resources, as a Foundation JSON value (`nil` for an unknown resource, `""` for an unknown
    /// item); `nil` outside a scenario with resources.
    var resourceValue: ((String) -> Any?)?
    private lazy var json: Any? = try? JSONObjectReader.jsonObject(with: request.body, options: [.fragmentsAllowed])
    private lazy var query = URLEncoding.decodedQuery(request.query)
    private lazy var sessionSeed = seed()

    public init(request: HTTPRequest, call: Int, now: Date = Date()) {
        self.request = request
        self.call = call
        self.now = now
    }

    /// A value a placeholder may render, before it is written as text or JSON.
    enum Value {
        case text(String)
        /// Text that is a JSON number.
        case number(String)
        case bool(Bool)
        /// A Foundation JSON value (a request body's member, a resource's item).
        case json(Any)

        var text: String {
            switch self {
            case .text(let text), .number(let text): return text
            case .bool(let flag): return flag ? "true" : "false"
            case .json(let value): return TemplateContext.text(value)
            }
        }

        var jsonData: Data {
            switch self {
            case .text(let text): return TemplateContext.jsonString(text)
            case .number(let text): return Data(text.utf8)
            case .bool(let flag): return Data((flag ? "true" : "false").utf8)
            case .json(let value): return TemplateContext.json(value)
            }
        }

        /// `{{#if}}`: false for `""`, `"false"`, `"0"`, `"null"`, JSON `false`, `null`, `0`, `[]` and `{}`.
        var isTruthy: Bool {
            switch self {
            case .text(let text): return !["", "false", "0", "null"].contains(text)
            case .number(let text): return (Double(text) ?? 0) != 0
            case .bool(let flag): return flag
            case .json(let value):
                if value is NSNull { return false }
                if let string = value as? String { return Value.text(string).isTruthy }
                if let number = value as? NSNumber { return number.doubleValue != 0 }
                if let array = value as? [Any] { return !array.isEmpty }
                if let object = value as? [String: Any] { return !object.isEmpty }
                return true
            }
        }
    }

    /// The value of `expression` for this request.
    func value(_ expression: TemplateExpression) -> Value {
        switch expression.kind {
        case .now(let offset, let output):
            let text = output.text(offset?.applied(to: now) ?? now)
            return output.isNumber ? .number(text) : .text(text)
        case .uuid: return .text(UUID().uuidString.lowercased())
        case .counter: return .number(String(call))
        case .retryAfter: return retryAfter.map { .number(String($0)) } ?? .text("")
        case .requestMethod: return .text(request.method)
        case .requestPath: return .text(String(request.path))
        case .requestURL: return .text(request.target)
        case .requestBody: return .text(String(decoding: request.body, as: UTF8.self))
        case .requestQueryString: return .text(String(request.query))
        case .requestPathSegment(let position):
            let segments = request.path.split(separator: "/")
            guard segments.indices.contains(position) else { return .text("") }
            return .text(
                String(decoding: URLEncoding.decode(segments[position].utf8, plusIsSpace: false), as: UTF8.self)
            )
        case .requestQuery(let name, let index):
            let values = query.filter { $0.name == name }
            let position = index ?? 0
            return .text(values.indices.contains(position) ? values[position].value : "")
        case .requestHeader(let name): return .text(request.headers[name] ?? "")
        case .requestCookie(let wanted):
            for header in request.headers.values(named: "cookie") {
                for pair in header.split(separator: ";") {
                    let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    if parts[0].trimmingWhitespace == wanted { return .text(parts.count > 1 ? String(parts[1]) : "") }
                }
            }
            return .text("")
        case .requestJSON(let path):
            guard let path else { return json.map(Value.json) ?? .text("") }
            return TemplateContext.lookup(json, path: path).map(Value.json) ?? .text("")
        case .resource(let name):
            guard let found = resourceValue?(name) else { return .text("") }
            return name.hasSuffix(".count") ? .number(TemplateContext.text(found)) : .json(found)
        case .fixedFake(let name): return .text(FakeValues.value(for: name) ?? "")
        case .fake(let helper, let key, let person):
            return fake(helper, key: key, person: person, occurrence: expression.occurrence)
        }
    }

    /// The value of a condition's operand.
    func value(_ operand: TemplateOperand) -> Value {
        switch operand {
        case .expression(let expression): return value(expression)
        case .text(let text): return .text(text)
        case .number(let text): return .number(text)
        case .bool(let flag): return .bool(flag)
        case .null: return .json(NSNull())
        }
    }

    /// Whether a `{{#if}}` / `{{else if}}` condition holds (`#unless`: does not hold).
    func holds(_ condition: TemplateCondition) -> Bool {
        let left = value(condition.left)
        guard let (comparison, rightOperand) = condition.comparison else { return left.isTruthy != condition.negated }
        let right = value(rightOperand)
        let result: Bool
        let (leftText, rightText) = (left.text, right.text)
        let numbers = Double(leftText).flatMap { a in Double(rightText).map { (a, $0) } }
        switch comparison {
        case .equal: result = numbers.map { $0.0 == $0.1 } ?? (leftText == rightText)
        case .notEqual: result = !(numbers.map { $0.0 == $0.1 } ?? (leftText == rightText))
        case .less: result = numbers.map { $0.0 < $0.1 } ?? (leftText < rightText)
        case .lessOrEqual: result = numbers.map { $0.0 <= $0.1 } ?? (leftText <= rightText)
        case .greater: result = numbers.map { $0.0 > $0.1 } ?? (leftText > rightText)
        case .greaterOrEqual: result = numbers.map { $0.0 >= $0.1 } ?? (leftText >= rightText)
        case .contains: result = leftText.contains(rightText)
        }
        return result != condition.negated
    }

    /// A seeded fake value: a function of the session's seed and the key (`key=`, else this stub and call), so the
    /// same seed renders the same values.
    private func fake(_ helper: FakeHelper, key: TemplateOperand?, person: Int, occurrence: Int) -> Value {
        let base = key.map { "k:" + value($0).text } ?? "s:\(stubID):\(call)"
        if helper.isPersonField {
            var generator = FakeData(seed: sessionSeed, key: "\(base)|person|\(person)")
            let made = generator.person()
            switch helper {
            case .firstName: return .text(made.firstName)
            case .lastName: return .text(made.lastName)
            case .name: return .text(made.name)
            case .email: return .text(made.email)
            case .username: return .text(made.username)
            case .phone: return .text(made.phone)
            case .street: return .text(made.street)
            case .city: return .text(made.city)
            case .postcode: return .text(made.postcode)
            case .country: return .text(made.country)
            case .countryCode: return .text(made.countryCode)
            case .address: return .text(made.address)
            default: return .text(made.company)
            }
        }
        // With a key, the value belongs to the key (the same in every stub); without one, to its place in the template.
        let material = key == nil ? "\(base)|\(occurrence)|\(helper.identity)" : "\(base)|\(helper.identity)"
        var generator = FakeData(seed: sessionSeed, key: material)
        switch helper {
        case .uuid: return .text(generator.uuid())
        case .int(let low, let high): return .number(String(generator.int(in: low...high)))
        case .decimal(let low, let high, let places):
            let scale = pow(10, Double(places))
            let value = ((low + generator.unit() * (high - low)) * scale).rounded(.down) / scale
            return .number(String(format: "%.\(places)f", min(max(value, low), high)))
        case .bool: return .bool(generator.next() & 1 == 1)
        case .word: return .text(generator.pick(FakeData.fillerWords))
        case .words(let count): return .text(generator.words(count).joined(separator: " "))
        case .sentence(let count):
            let text = generator.words(count).joined(separator: " ")
            return .text(text.prefix(1).uppercased() + text.dropFirst() + ".")
        case .digits(let length): return .text(generator.characters(length, from: Array("0123456789")))
        case .hex(let length): return .text(generator.characters(length, from: Array("0123456789abcdef")))
        case .pick(let options): return .text(generator.pick(options))
        default: return .text("")
        }
    }

    /// The value of the placeholder written `name` (a request expression such as `request.json.phone`, as a rate
    /// limit's `key` names it) as text; `nil` when `name` is not a placeholder without arguments.
    func value(for name: String) -> String? {
        var parser = TemplateTagParser()
        guard case .value(let expression)? = try? parser.parse(name) else { return nil }
        return value(expression).text
    }

    /// `value` (a Foundation JSON value) as JSON text.
    static func json(_ value: Any) -> Data {
        (try? JSONSerialization.data(
            withJSONObject: value,
            options: [.fragmentsAllowed, .sortedKeys, .withoutEscapingSlashes]
        ))
            ?? Data("null".utf8)
    }

    /// `text` as a JSON string, quotes and escapes included (RFC 8259 §7).
    static func jsonString(_ text: String) -> Data {
        json(text)
    }

    /// `NAME[N]` as its name and index; `nil` without a trailing index.
    static func indexed(_ text: String) -> (name: String, index: Int)? {
        guard text.hasSuffix("]"), let open = text.lastIndex(of: "["),
            let index = Int(text[text.index(after: open)..<text.index(before: text.endIndex)]), index >= 0
        else { return nil }
        return (String(text[..<open]), index)
    }

    /// Follows `a.b[0].c` through parsed JSON.
    static func lookup(_ root: Any?, path: String) -> Any? {
        var current = root
        for part in path.split(separator: ".") {
            var name = Substring(part)
            var indexes: [Int] = []
            while let open = name.lastIndex(of: "["), name.hasSuffix("]") {
                guard let index = Int(name[name.index(after: open)..<name.index(before: name.endIndex)]) else {
                    return nil
                }
                indexes.insert(index, at: 0)
                name = name[..<open]
            }
            if !name.isEmpty { current = (current as? [String: Any])?[String(name)] }
            for index in indexes {
                guard let array = current as? [Any], array.indices.contains(index) else { return nil }
                current = array[index]
            }
        }
        return current
    }

    /// A JSON value as text: strings without quotes, everything else as JSON.
    static func text(_ value: Any) -> String {
        if let string = value as? String { return string }
        if value is NSNull { return "null" }
        if let number = value as? NSNumber { return number.stringValue }
        if let data = try? JSONSerialization.data(
            withJSONObject: value,
            options: [.sortedKeys, .withoutEscapingSlashes]
        ) {
            return String(decoding: data, as: UTF8.self)
        }
        return ""
    }
}
