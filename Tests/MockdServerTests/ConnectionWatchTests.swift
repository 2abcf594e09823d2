import Foundation
import MockdPlatform
import Testing

@testable import MockdServer

/// What the watch reads from a connection's socket to decide whose wait it is: the client's (nothing sent yet) or
/// the daemon's (sent, not read).
struct ConnectionWatchTests {
    @Test func unreadTellsBytesFromTheEndOfTheStreamFromNothing() throws {
        var ends: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, PlatformSocket.streamType, 0, &ends) == 0)
        defer { ends.forEach { close($0) } }
        #expect(ConnectionWatch.unread(ends[0]) == .nothing)
        #expect(write(ends[1], "GET", 3) == 3)
        #expect(ConnectionWatch.unread(ends[0]) == .bytes)
        // A peek consumes nothing.
        #expect(ConnectionWatch.unread(ends[0]) == .bytes)
        var buffer = [UInt8](repeating: 0, count: 8)
        #expect(read(ends[0], &buffer, 8) == 3)
        #expect(ConnectionWatch.unread(ends[0]) == .nothing)
        PlatformSocket.shutdownWriting(ends[1])
        #expect(ConnectionWatch.unread(ends[0]) == .endOfStream)
    }
}
