import Foundation
import MockdCore
import MockdPlatform

/// The opening handshake (RFC 6455 §4.2).
enum WebSocketHandshake {
    /// RFC 6455 §1.3: the GUID appended to the client's key.
    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// Why a request is not a valid WebSocket upgrade, or `nil` when it is.
    static func problem(_ request: HTTPRequest) -> String? {
        guard request.method == "GET" else { return "a WebSocket handshake must be a GET" }
        guard request.headers["upgrade"]?.lowercased().contains("websocket") == true else {
            return "missing Upgrade: websocket"
        }
        guard
            request.headers["connection"]?.lowercased().split(separator: ",").contains(where: {
                $0.trimmingCharacters(in: .whitespaces) == "upgrade"
            }) == true
        else { return "missing Connection: Upgrade" }
        guard request.headers["sec-websocket-version"]?.trimmingCharacters(in: .whitespaces) == "13" else {
            return "Sec-WebSocket-Version must be 13"
        }
        guard let key = request.headers["sec-websocket-key"],
            Data(base64Encoded: key.trimmingCharacters(in: .whitespaces))?.count == 16
        else {
            return "Sec-WebSocket-Key must be 16 bytes in base64"
        }
        return nil
    }

    /// `Sec-WebSocket-Accept`: base64 of SHA-1 of the key and the GUID.
    static func accept(key: String) -> String {
        let input = Array((key.trimmingCharacters(in: .whitespaces) + guid).utf8)
        return Data(SHA1.digest(input)).base64EncodedString()
    }
}
