public import Foundation

// The protocols the server bridge implements so that control routes can reach live connections and counters
// (`/__mockd/ws…`, `POST /__mockd/release`, `GET /__mockd/health`): the core owns the vocabulary, the server owns
// the sockets.

/// Open WebSockets, as the control API sees them; implemented by the server bridge.
public protocol WebSocketHub: Sendable {
    /// Connections of `session` (all sessions when `nil`).
    func connections(session: String?) -> [WebSocketConnectionInfo]
    /// Sends `message` to every open WebSocket of `session` (on `path` when given). Returns how many got it.
    func send(_ message: WebSocketMessage, session: String, path: String?) -> Int
    /// Closes every open WebSocket of `session` (on `path` when given) with `code`. Returns how many.
    func close(code: Int, reason: String, session: String, path: String?) -> Int
}

/// One open WebSocket.
public struct WebSocketConnectionInfo: Sendable {
    public let id: Int
    public let session: String
    public let path: String
    /// 1-based number of this connection among the session's connections to `path`.
    public let connectionNumber: Int
    public let openedAt: Date
    public let framesIn: Int
    public let framesOut: Int

    public init(
        id: Int,
        session: String,
        path: String,
        connectionNumber: Int,
        openedAt: Date,
        framesIn: Int,
        framesOut: Int
    ) {
        self.id = id
        self.session = session
        self.path = path
        self.connectionNumber = connectionNumber
        self.openedAt = openedAt
        self.framesIn = framesIn
        self.framesOut = framesOut
    }
}

/// Requests held open by long-poll stubs, released early from the control API; implemented by the bridge.
public protocol HeldRequestHub: Sendable {
    /// Answers the held requests of `session` (on `path` when given) now. Returns how many.
    func release(session: String, path: String?) -> Int
    /// Held requests of `session`: their paths.
    func held(session: String) -> [String]
}

/// What the server bridge counts, for `GET /__mockd/health`.
public protocol ServerStatus: Sendable {
    /// Requests being answered now: head read, exchange not complete (waiting on latency, a hold or the upstream
    /// included); idle keep-alive connections and open WebSockets are not counted.
    var requestsInFlight: Int { get }
}
