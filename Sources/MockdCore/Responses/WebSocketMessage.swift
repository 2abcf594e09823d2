public import Foundation

/// A complete WebSocket data message.
public enum WebSocketMessage: Sendable, Equatable {
    case text(String)
    case binary(Data)
}
