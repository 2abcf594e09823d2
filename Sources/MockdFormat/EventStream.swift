import Foundation

/// A Server-Sent Events response (`text/event-stream`, WHATWG HTML §9.2): events sent one by one with
/// delays, then the stream ends or stays open.
///
/// ```json
/// "events": {"items": [{"event": "typing", "data": {"who": "Olga"}, "id": "1"}, {"after": 800, "data": "hello", "id": "2"}],
///            "keepOpen": true}
/// ```
/// A request with `Last-Event-ID: 1` resumes after the event with that id.
public struct EventStream: Codable, Sendable, Equatable {
    enum CodingKeys: String, CodingKey, CaseIterable { case items, keepOpen }

    public var items: [ServerSentEvent]
    /// Keep the connection open after the last event (until the client leaves, at most 10 minutes).
    public var keepOpen: Bool?

    public init(items: [ServerSentEvent], keepOpen: Bool? = nil) {
        self.items = items
        self.keepOpen = keepOpen
    }
}

/// One event.
public struct ServerSentEvent: Codable, Sendable, Equatable {
    enum CodingKeys: String, CodingKey, CaseIterable { case after, event, data, id, retry }

    /// Wait this long after the previous event (or the request), in ms.
    public var after: Double?
    /// The `event:` field (event type).
    public var event: String?
    /// The payload: a string is sent as is (one `data:` line per line), anything else as compact JSON.
    public var data: JSONValue?
    public var id: String?
    /// The `retry:` field, reconnection time in ms.
    public var retry: Int?

    public init(
        after: Double? = nil,
        event: String? = nil,
        data: JSONValue? = nil,
        id: String? = nil,
        retry: Int? = nil
    ) {
        self.after = after
        self.event = event
        self.data = data
        self.id = id
        self.retry = retry
    }
}
