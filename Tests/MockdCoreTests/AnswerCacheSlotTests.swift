import Foundation
import Testing

@testable import MockdCore

/// The answer cache picks a set of two entries by a hash of the target: targets that differ in one byte anywhere
/// (`/items/1` … `/items/9`, `/v1/users/17/a` … `/v1/users/17/z`) must spread over the sets as random ones would, and
/// two targets that share a set must both stay, or the requests sharing it push each other out and are routed every
/// time.
@Suite struct AnswerCacheSlotTests {
    /// 16 targets that differ only in the byte at `position`, for every length and position up to 40 bytes: at least
    /// 12 distinct sets of 512 each time (16 random sets give 16 in 79% of draws, 11 or fewer about once in 1.3 million;
    /// the hash before this test gave 2 for the last byte of an 8-byte word).
    @Test func targetsDifferingInOneByteSpreadOverTheSets() {
        for length in 1...40 {
            for position in 0..<length {
                let sets = Set(
                    (0..<16).map { variant in
                        var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                        bytes[0] = UInt8(ascii: "/")
                        bytes[position] = UInt8(ascii: "0") + UInt8(variant)
                        return AnswerCache.set(of: String(decoding: bytes, as: UTF8.self))
                    }
                )
                #expect(sets.count >= 12, "length \(length), byte \(position): \(sets.count) sets")
            }
        }
    }

    /// Three targets of one set, asked in turn: the two remembered last both answer from the cache; a third pushes
    /// out the one remembered before them, and only that one.
    @Test func twoTargetsOfOneSetBothStay() throws {
        var bySet: [Int: [String]] = [:]
        var sharing: [String] = []
        for number in 0..<10_000 where sharing.isEmpty {
            let target = "/items/\(number)"
            bySet[AnswerCache.set(of: target), default: []].append(target)
            if bySet[AnswerCache.set(of: target)]!.count == 3 { sharing = bySet[AnswerCache.set(of: target)]! }
        }
        try #require(sharing.count == 3)
        let stubs = sharing.map { target in
            Stub(
                id: target,
                setName: "test",
                key: RequestKey(method: "GET", rawPath: target, rawQuery: ""),
                responses: [MockResponse(status: 200, body: Data(target.utf8))]
            )
        }
        let scenario = Scenario(name: "t", sets: ["test"], index: StubIndex(layers: [stubs]))
        var cache = AnswerCache()
        cache.bind(to: scenario)
        let requests = sharing.map { HTTPRequest(method: "GET", target: $0) }

        #expect(cache.ordinal(for: requests[0]) == nil)
        cache.remember(0, for: requests[0])
        #expect(cache.ordinal(for: requests[1]) == nil)
        cache.remember(1, for: requests[1])
        for _ in 0..<3 {
            #expect(cache.ordinal(for: requests[0]) == 0)
            #expect(cache.ordinal(for: requests[1]) == 1)
        }
        #expect(cache.ordinal(for: requests[2]) == nil)
        cache.remember(2, for: requests[2])
        #expect(cache.ordinal(for: requests[2]) == 2)
        #expect(cache.ordinal(for: requests[1]) == 1)
        #expect(cache.ordinal(for: requests[0]) == nil)
        // The same target with another method or header fields is another request.
        #expect(cache.ordinal(for: HTTPRequest(method: "HEAD", target: sharing[2])) == nil)
        var withAccept = requests[2]
        withAccept.headers = HTTPHeaders([("Accept", "application/json")])
        #expect(cache.ordinal(for: withAccept) == nil)
    }

    /// Requests asked at random among many stubs nearly never repeat: after a window of such misses only one miss in
    /// `sparseStride` is remembered, a target asked again and again is still remembered within `sparseStride` of its
    /// misses, and a window of frequent hits remembers every miss again.
    @Test func rareHitsRememberOneMissInSparseStride() throws {
        let count = AnswerCache.window + 2
        let stubs = (0..<count).map { number in
            Stub(
                id: "s\(number)",
                setName: "test",
                key: RequestKey(method: "GET", rawPath: "/items/\(number)", rawQuery: ""),
                responses: [MockResponse(status: 200)]
            )
        }
        let scenario = Scenario(name: "t", sets: ["test"], index: StubIndex(layers: [stubs]))
        var cache = AnswerCache()
        cache.bind(to: scenario)
        func ask(_ number: Int) -> Int? {
            let request = HTTPRequest(method: "GET", target: "/items/\(number)")
            if let hit = cache.ordinal(for: request) { return hit }
            cache.remember(number, for: request)
            return nil
        }
        // One window of distinct targets: every lookup a miss.
        for number in 0..<AnswerCache.window { #expect(ask(number) == nil) }
        #expect(cache.isRememberingSparsely)
        // A target asked again and again: remembered at its `sparseStride`-th miss at the latest, then a hit.
        let hot = AnswerCache.window
        var misses = 0
        while ask(hot) == nil { misses += 1 }
        #expect(misses >= 1 && misses <= AnswerCache.sparseStride)
        #expect(ask(hot) == hot)
        // A window of hits: every miss is remembered again.
        for _ in 0..<AnswerCache.window { _ = ask(hot) }
        #expect(!cache.isRememberingSparsely)
        let fresh = AnswerCache.window + 1
        #expect(ask(fresh) == nil)
        #expect(ask(fresh) == fresh)
    }
}
