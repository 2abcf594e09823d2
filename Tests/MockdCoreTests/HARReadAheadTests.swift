import Foundation
import MockdTestSupport
import Testing

@testable import MockdCore

/// `HARReadAhead` (scan, parse and compile on separate threads) against `HARStreamReader` read in place: the same
/// entries in the same order, the progress reports between them, and the same first error.
struct HARReadAheadTests {
    /// Reads `data` from a file through the read-ahead; the entries, the progress reports (with the entries handed
    /// on when each came) and the error, if any.
    static func readAhead(
        _ data: Data,
        parsers: Int,
        batchSize: Int,
        chunkSize: Int
    ) throws -> (entries: [HAREntry], reports: [(HARStreamReader.Progress, handedOn: Int)], error: String?) {
        let folder = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("x.har")
        try data.write(to: file)
        var entries: [HAREntry] = []
        var reports: [(HARStreamReader.Progress, handedOn: Int)] = []
        let error = HARStreamReaderTests.errorLine {
            _ = try HARReadAhead.read(
                HARStreamReader(chunkSize: chunkSize),
                contentsOf: file,
                displayName: "x.har",
                parsers: parsers,
                batchSize: batchSize,
                progress: { reports.append(($0, entries.count)) },
                entry: { entries.append($0) }
            )
        }
        return (entries, reports, error)
    }

    /// The entries and error of the same bytes read in place.
    static func readInPlace(_ data: Data, chunkSize: Int) -> (entries: [HAREntry], error: String?) {
        var entries: [HAREntry] = []
        let error = HARStreamReaderTests.errorLine {
            _ = try HARStreamReader(chunkSize: chunkSize).parse(data, fileName: "x.har") { entries.append($0) }
        }
        return (entries, error)
    }

    @Test(arguments: [1, 2, 3])
    func entriesArriveInOrderWithTheirProgressBetween(parsers: Int) throws {
        let data = HARReaderTests.har(
            (0..<97).map { HARReaderTests.entry(url: "https://a.example/\($0)") }.joined(separator: ",")
        )
        let (entries, reports, error) = try Self.readAhead(data, parsers: parsers, batchSize: 3, chunkSize: 500)
        #expect(error == nil)
        #expect(entries.map(\.index) == Array(0..<97))
        #expect(entries.map(\.request.url) == (0..<97).map { "https://a.example/\($0)" })
        #expect(reports.map(\.0.bytesRead) == Array(stride(from: 500, to: data.count, by: 500)) + [data.count])
        // Every entry scanned before a report has been handed on when the report comes, and none after it.
        #expect(reports.map(\.handedOn) == reports.map(\.0.entries))
        #expect(reports.last?.0.entries == 97)
    }

    @Test func aFileReadWholeComesThroughTheSameWay() throws {
        // UTF-16 text is parsed whole by `HARReader` on the scanning thread: its entries arrive already parsed.
        let text = String(
            decoding: HARReaderTests.har(
                (0..<5).map { HARReaderTests.entry(url: "https://a.example/\($0)") }.joined(separator: ",")
            ),
            as: UTF8.self
        )
        let data = try #require(text.data(using: .utf16))
        let (entries, _, error) = try Self.readAhead(data, parsers: 2, batchSize: 2, chunkSize: 64)
        #expect(error == nil)
        #expect(entries.map(\.request.url) == (0..<5).map { "https://a.example/\($0)" })
        #expect(entries.map(\.index) == Array(0..<5))
    }

    @Test func theFirstErrorInTheFileWinsOverLaterOnes() throws {
        // Entry 3 does not parse (found by a parsing thread), and the array's punctuation breaks after entry 6
        // (found by the scanning thread, which has gone on meanwhile).
        var items = (0..<8).map { HARReaderTests.entry(url: "https://a.example/\($0)") }
        items[3] = #"{"request": {"method": "GET", "url": tru}}"#
        let text = items[..<7].joined(separator: ",") + " " + items[7]
        let data = HARReaderTests.har(text)
        let inPlace = Self.readInPlace(data, chunkSize: 64)
        #expect(inPlace.error == "x.har: not a HAR file: invalid JSON at line 7 (Invalid value around character 1087.)")
        for parsers in [1, 3] {
            let (entries, _, error) = try Self.readAhead(data, parsers: parsers, batchSize: 1, chunkSize: 64)
            #expect(error == inPlace.error)
            #expect(entries.map(\.index) == [0, 1, 2])
        }
    }

    @Test func aMemberNamedTwiceInAnEntryIsReportedInOrder() throws {
        var items = (0..<5).map { HARReaderTests.entry(url: "https://a.example/\($0)") }
        items[2] = #"{"request": {"method": "GET", "method": "POST", "url": "https://a.example/2"}}"#
        let data = HARReaderTests.har(items.joined(separator: ","))
        let inPlace = Self.readInPlace(data, chunkSize: 64)
        #expect(inPlace.error?.contains(#""method" appears twice in this object (entry 3)"#) == true)
        let (entries, _, error) = try Self.readAhead(data, parsers: 2, batchSize: 1, chunkSize: 64)
        #expect(error == inPlace.error)
        #expect(entries.map(\.index) == [0, 1])
    }

    /// Every broken document of `HARStreamReaderTests`, and a small HAR cut at every length: the read-ahead fails
    /// (or succeeds) exactly as the reader in place, with the same entries before the error.
    @Test func brokenAndTruncatedDocumentsFailAsInPlace() throws {
        let entries = (0..<4).map { HARReaderTests.entry(url: "https://a.example/\($0)") }.joined(separator: ",")
        let whole = HARReaderTests.har(entries)
        let documents =
            HARStreamReaderTests.brokenDocuments.map { Data($0.utf8) }
            + stride(from: 0, to: whole.count, by: 3).map { whole.prefix($0) }
        var mismatches: [String] = []
        for document in documents {
            let expected = Self.readInPlace(document, chunkSize: 7)
            let (got, _, error) = try Self.readAhead(document, parsers: 2, batchSize: 1, chunkSize: 7)
            if error != expected.error || got.map(\.index) != expected.entries.map(\.index) {
                mismatches.append(
                    "\(String(decoding: document, as: UTF8.self)): \(error ?? "ok") ≠ \(expected.error ?? "ok")"
                )
            }
        }
        #expect(
            mismatches.isEmpty,
            "\(mismatches.count) of \(documents.count): \(mismatches.prefix(3).joined(separator: "\n"))"
        )
    }
}
