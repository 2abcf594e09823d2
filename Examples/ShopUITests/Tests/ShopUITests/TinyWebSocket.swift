import Foundation  // the POSIX socket calls too, on Linux and on a Mac

/// The app's live-updates socket, as a minimal RFC 6455 client over a POSIX socket: Foundation has no WebSocket
/// client on Linux. Blocking, with a 5 s receive timeout; enough for a test.
final class TinyWebSocket {
    enum Frame: Equatable {
        case text(String)
        case close(code: Int, reason: String)
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let descriptor: Int32
    private var buffer: [UInt8] = []

    /// Connects to `127.0.0.1:port`, upgrades `path` with `X-Mockd-Session: session`.
    init(port: Int, path: String, session: String) throws {
        // A write to a socket the daemon closed fails with EPIPE instead of ending the test process.
        signal(SIGPIPE, SIG_IGN)
        descriptor = socket(AF_INET, socketType(SOCK_STREAM), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket() failed: errno \(errno)") }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            throw Failure(description: "connect to port \(port) failed: errno \(errno)")
        }
        try write(
            Array(
                ("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                    + "X-Mockd-Session: \(session)\r\n\r\n").utf8
            )
        )
        while !buffer.containsHeaderEnd { try fill() }
        let end = buffer.headerEnd!
        let head = String(decoding: buffer[..<end], as: UTF8.self)
        buffer.removeFirst(end + 4)
        guard head.hasPrefix("HTTP/1.1 101") else { throw Failure(description: "no upgrade: \(head)") }
    }

    deinit { close(descriptor) }

    /// The next text or close frame from mockd (pings and other frames are skipped).
    func receive() throws -> Frame {
        while true {
            try need(2)
            let opcode = buffer[0] & 0x0F
            var length = Int(buffer[1] & 0x7F)
            var offset = 2
            if length == 126 {
                try need(4)
                length = Int(buffer[2]) << 8 | Int(buffer[3])
                offset = 4
            } else if length == 127 {
                try need(10)
                length = buffer[2..<10].reduce(0) { $0 << 8 | Int($1) }
                offset = 10
            }
            try need(offset + length)
            let payload = Array(buffer[offset..<(offset + length)])
            buffer.removeFirst(offset + length)
            switch opcode {
            case 0x1: return .text(String(decoding: payload, as: UTF8.self))
            case 0x8:
                let code = payload.count >= 2 ? Int(payload[0]) << 8 | Int(payload[1]) : 1005
                return .close(code: code, reason: String(decoding: payload.dropFirst(2), as: UTF8.self))
            default: continue
            }
        }
    }

    /// Sends one masked text frame (RFC 6455 §5.3: every client frame is masked).
    func send(text: String) throws {
        let payload = Array(text.utf8)
        precondition(payload.count < 126, "a short frame is all the tests need")
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        var frame: [UInt8] = [0x81, 0x80 | UInt8(payload.count)] + mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        try write(frame)
    }

    private func need(_ count: Int) throws {
        while buffer.count < count { try fill() }
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let read = recv(descriptor, &chunk, chunk.count, 0)
        guard read > 0 else { throw Failure(description: "the socket closed or timed out (errno \(errno))") }
        buffer += chunk[..<read]
    }

    private func write(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let written = bytes[sent...].withUnsafeBytes { sendBytes(descriptor, $0.baseAddress, $0.count) }
            guard written > 0 else { throw Failure(description: "send failed: errno \(errno)") }
            sent += written
        }
    }
}

private func sendBytes(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    send(descriptor, bytes, count, 0)
}

/// `SOCK_STREAM` as `socket(2)` takes it: an `Int32` on a Mac, an enumeration's raw value on Linux; the overload
/// picks the right reading on each, with no platform conditional.
private func socketType(_ type: Int32) -> Int32 { type }
private func socketType<Kind: RawRepresentable>(_ type: Kind) -> Int32 where Kind.RawValue: BinaryInteger {
    Int32(type.rawValue)
}

extension [UInt8] {
    /// The offset of the first `\r\n\r\n`.
    fileprivate var headerEnd: Int? {
        guard count >= 4 else { return nil }
        for index in 0...(count - 4)
        where self[index] == 13 && self[index + 1] == 10 && self[index + 2] == 13 && self[index + 3] == 10 {
            return index
        }
        return nil
    }

    fileprivate var containsHeaderEnd: Bool { headerEnd != nil }
}
