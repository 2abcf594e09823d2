public import Foundation
public import MockdFormat

/// The pushes one answer causes (`emit`: `EmitEntry`), compiled once when the scenario or set loads: templates parsed,
/// regular expressions compiled, every field checked. `render(_:)` makes the pushes of one request.
public struct Emissions: ResponsePushes {
    /// A compiled entry.
    struct Emission: Sendable {
        /// From the previous entry (the first: from the answer), in ms.
        let afterMs: Double
        let kind: Kind
    }

    enum Kind: Sendable {
        case webSocket(SelectorTemplate, WebSocketAction)
        case event(SelectorTemplate, EventTemplate)
        case webhook(WebhookTemplate)
    }

    enum WebSocketAction: Sendable {
        /// A text message (its template) or a binary one (never a template).
        case text(TemplatedBytes)
        case binary(Data)
        case close(code: Int, reason: String)
    }

    struct EventTemplate: Sendable {
        let event: TemplatedBytes?
        let id: TemplatedBytes?
        let retry: Int?
        let data: TemplatedBytes?
    }

    struct WebhookTemplate: Sendable {
        let method: String
        let url: TemplatedBytes
        let headers: [(name: String, value: TemplatedBytes)]
        let body: TemplatedBytes?
        /// Sent unless `headers` set one.
        let bodyContentType: String?
        let timeoutMs: Double
    }

    let entries: [Emission]

    /// A webhook's whole-exchange limit when it sets none, in ms.
    public static let defaultWebhookTimeoutMs = 10_000.0
    /// The longest a webhook may set, in ms.
    public static let maxWebhookTimeoutMs = 600_000.0

    /// One problem of an `emit` list: the field under it (`[1].websocket.path`) and what is wrong.
    public struct Problem: Sendable, Equatable {
        public let field: String
        public let message: String
    }

    /// Every problem of an `emit` list.
    public struct Problems: Error, Sendable, Equatable {
        public let problems: [Problem]
    }

    /// Compiles `entries`, or lists every problem.
    public static func compile(_ entries: [EmitEntry]) -> Result<Emissions, Problems> {
        var problems: [Problem] = []
        var compiled: [Emission] = []
        for (index, entry) in entries.enumerated() {
            func fail(_ field: String, _ message: String) {
                problems.append(Problem(field: "[\(index)]" + (field.isEmpty ? "" : ".\(field)"), message: message))
            }
            let after = entry.after ?? 0
            if !(0...TimeLimits.maxDelayMs).contains(after) {
                fail("after", "must be within 0–\(Int(TimeLimits.maxDelayMs)) ms")
            }
            let channels = [entry.websocket != nil, entry.events != nil, entry.webhook != nil].filter { $0 }.count
            guard channels == 1 else {
                fail("", "give exactly one of websocket, events, webhook")
                continue
            }
            if let push = entry.websocket {
                let selector = SelectorTemplate.compile(push.path, push.pathPattern, field: "websocket", fail: fail)
                let action: WebSocketAction?
                switch (push.send, push.close) {
                case (let payload?, nil):
                    switch payload {
                    case .text(let text): action = .text(TemplatedBytes(text: text))
                    case .json(let value): action = .text(TemplatedBytes(json: value))
                    case .binary(let data): action = .binary(data)
                    }
                case (nil, let close?):
                    let code = close.code ?? 1000
                    if !(1000...4999).contains(code) || [1004, 1005, 1006, 1015].contains(code) {
                        fail("websocket.close.code", "\(code) cannot be sent in a close frame (RFC 6455 §7.4)")
                    }
                    if (close.reason ?? "").utf8.count > 123 {
                        fail("websocket.close.reason", "at most 123 bytes of UTF-8 (RFC 6455 §5.5)")
                    }
                    action = .close(code: code, reason: close.reason ?? "")
                default:
                    fail("websocket", "give exactly one of send, close")
                    action = nil
                }
                if let selector, let action {
                    compiled.append(Emission(afterMs: after, kind: .webSocket(selector, action)))
                }
            } else if let push = entry.events {
                let selector = SelectorTemplate.compile(push.path, push.pathPattern, field: "events", fail: fail)
                if push.event == nil, push.data == nil, push.id == nil, push.retry == nil {
                    fail("events", "give the event: data, event, id or retry")
                }
                if let retry = push.retry, retry < 0 { fail("events.retry", "must be ≥ 0 ms") }
                for (name, text) in [("event", push.event), ("id", push.id)] {
                    if let text, text.contains(where: { $0 == "\n" || $0 == "\r" }) {
                        fail("events.\(name)", "cannot hold a line break (one field line, WHATWG HTML §9.2.6)")
                    }
                }
                let data: TemplatedBytes? = push.data.map {
                    if case .string(let text) = $0 { return TemplatedBytes(text: text) }
                    return TemplatedBytes(json: $0)
                }
                let event = EventTemplate(
                    event: push.event.map(TemplatedBytes.init(text:)),
                    id: push.id.map(TemplatedBytes.init(text:)),
                    retry: push.retry,
                    data: data
                )
                if let selector { compiled.append(Emission(afterMs: after, kind: .event(selector, event))) }
            } else if let hook = entry.webhook {
                if let webhook = WebhookTemplate.compile(hook, fail: fail) {
                    compiled.append(Emission(afterMs: after, kind: .webhook(webhook)))
                }
            }
        }
        return problems.isEmpty ? .success(Emissions(entries: compiled)) : .failure(Problems(problems: problems))
    }

    /// The pushes of one request, rendered: each entry's templates read `request` (and `call`, the answering stub's
    /// 1-based call number), `{{now}}` is the moment the push is due (`now` plus its delay).
    /// - Parameter configure: Sets what else the answer's templates read (`scheme`, resources) on each context.
    public func render(
        request: HTTPRequest,
        call: Int,
        now: Date,
        configure: (TemplateContext) -> Void = { _ in }
    ) -> [Push] {
        var offset = 0.0
        var pushes: [Push] = []
        for entry in entries {
            offset += entry.afterMs
            let context = TemplateContext(request: request, call: call, now: now.addingTimeInterval(offset / 1000))
            configure(context)
            let action: Push.Action
            switch entry.kind {
            case .webSocket(let selector, let push):
                let sent: Push.WebSocketAction
                switch push {
                case .text(let template): sent = .message(.text(template.text(context)))
                case .binary(let data): sent = .message(.binary(data))
                case .close(let code, let reason): sent = .close(code: code, reason: reason)
                }
                action = .webSocket(selector.resolve(context), sent)
            case .event(let selector, let template):
                let data = template.data?.render(context)
                let bytes = ServerSentEvent.encode(
                    event: template.event.map { Self.oneLine($0.text(context)) },
                    id: template.id.map { Self.oneLine($0.text(context)) },
                    retry: template.retry,
                    data: data.map { String(decoding: $0, as: UTF8.self) }
                )
                action = .event(
                    selector.resolve(context),
                    Push.Event(name: template.event?.text(context), data: data ?? Data(), wire: bytes)
                )
            case .webhook(let template):
                var headers = HTTPHeaders()
                for field in template.headers {
                    headers.add(name: field.name, value: Self.oneLine(field.value.text(context)))
                }
                if let type = template.bodyContentType, template.body != nil, headers["content-type"] == nil {
                    headers.add(name: "Content-Type", value: type)
                }
                action = .webhook(
                    Push.Webhook(
                        method: template.method,
                        url: template.url.text(context).trimmingCharacters(in: .whitespaces),
                        headers: headers,
                        body: template.body?.render(context) ?? Data(),
                        timeoutMs: template.timeoutMs
                    )
                )
            }
            pushes.append(Push(delayMs: offset, action: action))
        }
        return pushes
    }

    /// A rendered value that goes on one line (an event's field, a header): line breaks become spaces.
    static func oneLine(_ text: String) -> String {
        guard text.contains(where: { $0 == "\n" || $0 == "\r" || $0 == "\0" }) else { return text }
        return String(text.map { $0 == "\n" || $0 == "\r" || $0 == "\0" ? " " : $0 })
    }
}

extension Emissions.WebhookTemplate {
    static func compile(_ hook: WebhookEntry, fail: (String, String) -> Void) -> Emissions.WebhookTemplate? {
        var ok = true
        func problem(_ field: String, _ message: String) {
            fail("webhook.\(field)", message)
            ok = false
        }
        let method = hook.method ?? "POST"
        if !HTTPToken.isToken(method) { problem("method", "'\(method)' is not an HTTP method token") }
        if !hook.url.contains("{{"), WebhookTarget.parse(hook.url) == nil {
            problem("url", "'\(hook.url)' is not an http:// or https:// URL with a host")
        }
        var headers: [(name: String, value: TemplatedBytes)] = []
        for (name, value) in (hook.headers ?? [:]).sorted(by: { $0.key < $1.key }) {
            if !HTTPToken.isToken(name) { problem("headers", "'\(name)' is not a header name") }
            if !HeaderLine.isValidValue(value) {
                problem("headers.\(name)", "a header value cannot contain CR, LF or NUL")
            }
            headers.append((name, TemplatedBytes(text: value)))
        }
        let timeout = hook.timeoutMs ?? Emissions.defaultWebhookTimeoutMs
        if !(timeout > 0 && timeout <= Emissions.maxWebhookTimeoutMs) {
            problem("timeoutMs", "must be within 1–\(Int(Emissions.maxWebhookTimeoutMs)) ms")
        }
        let body: TemplatedBytes?
        let contentType: String?
        switch hook.body {
        case nil:
            (body, contentType) = (nil, nil)
        case .string(let text)?:
            (body, contentType) = (TemplatedBytes(text: text), "text/plain; charset=utf-8")
        case let value?:
            (body, contentType) = (TemplatedBytes(json: value), "application/json; charset=utf-8")
        }
        guard ok else { return nil }
        return Emissions.WebhookTemplate(
            method: method,
            url: TemplatedBytes(text: hook.url),
            headers: headers,
            body: body,
            bodyContentType: contentType,
            timeoutMs: timeout
        )
    }
}

/// Which of a session's open connections a push goes to: a path (exact, or a template whose `{name}` segments match
/// any one segment; itself a `{{…}}` template rendered per push), a regular expression on the whole path, or every
/// connection.
struct SelectorTemplate: Sendable {
    let path: TemplatedBytes?
    let pattern: FullMatchRegex?

    static func compile(
        _ path: String?,
        _ pattern: String?,
        field: String,
        fail: (String, String) -> Void
    ) -> SelectorTemplate? {
        if path != nil, pattern != nil {
            fail(field, "give path or pathPattern, not both")
            return nil
        }
        if let path, !path.hasPrefix("/"), !path.hasPrefix("{{") {
            fail("\(field).path", "must start with '/' (got '\(path)')")
            return nil
        }
        var regex: FullMatchRegex?
        if let pattern {
            do {
                regex = try FullMatchRegex(pattern)
            } catch {
                fail("\(field).pathPattern", error.message)
                return nil
            }
        }
        return SelectorTemplate(path: path.map(TemplatedBytes.init(text:)), pattern: regex)
    }

    func resolve(_ context: TemplateContext) -> ConnectionSelector {
        if let pattern { return ConnectionSelector(pattern: pattern) }
        guard let path else { return .every }
        return ConnectionSelector(path: path.text(context))
    }
}

extension ConnectionSelector {
    /// Connections on `path`: exact (as request keys compare paths), or a template with `{name}` segments.
    public init(path: String) {
        let pattern = RequestPattern(path: path)
        self.init(description: path) { pattern.couldMatch(method: "GET", target: $0) }
    }

    /// Connections whose whole (normalised) path matches `regex`.
    init(pattern regex: FullMatchRegex) {
        self.init(description: "~" + regex.pattern) { regex.matches(RequestKey.normalizePath($0)) }
    }
}

/// Bytes that may hold `{{placeholders}}`, parsed once (`Template`).
struct TemplatedBytes: Sendable {
    let raw: Data
    let template: Template?

    init(_ raw: Data, jsonValues: Bool = false) {
        self.raw = raw
        self.template = Template.parse(raw, jsonValues: jsonValues)
    }

    init(text: String) {
        self.init(Data(text.utf8))
    }

    /// Compact JSON with sorted keys (`JSONValueEncoding`), where a string that is one placeholder renders as its JSON
    /// value.
    init(json: JSONValue) {
        self.init((try? JSONValueEncoding.data(json)) ?? Data("null".utf8), jsonValues: true)
    }

    func render(_ context: TemplateContext) -> Data {
        template?.render(context) ?? raw
    }

    func text(_ context: TemplateContext) -> String {
        String(decoding: render(context), as: UTF8.self)
    }
}
