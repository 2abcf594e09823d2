public import Foundation
public import MockdFormat

/// Replaces secrets and personal data in recorded requests and responses with named placeholders
/// (`{{token}}`, `{{cookie}}`, `{{email}}`…) that render to `FakeValues` when served.
///
/// Response bodies keep their layout: JSON values are replaced where they are written, never re-serialised
/// (unless a value is written with unusual escapes, which is reported). Request-side redactions return the
/// `RequestNormalization` rules that make live requests with real values match the redacted stub.
public struct Redactor {
    /// What was replaced, tallied for the import report.
    public private(set) var log = RedactionLog()
    /// Rules that live requests need so that they match redacted request keys and bodies.
    public private(set) var rules = RequestNormalization()

    public init() {}

    // MARK: Query

    /// A raw query with credential parameters (`access_token`, `api_key`, `key`, …) and values shaped like
    /// secrets replaced by `{{placeholder}}`; pairs left alone keep their exact bytes.
    public mutating func redactQuery(_ rawQuery: String, entry: Int, location: String = "request query") -> String {
        guard !rawQuery.isEmpty else { return rawQuery }
        var changed = false
        let pieces = rawQuery.split(separator: "&", omittingEmptySubsequences: false).map { piece -> String in
            guard let equals = piece.firstIndex(of: "=") else { return String(piece) }
            let rawName = piece[..<equals]
            let name = String(decoding: URLEncoding.decode(rawName.utf8, plusIsSpace: true), as: UTF8.self)
            let value = String(
                decoding: URLEncoding.decode(piece[piece.index(after: equals)...].utf8, plusIsSpace: true),
                as: UTF8.self
            )
            guard !value.isEmpty, !SecretPatterns.isPlaceholderOrFake(value) else { return String(piece) }
            var placeholder = SecretPatterns.placeholder(forQueryParameter: name)
            var what = "parameter \(name)"
            if placeholder == nil, let finding = SecretPatterns.findings(in: value).first {
                placeholder = finding.placeholder
                what = "\(finding.what) in parameter \(name)"
            }
            if placeholder == nil, SecretPatterns.isPhoneNumber(value, fieldName: name) {
                placeholder = "phone"
                what = "phone number in parameter \(name)"
            }
            guard let placeholder else { return String(piece) }
            changed = true
            log.add("\(location): \(what) → {{\(placeholder)}}", entry: entry)
            add(queryRule: .init(name: name, placeholder: placeholder))
            return "\(rawName)={{\(placeholder)}}"
        }
        return changed ? pieces.joined(separator: "&") : rawQuery
    }

    // MARK: Headers

    /// A response header value with its secrets replaced: every `Set-Cookie` value, credential headers by
    /// name (keeping an `Authorization` scheme), credentials in a `Location` URL's query, value-shaped secrets.
    public mutating func redactHeader(
        name: String,
        value: String,
        entry: Int,
        location: String = "response header"
    ) -> String {
        let lower = name.lowercased()
        if lower == "set-cookie" { return redactSetCookie(value, entry: entry, location: location) }
        if lower == "cookie" { return redactCookie(value, entry: entry, location: location) }
        if let placeholder = SecretPatterns.placeholder(forHeader: lower), !value.isEmpty,
            !SecretPatterns.isPlaceholderOrFake(value)
        {
            log.add("\(location) \(name) → {{\(placeholder)}}", entry: entry)
            let parts = value.split(separator: " ", maxSplits: 1)
            if lower.hasSuffix("authorization"), parts.count == 2, parts[0].allSatisfy(\.isLetter) {
                return "\(parts[0]) {{\(placeholder)}}"
            }
            return "{{\(placeholder)}}"
        }
        if ["location", "content-location", "link", "refresh"].contains(lower), let question = value.firstIndex(of: "?")
        {
            let end =
                value[question...].firstIndex(where: { $0 == "#" || $0 == ">" || $0 == ";" || $0 == " " })
                ?? value.endIndex
            let query = String(value[value.index(after: question)..<end])
            let redacted = redactQuery(query, entry: entry, location: "\(location) \(name)")
            if redacted != query { return String(value[...question]) + redacted + value[end...] }
        }
        return redactShapes(value, entry: entry, location: "\(location) \(name)")
    }

    /// `sid=abc; Path=/; HttpOnly` → `sid={{cookie}}; Path=/; HttpOnly` (attributes kept; an empty or
    /// `deleted` value, which clears a cookie, kept as it is).
    mutating func redactSetCookie(_ value: String, entry: Int, location: String) -> String {
        guard let equals = value.firstIndex(of: "=") else { return value }
        let end = value[equals...].firstIndex(of: ";") ?? value.endIndex
        let cookieValue = value[value.index(after: equals)..<end].trimmingCharacters(in: .whitespaces)
        guard !cookieValue.isEmpty, cookieValue != "deleted", cookieValue != "\"\"",
            !SecretPatterns.isPlaceholderOrFake(cookieValue)
        else {
            return value
        }
        log.add("\(location) Set-Cookie value → {{cookie}}", entry: entry)
        return String(value[...equals]) + "{{cookie}}" + value[end...]
    }

    /// `a=1; b=2` → `a={{cookie}}; b={{cookie}}`.
    mutating func redactCookie(_ value: String, entry: Int, location: String) -> String {
        let pairs = value.split(separator: ";").map { pair -> String in
            let trimmed = pair.trimmingCharacters(in: .whitespaces)
            guard let equals = trimmed.firstIndex(of: "="), !trimmed[trimmed.index(after: equals)...].isEmpty else {
                return trimmed
            }
            return String(trimmed[...equals]) + "{{cookie}}"
        }
        log.add("\(location) Cookie values → {{cookie}}", entry: entry)
        return pairs.joined(separator: "; ")
    }

    /// `text` with value-shaped secrets (JWTs, bearer tokens, provider keys, e-mail addresses) replaced; a card
    /// number for which `keepsCard` holds (one inside code, `CodeRegions`) is left as it is.
    mutating func redactShapes(
        _ text: String,
        entry: Int,
        location: String,
        keepsCard: (NSRange) -> Bool = { _ in false }
    ) -> String {
        let (redacted, findings) = SecretPatterns.redacted(text) { $0.placeholder == "card" && keepsCard($0.range) }
        for finding in findings { log.add("\(location): \(finding.what) → \(Redactor.shown(finding))", entry: entry) }
        return redacted
    }

    // MARK: Bodies

    /// A response body with its secrets replaced, or `nil` when nothing changed.
    ///
    /// JSON: values under credential names (`password`, `access_token`…), phone numbers under phone-like
    /// names or in E.164 form, and value-shaped secrets inside any string. Other UTF-8 text (HTML, JS,
    /// CSS, XML, plain): value-shaped secrets. Binary bodies are left alone.
    /// - Parameter path: The URL path the body was served from, to tell code (`app.js`) when the media type says
    ///   nothing: card numbers are never masked inside code (`CodeRegions`).
    public mutating func redactResponseBody(_ body: Data, mimeType: String?, entry: Int, path: String? = nil) -> Data? {
        var parsed: Any?
        return redactResponseBody(body, mimeType: mimeType, entry: entry, path: path, parsedJSON: &parsed)
    }

    /// `redactResponseBody(_:mimeType:entry:path:)`, handing back in `parsedJSON` the value a JSON body parsed as
    /// (`nil`: not parsed), so that a caller reading the same body (the recorded dates of an import) does not parse
    /// it again.
    mutating func redactResponseBody(
        _ body: Data,
        mimeType: String?,
        entry: Int,
        path: String?,
        parsedJSON: inout Any?
    ) -> Data? {
        parsedJSON = nil
        guard !body.isEmpty, let text = String(data: body, encoding: .utf8) else { return nil }
        let essence = MediaType.essence(of: mimeType)
        if MediaType.isJSON(essence)
            || (essence.isEmpty || essence == "text/plain" || essence.hasSuffix("javascript")) && looksLikeJSON(body),
            let object = try? JSONObjectReader.jsonObject(with: body, options: [.fragmentsAllowed])
        {
            parsedJSON = object
            var replacements: [(old: String, new: String, literal: Bool)] = []
            collect(object, key: nil, into: &replacements, entry: entry, location: "response body", wholeValue: false)
            return apply(replacements, to: text, object: object, entry: entry, location: "response body")
        }
        let redacted: String
        if CodeRegions.isCode(mimeType: mimeType, path: path) {
            redacted = redactShapes(text, entry: entry, location: "response body") { _ in true }
        } else if CodeRegions.isHTML(mimeType: mimeType), text.utf8.count >= 13 {
            let code = CodeRegions.scriptAndStyleRanges(inHTML: text)
            redacted = redactShapes(text, entry: entry, location: "response body") { card in
                code.contains { NSIntersectionRange($0, card).length > 0 }
            }
        } else {
            redacted = redactShapes(text, entry: entry, location: "response body")
        }
        return redacted == text ? nil : Data(redacted.utf8)
    }

    /// A request body with its secrets replaced (whole values, so a rule can match any live value), or
    /// `nil` when nothing changed. JSON and form bodies only: other bodies are compared byte for byte and
    /// left as recorded. Adds `bodyValues` rules for the replaced fields.
    public mutating func redactRequestBody(_ body: Data, contentType: String?, entry: Int) -> Data? {
        guard !body.isEmpty, let text = String(data: body, encoding: .utf8) else { return nil }
        let essence = MediaType.essence(of: contentType)
        if essence == "application/x-www-form-urlencoded" {
            let redacted = redactForm(text, entry: entry)
            return redacted == text ? nil : Data(redacted.utf8)
        }
        guard MediaType.isJSON(essence) || looksLikeJSON(body),
            let object = try? JSONObjectReader.jsonObject(with: body, options: [.fragmentsAllowed])
        else { return nil }
        var replacements: [(old: String, new: String, literal: Bool)] = []
        collect(object, key: nil, into: &replacements, entry: entry, location: "request body", wholeValue: true)
        return apply(replacements, to: text, object: object, entry: entry, location: "request body")
    }

    private mutating func redactForm(_ text: String, entry: Int) -> String {
        var changed = false
        let pieces = text.split(separator: "&", omittingEmptySubsequences: false).map { piece -> String in
            guard let equals = piece.firstIndex(of: "=") else { return String(piece) }
            let name = String(decoding: URLEncoding.decode(piece[..<equals].utf8, plusIsSpace: true), as: UTF8.self)
            let value = String(
                decoding: URLEncoding.decode(piece[piece.index(after: equals)...].utf8, plusIsSpace: true),
                as: UTF8.self
            )
            guard !value.isEmpty, !SecretPatterns.isPlaceholderOrFake(value),
                let placeholder = SecretPatterns.placeholder(forField: name) ?? SecretPatterns.findings(in: value)
                    .first?.placeholder
                    ?? (SecretPatterns.isPhoneNumber(value, fieldName: name) ? "phone" : nil)
            else { return String(piece) }
            changed = true
            log.add("request body: form field \(name) → {{\(placeholder)}}", entry: entry)
            add(bodyRule: .init(name: name, placeholder: placeholder))
            return String(piece[..<equals]) + "={{\(placeholder)}}"
        }
        return changed ? pieces.joined(separator: "&") : text
    }

    private func looksLikeJSON(_ body: Data) -> Bool {
        guard let first = body.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) else {
            return false
        }
        return first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    }

    /// Walks parsed JSON and lists each string value to replace, with its replacement.
    private mutating func collect(
        _ value: Any,
        key: String?,
        into replacements: inout [(old: String, new: String, literal: Bool)],
        entry: Int,
        location: String,
        wholeValue: Bool
    ) {
        if let object = value as? [String: Any] {
            for name in object.keys.sorted() {
                collect(
                    object[name]!,
                    key: name,
                    into: &replacements,
                    entry: entry,
                    location: location,
                    wholeValue: wholeValue
                )
            }
            return
        }
        if let array = value as? [Any] {
            for element in array {
                collect(
                    element,
                    key: key,
                    into: &replacements,
                    entry: entry,
                    location: location,
                    wholeValue: wholeValue
                )
            }
            return
        }
        guard let string = value as? String, !string.isEmpty, !SecretPatterns.isPlaceholderOrFake(string) else {
            return
        }
        var replacement: String?
        var what = ""
        var placeholder = ""
        if let key, let named = SecretPatterns.placeholder(forField: key), named != "email" && named != "phone" {
            placeholder = named
            what = "field \(key)"
            replacement = "{{\(named)}}"
        } else if SecretPatterns.isPhoneNumber(string, fieldName: key) {
            placeholder = "phone"
            what = "phone number" + (key.map { " in field \($0)" } ?? "")
            replacement = "{{phone}}"
        } else {
            let findings = SecretPatterns.findings(in: string)
            guard let first = findings.first else { return }
            if wholeValue {
                placeholder = first.placeholder
                what = first.what + (key.map { " in field \($0)" } ?? "")
                replacement = "{{\(first.placeholder)}}"
            } else {
                // Inside a longer string: replace just the secret, as raw text (secrets of these shapes hold no
                // character JSON escapes, so they appear in the body exactly as here, whatever the producer's escaping).
                // A card number's digits also appear in numbers and keys, where raw text replacement would break the
                // JSON: a string holding one is replaced as a whole string literal.
                let wholeString = findings.contains { $0.placeholder == "card" }
                let nsString = string as NSString
                for finding in findings {
                    let secret = nsString.substring(with: finding.range)
                    log.add(
                        "\(location): \(finding.what)\(key.map { " in field \($0)" } ?? "") → \(Redactor.shown(finding))",
                        entry: entry
                    )
                    if !wholeString, !replacements.contains(where: { $0.old == secret }) {
                        replacements.append((secret, finding.replacement, false))
                    }
                }
                if wholeString, !replacements.contains(where: { $0.old == string }) {
                    replacements.append((string, SecretPatterns.redacted(string).text, true))
                }
                return
            }
        }
        guard let replacement else { return }
        log.add("\(location): \(what) → {{\(placeholder)}}", entry: entry)
        if wholeValue, let key { add(bodyRule: .init(name: key, placeholder: placeholder)) }
        if !replacements.contains(where: { $0.old == string }) { replacements.append((string, replacement, true)) }
    }

    /// How a finding is named in the report: its placeholder, or for a card number the masked form.
    static func shown(_ finding: SecretPatterns.Finding) -> String {
        finding.placeholder == "card" ? "masked but the last four digits" : "{{\(finding.placeholder)}}"
    }

    /// Replaces each JSON string literal (or raw secret) in place; re-serialises, with sorted keys so the
    /// output is stable, only when a literal cannot be found as written.
    private mutating func apply(
        _ replacements: [(old: String, new: String, literal: Bool)],
        to text: String,
        object: Any,
        entry: Int,
        location: String
    ) -> Data? {
        guard !replacements.isEmpty else { return nil }
        var output = text
        var missing = false
        for (old, new, literal) in replacements {
            if !literal {
                output = output.replacingOccurrences(of: old, with: new)
                let escaped = old.replacingOccurrences(of: "/", with: "\\/")
                if escaped != old { output = output.replacingOccurrences(of: escaped, with: new) }
                continue
            }
            let candidates = [
                JSONLiteral.encode(old, escapingSlashes: false), JSONLiteral.encode(old, escapingSlashes: true),
            ]
            guard let found = candidates.first(where: { output.contains($0) }) else {
                missing = true
                break
            }
            output = output.replacingOccurrences(
                of: found,
                with: JSONLiteral.encode(new, escapingSlashes: found.contains("\\/"))
            )
        }
        if !missing { return Data(output.utf8) }
        log.add(
            "\(location): re-serialised with sorted keys (a value was written with escapes mockd does not reproduce)",
            entry: entry
        )
        let rewritten = JSONLiteral.replacingStrings(in: object, replacements.map { ($0.old, $0.new, $0.literal) })
        return try? JSONSerialization.data(
            withJSONObject: rewritten,
            options: [.fragmentsAllowed, .withoutEscapingSlashes, .sortedKeys]
        )
    }

    private mutating func add(queryRule: RequestNormalization.ValueRule) {
        if !(rules.queryValues ?? []).contains(queryRule) {
            rules.queryValues = (rules.queryValues ?? []) + [queryRule]
        }
    }

    private mutating func add(bodyRule: RequestNormalization.ValueRule) {
        if !(rules.bodyValues ?? []).contains(bodyRule) { rules.bodyValues = (rules.bodyValues ?? []) + [bodyRule] }
    }
}

/// JSON string literals as JSONSerialization writes them.
enum JSONLiteral {
    static func encode(_ string: String, escapingSlashes: Bool) -> String {
        let options: JSONSerialization.WritingOptions =
            escapingSlashes ? [.fragmentsAllowed] : [.fragmentsAllowed, .withoutEscapingSlashes]
        let data = (try? JSONSerialization.data(withJSONObject: string, options: options)) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    static func replacingStrings(in value: Any, _ replacements: [(old: String, new: String, literal: Bool)]) -> Any {
        if let object = value as? [String: Any] { return object.mapValues { replacingStrings(in: $0, replacements) } }
        if let array = value as? [Any] { return array.map { replacingStrings(in: $0, replacements) } }
        guard var string = value as? String else { return value }
        if let hit = replacements.first(where: { $0.literal && $0.old == string }) { return hit.new }
        for replacement in replacements where !replacement.literal {
            string = string.replacingOccurrences(of: replacement.old, with: replacement.new)
        }
        return string
    }
}

/// Redactions tallied by description, with the entries they happened in.
public struct RedactionLog: Sendable, Equatable {
    /// Description (`response header Set-Cookie value → {{cookie}}`) → count and entry indexes, in first-seen order.
    public private(set) var items: [(description: String, count: Int, entries: [Int])] = []
    private var positions: [String: Int] = [:]

    public init() {}

    public var isEmpty: Bool { items.isEmpty }
    public var total: Int { items.reduce(0) { $0 + $1.count } }

    mutating func add(_ description: String, entry: Int) {
        if let position = positions[description] {
            items[position].count += 1
            if items[position].entries.last != entry { items[position].entries.append(entry) }
        } else {
            positions[description] = items.count
            items.append((description, 1, [entry]))
        }
    }

    mutating func merge(_ other: RedactionLog) {
        for item in other.items {
            for (offset, entry) in item.entries.enumerated() {
                add(item.description, entry: entry)
                if offset == 0, item.count > item.entries.count {
                    items[positions[item.description]!].count += item.count - item.entries.count
                }
            }
        }
    }

    public static func == (lhs: RedactionLog, rhs: RedactionLog) -> Bool {
        lhs.items.map(\.description) == rhs.items.map(\.description) && lhs.items.map(\.count) == rhs.items.map(\.count)
    }
}
