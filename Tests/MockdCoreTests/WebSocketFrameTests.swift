import Foundation
import Testing

@testable import MockdCore

/// RFC 6455 framing details, in process.
struct WebSocketFrameTests {
    static func masked(_ opcode: UInt8, _ payload: [UInt8], fin: Bool = true) -> [UInt8] {
        let mask: [UInt8] = [1, 2, 3, 4]
        return [(fin ? 0x80 : 0) | opcode, 0x80 | UInt8(payload.count)] + mask
            + payload.enumerated().map { $0.element ^ mask[$0.offset & 3] }
    }

    static func feed(_ bytes: [UInt8]) -> [WebSocketFrameParser.Event] {
        var parser = WebSocketFrameParser(maxMessageBytes: 1024)
        return bytes.withUnsafeBytes { parser.feed($0) }
    }

    @Test func closeReasonIsCutAtACharacterBoundary() {
        let frame = WebSocketFrame.close(code: 4000, reason: String(repeating: "é", count: 100))
        #expect(frame[1] == 2 + 122)  // 61 two-byte characters fit in 123 bytes
        #expect(String(bytes: frame[4...], encoding: .utf8) == String(repeating: "é", count: 61))
    }

    @Test(arguments: [0, 999, 1004, 1005, 1006, 1015, 2999, 5000, 65535])
    func invalidCloseCodesFromTheClientAreProtocolErrors(_ code: Int) {
        let events = Self.feed(Self.masked(0x8, [UInt8(code >> 8), UInt8(code & 0xFF)]))
        #expect(events == [.failure(code: 1002, reason: "invalid close code \(code)")])
    }

    @Test func fragmentsAreReassembledAndControlFramesMayInterleave() {
        let bytes =
            Self.masked(0x1, Array("Hel".utf8), fin: false) + Self.masked(0x9, [7]) + Self.masked(0x0, Array("lo".utf8))
        #expect(Self.feed(bytes) == [.ping(Data([7])), .message(.text("Hello"))])
    }

    @Test func unmaskedOversizedAndBadUTF8FramesFail() {
        #expect(
            Self.feed([0x81, 0x02] + Array("hi".utf8)) == [.failure(code: 1002, reason: "client frames must be masked")]
        )
        #expect(
            Self.feed([0x82, 0x80 | 126, 0x08, 0x00, 1, 2, 3, 4]) == [.failure(code: 1009, reason: "message too big")]
        )
        #expect(
            Self.feed(Self.masked(0x1, [0xFF, 0xFE])) == [.failure(code: 1007, reason: "text message is not UTF-8")]
        )
    }
}
