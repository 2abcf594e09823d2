import Foundation
import MockdPlatform
import Testing

/// Both event loops (`poll`, which a Mac runs, and Linux's `epoll`) against the same expectations, over socket pairs.
struct EventPollerTests {
    /// A connected pair of stream sockets; `[0]` is watched, `[1]` is the peer.
    static func socketPair() throws -> [Int32] {
        var ends: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, PlatformSocket.streamType, 0, &ends) == 0)
        return ends
    }

    static func events(_ poller: EventPoller, timeoutMs: Int32 = 1000) -> (woken: Bool, events: [EventPoller.Event]) {
        var seen: [EventPoller.Event] = []
        let woken = poller.wait(timeoutMs: timeoutMs) { seen.append($0) }
        return (woken, seen)
    }

    @Test(arguments: EventPoller.Loop.available)
    func reportsReadableWritableAndTheEndOfTheStream(_ loop: EventPoller.Loop) throws {
        let poller = EventPoller(loop: loop)
        #expect(poller.loop == loop)
        let pair = try Self.socketPair()
        defer { pair.forEach { close($0) } }
        poller.add(pair[0])
        // Nothing to read yet: the wait times out.
        let idle = Self.events(poller, timeoutMs: 50)
        #expect(!idle.woken && idle.events.isEmpty)
        #expect(write(pair[1], "hi", 2) == 2)
        let readable = Self.events(poller).events
        #expect(readable.map(\.descriptor) == [pair[0]] && readable.allSatisfy { $0.readable && !$0.writable })
        // Level-triggered: unread data is reported again.
        #expect(Self.events(poller).events.count == 1)
        var buffer = [UInt8](repeating: 0, count: 8)
        #expect(read(pair[0], &buffer, 8) == 2)
        poller.setWriteInterest(true, for: pair[0])
        let writable = Self.events(poller).events
        #expect(writable.map(\.descriptor) == [pair[0]] && writable.allSatisfy { $0.writable && !$0.readable })
        poller.setWriteInterest(false, for: pair[0])
        #expect(Self.events(poller, timeoutMs: 50).events.isEmpty)
        // The peer's end of the stream reads as readable (a read then returns 0).
        PlatformSocket.shutdownWriting(pair[1])
        let ended = Self.events(poller).events
        #expect(ended.map(\.descriptor) == [pair[0]] && ended.allSatisfy(\.readable))
        #expect(read(pair[0], &buffer, 8) == 0)
    }

    @Test(arguments: EventPoller.Loop.available)
    func wakeFromAnotherThreadEndsTheWaitOnce(_ loop: EventPoller.Loop) {
        let poller = EventPoller(loop: loop)
        let started = Date()
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) { poller.wake() }
        let first = Self.events(poller, timeoutMs: 5000)
        #expect(first.woken && first.events.isEmpty)
        #expect(Date().timeIntervalSince(started) < 2)
        // Several wakes before a wait count once; the wait after that sleeps again.
        poller.wake()
        poller.wake()
        #expect(Self.events(poller).woken)
        #expect(!Self.events(poller, timeoutMs: 50).woken)
    }

    /// A socket removed while its batch is reported (a connection that ended) is never reported again, and the
    /// others keep being watched: 1,000 sockets, every other one removed from inside `body`.
    @Test(arguments: EventPoller.Loop.available)
    func removingInsideTheCallbackKeepsTheOthers(_ loop: EventPoller.Loop) throws {
        let poller = EventPoller(loop: loop)
        let pairs = try (0..<1000).map { _ in try Self.socketPair() }
        defer { pairs.joined().forEach { close($0) } }
        for pair in pairs {
            poller.add(pair[0])
            #expect(write(pair[1], "x", 1) == 1)
        }
        let removed = Set(pairs.enumerated().filter { $0.offset % 2 == 0 }.map { $0.element[0] })
        var reported = Set<Int32>()
        while reported.count < pairs.count {
            let batch = Self.events(poller).events
            if batch.isEmpty { break }
            for event in batch where !reported.contains(event.descriptor) {
                reported.insert(event.descriptor)
                if removed.contains(event.descriptor) { poller.remove(event.descriptor) }
            }
        }
        #expect(reported.count == pairs.count)
        var again = Set<Int32>()
        for _ in 0..<3 { Self.events(poller, timeoutMs: 20).events.forEach { again.insert($0.descriptor) } }
        #expect(again == Set(pairs.map { $0[0] }).subtracting(removed))
    }

    @Test func theSelectedLoopFollowsTheSystem() {
        #expect(EventPoller.Loop.available.contains(.poll))
        #expect(EventPoller.Loop.available.contains(EventPoller.Loop.selected))
        #expect(EventPoller(loop: .poll).loop == .poll)
    }
}
