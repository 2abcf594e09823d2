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
