import Foundation
import MockdControl
import Testing

@testable import MockdCore

/// The near misses of a request nothing matched: the `limit` nearest stubs by distance, the earlier stub first among
/// equals, each with exactly what differs (distances are ranked first, differences built for the nearest only).
struct NearMissRankingTests {
    /// `GET /items/0` … `/items/{count-1}`, each wanting `Accept: application/json`.
    private static func index(count: Int) -> StubIndex {
        let stubs = (0..<count).map { number in
            Stub(
                id: "item-\(number)",
                setName: "shop",
                key: RequestKey(method: "GET", rawPath: "/items/\(number)", rawQuery: ""),
                headerConstraints: [
                    HeaderConstraint(name: "accept", value: "application/json", offeredType: "application/json")
                ],
                responses: [MockResponse(status: 200)]
            )
        }
        return StubIndex(layers: [stubs])
    }

    private static func request(_ method: String, _ target: String, accept: String) -> HTTPRequest {
        HTTPRequest(method: method, target: target, headers: HTTPHeaders([("Accept", accept)]))
    }

    @Test func equalDistancesKeepStubOrderAndTheLimit() {
        let misses = NearMissCalculator.nearest(
            to: Self.request("GET", "/items/new", accept: "application/json"),
            in: Self.index(count: 500)
        )
        #expect(misses.map(\.stub) == ["item-0", "item-1", "item-2"])
        // One of the three segments of `/items/0` (with the empty one before the first `/`) differs: 2 × 1/3.
        let oneSegment = 2 * (1.0 / 3)
        #expect(misses.map(\.distance) == [oneSegment, oneSegment, oneSegment])
        #expect(
            misses[0].differs
                == [NearMiss.Difference(part: "path", expected: "/items/0", actual: "/items/new")]
        )
    }

    @Test func theNearestComesFirstWhereverItIsInTheSet() {
        // Stub 417 differs only by its header (0.5); every other stub also by one path segment (2 × 1/3 more).
        let misses = NearMissCalculator.nearest(
            to: Self.request("GET", "/items/417", accept: "text/html"),
            in: Self.index(count: 500),
            limit: 2
        )
        #expect(misses.map(\.stub) == ["item-417", "item-0"])
        #expect(misses.map(\.distance) == [0.5, 2 * (1.0 / 3) + 0.5])
        #expect(
            misses[0].differs == [
                NearMiss.Difference(
                    part: "header",
                    expected: "accept: application/json",
                    actual: "accept: text/html"
                )
            ]
        )
        #expect(
            misses[1].differs == [
                NearMiss.Difference(part: "path", expected: "/items/0", actual: "/items/417"),
                NearMiss.Difference(part: "header", expected: "accept: application/json", actual: "accept: text/html"),
            ]
        )
    }

    @Test func methodAndPathTogetherRankBehindEither() {
        let misses = NearMissCalculator.nearest(
            to: Self.request("POST", "/items/3", accept: "application/json"),
            in: Self.index(count: 5),
            limit: 5
        )
        #expect(misses.map(\.stub) == ["item-3", "item-0", "item-1", "item-2", "item-4"])
        let both = 1 + 2 * (1.0 / 3)
        #expect(misses.map(\.distance) == [1, both, both, both, both])
        #expect(misses[0].differs == [NearMiss.Difference(part: "method", expected: "GET", actual: "POST")])
    }

    @Test func aZeroLimitNamesNothing() {
        #expect(
            NearMissCalculator.nearest(
                to: Self.request("GET", "/nothing", accept: "*/*"),
                in: Self.index(count: 3),
                limit: 0
            ).isEmpty
        )
    }
}
