import Foundation
import MockdFormat
import Testing

@testable import MockdCore

/// Stubs keep their key and id as bytes in their source's arena: every key and id must come back exactly, match the
/// requests it did as strings, and an id the importer spelt must be spelt again the same way.
struct StubTextArenaTests {
    /// Keys whose parts are empty, inline-sized, over 127 bytes (a length of two bytes), over the id spelling's
    /// 256-byte stack buffer, not ASCII, or carry a host.
    static let keys: [RequestKey] = [
        RequestKey(method: "GET", rawPath: "/", rawQuery: ""),
        RequestKey(method: "GET", rawPath: "/bench/7", rawQuery: ""),
        RequestKey(method: "GET", rawPath: "/api/v2/bench/12345/details", rawQuery: "page=1&per_page=20"),
        RequestKey(method: "PATCH", rawPath: "/" + String(repeating: "segment/", count: 40), rawQuery: "a=1"),
        RequestKey(method: "GET", rawPath: "/search", rawQuery: "q=" + String(repeating: "x", count: 300)),
        RequestKey(method: "PROPFIND", rawPath: "/caf\u{E9}/men\u{FC}", rawQuery: "name=J%C3%BCrgen"),
        RequestKey(method: "GET", rawPath: "/v1/items", rawQuery: "", host: "api.example.com:8443"),
    ]

    private static func stub(_ key: RequestKey, id: String, source: StubSource) -> Stub {
        Stub(
            id: id,
            source: source,
            key: key,
            headerConstraints: [],
            body: nil,
            bodyContentType: nil,
            responses: [MockResponse(status: 201, body: Data("ok".utf8))],
            afterLast: .repeatLast,
            deferredRow: nil
        )
    }

    @Test func keysAndIdsComeBackExactlyAfterTheArenaGrowsAndIsFitted() {
        // Room for one stub: every later one moves the buffer.
        let source = StubSource(setName: "s")
        var expected: [(key: RequestKey, id: String)] = []
        for (index, key) in StubTextArenaTests.keys.enumerated() {
            var namer = FileNamer()
            let spelt = namer.uniqueID(for: key)
            // The importer's own spelling (kept as no bytes), a repeat of it (`-2`, kept), and a hand-written id.
            for id in [spelt, spelt + "-2", "hand written \(index) \u{1F600}"] { expected.append((key, id)) }
        }
        let stubs = expected.map { StubTextArenaTests.stub($0.key, id: $0.id, source: source) }
        source.text.finish()
        for (stub, (key, id)) in zip(stubs, expected) {
            #expect(stub.key == key)
            #expect(stub.id == id)
            var written = ""
            stub.withID { written = String(decoding: $0, as: UTF8.self) }
            #expect(written == id)
            #expect(stub.firstResponse.stubID == id)
            #expect(stub.responses.map(\.stubID) == [id])
            #expect(stub.routeHash == key.routeHash)
            #expect(stub.hasKey(key))
            #expect(stub.host == key.host)
        }
    }

    @Test func anIdSpeltFromTheKeyKeepsNoBytes() {
        let source = StubSource(setName: "s")
        let key = RequestKey(method: "GET", rawPath: "/api/v2/bench/12345/details", rawQuery: "page=1&per_page=20")
        let spelt = StubTextArenaTests.stub(
            key,
            id: "GET_api_v2_bench_12345_details__page-1_per_page-20",
            source: source
        )
        let kept = StubTextArenaTests.stub(
            key,
            id: "GET_api_v2_bench_12345_details__page-1_per_page-20-2",
            source: source
        )
        #expect(spelt.id == "GET_api_v2_bench_12345_details__page-1_per_page-20")
        #expect(kept.id == "GET_api_v2_bench_12345_details__page-1_per_page-20-2")
        // Row, flags and five one-byte lengths, then the key's bytes (3 + 27 + 18), and for the second the id's 52.
        let keyBytes = 5 + 5 + 3 + 27 + 18
        let first = StubTextArenaTests.recordSize(of: source, from: 0)
        #expect(first == keyBytes)
        #expect(StubTextArenaTests.recordSize(of: source, from: UInt32(first)) == keyBytes + 52)
    }

    /// The bytes of the record at `offset`, from its parts.
    private static func recordSize(of source: StubSource, from offset: UInt32) -> Int {
        let record = source.text.record(at: offset)
        let parts = [record.method, record.path, record.query, record.host, record.id]
        let end = parts.last!.baseAddress! + parts.last!.count
        let start = record.method.baseAddress! - 10
        return end - start
    }

    @Test(arguments: keys)
    func aKeyDifferingInOnePartIsNotTheStubs(_ key: RequestKey) {
        let stub = StubTextArenaTests.stub(key, id: "x", source: StubSource(setName: "s"))
        let others = [
            RequestKey(method: key.method + "X", normalizedPath: key.path, normalizedQuery: key.query, host: key.host),
            RequestKey(method: key.method, normalizedPath: key.path + "/", normalizedQuery: key.query, host: key.host),
            RequestKey(method: key.method, normalizedPath: key.path, normalizedQuery: key.query + "z", host: key.host),
            RequestKey(method: key.method, normalizedPath: key.path, normalizedQuery: key.query, host: key.host + "h"),
            RequestKey(
                method: key.method,
                normalizedPath: String(key.path.dropLast()),
                normalizedQuery: key.query,
                host: key.host
            ),
        ]
        for other in others where other != key {
            #expect(!stub.hasKey(other), "\(other)")
            #expect(!stub.hasSameKey(as: StubTextArenaTests.stub(other, id: "y", source: StubSource(setName: "s"))))
        }
        #expect(stub.hasSameKey(as: StubTextArenaTests.stub(key, id: "z", source: StubSource(setName: "t"))))
    }

    @Test func theLogLineWritesTheIdAsStoredOrSpelt() {
        let source = StubSource(setName: "s")
        let key = RequestKey(method: "GET", rawPath: "/api/v2/bench/12345/details", rawQuery: "")
        for id in ["GET_api_v2_bench_12345_details", "esc\u{1B}[31m-id"] {
            let stub = StubTextArenaTests.stub(key, id: id, source: source)
            var message = ""
            stub.withID { bytes in
                message =
                    RequestLogLine(method: "GET", target: "/t", status: 200, stubID: bytes, elapsedMs: 0.5).message
            }
            let expected = RequestLogLine(
                method: "GET",
                target: "/t",
                status: 200,
                fault: nil,
                answeredBy: id,
                elapsedMs: 0.5
            ).message
            #expect(message == expected)
        }
    }
}
