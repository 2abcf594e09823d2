import Foundation
import MockdCore
import Testing

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

    @Test func everyOneOf20000StubsAnswersItsOwnRequest() {
        let stubs = (0..<20_000).map {
            Self.stub("s\($0)", $0 % 2 == 0 ? "GET" : "POST", "/items/\($0)?page=\($0 % 7)")
        }
        let engine = MockEngine(scenario: Scenario(name: "scale", sets: ["scale"], index: StubIndex(layers: [stubs])))
        for number in stride(from: 0, to: 20_000, by: 97) {
            let method = number % 2 == 0 ? "GET" : "POST"
            let response = engine.respond(
                to: HTTPRequest(method: method, target: "/items/\(number)?page=\(number % 7)")
            )
            #expect(response.status == 200)
            #expect(response.body == Data("s\(number)".utf8))
        }
        // Stub 1 is a POST.
        #expect(engine.respond(to: HTTPRequest(method: "GET", target: "/items/1?page=1")).status == 404)
        #expect(engine.respond(to: HTTPRequest(method: "GET", target: "/items/20000?page=1")).status == 404)
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
