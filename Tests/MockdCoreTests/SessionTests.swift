import Foundation
import MockdTestSupport
import Testing

@testable import MockdCore

/// Session routing, isolation, eviction and expiry, in process.
struct SessionTests {
    static let scenario = Scenario(
        name: "t",
        sets: ["t"],
        index: StubIndex(layers: [
            [
                Stub(
                    id: "poll",
                    setName: "t",
                    key: RequestKey(method: "GET", rawPath: "/poll", rawQuery: ""),
                    responses: [
                        MockResponse(status: 200, body: Data("1".utf8)),
                        MockResponse(status: 200, body: Data("2".utf8)),
                    ]
                )
            ]
        ])
    )

    @Test(arguments: [
        (
            HTTPRequest(method: "GET", target: "/poll", headers: HTTPHeaders([("X-Mockd-Session", " a1 ")])), "a1",
            "/poll"
        ),
        (
            HTTPRequest(
                method: "GET",
                target: "/poll",
                headers: HTTPHeaders([("Cookie", "x=1; mockd_session=\"c-2\"; y=2")])
            ), "c-2", "/poll"
        ),
        (
            HTTPRequest(
                method: "GET",
                target: "/poll",
                headers: HTTPHeaders([("Cookie", "x=1"), ("Cookie", "mockd_session=c-3")])
            ), "c-3", "/poll"
        ),
        (HTTPRequest(method: "GET", target: "/__session/p.3/poll?x=1"), "p.3", "/poll?x=1"),
        (HTTPRequest(method: "GET", target: "/__session/p4"), "p4", "/"),
        (HTTPRequest(method: "GET", target: "/poll"), nil, "/poll"),
    ])
    func routesBySessionHeaderCookieOrPathPrefix(_ request: HTTPRequest, _ id: String?, _ target: String) throws {
        let routed = try SessionRouting.route(request).get()
        #expect(routed.id == id)
        #expect(routed.request.target == target)
    }

    @Test func sessionsKeepSeparateCursors() {
        let engine = MockEngine(scenario: Self.scenario)
        let poll = { (session: String) in
            String(
                decoding: engine.respond(
                    to: HTTPRequest(
                        method: "GET",
                        target: "/poll",
                        headers: HTTPHeaders([("X-Mockd-Session", session)])
                    )
                ).body,
                as: UTF8.self
            )
        }
        #expect([poll("a"), poll("a"), poll("b"), poll("a"), poll("b")] == ["1", "2", "1", "2", "2"])
    }

    @Test func leastRecentlyUsedSessionIsEvictedBeyondTheLimit() {
        let clock = ManualClock()
        let registry = SessionRegistry(
            scenario: Self.scenario,
            maxSessions: 3,
            idleTimeoutMs: 60_000,
            journalLimit: 10,
            clock: clock.read
        )
        let a = registry.session("a") { Self.scenario }
        clock.advance(by: 1)
        _ = registry.session("b") { Self.scenario }
        clock.advance(by: 1)
        registry.touch(a)
        _ = registry.session("c") { Self.scenario }
        #expect(registry.all.map(\.id) == ["default", "a", "c"])
        #expect(registry.existing("b") == nil)
    }

    /// An evicted session is refused (410) for as long as it would have lived: until `--session-timeout` after its
    /// last use, however many sessions are evicted meanwhile (issue 34: only the last 10,000 evictions were
    /// remembered, after which an evicted session got a fresh one); after that, like an expired session, its id
    /// starts afresh. A reset starts it again at once.
    @Test func anEvictedSessionIsRefusedUntilItWouldHaveExpired() {
        let clock = ManualClock()
        let registry = SessionRegistry(
            scenario: Self.scenario,
            maxSessions: 2,
            idleTimeoutMs: 60_000,
            journalLimit: 10,
            clock: clock.read
        )
        _ = registry.session("first") { Self.scenario }
        clock.advance(by: 1)
        // 20,001 sessions, each evicting the one before: "first" is the oldest eviction by far.
        for index in 0...20_000 { _ = registry.session("s\(index)") { Self.scenario } }
        #expect(registry.evictions.count == 20_001)
        #expect(registry.eviction(of: "first")?.id == "first")
        #expect(registry.eviction(of: "s0")?.id == "s0")
        #expect(registry.eviction(of: "s20000") == nil)
        #expect(registry.eviction(of: "never-seen") == nil)
        // Just before "first" would have expired idle (its last use + the timeout), still refused; then not.
        clock.advance(by: 59_998)
        #expect(registry.eviction(of: "first")?.id == "first")
        clock.advance(by: 1.5)
        #expect(registry.eviction(of: "first") == nil)
        // Sessions evicted later are refused until their own time is up.
        #expect(registry.eviction(of: "s19999")?.id == "s19999")
        // What is remembered is pruned as time passes: nothing is kept once every deadline is past.
        clock.advance(by: 60_000)
        _ = registry.session("later") { Self.scenario }
        #expect(registry.evictions.remembered == 0)
        _ = registry.session("later-still") { Self.scenario }
        #expect(registry.evictions.remembered == 1)
        #expect(registry.eviction(of: "later")?.id == "later")
    }

    @Test func idleSessionsExpireWhenAnotherIsCreated() {
        let clock = ManualClock()
        let registry = SessionRegistry(
            scenario: Self.scenario,
            maxSessions: 100,
            idleTimeoutMs: 20,
            journalLimit: 10,
            clock: clock.read
        )
        _ = registry.session("old") { Self.scenario }
        _ = registry.session("recent") { Self.scenario }
        clock.advance(by: 19.9)
        _ = registry.session("next") { Self.scenario }
        #expect(registry.all.map(\.id) == ["default", "next", "old", "recent"])
        clock.advance(by: 0.2)
        _ = registry.session("new") { Self.scenario }
        #expect(registry.all.map(\.id) == ["default", "new", "next"])
    }

    @Test func journalDropsTheOldestBeyondItsLimitAndCountsThem() {
        let journal = RequestJournal(limit: 3)
        for index in 0..<5 {
            journal.append(
                time: Date(),
                request: HTTPRequest(method: "GET", target: "/\(index)"),
                stubID: nil,
                status: 404,
                fault: nil,
                durationMs: 1,
                response: MockResponse(status: 404),
                nearMisses: []
            )
        }
        let (entries, dropped) = journal.snapshot()
        #expect(entries.map(\.target) == ["/2", "/3", "/4"])
        #expect(entries.map(\.sequence) == [3, 4, 5])
        #expect(dropped == 2)
        // Around the ring several times, in arrival order at every step.
        for index in 5..<12 {
            journal.append(
                time: Date(),
                request: HTTPRequest(method: "GET", target: "/\(index)"),
                stubID: nil,
                status: 404,
                fault: nil,
                durationMs: 1,
                response: MockResponse(status: 404),
                nearMisses: []
            )
            let (now, droppedNow) = journal.snapshot()
            #expect(now.map(\.target) == (index - 2...index).map { "/\($0)" })
            #expect(now.map(\.sequence) == Array(index - 1...index + 1))
            #expect(droppedNow == index - 2)
        }
        journal.clear()
        #expect(journal.snapshot().entries.isEmpty)
        #expect(journal.snapshot().dropped == 0)
        journal.append(
            time: Date(),
            request: HTTPRequest(method: "GET", target: "/again"),
            stubID: nil,
            status: 404,
            fault: nil,
            durationMs: 1,
            response: MockResponse(status: 404),
            nearMisses: []
        )
        #expect(journal.snapshot().entries.map(\.sequence) == [1])
    }
}
