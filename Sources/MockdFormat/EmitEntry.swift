/// One push an answer causes: `emit` in a scenario step, a runtime stub, a mock set response or a WebSocket reply.
///
/// After the answer is sent (a reply: after the app's message arrives), each entry waits `after` ms from the previous
/// one, then sends to the session's own open connections: a WebSocket message or close (`websocket`), a Server-Sent
/// Event (`events`), or an HTTP request out of the daemon (`webhook`). Exactly one of the three per entry. Strings in
/// payloads, paths, URLs and headers are templates that read the request that caused the push (`{{request.json.text}}`,
/// `{{request.path[2]}}`; for a reply, the app's message as `request.body` / `request.json.…`).
///
/// ```json
/// "emit": [
///   {"after": 100, "websocket": {"path": "/v1/conversations/{{request.path[2]}}/socket", "send": {"type": "delivered"}}},
///   {"after": 400, "events": {"path": "/v1/conversations/{id}/events", "event": "read", "data": {"id": "m_1004"}}},
///   {"webhook": {"url": "http://127.0.0.1:9100/hooks/message", "body": {"text": "{{request.json.text}}"}}}
/// ]
/// ```
public struct EmitEntry: Codable, Sendable, Equatable {
    enum CodingKeys: String, CodingKey, CaseIterable { case after, websocket, events, webhook }

    /// Wait this long first, in ms: from the previous entry, the first from the answer (or the app's message).
    public var after: Double?
    /// A message (or a close frame) to the session's open WebSockets whose path the selector matches.
    public var websocket: WebSocketEmit?
    /// An event to the session's open Server-Sent Events streams whose path the selector matches.
    public var events: EventEmit?
    /// An HTTP request mockd sends (to a loopback address unless `--webhook-allow` names the host).
    public var webhook: WebhookEntry?

    public init(
        after: Double? = nil,
        websocket: WebSocketEmit? = nil,
        events: EventEmit? = nil,
        webhook: WebhookEntry? = nil
    ) {
        self.after = after
        self.websocket = websocket
        self.events = events
        self.webhook = webhook
    }
}

/// `emit[].websocket`: which of the session's open WebSockets (`path` exact or a template with `{name}` segments,
/// or `pathPattern`, a regular expression the whole path matches; all of them when both are absent), and what to send
/// them: `send` (as a script's step sends it) or `close`.
public struct WebSocketEmit: Codable, Sendable, Equatable {
    enum CodingKeys: String, CodingKey, CaseIterable { case path, pathPattern, send, close }

    public var path: String?
    public var pathPattern: String?
    /// A string is sent as a text frame, `{"binary": "<base64>"}` as a binary frame, anything else as compact JSON.
    public var send: WebSocketPayload?
    /// A close frame (RFC 6455 §7.4): `{"code": 4001, "reason": "signed out"}`.
    public var close: WebSocketClose?

    public init(
        path: String? = nil,
        pathPattern: String? = nil,
        send: WebSocketPayload? = nil,
        close: WebSocketClose? = nil
    ) {
        self.path = path
        self.pathPattern = pathPattern
        self.send = send
        self.close = close
    }
}

/// `emit[].events`: which of the session's open event streams (`path` or `pathPattern`, as for `WebSocketEmit`), and
/// the event (WHATWG HTML §9.2): `event`, `data` (a string as is, anything else as compact JSON), `id`, `retry`.
/// A stream receives pushes while it is open: a stream meant only for pushes is `{"items": [], "keepOpen": true}`.
public struct EventEmit: Codable, Sendable, Equatable {
    enum CodingKeys: String, CodingKey, CaseIterable { case path, pathPattern, event, data, id, retry }

    public var path: String?
    public var pathPattern: String?
    public var event: String?
    public var data: JSONValue?
    public var id: String?
    /// The `retry:` field, reconnection time in ms.
    public var retry: Int?

    public init(
        path: String? = nil,
        pathPattern: String? = nil,
        event: String? = nil,
        data: JSONValue? = nil,
        id: String? = nil,
        retry: Int? = nil
    ) {
        self.path = path
        self.pathPattern = pathPattern
        self.event = event
        self.data = data
        self.id = id
        self.retry = retry
    }
}

/// `emit[].webhook`: an HTTP request mockd sends after the answer, for apps whose backend calls them (or a test
/// server) back. Sent to loopback addresses (`localhost`, `127.0.0.0/8`, `::1`) only, unless the daemon's
/// `--webhook-allow HOST[:PORT]` names the host; redirects are not followed. The result (status, or why none) is
/// journaled as a `WEBHOOK` entry linked to the request that caused it.
public struct WebhookEntry: Codable, Sendable, Equatable {
    enum CodingKeys: String, CodingKey, CaseIterable { case url, method, headers, body, timeoutMs }

    /// `http://127.0.0.1:9100/hooks/payment` (http or https).
    public var url: String
    /// Default `POST`.
    public var method: String?
    public var headers: [String: String]?
    /// A string is sent as text (`text/plain`), anything else as JSON (`application/json`) unless `headers` set a
    /// `Content-Type`.
    public var body: JSONValue?
    /// Whole-exchange limit in ms; default 10,000.
    public var timeoutMs: Double?

    public init(
        url: String,
        method: String? = nil,
        headers: [String: String]? = nil,
        body: JSONValue? = nil,
        timeoutMs: Double? = nil
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeoutMs = timeoutMs
    }
}

/// A WebSocket reply's `state`: move the session's state machine `name` to `next` (only from one of `requires` when
/// given), as an override's answer does: the app's message changes what HTTP requests get.
public struct WebSocketStateChange: Codable, Sendable, Equatable {
    enum CodingKeys: String, CodingKey, CaseIterable { case name, requires, next }

    public var name: String
    public var requires: ScenarioFile.StateNames?
    public var next: String

    public init(name: String, requires: ScenarioFile.StateNames? = nil, next: String) {
        self.name = name
        self.requires = requires
        self.next = next
    }
}
