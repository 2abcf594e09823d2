import Foundation
import MockdControl
import MockdFormat

/// The session's live connections: WebSockets (`/__mockd/ws…`) and held long polls (`/__mockd/release`).
extension ControlAPI {
    func listWebSockets(_ call: Call, _: NoBody) -> WebSocketList {
        let connections = engine.webSocketHub?.connections(session: call.flag("all") ? nil : call.session.id) ?? []
        return WebSocketList(
            session: call.session.id,
            connections: connections.map { info in
                WebSocketConnection(
                    id: info.id,
                    session: info.session,
                    path: info.path,
                    connection: info.connectionNumber,
                    openedAt: DateFormats.rfc3339Milliseconds(info.openedAt),
                    framesIn: info.framesIn,
                    framesOut: info.framesOut
                )
            }
        )
    }

    /// `{"path"?: "/chat", "text": "…"}` | `{"json": …}` | `{"binary": "<base64>"}` to every open WebSocket of
    /// the session.
    func sendWebSocket(_ call: Call, _ body: WebSocketPush) throws -> WebSocketDelivery {
        let message: WebSocketMessage
        if let text = body.text {
            message = .text(text)
        } else if let base64 = body.binary, let data = Data(base64Encoded: base64) {
            message = .binary(data)
        } else if let json = body.json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            message = .text(String(decoding: try encoder.encode(json), as: UTF8.self))
        } else {
            throw Failure(.badRequest, #"give one of "text", "json" or "binary" (base64)"#)
        }
        let delivered = engine.webSocketHub?.send(message, session: call.session.id, path: body.path) ?? 0
        return WebSocketDelivery(session: call.session.id, delivered: delivered)
    }

    /// `{"code": 1001, "reason": "…", "path"?: "/chat"}` closes the session's open WebSockets.
    func closeWebSockets(_ call: Call, _ body: WebSocketCloseRequest) throws -> WebSocketClosed {
        let code = body.code ?? 1000
        guard (1000...4999).contains(code), ![1004, 1005, 1006, 1015].contains(code) else {
            throw Failure(.badRequest, "close code \(code) cannot be sent in a close frame (RFC 6455 §7.4)")
        }
        let closed =
            engine.webSocketHub?.close(
                code: code,
                reason: body.reason ?? "",
                session: call.session.id,
                path: body.path
            ) ?? 0
        return WebSocketClosed(session: call.session.id, closed: closed)
    }

    /// `{"path"?: "/v1/updates"}`: answers the session's held long-poll requests now.
    func release(_ call: Call, _ body: ReleaseRequest) -> Released {
        let released = engine.heldRequests?.release(session: call.session.id, path: body.path) ?? 0
        return Released(session: call.session.id, released: released)
    }
}
