public import Foundation
public import MockdFormat

extension EventStream {
    /// The events to send for a request that carried `lastEventID`: those after the event with that id,
    /// or all of them when the id is unknown.
    public func events(after lastEventID: String?) -> ArraySlice<ServerSentEvent> {
        guard let lastEventID, let index = items.lastIndex(where: { $0.id == lastEventID }) else { return items[...] }
        return items[(index + 1)...]
    }
}

extension ServerSentEvent {
    /// The event as it goes on the wire, ending with the blank line.
    public var encoded: Data {
        let payload: String?
        switch data {
        case nil: payload = nil
        case .string(let string)?: payload = string
        case let value?: payload = (try? String(decoding: JSONValueEncoding.data(value), as: UTF8.self)) ?? ""
        }
        return ServerSentEvent.encode(event: event, id: id, retry: retry, data: payload)
    }

    /// An event's fields as they go on the wire (WHATWG HTML §9.2.6): `event:`, `id:`, `retry:`, one `data:` line per
    /// line of `data`, then the blank line.
    public static func encode(event: String?, id: String?, retry: Int?, data: String?) -> Data {
        var text = ""
        if let event { text += "event: \(event)\n" }
        if let id { text += "id: \(id)\n" }
        if let retry { text += "retry: \(retry)\n" }
        if let data {
            for line in data.split(separator: "\n", omittingEmptySubsequences: false) { text += "data: \(line)\n" }
        }
        return Data((text + "\n").utf8)
    }
}
