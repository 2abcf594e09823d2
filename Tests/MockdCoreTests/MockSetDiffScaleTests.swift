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
}
