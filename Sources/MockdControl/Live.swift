public import MockdFormat

/// An open WebSocket of the session, as `GET /__mockd/ws` lists it.
public struct WebSocketConnection: Codable, Sendable, Equatable {
    /// The daemon's id of the connection.
    public var id: Int
    public var session: String
    /// The path the app opened (`/v1/chat`).
    public var path: String
    /// The connection's number, as journal entries of its frames name it.
    public var connection: Int
    /// When it opened: RFC 3339 UTC with milliseconds.
    public var openedAt: String
    /// Data frames the app sent.
    public var framesIn: Int
    /// Frames mockd sent.
    public var framesOut: Int

    public init(
        id: Int,
        session: String,
        path: String,
        connection: Int,
        openedAt: String,
        framesIn: Int,
        framesOut: Int
    ) {
        self.id = id
        self.session = session
        self.path = path
        self.connection = connection
        self.openedAt = openedAt
        self.framesIn = framesIn
        self.framesOut = framesOut
    }
}

/// `GET /__mockd/ws`: the session's open WebSockets, oldest first (`?all=true`: every session's).
public struct WebSocketList: Codable, Sendable, Equatable {
    public var session: String
    public var connections: [WebSocketConnection]

    public init(session: String, connections: [WebSocketConnection]) {
        self.session = session
        self.connections = connections
    }
}

/// The body of `POST /__mockd/ws/send`: one of `text`, `json` (sent as one text frame) or `binary` (Base64).
public struct WebSocketPush: Codable, Sendable, Equatable {
    /// Only the connections on this path; all of the session's when absent.
    public var path: String?
    public var text: String?
    public var json: JSONValue?
    /// Base64.
    public var binary: String?

    public init(path: String? = nil, text: String? = nil, json: JSONValue? = nil, binary: String? = nil) {
        self.path = path
        self.text = text
        self.json = json
        self.binary = binary
    }
}

extension WebSocketPush: ControlSchemaNotes {
    public static var propertyNotes: [String: JSONValue] { ["binary": ["contentEncoding": "base64"]] }
    public static var typeNotes: JSONValue {
        ["anyOf": [["required": ["text"]], ["required": ["json"]], ["required": ["binary"]]]]
    }
}

/// The answer to `POST /__mockd/ws/send`.
public struct WebSocketDelivery: Codable, Sendable, Equatable {
    public var session: String
    /// How many connections the message reached (0 when none is open).
    public var delivered: Int

    public init(session: String, delivered: Int) {
        self.session = session
        self.delivered = delivered
    }
}

/// The body of `POST /__mockd/ws/close` (every field optional; an empty body closes with 1000).
public struct WebSocketCloseRequest: Codable, Sendable, Equatable {
    /// 1000–4999 but 1004–1006 and 1015 (RFC 6455 §7.4); 1000 when absent.
    public var code: Int?
    /// UTF-8, at most 123 bytes.
    public var reason: String?
    /// Only the connections on this path.
    public var path: String?

    public init(code: Int? = nil, reason: String? = nil, path: String? = nil) {
        self.code = code
        self.reason = reason
        self.path = path
    }
}

extension WebSocketCloseRequest: ControlSchemaNotes {
    public static var propertyNotes: [String: JSONValue] {
        ["code": ["minimum": 1000, "maximum": 4999, "not": ["enum": [1004, 1005, 1006, 1015]]]]
    }
}

/// The answer to `POST /__mockd/ws/close`.
public struct WebSocketClosed: Codable, Sendable, Equatable {
    public var session: String
    /// How many connections were closed.
    public var closed: Int

    public init(session: String, closed: Int) {
        self.session = session
        self.closed = closed
    }
}

/// The body of `POST /__mockd/release` (optional).
public struct ReleaseRequest: Codable, Sendable, Equatable {
    /// Only the held requests for this path.
    public var path: String?

    public init(path: String? = nil) {
        self.path = path
    }
}

/// The answer to `POST /__mockd/release`.
public struct Released: Codable, Sendable, Equatable {
    public var session: String
    /// How many held requests were answered.
    public var released: Int

    public init(session: String, released: Int) {
        self.session = session
        self.released = released
    }
}
