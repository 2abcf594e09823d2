public import Foundation

/// RFC 6455 §5 framing: a parser for client frames (masking enforced, fragments reassembled, size-limited)
/// and an encoder for server frames (never masked).
public struct WebSocketFrameParser {
    /// What a batch of bytes produced.
    public enum Event: Equatable {
        case message(WebSocketMessage)
        case ping(Data)
        case pong
        /// The client's close frame: its code (nil when the frame had none) and reason.
        case close(code: Int?, reason: String)
        /// The client broke the protocol; close with this code (1002 protocol error, 1007 bad UTF-8, 1009 too big).
        case failure(code: Int, reason: String)
    }

    public let maxMessageBytes: Int
    private var buffer: [UInt8] = []
    private var fragments: (opcode: UInt8, payload: [UInt8])?

    public init(maxMessageBytes: Int) {
        self.maxMessageBytes = maxMessageBytes
    }

    /// Appends received bytes and returns the complete events; stops at the first failure.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer) -> [Event] {
        buffer.append(contentsOf: bytes)
        var events: [Event] = []
        while let event = nextEvent() {
            events.append(event)
            if case .failure = event { break }
        }
        return events
    }

    private mutating func nextEvent() -> Event? {
        while true {
            guard buffer.count >= 2 else { return nil }
            let fin = buffer[0] & 0x80 != 0
            let reserved = buffer[0] & 0x70
            let opcode = buffer[0] & 0x0F
            let masked = buffer[1] & 0x80 != 0
            var length = Int(buffer[1] & 0x7F)
            var offset = 2
            if reserved != 0 { return .failure(code: 1002, reason: "reserved bits set without an extension") }
            if !masked { return .failure(code: 1002, reason: "client frames must be masked") }
            if length == 126 {
                guard buffer.count >= 4 else { return nil }
                length = Int(buffer[2]) << 8 | Int(buffer[3])
                offset = 4
            } else if length == 127 {
                guard buffer.count >= 10 else { return nil }
                var value: UInt64 = 0
                for index in 2..<10 { value = value << 8 | UInt64(buffer[index]) }
                guard value <= UInt64(maxMessageBytes) else { return .failure(code: 1009, reason: "message too big") }
                length = Int(value)
                offset = 10
            }
            let isControl = opcode & 0x08 != 0
            if isControl && (!fin || length > 125) {
                return .failure(code: 1002, reason: "control frames must be final and at most 125 bytes")
            }
            if length > maxMessageBytes || (fragments?.payload.count ?? 0) + length > maxMessageBytes {
                return .failure(code: 1009, reason: "message too big")
            }
            guard buffer.count >= offset + 4 + length else { return nil }
            let mask = Array(buffer[offset..<offset + 4])
            var payload = Array(buffer[(offset + 4)..<(offset + 4 + length)])
            for index in payload.indices { payload[index] ^= mask[index & 3] }
            buffer.removeFirst(offset + 4 + length)

            switch opcode {
            case 0x0:
                guard var message = fragments else {
                    return .failure(code: 1002, reason: "continuation without a message")
                }
                message.payload += payload
                fragments = message
                if fin {
                    fragments = nil
                    return complete(opcode: message.opcode, payload: message.payload)
                }
            case 0x1, 0x2:
                if fragments != nil { return .failure(code: 1002, reason: "new message inside a fragmented one") }
                if fin { return complete(opcode: opcode, payload: payload) }
                fragments = (opcode, payload)
            case 0x8:
                if payload.count == 1 { return .failure(code: 1002, reason: "close payload of one byte") }
                let code = payload.count >= 2 ? Int(payload[0]) << 8 | Int(payload[1]) : nil
                // RFC 6455 §7.4: codes a peer may send; anything else is a protocol error.
                if let code,
                    !((1000...1014).contains(code) && ![1004, 1005, 1006].contains(code))
                        && !(3000...4999).contains(code)
                {
                    return .failure(code: 1002, reason: "invalid close code \(code)")
                }
                guard let reason = String(bytes: payload.dropFirst(2), encoding: .utf8) else {
                    return .failure(code: 1007, reason: "close reason is not UTF-8")
                }
                return .close(code: code, reason: reason)
            case 0x9:
                return .ping(Data(payload))
            case 0xA:
                return .pong
            default:
                return .failure(code: 1002, reason: "unknown opcode \(opcode)")
            }
        }
    }

    private func complete(opcode: UInt8, payload: [UInt8]) -> Event {
        if opcode == 0x2 { return .message(.binary(Data(payload))) }
        guard let text = String(bytes: payload, encoding: .utf8) else {
            return .failure(code: 1007, reason: "text message is not UTF-8")
        }
        return .message(.text(text))
    }
}

/// Server-to-client frames (RFC 6455 §5.2), unmasked.
public enum WebSocketFrame {
    public static func encode(opcode: UInt8, payload: Data) -> [UInt8] {
        var frame: [UInt8] = [0x80 | opcode]
        let count = payload.count
        if count < 126 {
            frame.append(UInt8(count))
        } else if count <= 0xFFFF {
            frame += [126, UInt8(count >> 8), UInt8(count & 0xFF)]
        } else {
            frame.append(127)
            for shift in stride(from: 56, through: 0, by: -8) {
                frame.append(UInt8((UInt64(count) >> UInt64(shift)) & 0xFF))
            }
        }
        frame += payload
        return frame
    }

    public static func message(_ message: WebSocketMessage) -> [UInt8] {
        switch message {
        case .text(let text): return encode(opcode: 0x1, payload: Data(text.utf8))
        case .binary(let data): return encode(opcode: 0x2, payload: data)
        }
    }

    /// A close frame; the reason is cut to 123 bytes at a character boundary (control frames carry ≤ 125).
    public static func close(code: Int, reason: String) -> [UInt8] {
        var payload = Data([UInt8(code >> 8), UInt8(code & 0xFF)])
        var kept = ""
        for character in reason {
            if kept.utf8.count + String(character).utf8.count > 123 { break }
            kept.append(character)
        }
        payload.append(contentsOf: kept.utf8)
        return encode(opcode: 0x8, payload: payload)
    }
}
