import MockdCore
public import MockdFormat

/// A deterministic example value for a schema, for responses the document gives no example for.
///
/// The schema's own `example` (3.0) or first `examples` entry (3.1), `const`, `default` or first `enum` value is
/// used where present; otherwise a value of the schema's type that meets its keywords: objects carry every
/// property (`required` first), arrays `max(1, minItems)` items, strings respect `format` (`date-time`, `date`,
/// `uuid`, `email`, `uri`, `ipv4`, `byte`…) and `minLength`/`maxLength`, numbers `minimum`/`maximum`/`multipleOf`.
/// `allOf` merges its objects, `oneOf`/`anyOf` take the first branch, `$ref` is followed (a recursive schema stops
/// at depth 8 with `null` or an empty container). `seed` varies the generated numbers and strings; the same seed
/// gives the same example.
public struct ExampleGenerator {
    /// The most items (and, times 64, characters) a generated example holds, whatever its schema's bounds.
    static let maxGenerated = 1000

    let document: OpenAPIDocument
    var random: SplitMix64

    public init(document: OpenAPIDocument, seed: UInt64) {
        self.document = document
        self.random = SplitMix64(seed: seed)
    }

    /// The example for the schema at `pointer` in the document.
    public mutating func example(forSchemaAt pointer: String) -> JSONValue {
        let schema = OpenAPIDocument.value(at: pointer, in: document.json) ?? [:]
        return example(for: schema, depth: 0)
    }

    mutating func example(for schema: JSONValue, depth: Int) -> JSONValue {
        guard case .object(let members) = schema else { return schema == .bool(false) ? .null : "string" }
        if case .string(let reference)? = members["$ref"], reference.hasPrefix("#") {
            guard depth < 8, let target = OpenAPIDocument.value(at: String(reference.dropFirst()), in: document.json)
            else {
                return .null
            }
            return example(for: target, depth: depth + 1)
        }
        if let value = members["example"] { return value }
        if case .array(let list)? = members["examples"], let first = list.first { return first }
        if let value = members["const"] { return value }
        if let value = members["default"] { return value }
        if case .array(let values)? = members["enum"], let first = values.first { return first }
        if case .array(let parts)? = members["allOf"] {
            var merged: [String: JSONValue] = [:]
            var other: JSONValue?
            for part in parts {
                let value = example(for: part, depth: depth + 1)
                if case .object(let object) = value { merged.merge(object) { _, new in new } } else { other = value }
            }
            if merged.isEmpty, let other { return other }
            if case .object(let own) = objectExample(members, depth: depth) { merged.merge(own) { old, _ in old } }
            return .object(merged)
        }
        for keyword in ["oneOf", "anyOf"] {
            if case .array(let branches)? = members[keyword], let first = branches.first {
                return example(for: first, depth: depth + 1)
            }
        }
        let type: String?
        switch members["type"] {
        case .string(let name)?: type = name
        case .array(let names)?: type = names.compactMap(\.stringValue).first { $0 != "null" }
        default:
            type = members["properties"] != nil ? "object" : members["items"] != nil ? "array" : nil
        }
        switch type {
        case "object": return objectExample(members, depth: depth)
        case "array":
            guard depth < 8 else { return [] }
            // A generated example is for a test to read: at most 1,000 items whatever `minItems` asks (a schema
            // with minItems 100000000 must not make the importer allocate gigabytes).
            let count = min(ExampleGenerator.maxGenerated, max(1, members["minItems"]?.intValue ?? 1))
            let items = members["items"] ?? [:]
            return .array((0..<count).map { _ in example(for: items, depth: depth + 1) })
        case "string": return .string(string(members))
        case "integer": return .int(integer(members))
        case "number": return number(members)
        case "boolean": return .bool(random.next() % 2 == 0)
        case "null": return .null
        default: return members.isEmpty ? "string" : objectExample(members, depth: depth)
        }
    }

    private mutating func objectExample(_ members: [String: JSONValue], depth: Int) -> JSONValue {
        guard depth < 8, case .object(let properties)? = members["properties"] else { return [:] }
        var object: [String: JSONValue] = [:]
        for (name, property) in properties.sorted(by: { $0.key < $1.key }) {
            if property["writeOnly"] == .bool(true) { continue }
            object[name] = example(for: property, depth: depth + 1)
        }
        return .object(object)
    }

    private mutating func string(_ members: [String: JSONValue]) -> String {
        let n = random.next() % 10_000
        var text: String
        switch members["format"]?.stringValue {
        case "date-time": text = "2026-01-\(String(format2: Int(n % 28) + 1))T10:00:00Z"
        case "date": text = "2026-01-\(String(format2: Int(n % 28) + 1))"
        case "time": text = "10:00:00Z"
        case "uuid":
            let hex =
                String(random.next(), radix: 16).leftPadded(to: 16)
                + String(random.next(), radix: 16).leftPadded(to: 16)
            let chars = Array(hex)
            text =
                "\(String(chars[0..<8]))-\(String(chars[8..<12]))-4\(String(chars[13..<16]))-8\(String(chars[17..<20]))-\(String(chars[20..<32]))"
        case "email": text = "user\(n)@example.com"
        case "uri", "url": text = "https://example.com/\(n)"
        case "hostname": text = "host\(n).example.com"
        case "ipv4": text = "192.0.2.\(n % 255)"
        case "ipv6": text = "2001:db8::\(n % 255)"
        case "byte": text = "ZXhhbXBsZQ=="
        case "password": text = "********"
        default: text = "string-\(n)"
        }
        if let minimum = members["minLength"]?.intValue, text.count < minimum {
            text += String(repeating: "x", count: min(ExampleGenerator.maxGenerated * 64, minimum) - text.count)
        }
        if let maximum = members["maxLength"]?.intValue, text.count > maximum { text = String(text.prefix(maximum)) }
        return text
    }

    private mutating func integer(_ members: [String: JSONValue]) -> Int {
        var low = members["minimum"]?.intValue ?? 1
        var high = members["maximum"]?.intValue ?? max(low, 1) + 1000
        if members["exclusiveMinimum"] == .bool(true) { low += 1 }
        if let exclusive = members["exclusiveMinimum"]?.intValue { low = exclusive + 1 }
        if members["exclusiveMaximum"] == .bool(true) { high -= 1 }
        if let exclusive = members["exclusiveMaximum"]?.intValue { high = exclusive - 1 }
        guard high >= low else { return low }
        var value = low + Int(random.next() % UInt64(min(high - low + 1, 1_000_000)))
        if let step = members["multipleOf"]?.intValue, step > 0 {
            value = (value / step) * step
            if value < low { value += step }
        }
        return value
    }

    private mutating func number(_ members: [String: JSONValue]) -> JSONValue {
        if members["multipleOf"] != nil || members["minimum"] != nil || members["maximum"] != nil {
            return .int(integer(members))
        }
        return .double(Double(random.next() % 10_000) / 100 + 0.25)
    }
}

extension String {
    fileprivate init(format2 value: Int) { self = value < 10 ? "0\(value)" : String(value) }

    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
