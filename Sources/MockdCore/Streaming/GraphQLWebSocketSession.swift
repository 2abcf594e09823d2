import Foundation
public import MockdFormat

/// One connection's side of GraphQL over WebSocket, as a server speaks it: `graphql-transport-ws` (the graphql-ws
/// library's protocol, github.com/enisdenjo/graphql-ws PROTOCOL.md) and the older `graphql-ws` of
/// subscriptions-transport-ws, told apart by the client's messages (`subscribe` or `start`). It acknowledges
/// `connection_init`, answers `ping` with `pong`, plays each started operation from its entry of the script
/// (`GraphQLWebSocketScript`) with the client's own id, stops on `complete` / `stop`, and answers an operation it has
/// no entry for with an `error` naming it and what it has. Protocol violations close the socket with the protocol's
/// codes (4400 bad message, 4401 not acknowledged, 4409 id in use, 4429 a second `connection_init`).
///
/// Used on the reactor thread only: a value the reactor keeps per connection and asks for each message.
public final class GraphQLWebSocketSession {
    /// What the connection should do for a message.
    public enum Reaction: Equatable {
        /// Send `message` after `afterMs` (from now); skip it once `subscription` stopped. `ends`: the message is the
        /// subscription's `complete` (call `ended(_:)` once it is sent).
        case send(afterMs: Double, message: String, subscription: String?, ends: Bool = false)
        case close(code: Int, reason: String)
    }

    private let script: GraphQLWebSocketScript
    private var acknowledged = false
    /// `graphql-ws` (subscriptions-transport-ws) once the client said `start`; else `graphql-transport-ws`.
    private var legacy = false
    private var active: Set<String> = []

    public init(script: GraphQLWebSocketScript) {
        self.script = script
    }

    /// Whether subscription `id` is still running (its timed results are sent only then).
    public func isActive(_ id: String) -> Bool { active.contains(id) }

    /// The server completed subscription `id` (its `complete` was sent): the id may be used again.
    public func ended(_ id: String) { active.remove(id) }

    public func receive(_ message: WebSocketMessage) -> [Reaction] {
        guard case .text(let text) = message,
            let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            let type = object["type"] as? String
        else { return [.close(code: 4400, reason: "Invalid message received")] }
        let id = object["id"] as? String
        switch type {
        case "connection_init":
            guard !acknowledged else { return [.close(code: 4429, reason: "Too many initialisation requests")] }
            acknowledged = true
            var ack: [String: Any] = ["type": "connection_ack"]
            if let payload = script.ackPayload, let value = GraphQLWebSocketSession.foundation(payload) {
                ack["payload"] = value
            }
            return [send(ack)]
        case "ping":
            var pong: [String: Any] = ["type": "pong"]
            if let payload = object["payload"] { pong["payload"] = payload }
            return [send(pong)]
        case "pong":
            return []
        case "connection_terminate":
            return [.close(code: 1000, reason: "")]
        case "subscribe", "start":
            legacy = type == "start"
            guard acknowledged else { return [.close(code: 4401, reason: "Unauthorized")] }
            guard let id, !id.isEmpty, let payload = object["payload"] as? [String: Any] else {
                return [.close(code: 4400, reason: "Invalid message received")]
            }
            guard active.insert(id).inserted else {
                return [.close(code: 4409, reason: "Subscriber for \(id) already exists")]
            }
            return start(id: id, payload: payload)
        case "complete", "stop":
            guard let id else { return [] }
            let wasActive = active.remove(id) != nil
            // subscriptions-transport-ws answers `stop` with `complete`.
            return type == "stop" && wasActive ? [send(["type": "complete", "id": id])] : []
        default:
            return [.close(code: 4400, reason: "Invalid message received")]
        }
    }

    /// The results of the entry for the operation `payload` starts, with the client's `id`.
    private func start(id: String, payload: [String: Any]) -> [Reaction] {
        guard let operation = GraphQLRequest.operation(payload: payload) else {
            active.remove(id)
            return [error(id: id, "mockd: the subscription's payload holds no query document or persisted query")]
        }
        guard let entry = entry(for: operation) else {
            active.remove(id)
            let known = script.subscriptions.map { subscription -> String in
                let variables = subscription.variables.flatMap { try? JSONValueEncoding.data($0) }
                return subscription.operationName + (variables.map { " " + String(decoding: $0, as: UTF8.self) } ?? "")
            }
            return [
                error(
                    id: id,
                    "mockd: no recorded subscription answers \(operation.label) with variables \(String(decoding: operation.variables, as: UTF8.self)) (the endpoint has: \(known.isEmpty ? "none" : known.joined(separator: "; ")))"
                )
            ]
        }
        var reactions: [Reaction] = []
        var offset = 0.0
        for event in entry.events ?? [] {
            offset += min(max(0, event.after ?? 0), TimeLimits.maxDelayMs)
            let result = event.payload ?? .object(["data": event.data ?? .null])
            let message: [String: Any] = [
                "type": legacy ? "data" : "next", "id": id,
                "payload": GraphQLWebSocketSession.foundation(result) ?? NSNull(),
            ]
            reactions.append(.send(afterMs: offset, message: GraphQLWebSocketSession.text(message), subscription: id))
        }
        if entry.complete == true {
            reactions.append(
                .send(
                    afterMs: offset,
                    message: GraphQLWebSocketSession.text(["type": "complete", "id": id]),
                    subscription: id,
                    ends: true
                )
            )
        }
        return reactions
    }

    /// The first entry whose operation name is the operation's and whose variables (when it gives them) are its.
    private func entry(for operation: GraphQLOperation) -> GraphQLSubscriptionEntry? {
        script.subscriptions.first { entry in
            guard entry.operationName == operation.operationName else { return false }
            guard let variables = entry.variables else { return true }
            let expected = try? GraphQLOperation(
                entry: GraphQLEntry(operationName: entry.operationName, variables: variables)
            )
            return expected?.variables == operation.variables
        }
    }

    /// The operation's `error`: `graphql-transport-ws` sends a list of GraphQL errors, `graphql-ws` one error.
    private func error(id: String, _ message: String) -> Reaction {
        let error: [String: Any] = ["message": message]
        return send(["type": "error", "id": id, "payload": legacy ? error : [error]])
    }

    private func send(_ object: [String: Any]) -> Reaction {
        .send(afterMs: 0, message: GraphQLWebSocketSession.text(object), subscription: nil)
    }

    static func text(_ object: [String: Any]) -> String {
        let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return data.map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    static func foundation(_ value: JSONValue) -> Any? {
        guard let data = try? JSONValueEncoding.data(value) else { return nil }
        return try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
    }
}
