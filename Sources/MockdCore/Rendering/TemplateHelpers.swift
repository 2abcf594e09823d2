import Foundation
import MockdFormat

/// The helpers a `{{…}}` placeholder may name, with their arguments: the documented list (docs/FORMAT.md,
/// Placeholders). A name not here, or an argument a helper does not take, is a `TemplateProblem`.
public enum TemplateHelpers {
    /// One documented helper: how it is written and what it renders.
    public struct Entry: Sendable, Equatable {
        /// `now`, `request.query.NAME`, `fake.int`.
        public let name: String
        /// The arguments it takes (`offset="+1d" format="…" zone="…"`), or `""`.
        public let arguments: String
        public let renders: String
    }

    /// Every helper, in the order the docs list them.
    public static let list: [Entry] = [
        Entry(
            name: "now",
            arguments:
                #"offset="+1d" format="iso|iso-ms|http|epoch|epochMs|date|PATTERN" zone="UTC|+02:00|Europe/Paris""#,
            renders:
                "the session's clock (virtual clock), moved by offset, in the format and zone (default RFC 3339 UTC)"
        ),
        Entry(name: "now.http", arguments: #"offset="…""#, renders: "HTTP-date, Sun, 29 Nov 2026 20:00:00 GMT"),
        Entry(name: "now.epoch", arguments: #"offset="…""#, renders: "Unix time in seconds (a JSON number)"),
        Entry(name: "now.epochMs", arguments: #"offset="…""#, renders: "Unix time in ms (a JSON number)"),
        Entry(name: "uuid", arguments: "", renders: "a random UUID, lower case (fake.uuid is the seeded one)"),
        Entry(name: "counter", arguments: "", renders: "how many times this stub or override answered, 1-based"),
        Entry(name: "retryAfter", arguments: "", renders: "in a rateLimit body: the Retry-After seconds"),
        Entry(name: "request.method", arguments: "", renders: "the request's method"),
        Entry(name: "request.path", arguments: "", renders: "the path as sent"),
        Entry(name: "request.path[N]", arguments: "", renders: "the Nth path segment, 0-based, decoded"),
        Entry(name: "request.url", arguments: "", renders: "path and query as sent"),
        Entry(name: "request.query", arguments: "", renders: "the query string as sent, without ?"),
        Entry(
            name: "request.query.NAME",
            arguments: "",
            renders: "a decoded query parameter; NAME[N] for the Nth value"
        ),
        Entry(name: "request.header.NAME", arguments: "", renders: "a request header (any case)"),
        Entry(name: "request.cookie.NAME", arguments: "", renders: "a cookie of the Cookie header"),
        Entry(name: "request.body", arguments: "", renders: "the request body as text"),
        Entry(name: "request.json", arguments: "", renders: "the JSON request body"),
        Entry(name: "request.json.PATH", arguments: "", renders: "a value of the JSON body: user.id, items[0].sku"),
        Entry(name: "resources.NAME.count", arguments: "", renders: "a stateful resource's item count"),
        Entry(name: "resources.NAME.ID.PATH", arguments: "", renders: "a field of a resource's item"),
        Entry(name: "fake.firstName", arguments: "person=N key=VALUE", renders: "a first name"),
        Entry(name: "fake.lastName", arguments: "person=N key=VALUE", renders: "a last name"),
        Entry(name: "fake.name", arguments: "person=N key=VALUE", renders: "a full name"),
        Entry(
            name: "fake.email",
            arguments: "person=N key=VALUE",
            renders: "the person's e-mail at example.com/.net/.org"
        ),
        Entry(name: "fake.username", arguments: "person=N key=VALUE", renders: "the person's user name"),
        Entry(name: "fake.phone", arguments: "person=N key=VALUE", renders: "a fictional +1 555-01xx number, E.164"),
        Entry(name: "fake.street", arguments: "person=N key=VALUE", renders: "a street address line"),
        Entry(name: "fake.city", arguments: "person=N key=VALUE", renders: "a city"),
        Entry(name: "fake.postcode", arguments: "person=N key=VALUE", renders: "a five-digit postcode"),
        Entry(name: "fake.country", arguments: "person=N key=VALUE", renders: "a country name"),
        Entry(name: "fake.countryCode", arguments: "person=N key=VALUE", renders: "its ISO 3166-1 alpha-2 code"),
        Entry(name: "fake.address", arguments: "person=N key=VALUE", renders: "street, postcode city, country"),
        Entry(name: "fake.company", arguments: "person=N key=VALUE", renders: "a company name"),
        Entry(name: "fake.uuid", arguments: "key=VALUE", renders: "a version 4 UUID, lower case"),
        Entry(
            name: "fake.int",
            arguments: "min=0 max=100 key=VALUE",
            renders: "a whole number in the range (a JSON number)"
        ),
        Entry(
            name: "fake.decimal",
            arguments: "min=0 max=100 places=2 key=VALUE",
            renders: "a decimal number in the range (a JSON number)"
        ),
        Entry(name: "fake.bool", arguments: "key=VALUE", renders: "true or false (a JSON boolean)"),
        Entry(name: "fake.word", arguments: "key=VALUE", renders: "a filler word"),
        Entry(name: "fake.words", arguments: "count=3 key=VALUE", renders: "filler words"),
        Entry(name: "fake.sentence", arguments: "count=6 key=VALUE", renders: "a filler sentence"),
        Entry(name: "fake.digits", arguments: "length=6 key=VALUE", renders: "a string of digits (codes, PINs)"),
        Entry(name: "fake.hex", arguments: "length=16 key=VALUE", renders: "lower-case hexadecimal digits"),
        Entry(name: "fake.pick", arguments: #""a" "b" "c" key=VALUE"#, renders: "one of the values given"),
    ]

    /// Names a placeholder may be, for "did you mean" (the fixed names; the `NAME`, `N` and `PATH` forms are
    /// recognised by prefix).
    static let knownNames: [String] =
        list.map(\.name).filter { !$0.contains("NAME") && !$0.contains("[N]") && !$0.contains("PATH") }
        + FakeValues.values.keys.sorted() + ["now.iso"]

    private static let personFields: [String: FakeHelper] = [
        "firstName": .firstName, "lastName": .lastName, "name": .name, "email": .email, "username": .username,
        "phone": .phone, "street": .street, "city": .city, "postcode": .postcode, "country": .country,
        "countryCode": .countryCode, "address": .address, "company": .company,
    ]

    /// The expression for helper `name` with its arguments.
    static func expression(
        _ name: String,
        named: [(String, TemplateTagParser.Token)],
        positional: [TemplateTagParser.Token],
        text: String,
        parser: inout TemplateTagParser
    ) throws(TemplateProblem) -> TemplateExpression {
        func make(_ kind: TemplateExpression.Kind, occurrence: Int = -1) -> TemplateExpression {
            TemplateExpression(kind: kind, text: text, occurrence: occurrence)
        }
        func allow(_ names: [String], positional allowsPositional: Bool = false) throws(TemplateProblem) {
            if let extra = named.first(where: { !names.contains($0.0) }) {
                let takes = names.isEmpty ? "takes no arguments" : "takes " + names.joined(separator: ", ")
                throw TemplateProblem("unknown argument '\(extra.0)' for \(name) (it \(takes))")
            }
            if !allowsPositional, let first = positional.first {
                let shown: String
                switch first {
                case .word(let word): shown = word
                case .string(let string): shown = "\"\(string)\""
                default: shown = "="
                }
                throw TemplateProblem("\(name) takes no value '\(shown)' (write name=value arguments)")
            }
        }
        func argument(_ key: String) -> String? {
            guard let token = named.first(where: { $0.0 == key })?.1 else { return nil }
            switch token {
            case .word(let word): return word
            case .string(let string): return string
            default: return nil
            }
        }
        func integer(
            _ key: String,
            default value: Int64,
            in range: ClosedRange<Int64>
        ) throws(TemplateProblem)
            -> Int64
        {
            guard let text = argument(key) else { return value }
            guard let number = Int64(text), range.contains(number) else {
                throw TemplateProblem(
                    "\(key)=\(text) for \(name): a whole number from \(range.lowerBound) to \(range.upperBound)"
                )
            }
            return number
        }
        func number(_ key: String, default value: Double) throws(TemplateProblem) -> Double {
            guard let text = argument(key) else { return value }
            guard let number = Double(text), number.isFinite else {
                throw TemplateProblem("\(key)=\(text) for \(name): a number")
            }
            return number
        }

        switch name {
        case "now", "now.iso", "now.http", "now.epoch", "now.epochMs":
            let fixedFormat = ["now.http": "http", "now.epoch": "epoch", "now.epochMs": "epochMs"][name]
            try allow(fixedFormat == nil ? ["offset", "format", "zone"] : ["offset"])
            let offset: DateOffset?
            if let text = argument("offset") { offset = try DateOffset(text) } else { offset = nil }
            let output = try DateOutput(format: fixedFormat ?? argument("format"), zone: argument("zone"))
            return make(.now(offset: offset, output: output))
        case "uuid", "counter", "retryAfter", "request.method", "request.path", "request.url", "request.body",
            "request.query", "request.json":
            try allow([])
            let kinds: [String: TemplateExpression.Kind] = [
                "uuid": .uuid, "counter": .counter, "retryAfter": .retryAfter, "request.method": .requestMethod,
                "request.path": .requestPath, "request.url": .requestURL, "request.body": .requestBody,
                "request.query": .requestQueryString, "request.json": .requestJSON(nil),
            ]
            return make(kinds[name]!)
        default:
            break
        }
        if FakeValues.value(for: name) != nil {
            try allow([])
            return make(.fixedFake(name))
        }
        if name.hasPrefix("request.") {
            try allow([])
            return make(try requestKind(name))
        }
        if name.hasPrefix("resources.") {
            try allow([])
            let rest = String(name.dropFirst("resources.".count))
            guard rest.split(separator: ".").count >= 2, PlaceholderName.isValid(rest) else {
                throw TemplateProblem("write resources.NAME.count or resources.NAME.ID.FIELD")
            }
            return make(.resource(rest))
        }
        if name.hasPrefix("fake.") {
            let field = String(name.dropFirst("fake.".count))
            var key: TemplateOperand?
            if let token = named.first(where: { $0.0 == "key" })?.1 { key = try parser.keyOperand(token) }
            if let person = personFields[field] {
                try allow(["person", "key"])
                let index = try integer("person", default: 0, in: 0...999)
                return make(.fake(person, key: key, person: Int(index)), occurrence: parser.nextOccurrence())
            }
            let helper: FakeHelper
            switch field {
            case "uuid", "bool", "word":
                try allow(["key"])
                helper = field == "uuid" ? .uuid : field == "bool" ? .bool : .word
            case "int":
                try allow(["min", "max", "key"])
                let low = try integer("min", default: 0, in: -1_000_000_000_000_000...1_000_000_000_000_000)
                let high = try integer("max", default: 100, in: -1_000_000_000_000_000...1_000_000_000_000_000)
                guard low <= high else { throw TemplateProblem("fake.int: min (\(low)) is above max (\(high))") }
                helper = .int(min: low, max: high)
            case "decimal":
                try allow(["min", "max", "places", "key"])
                let low = try number("min", default: 0)
                let high = try number("max", default: 100)
                guard low <= high else { throw TemplateProblem("fake.decimal: min (\(low)) is above max (\(high))") }
                helper = .decimal(min: low, max: high, places: Int(try integer("places", default: 2, in: 0...9)))
            case "words", "sentence":
                try allow(["count", "key"])
                let count = Int(try integer("count", default: field == "words" ? 3 : 6, in: 1...100))
                helper = field == "words" ? .words(count) : .sentence(count)
            case "digits", "hex":
                try allow(["length", "key"])
                let length = Int(try integer("length", default: field == "digits" ? 6 : 16, in: 1...256))
                helper = field == "digits" ? .digits(length) : .hex(length)
            case "pick":
                try allow(["key"], positional: true)
                var options: [String] = []
                for token in positional {
                    switch token {
                    case .string(let text): options.append(text)
                    case .word(let word) where TemplateTagParser.literal(token) != nil: options.append(word)
                    default: throw TemplateProblem("fake.pick takes quoted values: {{fake.pick \"a\" \"b\"}}")
                    }
                }
                guard !options.isEmpty else {
                    throw TemplateProblem("fake.pick needs values: {{fake.pick \"a\" \"b\"}}")
                }
                helper = .pick(options)
            default:
                throw unknown(name)
            }
            return make(.fake(helper, key: key, person: 0), occurrence: parser.nextOccurrence())
        }
        throw unknown(name)
    }

    private static func unknown(_ name: String) -> TemplateProblem {
        let hint = KnownFields.closest(to: name, in: knownNames).map { " (did you mean '\($0)'?)" } ?? ""
        return TemplateProblem("unknown helper '\(name)'\(hint)")
    }

    /// `request.path[N]`, `request.query.NAME[N]`, `request.header.NAME`, `request.cookie.NAME`, `request.json.PATH`.
    private static func requestKind(_ name: String) throws(TemplateProblem) -> TemplateExpression.Kind {
        func rest(_ prefix: String) -> String? {
            guard name.hasPrefix(prefix), name.count > prefix.count else { return nil }
            return String(name.dropFirst(prefix.count))
        }
        if let indexText = rest("request.path["), indexText.hasSuffix("]"),
            let index = Int(indexText.dropLast()), index >= 0
        {
            return .requestPathSegment(index)
        }
        if let key = rest("request.query.") {
            if let (base, index) = TemplateContext.indexed(key) { return .requestQuery(name: base, index: index) }
            return .requestQuery(name: key, index: nil)
        }
        if let header = rest("request.header."), HTTPToken.isToken(header) { return .requestHeader(header) }
        if let cookie = rest("request.cookie.") { return .requestCookie(cookie) }
        if let path = rest("request.json."), PlaceholderName.isValid(path) { return .requestJSON(path) }
        let hint: String
        if name.hasPrefix("request.headers.") {
            hint = " (did you mean 'request.header.\(name.dropFirst("request.headers.".count))'?)"
        } else {
            hint = KnownFields.closest(to: name, in: knownNames).map { " (did you mean '\($0)'?)" } ?? ""
        }
        throw TemplateProblem("unknown helper '\(name)'\(hint)")
    }
}
