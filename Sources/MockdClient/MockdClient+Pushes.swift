import Foundation

extension MockdClient {
    // MARK: Pushes

    /// Pushes to this session's open connections, as a stub's `emit` does (`EmitEntry`: a WebSocket message or close,
    /// a Server-Sent Event, a webhook), each `after` ms after the previous one; the journal links what was sent.
    ///
    /// ```swift
    /// try await mockd.emit([
    ///     EmitEntry(events: EventEmit(path: "/v1/updates", event: "order", data: ["id": 4521, "status": "shipped"])),
    ///     EmitEntry(after: 500, websocket: WebSocketEmit(path: "/v1/chat", send: .json(["type": "typing"]))),
    /// ])
    /// ```
    /// - Returns: Each push: its channel, target, when it is due and how many open connections it reaches now.
    /// - Throws: `.server(400, "bad_request", …)` naming the field for an entry that is not valid.
    @discardableResult
    public func emit(_ entries: [EmitEntry]) async throws -> [EmitReceipt] {
        try await call(ControlRoutes.emit, body: EmitRequest(emit: entries)).pushes
    }

    /// Sends one Server-Sent Event to this session's open event streams (those on `path` when given).
    /// - Parameters:
    ///   - event: The `event:` field (the event type).
    ///   - data: The payload: a string as is, anything else as compact JSON.
    ///   - id: The `id:` field.
    ///   - path: Only streams opened on this path (exact or a template); all of the session's when `nil`.
    /// - Returns: How many open streams it reached (0 when none is open).
    @discardableResult
    public func pushEvent(
        event: String? = nil,
        data: JSONValue?,
        id: String? = nil,
        path: String? = nil
    ) async throws
        -> Int
    {
        try await emit([EmitEntry(events: EventEmit(path: path, event: event, data: data, id: id))]).first?
            .openConnections ?? 0
    }
}
