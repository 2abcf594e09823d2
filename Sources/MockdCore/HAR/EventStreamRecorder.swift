import Foundation
import MockdFormat

/// Turns a recorded `text/event-stream` answer into an event stream script (`EventStream`), so that it is served
/// as a stream of its events rather than as one finite body that an `EventSource` would reconnect to in a loop.
///
/// Timing: a producer that records each event with its arrival time (an `_eventSourceMessages` array, as
/// DevTools-based recorders write: `{"time": <Unix seconds>, "eventName", "eventId", "data"}`) is replayed with
/// those gaps, counted from the entry's `startedDateTime` like WebSocket frames and scaled by `--ws-time-scale`.
/// A body alone says nothing about when each event came, so its events are sent at once rather than spread over
/// invented times: the app gets what the recording saw as soon as it connects. Either way the stream then stays open
/// (`keepOpen`), because a recorded stream usually ended with the recording, not with the server: a stream that ends
/// makes `EventSource` reconnect every few seconds. A reconnect with `Last-Event-ID` resumes after that event.
enum EventStreamRecorder {
    /// Whether `mimeType` is `text/event-stream` (parameters and case ignored).
    static func isEventStream(_ mimeType: String?) -> Bool {
        MediaType.essence(of: mimeType) == "text/event-stream"
    }

    /// The script for a recorded event-stream answer, or `nil` when there are no events to send (an empty or
    /// unrecorded body, comments only): such an entry stays an ordinary response.
    /// - Parameters:
    ///   - body: The recorded body, after redaction.
    ///   - scale: Multiplies every recorded gap (1 = as recorded, 0 = at once).
    static func stream(_ entry: HAREntry, body: Data, scale: Double) -> EventStream? {
        if !entry.eventSourceMessages.isEmpty {
            let messages = entry.eventSourceMessages.sorted { $0.time < $1.time }
            var previous = entry.startedDateTime?.timeIntervalSince1970 ?? messages[0].time
            if messages[0].time < previous { previous = messages[0].time }
            let items = messages.map { message -> ServerSentEvent in
                let delay = max(0, (message.time - previous) * 1000 * scale).rounded()
                previous = message.time
                return ServerSentEvent(
                    after: delay > 0 ? delay : nil,
                    event: message.event.flatMap { $0.isEmpty || $0 == "message" ? nil : $0 },
                    data: .string(message.data),
                    id: message.id.flatMap { $0.isEmpty ? nil : $0 }
                )
            }
            return EventStream(items: items, keepOpen: true)
        }
        let items = events(in: body)
        return items.isEmpty ? nil : EventStream(items: items, keepOpen: true)
    }

    /// The events of an event-stream body, as a browser reads them (WHATWG HTML §9.2.6 "Interpreting an event
    /// stream"): lines end with CRLF, LF or CR; a blank line dispatches; lines starting with `:` are comments;
    /// `field: value` loses one space after the colon; `data` lines join with LF; `id` without NUL; `retry` only
    /// as ASCII digits; unknown fields are ignored. An event without data is kept when it sets an `id` or a
    /// `retry` (the browser updates its last event ID or reconnection time), dropped otherwise. A final event not
    /// ended by a blank line is dropped, as a browser drops it when the stream closes.
    /// - Complexity: O(body length).
    static func events(in body: Data) -> [ServerSentEvent] {
        var text = String(decoding: body, as: UTF8.self)
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        var events: [ServerSentEvent] = []
        var data: [Substring] = []
        var event: Substring?
        var id: Substring?
        var retry: Int?
        var sawData = false
        // Splitting on Character boundaries keeps "\r\n" as one separator (it is one grapheme).
        for line in text.split(
            omittingEmptySubsequences: false,
            whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }
        ) {
            if line.isEmpty {
                if sawData || id != nil || retry != nil {
                    events.append(
                        ServerSentEvent(
                            event: event.flatMap { $0.isEmpty || $0 == "message" ? nil : String($0) },
                            data: sawData ? .string(data.joined(separator: "\n")) : nil,
                            id: id.map(String.init),
                            retry: retry
                        )
                    )
                }
                (data, event, id, retry, sawData) = ([], nil, nil, nil, false)
                continue
            }
            if line.first == ":" { continue }
            let name: Substring
            var value: Substring
            if let colon = line.firstIndex(of: ":") {
                name = line[..<colon]
                value = line[line.index(after: colon)...]
                if value.first == " " { value = value.dropFirst() }
            } else {
                name = line
                value = ""
            }
            switch name {
            case "event": event = value
            case "data":
                data.append(value)
                sawData = true
            case "id": if !value.contains("\u{0}") { id = value }
            case "retry": if !value.isEmpty, value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) { retry = Int(value) }
            default: break
            }
        }
        return events
    }
}
