import Foundation
import MockdControl
import Testing

@testable import MockdCore

/// The near-miss search of a large set (`NearMissIndex`, `PrunedSearch`) names exactly the stubs, distances and
/// differences that comparing the request with every stub names, on sets built to make the route-prefix bounds tight:
/// shared prefixes, extra and missing segments, many stubs on one path told apart by query, hosts, methods, header
/// constraints and bodies.
struct NearMissSearchTests {
    /// SplitMix64: the same sets and requests on every run and machine.
    private typealias SeededGenerator = SplitMix64

    private static let segments = ["a", "b", "c", "v1", "users", "items", "1", "42", "me"]
    private static let methods = ["GET", "GET", "GET", "POST", "PUT", "DELETE"]
    private static let hosts = ["api.example.com", "cdn.example.com", "auth.example.com"]
    private static let pairs = ["page=1", "page=2", "sort=asc", "q=x", "lang=en", "flag"]
    private static let accepts = ["application/json", "text/html", "image/png"]

    private static func path(_ random: inout SeededGenerator) -> String {
        let count = Int.random(in: 0...5, using: &random)
        return "/" + (0..<count).map { _ in segments.randomElement(using: &random)! }.joined(separator: "/")
    }

    private static func query(_ random: inout SeededGenerator) -> String {
        let count = Int.random(in: 0...3, using: &random)
        return (0..<count).map { _ in pairs.randomElement(using: &random)! }.joined(separator: "&")
    }

    /// `count` stubs, a fifth of them on one path (so a trie node ends more stubs than it indexes by query pair).
    private static func index(count: Int, hosts useHosts: Bool, seed: UInt64) -> StubIndex {
        var random = SeededGenerator(seed: seed)
        let crowded = "/v1/items/list"
        let stubs = (0..<count).map { number -> Stub in
            let method = methods.randomElement(using: &random)!
            let onCrowdedPath = number % 5 == 0
            let constraints: [HeaderConstraint] =
                Bool.random(using: &random)
                ? [] : [HeaderConstraint(name: "accept", value: accepts.randomElement(using: &random)!)]
            let body: Data? =
                method == "POST" && Bool.random(using: &random) ? Data("{\"n\":\(number % 7)}".utf8) : nil
            return Stub(
                id: "s\(number)",
                setName: "set",
                key: RequestKey(
                    method: method,
                    rawPath: onCrowdedPath ? crowded : path(&random),
                    rawQuery: onCrowdedPath ? "id=\(number)&" + query(&random) : query(&random),
                    host: useHosts && Bool.random(using: &random) ? hosts.randomElement(using: &random)! : ""
                ),
                headerConstraints: constraints,
                body: body,
                bodyContentType: body == nil ? nil : "application/json",
                responses: [MockResponse(status: 200)]
            )
        }
        return StubIndex(layers: [stubs])
    }

    private static func request(_ random: inout SeededGenerator, hosts useHosts: Bool) -> HTTPRequest {
        var path = path(&random)
        if Int.random(in: 0..<4, using: &random) == 0 { path = "/zzz" + path }  // an extra segment first
        if Int.random(in: 0..<6, using: &random) == 0 { path = "/v1/items/list" }
        var query = query(&random)
        if Bool.random(using: &random) { query = "id=\(Int.random(in: 0..<400, using: &random))&" + query }
        var headers: [(String, String)] = [("Accept", accepts.randomElement(using: &random)!)]
        if useHosts, Bool.random(using: &random) {
            headers.append(("X-Forwarded-Host", hosts.randomElement(using: &random)!))
        }
        let method = methods.randomElement(using: &random)!
        return HTTPRequest(
            method: method,
            target: query.isEmpty ? path : path + "?" + query,
            headers: HTTPHeaders(headers),
            body: method == "POST" ? Data("{\"n\":\(Int.random(in: 0..<9, using: &random))}".utf8) : Data()
        )
    }

    @Test(arguments: [(UInt64(1), false), (2, true), (3, false), (4, true)])
    func theRoutePrefixSearchNamesWhatComparingEveryStubNames(seed: UInt64, hosts: Bool) {
        let index = Self.index(count: 1_000, hosts: hosts, seed: seed)
        var random = SeededGenerator(seed: seed &+ 100)
        var compared = 0
        for _ in 0..<150 {
            let request = Self.request(&random, hosts: hosts)
            for limit in [1, 3, 10] {
                let everyStub = NearMissCalculator.nearest(to: request, in: index, limit: limit, search: .exhaustive)
                let pruned = NearMissCalculator.nearest(to: request, in: index, limit: limit, search: .pruned)
                #expect(pruned == everyStub, "\(request.method) \(request.target), limit \(limit)")
                compared += 1
            }
        }
        #expect(compared == 450)
    }

    @Test func aStubOneExtraSegmentAwayIsFoundBehindACloserLookingPrefix() {
        // `/a/c` shares the request's first segments (2 × 1/3); `/x/a/b` is the request with one segment more in
        // front (2 × 1/4), reached through a child named by no segment of the request.
        let stubs = ["/a/c", "/x/a/b"].enumerated().map { number, path in
            Stub(
                id: "s\(number)",
                setName: "set",
                key: RequestKey(method: "GET", rawPath: path, rawQuery: ""),
                responses: [MockResponse(status: 200)]
            )
        }
        let index = StubIndex(layers: [stubs])
        let request = HTTPRequest(method: "GET", target: "/a/b")
        for search in [NearMissCalculator.Search.pruned, .exhaustive] {
            let misses = NearMissCalculator.nearest(to: request, in: index, limit: 1, search: search)
            #expect(misses.map(\.stub) == ["s1"])
            #expect(misses.map(\.distance) == [0.5])
        }
    }

    @Test func aStubWithTheRequestsOwnQueryOnACrowdedPathIsNamed() {
        // 100 stubs on one path, told apart by query; the request's query is one of them, written without `=`.
        let stubs = (0..<100).map { number in
            Stub(
                id: "s\(number)",
                setName: "set",
                key: RequestKey(method: "GET", rawPath: "/list", rawQuery: "flag\(number)"),
                headerConstraints: [HeaderConstraint(name: "accept", value: "application/json")],
                responses: [MockResponse(status: 200)]
            )
        }
        let index = StubIndex(layers: [stubs])
        let request = HTTPRequest(
            method: "GET",
            target: "/list?flag77",
            headers: HTTPHeaders([("Accept", "text/html")])
        )
        let pruned = NearMissCalculator.nearest(to: request, in: index, limit: 2, search: .pruned)
        #expect(pruned == NearMissCalculator.nearest(to: request, in: index, limit: 2, search: .exhaustive))
        #expect(pruned.first?.stub == "s77")
        #expect(pruned.first?.distance == 0.5)
    }

    @Test func aMissInALargeSetNamesTheNearestStubs() {
        // The public entry point searches by route prefix above `exhaustiveLimit` stubs.
        let count = 20_000
        #expect(count > NearMissCalculator.exhaustiveLimit)
        let stubs = (0..<count).map { number in
            Stub(
                id: "item-\(number)",
                setName: "shop",
                key: RequestKey(method: "GET", rawPath: "/bench/\(number)", rawQuery: ""),
                headerConstraints: [HeaderConstraint(name: "accept", value: "application/json")],
                responses: [MockResponse(status: 200)]
            )
        }
        let index = StubIndex(layers: [stubs])
        let request = HTTPRequest(
            method: "GET",
            target: "/bench/19999/extra",
            headers: HTTPHeaders([("Accept", "application/json")])
        )
        let misses = NearMissCalculator.nearest(to: request, in: index)
        #expect(misses == NearMissCalculator.nearest(to: request, in: index, limit: 3, search: .exhaustive))
        // `/bench/19999` is the request less one segment of four (2 × 1/4); every other stub also differs by one.
        #expect(misses.map(\.stub) == ["item-19999", "item-0", "item-1"])
        #expect(misses.map(\.distance) == [0.5, 1.0, 1.0])
        #expect(misses[0].differs == [.init(part: "path", expected: "/bench/19999", actual: "/bench/19999/extra")])

        // The recorded path with a query no stub has: a whole query from `/bench/7`, a query and a segment from the
        // rest (the query filter bounds each of them without comparing it).
        let withQuery = HTTPRequest(
            method: "GET",
            target: "/bench/7?page=2",
            headers: HTTPHeaders([("Accept", "application/json")])
        )
        let queryMisses = NearMissCalculator.nearest(to: withQuery, in: index)
        #expect(queryMisses == NearMissCalculator.nearest(to: withQuery, in: index, limit: 3, search: .exhaustive))
        #expect(queryMisses.map(\.stub) == ["item-7", "item-0", "item-1"])
        let segmentAndQuery: Double = 2 * (1.0 / 3) + 1
        #expect(queryMisses.map(\.distance) == [1.0, segmentAndQuery, segmentAndQuery])
        #expect(queryMisses[0].differs == [.init(part: "query", expected: "", actual: "page=2")])
    }

    /// Paths whose segments the byte split and the `Character` split could tell apart, and the 64-segment cap.
    private static let awkwardPaths: [String] = [
        "", "/", "//", "a", "/a", "/a/", "/a//b", "a/b/", "/caf\u{e9}/x", "/cafe\u{301}/x", "/\u{301}a/b",
        "/x/\u{301}/y", "/%2F/a%2fb", "/" + (0..<70).map(String.init).joined(separator: "/"),
        "/" + (0..<63).map(String.init).joined(separator: "/"), "/" + String(repeating: "/", count: 80),
        "/" + (0..<66).map(String.init).joined(separator: "/") + "/\u{e9}",
    ]

    @Test(arguments: awkwardPaths)
    func segmentsAreTheCharacterSplitCutAt64(path: String) {
        let expected = Array(path.split(separator: "/", omittingEmptySubsequences: false).prefix(64))
        #expect(NearMissIndex.segments(path) == expected)
    }

    @Test func aTrieBuiltFromNeighboursSharingPrefixesNamesWhatComparingEveryStubNames() {
        // Sorted paths: each stub shares a prefix with the one before it, so the trie is built mostly from the previous
        // stub's nodes; canonically equal but byte-different segments (`café`) must still meet in one node.
        var random = SeededGenerator(seed: 9)
        var paths = (0..<600).map { _ in Self.path(&random) } + Self.awkwardPaths
        paths += ["/caf\u{e9}/users", "/cafe\u{301}/users/1", "/caf\u{e9}/users/1/me"]
        paths.sort()
        let stubs = paths.enumerated().map { number, path in
            Stub(
                id: "s\(number)",
                setName: "set",
                key: RequestKey(method: number % 7 == 0 ? "POST" : "GET", rawPath: path, rawQuery: ""),
                headerConstraints: number % 3 == 0 ? [] : [HeaderConstraint(name: "accept", value: "application/json")],
                responses: [MockResponse(status: 200)]
            )
        }
        let index = StubIndex(layers: [stubs])
        var compared = 0
        for target in paths.shuffled(using: &random).prefix(150) + ["/zzz/users/1", "/caf\u{e9}/users/2", "/a/b/c/d"] {
            let request = HTTPRequest(
                method: "GET",
                target: target + (compared % 2 == 0 ? "/extra" : ""),
                headers: HTTPHeaders([("Accept", "application/json")])
            )
            for limit in [1, 3] {
                let everyStub = NearMissCalculator.nearest(to: request, in: index, limit: limit, search: .exhaustive)
                let pruned = NearMissCalculator.nearest(to: request, in: index, limit: limit, search: .pruned)
                #expect(pruned == everyStub, "\(request.target), limit \(limit)")
            }
            compared += 1
        }
        #expect(compared == 153)
    }
}
