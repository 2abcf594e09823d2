import Foundation
import MockdControl
import MockdFormat
import Testing

@testable import MockdCore

/// A streamed control answer (`StreamedJSON`) is byte for byte the typed answer encoded whole, the array written a
/// piece at a time: what the client decodes does not depend on whether the answer was long enough to be streamed.
struct StreamedJSONTests {
    static func encodedWhole(_ value: some Encodable) throws -> Data {
        try StreamedJSON.encoded(value) + Data("\n".utf8)
    }

    static func entry(_ index: Int) -> JournalEntry {
        JournalEntry(
            sequence: index + 1,
            time: "2026-12-04T20:00:00.000Z",
            method: index % 2 == 0 ? "GET" : "POST",
            target: "/v1/items/\(index)?q=a/b",
            host: "api.example.com",
            headers: ["Accept: application/json", "X-Note: \"é\" \\ \(index)"],
            bodySize: 0,
            matched: index % 3 != 0,
            proxied: false,
            stub: index % 3 == 0 ? nil : "stub-\(index)",
            status: 200,
            durationMs: 1.25
        )
    }

    @Test(arguments: [0, 1, 7, 400])
    func streamedPageIsTheWholeEncoding(count: Int) throws {
        let entries = (0..<count).map(Self.entry)
        let page = JournalPage(session: "s", count: count, dropped: 2, entries: entries, next: nil)
        var empty = page
        empty.entries = []
        let feed = try StreamedJSON(empty, arrayAt: ["entries"], count: count) { entries[$0] }
        var pieces = 0
        var streamed = Data()
        while let piece = feed.next(now: 0) {
            streamed.append(piece)
            pieces += 1
        }
        let whole = try Self.encodedWhole(page)
        #expect(String(decoding: streamed, as: UTF8.self) == String(decoding: whole, as: UTF8.self))
        #expect(try JSONDecoder().decode(JournalPage.self, from: streamed) == page)
        // A few entries per write, not one write for all.
        if count == 400 { #expect(pieces > 2) }
    }

    @Test func trailerMembersFollowTheNestedArray() throws {
        let har = JournalHAR(
            log: JournalHAR.Log(creator: JournalHAR.Creator(name: "mockd", version: "1"), entries: [], comment: nil)
        )
        let feed = try StreamedJSON(
            har,
            arrayAt: ["log", "entries"],
            count: 0,
            element: { _ in 0 },
            trailer: { ["comment": .string("3 values replaced")] }
        )
        let decoded = try JSONDecoder().decode(JournalHAR.self, from: feed.whole())
        #expect(decoded.log.comment == "3 values replaced")
        #expect(decoded.log.entries.isEmpty)
        #expect(decoded.log.creator.name == "mockd")
    }
}
