import Foundation
import MockdPlatform
import Testing

/// `PlatformSocket.unsentBytes` over a real TCP connection on the loopback: what a client that stops reading leaves
/// in the sender's buffer, and nothing once it has read everything.
struct UnsentBytesTests {
    /// A connected TCP pair on 127.0.0.1: the sender (non-blocking) and the receiver, whose receive buffer is small.
    static func connectedPair() throws -> (sender: Int32, receiver: Int32) {
        let listener = PlatformSocket.nonBlockingStream(family: AF_INET)
        try #require(listener >= 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(listener, socketAddress, length) == 0 && listen(listener, 1) == 0
                    && getsockname(listener, socketAddress, &length) == 0
            }
        }
        try #require(bound)
        let receiver = PlatformSocket.nonBlockingStream(family: AF_INET)
        var small: Int32 = 4096
        setsockopt(receiver, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        _ = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { PlatformSocket.connect(receiver, $0, length) }
        }
        var sender: Int32 = -1
        for _ in 0..<200 where sender < 0 {
            sender = accept(listener, nil, nil)
            if sender < 0 { usleep(5_000) }
        }
        try #require(sender >= 0)
        _ = fcntl(sender, F_SETFL, fcntl(sender, F_GETFL) | O_NONBLOCK)
        return (sender, receiver)
    }

    @Test func countsWhatTheReceiverHasNotTakenAndNothingOnceItHas() throws {
        let (sender, receiver) = try Self.connectedPair()
        defer {
            close(sender)
            close(receiver)
        }
        #expect(PlatformSocket.unsentBytes(sender) == 0)
        // Write until the receiver's window and the sender's buffer are full.
        let chunk = [UInt8](repeating: 0x78, count: 65_536)
        var written = 0
        while true {
            let count = chunk.withUnsafeBytes { PlatformSocket.send(sender, $0.baseAddress!, $0.count) }
            if count <= 0 { break }
            written += count
        }
        usleep(50_000)
        let stuck = PlatformSocket.unsentBytes(sender) ?? 0
        #expect(stuck > 0 && stuck < written, "\(stuck) of \(written) bytes")
        // The receiver takes everything: nothing is left unsent.
        var received = 0
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let deadline = Date().addingTimeInterval(10)
        while received < written, Date() < deadline {
            let count = read(receiver, &buffer, buffer.count)
            if count > 0 { received += count } else { usleep(1_000) }
        }
        #expect(received == written)
        usleep(50_000)
        #expect(PlatformSocket.unsentBytes(sender) == 0)
    }
}
