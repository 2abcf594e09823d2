import Foundation
import MockdTestSupport
import Testing

@testable import MockdCore

/// The journal in pages (issue 24: a full 10,000-entry journal was one 4.2 MB answer built in 0.9–1.45 s on a
/// shared worker): `limit` (default 1,000, at most 10,000) and `after` (the previous page's `next`).
struct JournalPagingTests {
    @Test func aLongJournalIsReadInPagesFollowingNext() throws {
        let client = try ControlAPITests.client()
        let me = ClientRequest("GET", "/v1/me", headers: [("X-Mockd-Session", "pages")])
        _ = try client.batch(Array(repeating: me, count: 2_500))
        let first = try client.control("GET", "journal", session: "pages").json
        #expect(first["count"] as? Int == 1_000)
        #expect(first["next"] as? String == "1000")
        let firstEntries = first["entries"] as? [[String: Any]] ?? []
        #expect(firstEntries.first?["sequence"] as? Int == 1)
        #expect(firstEntries.last?["sequence"] as? Int == 1_000)
        let second = try client.control("GET", "journal?after=1000", session: "pages").json
        #expect(second["count"] as? Int == 1_000)
        #expect(second["next"] as? String == "2000")
        #expect((second["entries"] as? [[String: Any]])?.first?["sequence"] as? Int == 1_001)
        let last = try client.control("GET", "journal?after=2000", session: "pages").json
        #expect(last["count"] as? Int == 500)
        #expect(last["next"] is NSNull)
        #expect((last["entries"] as? [[String: Any]])?.last?["sequence"] as? Int == 2_500)
        let small = try client.control("GET", "journal?limit=2&after=10", session: "pages").json
        #expect((small["entries"] as? [[String: Any]])?.compactMap { $0["sequence"] as? Int } == [11, 12])
        #expect(small["next"] as? String == "12")
    }

    @Test func filtersApplyBeforeThePageIsCut() throws {
        let client = try ControlAPITests.client()
        let session = [("X-Mockd-Session", "filtered")]
        for index in 0..<6 {
            _ = try client.send(ClientRequest("GET", index % 2 == 0 ? "/v1/me" : "/nope", headers: session))
        }
        let page = try client.control("GET", "journal?unmatched=true&limit=2", session: "filtered").json
        #expect((page["entries"] as? [[String: Any]])?.compactMap { $0["sequence"] as? Int } == [2, 4])
        #expect(page["next"] as? String == "4")
        let rest = try client.control("GET", "journal?unmatched=true&limit=2&after=4", session: "filtered").json
        #expect((rest["entries"] as? [[String: Any]])?.compactMap { $0["sequence"] as? Int } == [6])
        #expect(rest["next"] is NSNull)
    }

    @Test func badLimitOrCursorIsA400() throws {
        let client = try ControlAPITests.client()
        let limit = try client.control("GET", "journal?limit=0")
        #expect(limit.status == 400)
        #expect(limit.json["message"] as? String == "limit must be a whole number in 1–10000, got '0'")
        let after = try client.control("GET", "journal?after=x")
        #expect(after.status == 400)
        #expect(
            after.json["message"] as? String
                == "after must be the next cursor of a previous page (a whole number ≥ 0), got 'x'"
        )
    }
}
