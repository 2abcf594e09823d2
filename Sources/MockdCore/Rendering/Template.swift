public import Foundation
import MockdFormat

/// A body or header value with `{{placeholder}}`s, parsed once at load and rendered per request.
///
/// Placeholders (unknown names are left as written):
/// - `{{now}}` RFC 3339 UTC (`2026-11-29T20:00:00Z`), `{{now.http}}` HTTP-date (RFC 9110 §5.6.7),
///   `{{now.epoch}}` seconds, `{{now.epochMs}}` milliseconds
/// - `{{uuid}}` a random UUID (lower case)
/// - `{{counter}}` how many times this stub or override has answered in the session, 1-based
/// - `{{resources.NAME.count}}` the items of a stateful resource, `{{resources.NAME.ID.FIELD}}` a field of one
///   (dot path with `[i]`; the whole item as JSON without a field)
/// - `{{request.method}}`, `{{request.path}}`, `{{request.url}}` (path and query as sent), `{{request.path[N]}}`
///   (the Nth path segment, 0-based, decoded), `{{request.body}}`, `{{request.query.NAME}}` (decoded; `[N]` for the
///   Nth value), `{{request.header.NAME}}`, `{{request.cookie.NAME}}`, `{{request.json.PATH}}` (dot path with `[i]`,
///   e.g. `items[0].id`)
/// - fixed fake values for redacted secrets and personal data: see `FakeValues`.
///
/// In JSON written as a value (an override's or runtime stub's `body`, and whatever a `bodyPatch` produced), a string
/// that is exactly one placeholder takes the placeholder's JSON type: `"{{resources.orders.count}}"` renders `3`,
/// `"{{request.json.tags}}"` the request's array, `"{{counter}}"` a number (see `TemplateContext.jsonValue(for:)`).
public struct Template: Sendable {
    enum Segment: Sendable {
        case literal(Data)
        /// A placeholder name and the exact bytes it was written as (sent back unchanged when unknown).
        case placeholder(String, raw: Data)
        /// A JSON string that is exactly one placeholder (`raw` with its quotes): rendered as a JSON value.
        case jsonValue(String, raw: Data)
    }

    let segments: [Segment]
    /// Whether quoted whole-value placeholders were read as `.jsonValue` (kept when the response is re-parsed).
    let jsonValues: Bool

    /// Parses `data`; `nil` when it holds no placeholder, so plain bodies cost nothing at serve time.
    ///
    /// A placeholder is `{{name}}` where the name (spaces around it allowed) is letters, digits and `._-[]`;
    /// anything else between braces stays text. Bodies that are not UTF-8 (images, fonts) are never templates.
    /// - Parameter jsonValues: `data` is JSON written as a value: a string that is exactly one placeholder
    ///   (`"{{counter}}"`) renders as the placeholder's JSON value rather than as text inside the quotes.
    public static func parse(_ data: Data, jsonValues: Bool = false) -> Template? {
        let open: [UInt8] = [0x7B, 0x7B]
        let close: [UInt8] = [0x7D, 0x7D]
        guard ByteSearch.contains(open, in: data), String(data: data, encoding: .utf8) != nil else { return nil }
        let bytes = Data(data)  // zero-based offsets
        var segments: [Segment] = []
        var literalStart = 0
        var searchFrom = 0
        while let start = ByteSearch.firstOffset(of: open, in: bytes, from: searchFrom) {
            guard let end = ByteSearch.firstOffset(of: close, in: bytes, from: start + 2) else { break }
            let name = String(decoding: bytes[(start + 2)..<end], as: UTF8.self).trimmingCharacters(in: .whitespaces)
            guard PlaceholderName.isValid(name) else {
                searchFrom = start + 2
                continue
            }
            let quote = UInt8(ascii: "\"")
            let wholeString =
                jsonValues && start > literalStart && bytes[start - 1] == quote
                && (start < 2 || bytes[start - 2] != UInt8(ascii: "\\")) && end + 2 < bytes.count
                && bytes[end + 2] == quote
            if wholeString {
                if start - 1 > literalStart { segments.append(.literal(bytes[literalStart..<(start - 1)])) }
                segments.append(.jsonValue(name, raw: bytes[(start - 1)..<(end + 3)]))
                literalStart = end + 3
                searchFrom = end + 3
                continue
            }
            if start > literalStart { segments.append(.literal(bytes[literalStart..<start])) }
            segments.append(.placeholder(name, raw: bytes[start..<(end + 2)]))
            literalStart = end + 2
            searchFrom = end + 2
        }
        guard
            segments.contains(where: {
                if case .literal = $0 { return false } else { return true }
            })
        else {
            return nil
        }
        if literalStart < bytes.count { segments.append(.literal(bytes[literalStart...])) }
        return Template(segments: segments, jsonValues: jsonValues)
    }

    /// The text with every known placeholder replaced.
    public func render(_ context: TemplateContext) -> Data {
        var output = Data()
        for segment in segments {
            switch segment {
            case .literal(let data): output.append(data)
            case .placeholder(let name, let raw):
                if let value = context.value(for: name) {
                    output.append(contentsOf: value.utf8)
                } else {
                    output.append(raw)
                }
            case .jsonValue(let name, let raw):
                output.append(context.jsonValue(for: name) ?? raw)
            }
        }
        return output
    }

    /// The text with only the fixed fake-value placeholders (`{{token}}`, `{{email}}`…) replaced; others
    /// stay as written. These never change, so they are rendered once when a mock set loads.
    public func renderingFakeValues() -> Data {
        var output = Data()
        for segment in segments {
            switch segment {
            case .literal(let data): output.append(data)
            case .placeholder(let name, let raw):
                output.append(contentsOf: FakeValues.value(for: name).map { Data($0.utf8) } ?? raw)
            case .jsonValue(let name, let raw):
                output.append(contentsOf: FakeValues.value(for: name).map { TemplateContext.jsonString($0) } ?? raw)
            }
        }
        return output
    }

    /// Whether some placeholder names a fake value (`{{token}}`, `{{email}}`…).
    public var usesFakeValues: Bool {
        segments.contains {
            switch $0 {
            case .literal: false
            case .placeholder(let name, _), .jsonValue(let name, _): FakeValues.value(for: name) != nil
            }
        }
    }

    /// `data` with its fake-value placeholders rendered (unchanged when it has none).
    public static func renderingFakeValues(in data: Data) -> Data {
        parse(data)?.renderingFakeValues() ?? data
    }

    /// Renders a header value (only when it contains `{{`).
    static func renderText(_ text: String, _ context: TemplateContext) -> String {
        guard text.contains("{{"), let template = parse(Data(text.utf8)) else { return text }
        return String(decoding: template.render(context), as: UTF8.self)
    }
}

/// What placeholders can refer to while one response is rendered.
public final class TemplateContext {
    let request: HTTPRequest
    /// 1-based call number of the answering stub or override in the session.
    let call: Int
    let now: Date
    /// The scheme the client reached mockd with (`http`, `https`), for rewritten URLs (`OriginRewrite`).
    var scheme = "http"
    /// The seconds of a rate limit's `Retry-After`, for `{{retryAfter}}` in its answer body.
    var retryAfter: Int?
    /// Reads `{{resources.NAME.count}}` and `{{resources.NAME.ID.FIELD…}}` (the part after `resources.`) from the
    /// session's stateful resources, as a Foundation JSON value (`nil` for an unknown resource, `""` for an unknown
    /// item); `nil` outside a scenario with resources.
    var resourceValue: ((String) -> Any?)?
    private lazy var json: Any? = try? JSONSerialization.jsonObject(with: request.body, options: [.fragmentsAllowed])
    private lazy var query = URLEncoding.decodedQuery(request.query)

    public init(request: HTTPRequest, call: Int, now: Date = Date()) {
        self.request = request
        self.call = call
        self.now = now
    }

    func value(for name: String) -> String? {
        switch name {
        case "now", "now.iso": return DateFormats.rfc3339(now)
        case "now.http": return DateFormats.imfFixdate(now)
        case "now.epoch": return String(Int(now.timeIntervalSince1970))
        case "now.epochMs": return String(Int(now.timeIntervalSince1970 * 1000))
        case "uuid": return UUID().uuidString.lowercased()
        case "counter": return String(call)
        case "retryAfter": return retryAfter.map(String.init)
        case "request.method": return request.method
        case "request.path": return String(request.path)
        case "request.url": return request.target
        case "request.body": return String(decoding: request.body, as: UTF8.self)
        default: break
        }
        if let fake = FakeValues.value(for: name) { return fake }
        if name.hasPrefix("resources."), let resourceValue {
            return resourceValue(String(name.dropFirst("resources.".count))).map(TemplateContext.text)
        }
        if name.hasPrefix("request.path["), let (_, position) = TemplateContext.indexed(name) {
            let segments = request.path.split(separator: "/")
            guard segments.indices.contains(position) else { return "" }
            return String(decoding: URLEncoding.decode(segments[position].utf8, plusIsSpace: false), as: UTF8.self)
        }
        if name.hasPrefix("request.query.") {
            let key = String(name.dropFirst("request.query.".count))
            if let (base, position) = TemplateContext.indexed(key) {
                let values = query.filter { $0.name == base }
                return values.indices.contains(position) ? values[position].value : ""
            }
            return query.first { $0.name == key }?.value ?? ""
        }
        if name.hasPrefix("request.header.") {
            return request.headers[String(name.dropFirst("request.header.".count))] ?? ""
        }
        if name.hasPrefix("request.cookie.") {
            let wanted = name.dropFirst("request.cookie.".count)
            for header in request.headers.values(named: "cookie") {
                for pair in header.split(separator: ";") {
                    let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    if parts[0].trimmingWhitespace == wanted { return parts.count > 1 ? String(parts[1]) : "" }
                }
            }
            return ""
        }
        if name.hasPrefix("request.json.") {
            return TemplateContext.lookup(json, path: String(name.dropFirst("request.json.".count))).map(
                TemplateContext.text
            ) ?? ""
        }
        return nil
    }

    /// A placeholder that is a whole JSON string (`"{{name}}"`) as the JSON value it stands for: a number for
    /// `counter`, `now.epoch`, `now.epochMs`, `retryAfter` and a resource's `count`; the value itself (number, string,
    /// boolean, object, array, null) for `request.json.PATH` and a resource item or field (`""` when absent); the text
    /// as a JSON string for every other placeholder. `nil` for an unknown placeholder (left as written).
    func jsonValue(for name: String) -> Data? {
        switch name {
        case "counter", "now.epoch", "now.epochMs", "retryAfter": return value(for: name).map { Data($0.utf8) }
        default: break
        }
        if name.hasPrefix("request.json.") {
            let found = TemplateContext.lookup(json, path: String(name.dropFirst("request.json.".count)))
            return TemplateContext.json(found ?? "")
        }
        if name.hasPrefix("resources."), let resourceValue {
            return resourceValue(String(name.dropFirst("resources.".count))).map(TemplateContext.json)
        }
        return value(for: name).map(TemplateContext.jsonString)
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
