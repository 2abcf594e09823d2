import Foundation
import MockdFormat
import Testing

@testable import MockdCore

/// `MockSetDiff` over sets whose stubs share one endpoint (`GET /items/{id}` recorded for thousands of ids): the
/// diff `import-har --merge` and `mockd diff` print must stay linear in the stubs (the endpoint's stubs were once
/// copied for every stub added, and a merge of 20,000 such entries ran for minutes).
struct MockSetDiffScaleTests {
    static func build(count: Int, changing changed: Int? = nil) -> MockSetBuild {
        let stubs = (0..<count).map { index in
            MockSetFile.StubEntry(
                id: "GET_items_\(index)",
                request: .init(method: "GET", path: "/items/\(index)", host: "api.example.com"),
                responses: [
                    .init(
                        status: index == changed ? 500 : 200,
                        json: ["id": .int(index), "name": .string(index == changed ? "renamed" : "item \(index)")]
                    )
                ]
            )
        }
        return MockSetBuild(file: MockSetFile(stubs: stubs), files: [:])
    }

    @Test func thousandsOfStubsOfOneEndpointAreComparedStubByStub() {
        let count = 5_000
        let old = Self.build(count: count)
        #expect(MockSetDiff.changelog(from: old, to: old).isEmpty)

        var renamed = Self.build(count: count)
        renamed.file.stubs[4_321].responses[0].json = ["id": .int(4_321), "name": .string("renamed")]
        let changelog = MockSetDiff.changelog(from: old, to: renamed)
        #expect(changelog.endpointsAdded.isEmpty)
        #expect(changelog.endpointsRemoved.isEmpty)
        #expect(changelog.endpointsChanged.count == 1)
        let change = changelog.endpointsChanged.first
        #expect(change?.endpoint.name == "GET /items/{id}")
        #expect(change?.endpoint.hosts == ["api.example.com"])
        #expect(change?.endpoint.stubs.count == count)
        #expect(change?.endpoint.stubs.last == "GET_items_4999")
        #expect(change?.statusesAdded == [])
        #expect(change?.bodyChanges == [])
        #expect(change?.valueChanges == [StatusValueChanges(status: 200, count: 1, examples: ["$.name"])])

        let failing = MockSetDiff.changelog(from: old, to: Self.build(count: count, changing: 7))
        #expect(failing.endpointsChanged.first?.statusesAdded == [500])
    }

    /// Endpoints whose stubs are recorded alike are passed over without parsing their bodies; alike means the same
    /// stubs with the same answers in the same order, so two stubs that traded bodies (listed in swapped order, the
    /// same bodies in the same sequence) are still compared stub by stub.
    @Test func stubsThatTradedBodiesAreComparedEvenInTheSameSequence() {
        let old = Self.build(count: 2)
        var traded = old
        traded.file.stubs.swapAt(0, 1)
        let bodies = (old.file.stubs[0].responses[0].json, old.file.stubs[1].responses[0].json)
        traded.file.stubs[0].responses[0].json = bodies.0
        traded.file.stubs[1].responses[0].json = bodies.1
        #expect(traded.file.stubs.map(\.request.path) == ["/items/1", "/items/0"])
        let changelog = MockSetDiff.changelog(from: old, to: traded)
        #expect(
            changelog.endpointsChanged.first?.valueChanges == [
                StatusValueChanges(status: 200, count: 4, examples: ["$.id", "$.name"])
            ]
        )

        var reordered = old
        reordered.file.stubs.swapAt(0, 1)
        #expect(MockSetDiff.changelog(from: old, to: reordered).isEmpty)
    }
}
