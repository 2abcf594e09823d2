import Foundation
import Testing

@testable import MockdCore

/// The index's hash table (`RouteTable`) at scale: every stub found by its own key, misses missed, stubs
/// sharing a key grouped, later layers replacing earlier stubs in place.
@Suite
struct StubIndexScaleTests {
    static func stub(
        _ id: String,
        _ method: String,
        _ target: String,
        status: Int = 200,
        headers: [HeaderConstraint] = []
    ) -> Stub {
        Stub(
            id: id,
            setName: "scale",
            key: RequestKey(HTTPRequest(method: method, target: target)),
            headerConstraints: headers,
            responses: [MockResponse(status: status, body: Data(id.utf8))]
        )
    }

    /// 70,000 stubs: a table of 2 MiB, in huge pages where the system gives them (`RouteTable`).
    @Test(arguments: [20_000, 70_000])
    func everyStubOfALargeSetAnswersItsOwnRequest(count: Int) {
        let stubs = (0..<count).map {
            Self.stub("s\($0)", $0 % 2 == 0 ? "GET" : "POST", "/items/\($0)?page=\($0 % 7)")
        }
        // A later layer: one stub replaced in place, one key turned into a group (a stub with a header constraint).
        let json = HeaderConstraint(name: "Accept", value: "application/json")
        let layer = [
            Self.stub("s4-v2", "GET", "/items/4?page=4"),
            Self.stub("s6-json", "GET", "/items/6?page=6", headers: [json]),
        ]
        let index = StubIndex(layers: [stubs, layer])
        #expect(index.stubs.count == count + 1)
        // Every key but the grouped one names its stub from its slot; 70,000 keys make a 2 MiB table (16-byte slots).
        #expect(index.routeTableLayout.hintedStubs == count - 1)
        #expect(index.routeTableLayout.hugePages == (count >= 52_429))
        let engine = MockEngine(scenario: Scenario(name: "scale", sets: ["scale"], index: index))
        for number in stride(from: 0, to: count, by: 97) + [count - 1] where number != 4 {
            let method = number % 2 == 0 ? "GET" : "POST"
            let response = engine.respond(
                to: HTTPRequest(method: method, target: "/items/\(number)?page=\(number % 7)")
            )
            #expect(response.status == 200)
            #expect(response.body == Data("s\(number)".utf8), "stub \(number)")
        }
        #expect(engine.respond(to: HTTPRequest(method: "GET", target: "/items/4?page=4")).body == Data("s4-v2".utf8))
        #expect(
            engine.respond(
                to: HTTPRequest(
                    method: "GET",
                    target: "/items/6?page=6",
                    headers: HTTPHeaders([("Accept", "application/json")])
                )
            ).body == Data("s6-json".utf8)
        )
        #expect(engine.respond(to: HTTPRequest(method: "GET", target: "/items/6?page=6")).body == Data("s6".utf8))
        // Stub 1 is a POST.
        #expect(engine.respond(to: HTTPRequest(method: "GET", target: "/items/1?page=1")).status == 404)
        #expect(engine.respond(to: HTTPRequest(method: "GET", target: "/items/\(count)?page=1")).status == 404)
        #expect(engine.respond(to: HTTPRequest(method: "GET", target: "/items/0?page=1")).status == 404)
    }

    @Test func stubsSharingAKeyAreGroupedAndLaterLayersReplaceInPlace() {
        let json = HeaderConstraint(name: "Accept", value: "application/json")
        let base = [
            Self.stub("plain", "GET", "/profile", status: 200),
            Self.stub("json", "GET", "/profile", status: 201, headers: [json]),
            Self.stub("other", "GET", "/other", status: 200),
        ]
        let override = [
            Self.stub("plain-v2", "GET", "/profile", status: 202), Self.stub("new", "GET", "/new", status: 203),
        ]
        let index = StubIndex(layers: [base, override])
        #expect(index.stubs.map(\.id) == ["plain-v2", "json", "other", "new"])
        let engine = MockEngine(scenario: Scenario(name: "layers", sets: ["a", "b"], index: index))
        #expect(engine.respond(to: HTTPRequest(method: "GET", target: "/profile")).status == 202)
        #expect(
            engine.respond(
                to: HTTPRequest(
                    method: "GET",
                    target: "/profile",
                    headers: HTTPHeaders([("Accept", "application/json")])
                )
            ).status == 201
        )
        #expect(engine.respond(to: HTTPRequest(method: "GET", target: "/new")).status == 203)
        #expect(engine.respond(to: HTTPRequest(method: "GET", target: "/other")).status == 200)
    }
}
