import Foundation
import MockdFormat

/// Translates WireMock response templates (Handlebars, `transformers: ["response-template"]`) into mockd
/// placeholders where mockd has the same value, and lists the expressions it cannot translate.
///
/// Translated:
/// - `{{request.path}}`, `{{request.url}}`, `{{request.method}}`, `{{request.body}}` → the same mockd placeholders
/// - `{{request.path.[N]}}`, `{{request.pathSegments.[N]}}` → `{{request.path[N]}}` (0-based segment)
/// - `{{request.query.NAME}}`, `{{request.query.NAME.[N]}}` → `{{request.query.NAME}}` (first value), `…[N]`
/// - `{{request.headers.NAME}}`, `{{request.headers.[NAME]}}`, `….[0]` → `{{request.header.NAME}}`
/// - `{{request.cookies.NAME}}` → `{{request.cookie.NAME}}`
/// - `{{jsonPath request.body '$.a.b[0]'}}` (a simple path) → `{{request.json.a.b[0]}}`
/// - `{{now}}` → `{{now}}` (UTC, `2026-11-29T20:00:00Z`); `{{randomValue type='UUID'}}` → `{{uuid}}`
///
/// Anything else (other helpers, block helpers, formats and offsets, `{{{…}}}`) is sent as written: wrapped in a
/// `{{{{raw}}}}…{{{{/raw}}}}` block, since a templated mockd body refuses a helper it does not know.
enum WireMockTemplate {
    /// The text with translatable expressions rewritten and the others in raw blocks, and every expression left as
    /// written.
    /// - Parameter webhook: Translate a webhook's template, where WireMock names the request that triggered it
    ///   `originalRequest` (`{{originalRequest.body}}`, `{{jsonPath originalRequest.body '$.id'}}`) and `request`
    ///   is something else.
    static func translate(_ text: String, webhook: Bool = false) -> (text: String, untranslated: [String]) {
        var output = ""
        var untranslated: [String] = []
        var rest = Substring(text)
        while let open = rest.range(of: "{{") {
            output += rest[..<open.lowerBound]
            let triple = rest[open.upperBound...].hasPrefix("{")
            let closeToken = triple ? "}}}" : "}}"
            guard let close = rest[open.upperBound...].range(of: closeToken) else {
                output += rest[open.lowerBound...]
                rest = rest[rest.endIndex...]
                break
            }
            let whole = String(rest[open.lowerBound..<close.upperBound])
            let inner = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            if !triple, let expression = webhook ? triggeringRequest(inner) : inner,
                let placeholder = mockdPlaceholder(for: expression)
            {
                output += "{{\(placeholder)}}"
            } else {
                // Sent as written: inside a raw block, the one way a templated body says `{{…}}` literally.
                output += "{{{{raw}}}}" + whole + "{{{{/raw}}}}"
                untranslated.append(whole)
            }
            rest = rest[close.upperBound...]
        }
        output += rest
        return (output, untranslated)
    }

    /// A webhook template's expression with `originalRequest.` read as `request.`; `nil` when it names WireMock's
    /// `request` (the webhook's own), which mockd has no value for.
    static func triggeringRequest(_ expression: String) -> String? {
        let marker = "\u{1}"
        let masked = expression.replacingOccurrences(of: "originalRequest.", with: marker)
        guard !masked.contains("request.") else { return nil }
        return masked.replacingOccurrences(of: marker, with: "request.")
    }

    /// The mockd placeholder name with the same value as the Handlebars expression, if there is one.
    static func mockdPlaceholder(for expression: String) -> String? {
        switch expression {
        case "request.path", "request.url", "request.method", "request.body", "now": return expression
        default: break
        }
        let words = expression.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        if words.count == 2, words[0] == "randomValue", ["type='UUID'", "type=\"UUID\""].contains(words[1]) {
            return "uuid"
        }
        if words.count == 3, words[0] == "jsonPath", words[1] == "request.body" {
            let quoted = words[2]
            guard quoted.count >= 2, let quote = quoted.first, quote == "'" || quote == "\"", quoted.last == quote,
                let path = try? SimpleJSONPath(String(quoted.dropFirst().dropLast())), !path.steps.isEmpty
            else { return nil }
            var name = "request.json"
            for step in path.steps {
                switch step {
                case .member(let member):
                    guard PlaceholderName.isValid(member), !member.contains("."), !member.contains("[") else {
                        return nil
                    }
                    name += "." + member
                case .index(let index): name += "[\(index)]"
                }
            }
            return name
        }
        guard words.count == 1 else { return nil }
        for prefix in ["request.path.", "request.pathSegments."] where expression.hasPrefix(prefix) {
            guard let position = index(expression.dropFirst(prefix.count)) else { return nil }
            return "request.path[\(position)]"
        }
        for (prefix, target) in [
            ("request.query.", "request.query."), ("request.headers.", "request.header."),
            ("request.cookies.", "request.cookie."),
        ]
        where expression.hasPrefix(prefix) {
            var key = Substring(expression.dropFirst(prefix.count))
            var position = 0
            if let dot = key.lastIndex(of: "."), let nth = index(key[key.index(after: dot)...]) {
                position = nth
                key = key[..<dot]
            }
            if key.hasPrefix("[") && key.hasSuffix("]") { key = key.dropFirst().dropLast() }
            guard !key.isEmpty, PlaceholderName.isValid(String(key)), !key.contains("."), !key.contains("[") else {
                return nil
            }
            // Only a query parameter's later values have a mockd placeholder; a header's or cookie's first.
            if position > 0 { return prefix == "request.query." ? "\(target)\(key)[\(position)]" : nil }
            return target + key
        }
        return nil
    }

    /// `N` of `[N]` (a Handlebars index segment).
    private static func index(_ segment: Substring) -> Int? {
        guard segment.hasPrefix("["), segment.hasSuffix("]"), segment.count > 2 else { return nil }
        return Int(segment.dropFirst().dropLast()).flatMap { $0 >= 0 ? $0 : nil }
    }
}
