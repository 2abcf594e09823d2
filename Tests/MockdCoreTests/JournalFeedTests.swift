import Dispatch
import Foundation
import MockdTestSupport
import Testing

@testable import MockdCore

/// The live journal's feed in process (`JournalFeed`, what `GET /__mockd/journal/stream` streams), with the time
/// passed in: what it sends first, as requests arrive, at a reset, after silence, and how many may be open. The
/// stream on the wire (suspension, a client leaving, shutdown) is in MockdCLITests' `DashboardTests`.
@Suite(.serialized)
struct JournalFeedTests {
    private static func feed(_ engine: MockEngine, _ query: String) throws -> JournalFeed {
        let outcome = engine.handle(HTTPRequest(method: "GET", target: "/__mockd/journal/stream?" + query))
        #expect(outcome.plan.response.status == 200)
        #expect(outcome.plan.response.headers["content-type"] == "text/event-stream; charset=utf-8")
        return try #require(outcome.plan.response.liveFeed as? JournalFeed)
    }

    private static func text(_ data: Data?) -> String? { data.map { String(decoding: $0, as: UTF8.self) } }

    @Test func entriesAsTheyArriveResetsAndAKeepAliveAfterSilence() throws {
        let client = try ControlAPITests.client()
        let engine = client.engine
        let session = [("X-Mockd-Session", "f")]
        _ = try client.send(ClientRequest("GET", "/v1/me", headers: session))
        let feed = try Self.feed(engine, "session=f")
        let start = DispatchTime.now().uptimeNanoseconds
        let first = try #require(Self.text(feed.next(now: start)))
        #expect(first.hasPrefix("event: hello\ndata: {\"session\":\"f\"}\n\nid: 1\nevent: entry\ndata: {"))
        #expect(first.components(separatedBy: "event: entry").count == 2 && first.hasSuffix("}\n\n"))
        let data = try #require(first.split(separator: "\n").first { $0.hasPrefix("data: {\"bodySize") })
        let row = try #require(try JSONSerialization.jsonObject(with: Data(data.dropFirst(6).utf8)) as? [String: Any])
        #expect(row["sequence"] as? Int == 1)
        #expect(row["target"] as? String == "/v1/me")
        #expect(row["stub"] as? String == "GET_v1_me")
        #expect(row["status"] as? Int == 200)
        // Nothing new: nothing to send, until 15 s of silence ask for a comment.
        #expect(feed.next(now: start + 1_000_000_000) == nil)
        #expect(feed.next(now: start + 14_999_999_999) == nil)
        #expect(Self.text(feed.next(now: start + 15_000_000_000)) == ": keep-alive\n\n")
        #expect(feed.next(now: start + 16_000_000_000) == nil)
        // Another session's request is not this feed's; this session's next one is.
        _ = try client.send(ClientRequest("GET", "/v1/me", headers: [("X-Mockd-Session", "g")]))
        #expect(feed.next(now: start + 16_000_000_000) == nil)
        _ = try client.send(ClientRequest("GET", "/v1/nope", headers: session))
        let second = try #require(Self.text(feed.next(now: start + 16_000_000_000)))
        #expect(second.hasPrefix("id: 2\nevent: entry\ndata: {"))
        #expect(second.contains("\"nearMisses\":[{"))
        #expect(second.hasSuffix("}\n\n"))
        // A reset: the rows so far are gone, numbering starts over.
        _ = try client.control("POST", "reset", session: "f")
        #expect(Self.text(feed.next(now: start + 17_000_000_000)) == "event: reset\ndata: {}\n\n")
        _ = try client.send(ClientRequest("GET", "/v1/me", headers: session))
        #expect(Self.text(feed.next(now: start + 17_000_000_000))?.hasPrefix("id: 1\nevent: entry\n") == true)
        // Every session removed, then the session made again: a reset, then its new journal.
        _ = try client.send(ClientRequest("POST", "/__mockd/reset?all=true"))
        #expect(Self.text(feed.next(now: start + 18_000_000_000)) == "event: reset\ndata: {}\n\n")
        _ = try client.send(ClientRequest("GET", "/v1/me", headers: session))
        #expect(Self.text(feed.next(now: start + 18_000_000_000))?.hasPrefix("id: 1\nevent: entry\n") == true)
    }

    @Test func afterSkipsWhatTheClientHasAndAFullJournalGoesInBatches() throws {
        let client = try ControlAPITests.client()
        let session = [("X-Mockd-Session", "b")]
        for _ in 0..<450 { _ = try client.send(ClientRequest("GET", "/v1/me", headers: session)) }
        let resumed = try Self.feed(client.engine, "session=b&after=449")
        let now = DispatchTime.now().uptimeNanoseconds
        let rest = try #require(Self.text(resumed.next(now: now)))
        #expect(rest.hasPrefix("event: hello\ndata: {\"session\":\"b\"}\n\nid: 450\nevent: entry\n"))
        #expect(rest.components(separatedBy: "event: entry").count == 2)
        let whole = try Self.feed(client.engine, "session=b")
        let batches = (0..<3).map { _ in Self.text(whole.next(now: now)) ?? "" }
        #expect(batches.map { $0.components(separatedBy: "event: entry").count - 1 } == [200, 200, 50])
        #expect(batches[0].hasPrefix("event: hello\n") && batches[1].hasPrefix("id: 201\n"))
        #expect(batches[2].contains("id: 450\n") && !batches[2].contains("id: 400\n"))
        #expect(whole.next(now: now) == nil)
    }

    @Test func atMostMaxOpenFeedsAndAReleasedOneMakesRoom() throws {
        let client = try ControlAPITests.client()
        var open: [JournalFeed] = []
        for _ in 0..<JournalFeed.maxOpen { open.append(try Self.feed(client.engine, "session=m")) }
        #expect(JournalFeed.openCount == JournalFeed.maxOpen)
        let refused = try client.control("GET", "journal/stream", session: "m")
        #expect(refused.status == 503)
        #expect(refused.json["error"] as? String == "too_many_streams")
        #expect(
            refused.json["message"] as? String
                == "32 live journals are open already; close a dashboard tab and try again"
        )
        open.removeLast()
        #expect(JournalFeed.openCount == JournalFeed.maxOpen - 1)
        open.append(try Self.feed(client.engine, "session=m"))
        open.removeAll()
        #expect(JournalFeed.openCount == 0)
    }

    @Test func theJournalsSummaryAndPositionFollowItsRingAndClears() {
        let journal = RequestJournal(limit: 3)
        #expect(journal.summary.count == 0 && journal.summary.newestTime == nil)
        for second in 1...5 {
            journal.append(
                time: Date(timeIntervalSince1970: Double(second)),
                request: HTTPRequest(method: "GET", target: "/\(second)"),
                stubID: nil,
                status: 404,
                fault: nil,
                durationMs: 0,
                response: MockResponse(status: 404),
                nearMisses: []
            )
            #expect(journal.summary.count == min(second, 3))
            #expect(journal.summary.newestTime == Date(timeIntervalSince1970: Double(second)))
            #expect(journal.position.newest == second && journal.position.clears == 0)
        }
        journal.clear()
        #expect(journal.summary.count == 0 && journal.summary.newestTime == nil)
        #expect(journal.position.newest == 0 && journal.position.clears == 1)
    }
}
