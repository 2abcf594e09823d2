import Foundation
import MockdControl
import Testing

@testable import MockdCore

/// `GET /__mockd/coverage` over a large set: the report is linear in the stubs (it once scanned a set's list for
/// every stub, holding a worker ~16 s at 100,000 stubs), lists each unused stub once in index order, and counts use
/// exactly.
struct CoverageScaleTests {
    @Test func aLargeSetIsReportedStubByStubInIndexOrder() throws {
        let count = 60_000
        let stubs = (0..<count).map { index in
            StubIndexScaleTests.stub("GET_items_\(index)", "GET", "/items/\(index)")
        }
        let engine = MockEngine(scenario: Scenario(name: "large", sets: ["scale"], index: StubIndex(layers: [stubs])))
        let asked = [0, 17, 59_999]
        for index in asked {
            #expect(engine.respond(to: HTTPRequest(method: "GET", target: "/items/\(index)")).status == 200)
        }
        #expect(engine.respond(to: HTTPRequest(method: "GET", target: "/nowhere")).status == 404)

        let overall = CoverageReport.overall(engine)
        let unusedIDs = (0..<count).filter { !asked.contains($0) }.map { "GET_items_\($0)" }
        try #require(overall.scenarios.count == 1)
        let scenario = overall.scenarios[0]
        #expect(scenario.scenario == "large")
        #expect(scenario.stubs.total == count)
        #expect(scenario.stubs.used == asked.count)
        #expect(scenario.stubs.unused == unusedIDs.map { SetStub(set: "scale", id: $0) })
        #expect(overall.sets == [SetCoverage(set: "scale", total: count, used: asked.count, unused: unusedIDs)])
    }
}
