import Foundation
import MockdCore
import MockdPlatform
import MockdTestSupport
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

/// The deadline on sockets of its own (socket pairs, no libmicrohttpd): whose wait it is decides what is cut.
/// In the timing pass (suite names starting with `Timing` run one at a time after the others: see scripts/test).
@Suite(.serialized)
struct TimingConnectionWatchTests {
    /// One watched connection: the daemon's end is watched, the test writes and reads as the client on the other.
    struct Pair {
        let daemon: Int32
        let client: Int32
        let watched: ConnectionWatch.Connection

        init(_ watch: ConnectionWatch) throws {
            var ends: [Int32] = [-1, -1]
            try #require(socketpair(AF_UNIX, PlatformSocket.streamType, 0, &ends) == 0)
            (daemon, client) = (ends[0], ends[1])
            watched = watch.register(socket: daemon)
        }

        /// Whether the watch shut the daemon's end down (the client reads the end of the stream).
        var isCut: Bool { ConnectionWatch.peerHasClosed(client) }

        func send(_ text: String) {
            _ = text.utf8CString.withUnsafeBufferPointer { write(client, $0.baseAddress, $0.count - 1) }
        }

        func end(_ watch: ConnectionWatch) {
            watch.unregister(watched)
            close(daemon)
            close(client)
        }
    }

    /// A request sent whole that the workers have not begun to read (busy with others for longer than the timeout)
    /// is the daemon's wait: it was cut, and libmicrohttpd then read it from the socket, carried it out and could not
    /// answer (a DELETE took effect and its client saw an empty reply). Cut beside it: an idle connection, and a
    /// request begun whose bytes wait unread (libmicrohttpd 1.0 stops reading a chunk extension longer than its
    /// buffer); it is cut too, with its own warning, after four timeouts more.
    @Test func aRequestWaitingForBusyWorkersIsNotCutUntilFourTimeoutsMore() throws {
        let logs = InMemoryLogSink()
        let watch = ConnectionWatch(maxConnections: 10, timeoutSeconds: 1, logger: Logger(level: .debug, sink: logs))
        // Registered first, so its deadline is never later than the others'.
        let waiting = try Pair(watch)
        let idle = try Pair(watch)
        let begun = try Pair(watch)
        defer { [waiting, idle, begun].forEach { $0.end(watch) } }
        waiting.send("DELETE /__mockd/stubs/runtime-1 HTTP/1.1\r\nHost: x\r\n\r\n")
        begun.send("POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5;")
        begun.watched.requestLineArrived()
        let started = Date()
        let logged = { (text: String) in logs.entries.contains { $0.message.contains(text) } }
        // The sweep that cut the begun request (registered last) has ended once it logged it.
        try waitUntil(timeout: 10, "the begun request cut") {
            logged("closed 1 connection whose request did not arrive whole")
        }
        #expect(idle.isCut && begun.isCut)
        #expect(!waiting.isCut, "\(logs.entries)")
        #expect(!logged("waited unread"))
        try waitUntil(timeout: 20, "the waiting request cut") { waiting.isCut }
        let seconds = Date().timeIntervalSince(started)
        #expect(seconds > 4.5, "cut after \(seconds) s")
        #expect(
            logged(
                "closed 1 connection whose request waited unread for four times --connection-timeout (1 s) past its "
                    + "deadline: the workers were busy"
            )
        )
    }
}
