import Foundation
import MockdPlatform
import Testing

@testable import MockdServer

/// What the watch reads from a connection's socket: whether the client has left with nothing unread.
struct ConnectionWatchTests {
    @Test func peerHasClosedOnlyAtTheEndOfTheStreamAndConsumesNothing() throws {
        var ends: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, PlatformSocket.streamType, 0, &ends) == 0)
        defer { ends.forEach { close($0) } }
        #expect(!ConnectionWatch.peerHasClosed(ends[0]))
        #expect(write(ends[1], "GET", 3) == 3)
        PlatformSocket.shutdownWriting(ends[1])
        // Closed, but bytes wait unread: not yet the end of the stream, and the peek took none of them.
        #expect(!ConnectionWatch.peerHasClosed(ends[0]))
        var buffer = [UInt8](repeating: 0, count: 8)
        #expect(read(ends[0], &buffer, 8) == 3)
        #expect(ConnectionWatch.peerHasClosed(ends[0]))
    }
}
