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
}
