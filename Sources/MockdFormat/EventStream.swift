public import Foundation

/// A Server-Sent Events response (`text/event-stream`, WHATWG HTML §9.2): events sent one by one with
/// delays, then the stream ends or stays open.
///
/// ```json
/// "events": {"items": [{"event": "typing", "data": {"who": "Olga"}, "id": "1"}, {"after": 800, "data": "hello", "id": "2"}],
///            "keepOpen": true}
/// ```
/// A request with `Last-Event-ID: 1` resumes after the event with that id.
public struct EventStream: Codable, Sendable, Equatable {
    public var items: [ServerSentEvent]
    /// Keep the connection open after the last event (until the client leaves, at most 10 minutes).
    public var keepOpen: Bool?

    public init(items: [ServerSentEvent], keepOpen: Bool? = nil) {
        self.items = items
        self.keepOpen = keepOpen
    }

    /// The events to send for a request that carried `lastEventID`: those after the event with that id,
    /// or all of them when the id is unknown.
    public func events(after lastEventID: String?) -> ArraySlice<ServerSentEvent> {
        guard let lastEventID, let index = items.lastIndex(where: { $0.id == lastEventID }) else { return items[...] }
        return items[(index + 1)...]
    }
}

/// One event.
public struct ServerSentEvent: Codable, Sendable, Equatable {
    /// Wait this long after the previous event (or the request), in ms.
    public var after: Double?
    /// The `event:` field (event type).
    public var event: String?
    /// The payload: a string is sent as is (one `data:` line per line), anything else as compact JSON.
    public var data: JSONValue?
    public var id: String?
    /// The `retry:` field, reconnection time in ms.
    public var retry: Int?

    public init(after: Double? = nil, event: String? = nil, data: JSONValue? = nil, id: String? = nil, retry: Int? = nil) {
        self.after = after
        self.event = event
        self.data = data
        self.id = id
        self.retry = retry
    }

    /// The event as it goes on the wire, ending with the blank line.
    public var encoded: Data {
        var text = ""
        if let event { text += "event: \(event)\n" }
        if let id { text += "id: \(id)\n" }
        if let retry { text += "retry: \(retry)\n" }
        if let data {
            let payload: String
            if case .string(let string) = data {
                payload = string
            } else {
                payload = (try? String(decoding: JSONValueEncoding.data(data), as: UTF8.self)) ?? ""
            }
            for line in payload.split(separator: "\n", omittingEmptySubsequences: false) { text += "data: \(line)\n" }
        }
        return Data((text + "\n").utf8)
    }
}

/// Requests held open by long-poll stubs, released early from the control API; implemented by the bridge.
public protocol HeldRequestHub: Sendable {
    /// Answers the held requests of `session` (on `path` when given) now. Returns how many.
    func release(session: String, path: String?) -> Int
    /// Held requests of `session`: their paths.
    func held(session: String) -> [String]
}
