import Foundation
import MockdClient
import MockdTestSupport
import Testing

/// State steps beyond one condition and one move: counted transitions (`after`), any-of states (`requires` as a
/// list) and timed transitions (`timeout`, on the session's virtual clock), set up as runtime stubs.
@Suite("State steps: counters, any-of states, timeouts")
struct StateStepTests {
    static func stubs(_ client: MockdClient) async throws {
        try await client.addStub(
            StubDefinition(
                id: "knock",
                match: .init(method: "POST", path: "/v1/door/knock"),
                response: .init(status: 202, body: "knocked"),
                state: .init(name: "door", requires: "Started", next: "Open", after: 3)
            )
        )
        try await client.addStub(
            StubDefinition(
                id: "look",
                match: .init(method: "GET", path: "/v1/door"),
                response: .init(status: 200, body: "open"),
                state: .init(name: "door", requires: ["Open", "Ajar"])
            )
        )
        try await client.addStub(
            StubDefinition(
                id: "push",
                match: .init(method: "POST", path: "/v1/door/push"),
                response: .init(status: 200, body: "ajar"),
                state: .init(
                    name: "door",
                    requires: "Open",
                    next: "Ajar",
                    timeout: .init(afterMs: 10_000, next: "Started")
                )
            )
        )
    }

    @Test func theThirdKnockOpensAnyOfTwoStatesMatchesAndTheDoorClosesAfterTenVirtualSeconds() async throws {
        try await withDaemon { harness in
            try await Self.stubs(harness.client)
            let knock = harness.request("POST", "/v1/door/knock")
            let look = harness.request("/v1/door")
            let push = harness.request("POST", "/v1/door/push")
            // The push's 10 s timeout starts somewhere after this instant.
            let beforePush = Date()
            let responses = try Curl.batch([knock, knock, look, knock, look, push, look, knock])
            #expect(responses.map(\.status) == [202, 202, 404, 202, 200, 200, 200, 404])
            #expect(responses[4].body == Data("open".utf8))
            #expect(responses[6].body == Data("open".utf8))
            try await harness.client.advanceClock(byMs: 5_000)
            let halfway = try Curl.send(look)
            // The virtual clock runs on with real time (an offset): the door is still ajar 5 virtual seconds on only
            // when fewer than 5 real ones passed too, which a loaded machine does not promise.
            if Date().timeIntervalSince(beforePush) < 5 {
                #expect(halfway.status == 200)
            }
            try await harness.client.advanceClock(byMs: 5_000)
            // Back in Started: the count starts over, so three knocks open again.
            let closed = try Curl.batch([look, knock, knock, look, knock, look])
            #expect(closed.map(\.status) == [404, 202, 202, 404, 202, 200])
        }
    }

    @Test(arguments: [
        (#"{"match": {"path": "/x"}, "state": {"name": "m", "requires": "A", "after": 2}}"#, "state.after"),
        (#"{"match": {"path": "/x"}, "state": {"name": "m", "next": "B", "after": 0}}"#, "state.after"),
        (#"{"match": {"path": "/x"}, "state": {"name": "m", "requires": []}}"#, "state.requires"),
        (
            #"{"match": {"path": "/x"}, "state": {"name": "m", "next": "B", "timeout": {"afterMs": 0, "next": "A"}}}"#,
            "state.timeout.afterMs"
        ),
    ])
    func malformedStateStepsAreRefusedNamingTheField(_ stub: String, _ field: String) async throws {
        try await withDaemon { harness in
            let answer = try Curl.send(harness.request("POST", "/__mockd/stubs", json: stub))
            #expect(answer.status == 400)
            let message = ((try JSONSerialization.jsonObject(with: answer.body)) as? [String: Any])?["message"]
            #expect((message as? String)?.contains(field) == true, "\(String(describing: message))")
        }
    }
}
