public import Foundation

/// What a WebSocket stub does once the handshake (RFC 6455 §4) is done: timed steps from the moment the
/// connection opens, replies to client messages, and optionally a different script per connection of
/// the session (for reconnect tests).
///
/// ```json
/// "websocket": {
///   "steps":   [{"send": {"type": "greeting"}}, {"after": 500, "send": "typing"}, {"after": 2000, "close": {"code": 1001}}],
///   "replies": [{"when": {"json": {"type": "message"}}, "then": [{"after": 500, "send": {"type": "reply"}}]}],
///   "connections": [{…script for the first connection…}, {…for the second and later…}],
///   "subprotocols": ["graphql-transport-ws"]
/// }
/// ```
public struct WebSocketScript: Codable, Sendable, Equatable {
    enum CodingKeys: String, CodingKey, CaseIterable { case steps, replies, connections, subprotocols, graphql }

    /// Steps after the connection opens; each `after` counts from the previous step.
    public var steps: [WebSocketStep]?
    /// Replies to client messages, tried in order; every matching reply runs.
    public var replies: [WebSocketReply]?
    /// Per-connection scripts: the n-th connection of the session to this endpoint uses the n-th entry (the
    /// last one repeats). When given, `steps` and `replies` of this level are ignored.
    public var connections: [WebSocketScript]?
    /// The subprotocols the endpoint speaks (`Sec-WebSocket-Protocol`, RFC 6455 §4.2.2 and §1.9), e.g.
    /// `["graphql-transport-ws"]`; the importer writes the recorded one. The handshake answers with the first
    /// protocol the client offers that is in this list, and with none when the client offers none of them (the
    /// client then decides; browsers close the socket). Without a list, the client's first offer is accepted, so a
    /// client that requires a subprotocol (GraphQL subscriptions) gets one. Read on the top-level script only (the
    /// handshake comes before the connection's number is known), not inside `connections`.
    public var subprotocols: [String]?
    /// GraphQL over WebSocket (`graphql-transport-ws`, and the older `graphql-ws` of subscriptions-transport-ws): the
    /// endpoint speaks the protocol (acknowledges `connection_init`, answers pings) and plays each subscription the
    /// client starts from the entry for its operation.
    public var graphql: GraphQLWebSocketScript?

    public init(
        steps: [WebSocketStep]? = nil,
        replies: [WebSocketReply]? = nil,
        connections: [WebSocketScript]? = nil,
        subprotocols: [String]? = nil,
        graphql: GraphQLWebSocketScript? = nil
    ) {
        self.graphql = graphql
        self.steps = steps
        self.replies = replies
        self.connections = connections
        self.subprotocols = subprotocols
    }

    /// The script for the `number`-th (1-based) connection of a session.
    public func script(forConnection number: Int) -> WebSocketScript {
        guard let connections, !connections.isEmpty else { return self }
        return connections[min(max(number, 1), connections.count) - 1].script(forConnection: number)
    }
}

/// One scripted action.
public struct WebSocketStep: Codable, Sendable, Equatable {
    enum CodingKeys: String, CodingKey, CaseIterable { case after, send, close, drop, echo }

    /// Wait this long first, in ms (from the previous step, or from the open / the triggering message).
    public var after: Double?
    /// A message to send.
    public var send: WebSocketPayload?
    /// Close with a close frame: `{"code": 1000, "reason": "bye"}` (RFC 6455 §7.4).
    public var close: WebSocketClose?
    /// Drop the TCP connection without a close frame: the client sees 1006.
    public var drop: Bool?
    /// In a reply's `then` only: send the client's message back as it came, text as text and binary as binary
    /// (an echo endpoint: `{"when": {"any": true}, "then": [{"echo": true}]}`).
    public var echo: Bool?

    public init(
        after: Double? = nil,
        send: WebSocketPayload? = nil,
        close: WebSocketClose? = nil,
        drop: Bool? = nil,
        echo: Bool? = nil
    ) {
        self.after = after
        self.send = send
        self.close = close
        self.drop = drop
        self.echo = echo
    }
}

/// A close frame's code and reason.
public struct WebSocketClose: Codable, Sendable, Equatable {
    enum CodingKeys: String, CodingKey, CaseIterable { case code, reason }

    /// RFC 6455 §7.4.1 status code; default 1000.
    public var code: Int?
    public var reason: String?

    public init(code: Int? = nil, reason: String? = nil) {
        self.code = code
        self.reason = reason
    }
}

/// A reply rule: when a client message matches, run `then`.
public struct WebSocketReply: Codable, Sendable, Equatable {
    enum CodingKeys: String, CodingKey, CaseIterable { case when, then, once, state, emit }

    public var when: WebSocketMatch
    /// Steps on this connection, each `after` ms after the previous one (the first after the message).
    public var then: [WebSocketStep]
    /// Answer only the first matching message.
    public var once: Bool?
    /// Move a state machine of the session when the message arrives, as an override's answer does: what the app sent
    /// over the socket changes what its HTTP requests get.
    public var state: WebSocketStateChange?
    /// Pushes the message causes (`EmitEntry`): to other sockets and event streams of the session, and webhooks; their
    /// templates read the message as `request.body` and `request.json.PATH`, the socket's path as `request.path`.
    public var emit: [EmitEntry]?

    public init(
        when: WebSocketMatch,
        then: [WebSocketStep] = [],
        once: Bool? = nil,
        state: WebSocketStateChange? = nil,
        emit: [EmitEntry]? = nil
    ) {
        self.when = when
        self.then = then
        self.once = once
        self.state = state
        self.emit = emit
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        when = try container.decode(WebSocketMatch.self, forKey: .when)
        // A reply that only moves a state machine or pushes elsewhere needs no steps of its own.
        then = try container.decodeIfPresent([WebSocketStep].self, forKey: .then) ?? []
        once = try container.decodeIfPresent(Bool.self, forKey: .once)
        state = try container.decodeIfPresent(WebSocketStateChange.self, forKey: .state)
        emit = try container.decodeIfPresent([EmitEntry].self, forKey: .emit)
    }
}

/// A condition on a client message: exactly one of `text` (equal), `json` (the message is JSON containing
/// these fields), `regex` (matches somewhere in the text), or `any: true`.
public struct WebSocketMatch: Codable, Sendable, Equatable {
    enum CodingKeys: String, CodingKey, CaseIterable { case text, json, regex, any }

    public var text: String?
    public var json: JSONValue?
    public var regex: String?
    public var any: Bool?

    public init(text: String? = nil, json: JSONValue? = nil, regex: String? = nil, any: Bool? = nil) {
        self.text = text
        self.json = json
        self.regex = regex
        self.any = any
    }
}

/// A message payload in a script: a string is sent as a text frame, `{"binary": "<base64>"}` as a binary
/// frame, anything else as a text frame holding compact JSON.
public enum WebSocketPayload: Codable, Sendable, Equatable {
    case text(String)
    case json(JSONValue)
    case binary(Data)

    public init(from decoder: any Decoder) throws {
        let value = try JSONValue(from: decoder)
        switch value {
        case .string(let text):
            self = .text(text)
        case .object(let members) where members.count == 1:
            if case .string(let base64)? = members["binary"] {
                guard let data = Data(base64Encoded: base64) else {
                    throw DecodingError.dataCorrupted(
                        .init(codingPath: decoder.codingPath, debugDescription: "binary must be base64")
                    )
                }
                self = .binary(data)
            } else {
                self = .json(value)
            }
        default:
            self = .json(value)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .text(let text): try JSONValue.string(text).encode(to: encoder)
        case .json(let value): try value.encode(to: encoder)
        case .binary(let data):
            try JSONValue.object(["binary": .string(data.base64EncodedString())]).encode(to: encoder)
        }
    }
}
