import Foundation
import MockdFormat
import Testing

@testable import MockdCore

struct SequenceTests {
    private func stub(_ statuses: [Int], afterLast: ExhaustionPolicy) -> Stub {
        Stub(
            id: "poll",
            setName: "test",
            key: RequestKey(method: "GET", rawPath: "/poll", rawQuery: ""),
            responses: statuses.map { MockResponse(status: $0, body: Data("\($0)".utf8)) },
            afterLast: afterLast
        )
    }

    private func statuses(_ engine: MockEngine, calls: Int) -> [Int] {
        (0..<calls).map { _ in engine.respond(to: HTTPRequest(method: "GET", target: "/poll")).status }
    }

    @Test func repeatLastKeepsAnsweringWithTheLastStep() {
        let engine = MockEngine(
            scenario: Scenario(
                name: "t",
                sets: ["test"],
                index: StubIndex(layers: [[stub([200, 201, 202], afterLast: .repeatLast)]])
            )
        )
        #expect(statuses(engine, calls: 5) == [200, 201, 202, 202, 202])
    }

    @Test func cycleStartsOver() {
        let engine = MockEngine(
            scenario: Scenario(
                name: "t",
                sets: ["test"],
                index: StubIndex(layers: [[stub([200, 201], afterLast: .cycle)]])
            )
        )
        #expect(statuses(engine, calls: 5) == [200, 201, 200, 201, 200])
    }

    @Test func notFoundAnswers404AfterTheLastStep() {
        let engine = MockEngine(
            scenario: Scenario(
                name: "t",
                sets: ["test"],
                index: StubIndex(layers: [[stub([200, 201], afterLast: .notFound)]])
            )
        )
        #expect(statuses(engine, calls: 3) == [200, 201, 404])
        let body = engine.respond(to: HTTPRequest(method: "GET", target: "/poll")).body
        let json = try? JSONSerialization.jsonObject(with: body) as? [String: Any]
        #expect(
            json?["message"] as? String == "stub 'poll' answered all 2 responses of its sequence (afterLast: notFound)"
        )
    }

    @Test func resetStartsEverySequenceOver() {
        let engine = MockEngine(
            scenario: Scenario(
                name: "t",
                sets: ["test"],
                index: StubIndex(layers: [[stub([200, 201], afterLast: .repeatLast)]])
            )
        )
        #expect(statuses(engine, calls: 2) == [200, 201])
        engine.resetSequences()
        #expect(statuses(engine, calls: 1) == [200])
    }

    @Test func concurrentCallersGetEveryStepExactlyOnce() async {
        let steps = Array(200..<264)
        let engine = MockEngine(
            scenario: Scenario(
                name: "t",
                sets: ["test"],
                index: StubIndex(layers: [[stub(steps, afterLast: .notFound)]])
            )
        )
        let seen = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<64 {
                group.addTask { engine.respond(to: HTTPRequest(method: "GET", target: "/poll")).status }
            }
            return await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(seen.sorted() == steps)
    }

    @Test(arguments: [
        (ExhaustionPolicy.repeatLast, [0, 1, 2, 2]),
        (.cycle, [0, 1, 2, 0]),
        (.notFound, [0, 1, 2, -1]),
    ])
    func exhaustionPolicySteps(_ policy: ExhaustionPolicy, _ expected: [Int]) {
        #expect((0..<4).map { policy.step(forCall: $0, count: 3) ?? -1 } == expected)
    }
}
