import Foundation
import MockdFormat

/// Turns a recorded WebSocket entry (Chrome's `_webSocketMessages`) into a script that replays the server's
/// frames with their recorded timing, and negotiates the recorded subprotocol.
enum WebSocketScriptRecorder {
    /// - Parameters:
    ///   - scale: Multiplies every recorded delay (1 = as recorded, 0 = at once).
    ///   - waitForClient: Replay the server frames that followed a client frame only after the client sends a
    ///     frame with the same text (binary client frames match any message); frames before the first client
    ///     frame are sent on open.
    static func script(_ entry: HAREntry, scale: Double, waitForClient: Bool) -> WebSocketScript {
        if let graphQL = graphQLScript(entry, scale: scale) {
            let subprotocol = entry.response?.headers["sec-websocket-protocol"]?.trimmingCharacters(in: .whitespaces)
            return WebSocketScript(
                subprotocols: subprotocol.flatMap { $0.isEmpty ? nil : [$0] },
                graphql: graphQL.script
            )
        }
        let messages = entry.webSocketMessages.sorted { $0.time < $1.time }
        var origin = entry.startedDateTime?.timeIntervalSince1970 ?? messages.first?.time ?? 0
        if let first = messages.first, first.time < origin { origin = first.time }
        var steps: [WebSocketStep] = []
        var replies: [WebSocketReply] = []
        var previous = origin
        for message in messages {
            // A garbage time (1e308, a jump of years) is held to the longest delay mockd schedules, never infinite.
            let raw = (message.time - previous) * 1000 * scale
            let delay = raw.isFinite ? min(max(0, raw), TimeLimits.maxDelayMs).rounded() : 0
            if message.type == "send" {
                guard waitForClient else { continue }
                let match = message.opcode == 1 ? WebSocketMatch(text: message.data) : WebSocketMatch(any: true)
                replies.append(WebSocketReply(when: match, then: [], once: true))
                previous = message.time
                continue
            }
            let payload: WebSocketPayload =
                message.opcode == 2
                ? .binary(Data(base64Encoded: message.data) ?? Data(message.data.utf8)) : .text(message.data)
            let step = WebSocketStep(after: delay > 0 ? delay : nil, send: payload)
            if waitForClient, !replies.isEmpty {
                replies[replies.count - 1].then.append(step)
            } else {
                steps.append(step)
            }
            previous = message.time
        }
        let answered = replies.filter { !$0.then.isEmpty }
        // The subprotocol the server agreed to (`Sec-WebSocket-Protocol` of the recorded 101), so that clients that
        // require one (GraphQL subscriptions) get it again.
        let subprotocol = entry.response?.headers["sec-websocket-protocol"]?.trimmingCharacters(in: .whitespaces)
        return WebSocketScript(
            steps: steps.isEmpty ? nil : steps,
            replies: answered.isEmpty ? nil : answered,
            subprotocols: subprotocol.flatMap { $0.isEmpty ? nil : [$0] }
        )
    }

    /// A recorded GraphQL-over-WebSocket connection (`graphql-transport-ws` or `graphql-ws`: the negotiated subprotocol,
    /// or a client that opens with `connection_init`) as a `graphql` script: each operation the client started, keyed by
    /// its name and variables, with the results the server sent for its id, timed from the start (× `scale`), and
    /// whether the server completed it. The protocol's own messages (acknowledgement, pings, keep-alives) are left
    /// to the endpoint, which speaks the protocol itself. `nil` for any other WebSocket.
    static func graphQLScript(
        _ entry: HAREntry,
        scale: Double
    ) -> (script: GraphQLWebSocketScript, operations: [GraphQLOperation])? {
        let messages = entry.webSocketMessages.sorted { $0.time < $1.time }
        func object(_ message: HARWebSocketMessage) -> [String: Any]? {
            guard message.opcode == 1 else { return nil }
            return (try? JSONSerialization.jsonObject(with: Data(message.data.utf8))) as? [String: Any]
        }
        let subprotocol = entry.response?.headers["sec-websocket-protocol"]?.trimmingCharacters(in: .whitespaces)
        let opensWithInit =
            messages.first { $0.type == "send" }.flatMap(object)?["type"] as? String == "connection_init"
        guard ["graphql-transport-ws", "graphql-ws"].contains(subprotocol ?? "") || opensWithInit else { return nil }
        struct Started {
            let operation: GraphQLOperation
            var last: Double
            var events: [GraphQLSubscriptionEvent] = []
            var complete = false
        }
        var started: [String: Int] = [:]
        var order: [Started] = []
        for message in messages {
            guard let object = object(message), let type = object["type"] as? String, let id = object["id"] as? String
            else { continue }
            if message.type == "send" {
                guard type == "subscribe" || type == "start", let payload = object["payload"] as? [String: Any],
                    let operation = GraphQLRequest.operation(payload: payload)
                else { continue }
                started[id] = order.count
                order.append(Started(operation: operation, last: message.time))
                continue
            }
            guard let position = started[id] else { continue }
            if type == "next" || type == "data" {
                let raw = (message.time - order[position].last) * 1000 * scale
                let delay = raw.isFinite ? min(max(0, raw), TimeLimits.maxDelayMs).rounded() : 0
                let payload = (object["payload"]).flatMap { try? JSONSerialization.data(withJSONObject: $0) }
                    .flatMap { try? JSONDecoder().decode(JSONValue.self, from: $0) }
                let data: JSONValue?
                if case .object(let members)? = payload, members.count == 1, let only = members["data"] {
                    data = only
                } else {
                    data = nil
                }
                order[position].events.append(
                    GraphQLSubscriptionEvent(
                        after: delay > 0 ? delay : nil,
                        data: data,
                        payload: data == nil ? payload : nil
                    )
                )
                order[position].last = message.time
            } else if type == "complete" {
                order[position].complete = true
            }
        }
        var subscriptions: [GraphQLSubscriptionEntry] = []
        var operations: [GraphQLOperation] = []
        for item in order {
            guard let name = item.operation.operationName,
                !operations.contains(where: { $0.key == item.operation.key })
            else { continue }
            let variables = try? JSONDecoder().decode(JSONValue.self, from: item.operation.variables)
            subscriptions.append(
                GraphQLSubscriptionEntry(
                    operationName: name,
                    variables: variables == .object([:]) ? nil : variables,
                    events: item.events.isEmpty ? nil : item.events,
                    complete: item.complete ? true : nil
                )
            )
            operations.append(item.operation)
        }
        return (GraphQLWebSocketScript(subscriptions: subscriptions), operations)
    }
}
