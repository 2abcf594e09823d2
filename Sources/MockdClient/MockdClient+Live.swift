public import Foundation

extension MockdClient {
    // MARK: WebSockets and held requests

    /// This session's open WebSockets, oldest first (`GET /__mockd/ws`).
    /// - Parameter allSessions: `true` lists every session's (`?all=true`).
    public func webSockets(allSessions: Bool = false) async throws -> [WebSocketConnection] {
        try await call(
            ControlRoutes.listWebSockets,
            query: allSessions ? [URLQueryItem(name: "all", value: "true")] : []
        ).connections
    }

    /// Sends a text frame to every open WebSocket of this session (only those on `path` when given).
    /// - Returns: How many connections it was delivered to (0 when none is open: wait with `waitForWebSocket`).
    @discardableResult
    public func push(text: String, path: String? = nil) async throws -> Int {
        try await push(WebSocketPush(text: text), path: path)
    }

    /// Sends `value` encoded as JSON, in one text frame, to this session's open WebSockets (on `path` when given).
    /// - Returns: How many connections it was delivered to.
    /// - Throws: What `encoder` throws, or the daemon's error.
    @discardableResult
    public func push(
        json value: some Encodable,
        path: String? = nil,
        encoder: JSONEncoder = MockdClient.defaultEncoder
    ) async throws -> Int {
        try await push(WebSocketPush(json: try JSONValue(encoding: value, encoder: encoder)), path: path)
    }

    /// Sends a binary frame to this session's open WebSockets. - Returns: How many connections it reached.
    @discardableResult
    public func push(binary data: Data, path: String? = nil) async throws -> Int {
        try await push(WebSocketPush(binary: data.base64EncodedString()), path: path)
    }

    /// Closes this session's open WebSockets (on `path` when given) with a close frame.
    /// - Parameters:
    ///   - code: 1000–4999 but 1004–1006 and 1015 (RFC 6455 §7.4), 1000 by default.
    ///   - reason: The close reason, UTF-8, at most 123 bytes.
    ///   - path: Only the connections on this path; all of the session's when `nil`.
    /// - Returns: How many connections were closed.
    /// - Throws: `.server(400, "bad_request", …)` for a code that cannot be sent.
    @discardableResult
    public func closeWebSockets(code: Int = 1000, reason: String = "", path: String? = nil) async throws -> Int {
        try await call(
            ControlRoutes.closeWebSockets,
            body: WebSocketCloseRequest(code: code, reason: reason, path: path)
        ).closed
    }

    /// Answers this session's held requests (`hold` steps: long polls) now, those for `path` only when given.
    /// - Returns: How many were released.
    @discardableResult
    public func release(path: String? = nil) async throws -> Int {
        try await call(ControlRoutes.release, body: ReleaseRequest(path: path)).released
    }

    /// Waits until this session has an open WebSocket on `path` (any path when `nil`) that satisfies `condition`
    /// (by default: any), polling the daemon every 20 ms.
    ///
    /// `waitForWebSocket { $0.framesIn >= 1 }` waits for the first frame the app sent.
    /// - Parameters:
    ///   - path: Only connections on this path; any path when `nil`.
    ///   - timeout: Seconds to wait at most (5 by default).
    ///   - condition: What the connection must satisfy (any open connection by default).
    /// - Returns: The first connection that satisfies `condition`.
    /// - Throws: `MockdClientError.timedOut` naming what it waited for.
    @discardableResult
    public func waitForWebSocket(
        path: String? = nil,
        timeout: TimeInterval = 5,
        where condition: @Sendable (WebSocketConnection) -> Bool = { _ in true }
    ) async throws -> WebSocketConnection {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let found = try await webSockets().first(where: { (path == nil || $0.path == path) && condition($0) }) {
                return found
            }
            guard Date() < deadline else {
                throw MockdClientError.timedOut(
                    "no open WebSocket\(path.map { " on \($0)" } ?? "") of session \(session) met the condition within \(timeout) s"
                )
            }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
    }

    private func push(_ message: WebSocketPush, path: String?) async throws -> Int {
        var message = message
        message.path = path
        return try await call(ControlRoutes.sendWebSocket, body: message).delivered
    }
}
