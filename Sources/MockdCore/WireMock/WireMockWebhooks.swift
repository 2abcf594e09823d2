import Foundation
import MockdFormat

/// WireMock webhooks as mockd `emit` webhooks.
///
/// WireMock 3 lists them in `serveEventListeners`, 2.x in `postServeActions` (a list, or the older object keyed by
/// extension name); each entry named `webhook` has `parameters`: `method` (WireMock's default `GET`), `url`,
/// `headers` (a value or a list of values), one of `body`, `jsonBody`, `base64Body`, and `delay` (`fixed`,
/// `uniform`, `lognormal`). Templates read the request that triggered the webhook as `originalRequest`; those with a
/// mockd equivalent are translated (`WireMockTemplate`), and a webhook with any other expression is left out rather
/// than sent with `{{…}}` in it. Every approximation is reported with its file and JSON path.
extension WireMockMapper {
    /// The webhooks of a mapping's `serveEventListeners` or `postServeActions`, each `after` its delay from the
    /// answer (see `sequenced`); other listeners are reported.
    /// - Throws: `WireMockImportError.invalidMapping` for malformed entries (no `name`, no `url`, wrong types).
    mutating func webhooks(_ node: WireMockNode) throws(WireMockImportError) -> [EmitEntry] {
        var listeners: [(name: String, parameters: WireMockNode?, at: WireMockNode)] = []
        switch node.value {
        case .array:
            for element in try node.array() {
                guard let nameNode = element["name"] else { throw Self.missing(element, "name") }
                listeners.append((try nameNode.string(), element["parameters"], element))
            }
        case .object:
            for (key, child) in try node.members() { listeners.append((key, child, child)) }
        default:
            throw node.fail("expected an array, got \(node.typeName)")
        }
        var entries: [EmitEntry] = []
        for listener in listeners {
            guard listener.name == "webhook" else {
                note(listener.at, "serve-event listener '\(listener.name)' has no mockd equivalent; ignored")
                continue
            }
            guard let parameters = listener.parameters else { throw Self.missing(listener.at, "parameters") }
            if let entry = try webhook(parameters) { entries.append(entry) }
        }
        return entries
    }

    /// WireMock delays each webhook from the answer, mockd each push from the previous one: `hooks` (delays from
    /// the answer) in the order they fall due, each waiting the gap after the one before.
    static func sequenced(_ hooks: [EmitEntry]) -> [EmitEntry] {
        let due = hooks.enumerated().sorted { ($0.element.after ?? 0, $0.offset) < ($1.element.after ?? 0, $1.offset) }
        var previous = 0.0
        return due.map { item in
            var entry = item.element
            let at = entry.after ?? 0
            entry.after = at > previous ? at - previous : nil
            previous = max(previous, at)
            return entry
        }
    }

    private static func missing(_ node: WireMockNode, _ key: String) -> WireMockImportError {
        WireMockImportError(
            .invalidMapping,
            file: node.file,
            jsonPath: node.childPath(key),
            message: "required field is missing"
        )
    }

    /// One webhook's `parameters` as an `emit` entry; `nil` (reported) when mockd cannot send it as WireMock would.
    private mutating func webhook(_ node: WireMockNode) throws(WireMockImportError) -> EmitEntry? {
        _ = try node.object()
        guard let urlNode = node["url"] else { throw Self.missing(node, "url") }
        var untranslated: [String] = []
        func text(_ text: String) -> String {
            let result = WireMockTemplate.translate(text, webhook: true)
            untranslated += result.untranslated
            return result.text
        }
        func json(_ value: JSONValue) -> JSONValue {
            switch value {
            case .string(let string): return .string(text(string))
            case .array(let items): return .array(items.map(json))
            case .object(let members): return .object(members.mapValues(json))
            default: return value
            }
        }

        let url = text(try urlNode.string())
        let method = try node["method"]?.string().uppercased() ?? "GET"
        var headers: [String: String] = [:]
        if let headersNode = node["headers"] {
            for (name, valueNode) in try headersNode.members() {
                var values: [String] = []
                switch valueNode.value {
                case .array: for item in try valueNode.array() { values.append(try item.string()) }
                default: values.append(try valueNode.string())
                }
                headers[name] = values.map(text).joined(separator: ", ")
            }
        }
        var body: JSONValue?
        if let bodyNode = node["body"] {
            body = .string(text(try bodyNode.string()))
        } else if let jsonNode = node["jsonBody"] {
            body = json(jsonNode.value)
        } else if let base64Node = node["base64Body"] {
            guard let data = Data(base64Encoded: try base64Node.string()) else {
                throw base64Node.fail("not valid base64")
            }
            guard let decoded = String(data: data, encoding: .utf8), !decoded.contains("{{") else {
                note(base64Node, "mockd sends a webhook body as text or JSON, not these bytes; webhook left out")
                return nil
            }
            body = .string(decoded)
        }
        let after = try delay(node["delay"])

        guard untranslated.isEmpty else {
            for expression in untranslated {
                note(node, "template \(expression) has no mockd equivalent; webhook left out")
            }
            return nil
        }
        let entry = EmitEntry(
            after: after,
            webhook: WebhookEntry(url: url, method: method, headers: headers.isEmpty ? nil : headers, body: body)
        )
        if case .failure(let problems) = Emissions.compile([entry]), let first = problems.problems.first {
            let field = first.field.replacingOccurrences(of: "[0].webhook.", with: "")
            throw WireMockImportError(
                .invalidMapping,
                file: node.file,
                jsonPath: node.childPath(field.split(separator: ".").first.map(String.init) ?? field),
                message: first.message
            )
        }
        if !url.contains("{{"), let target = WebhookTarget.parse(url), !target.isLoopback {
            note(
                urlNode,
                "mockd sends webhooks to loopback addresses only; run it with --webhook-allow \(target.host) to send this one"
            )
        }
        return entry
    }

    /// A webhook's `delay` in ms: `fixed` as is; `uniform` and `lognormal` as their middle (a push waits a fixed
    /// time), reported.
    private mutating func delay(_ node: WireMockNode?) throws(WireMockImportError) -> Double? {
        guard let node else { return nil }
        let type = try node["type"]?.string()
        var milliseconds: Double?
        switch type {
        case "fixed":
            milliseconds = try node["milliseconds"]?.number()
        case "uniform":
            if let lower = try node["lower"]?.number(), let upper = try node["upper"]?.number() {
                milliseconds = (lower + upper) / 2
                note(node, "mockd waits a fixed time before a push; mapped to \(Int(milliseconds!)) ms, the middle")
            }
        case "lognormal":
            if let median = try node["median"]?.number() {
                milliseconds = median
                note(node, "mockd waits a fixed time before a push; mapped to \(Int(median)) ms, the median")
            }
        default: break
        }
        guard let milliseconds else {
            note(node, "delay \(type.map { "'\($0)'" } ?? "without a type") has no mockd equivalent; sent at once")
            return nil
        }
        guard milliseconds >= 0, milliseconds.isFinite else { throw node.fail("must be ≥ 0 ms") }
        if milliseconds > TimeLimits.maxDelayMs {
            note(node, "mockd waits at most \(Int(TimeLimits.maxDelayMs)) ms before a push; mapped to that")
        }
        return min(milliseconds, TimeLimits.maxDelayMs)
    }
}
