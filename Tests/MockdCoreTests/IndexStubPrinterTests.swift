import Foundation
import MockdTestSupport
import Testing

@testable import MockdCore
@testable import MockdFormat

/// `MockSetIndexWriter` writes exactly the bytes `JSONEncoder` prints for the whole file (pretty, sorted keys, slashes
/// unescaped), whether `IndexStubPrinter` or the encoder prints a stub. The recorded sets are covered by
/// `GoldenHARTests` (every corpus import's `index.json` against its golden file); these cover every field and every
/// kind of character the printer meets.
struct IndexStubPrinterTests {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// The file `MockSetIndexWriter` writes for `file`, and what the encoder prints for it (plus the final line feed).
    static func written(_ file: MockSetFile) throws -> (written: String, encoded: String) {
        let folder = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("index.json")
        let source = try MockSetIndexWriter.write(file, to: url)
        let bytes = try Data(contentsOf: url)
        #expect(source == CompactIndexFile.source(of: bytes))
        let encoded = try encoder.encode(file) + [0x0A]
        return (String(decoding: bytes, as: UTF8.self), String(decoding: encoded, as: UTF8.self))
    }

    /// Every byte below 0x80, the characters JSON escapes, multi-byte UTF-8 and U+2028 (which the encoder leaves raw).
    static let awkwardText: String = {
        var text = String(decoding: (0..<0x80).map { UInt8($0) }, as: UTF8.self)
        text += "é€😀\u{2028}\u{FEFF}\u{7F}/\\\""
        return text
    }()

    /// Every coding key of the stub's types is one the printer prints or one whose stubs it leaves to the encoder
    /// (`fitsPrinter`): a field added to the format fails here until the printer knows it, so it is never dropped.
    @Test func everyFieldOfTheFormatIsPrintedOrLeftToTheEncoder() {
        func keys<Key: CodingKey & CaseIterable>(_: Key.Type) -> Set<String> { Set(Key.allCases.map(\.stringValue)) }
        #expect(keys(MockSetFile.StubEntry.CodingKeys.self) == ["id", "request", "responses", "afterLast"])
        #expect(
            keys(MockSetFile.RequestEntry.CodingKeys.self)
                == ["host", "method", "path", "query", "headers", "body", "recordedBody", "graphql"]
        )
        #expect(keys(MockSetFile.BodyEntry.CodingKeys.self) == ["file", "text", "contentType", "json"])
        #expect(keys(MockSetFile.DatesEntry.CodingKeys.self) == ["recordedAt", "body", "headers"])
        #expect(
            keys(MockSetFile.ResponseEntry.CodingKeys.self) == [
                // Printed:
                "status", "headers", "bodyFile", "body", "recordedTimeMs", "templated", "miss", "conditionalOnly",
                "validators", "rangeOnly", "cachedCopy", "dates",
                // Left to the encoder:
                "json", "websocket", "events", "fault", "emit",
            ]
        )
    }

    @Test func everyPrintedFieldAndCharacterAsTheEncoderPrintsThem() throws {
        let full = MockSetFile.StubEntry(
            id: "GET-\(Self.awkwardText)",
            request: .init(
                method: "GET",
                path: "/a/b c/\u{1F600}",
                query: "q=\"1\"&r=\\",
                headers: ["accept: application/json", "x-empty: "],
                body: .init(file: "bodies/req.bin", text: "line\nline\t", contentType: "text/plain"),
                host: "api.example.com:8443",
                recordedBody: .init(text: "")
            ),
            responses: [
                {
                    var response = MockSetFile.ResponseEntry(
                        status: 201,
                        headers: ["content-type: application/json", "set-cookie: a=\"b\""],
                        bodyFile: "bodies/GET-a.json",
                        body: Self.awkwardText,
                        recordedTimeMs: 135.277,
                        templated: .redactedOnly
                    )
                    response.miss = "not recorded"
                    response.conditionalOnly = true
                    response.validators = ["etag", "last-modified"]
                    response.cachedCopy = "bodies/copy.json"
                    response.rangeOnly = false
                    response.dates = .init(recordedAt: "2026-12-07T20:00:00Z", body: ["/a/0/at"], headers: ["date"])
                    return response
                }(),
                .init(status: -1, headers: [], templated: .on),
                .init(recordedTimeMs: -0.0, templated: .off),
                .init(),
            ]
        )
        let bare = MockSetFile.StubEntry(
            id: nil,
            request: .init(method: "", path: "", headers: [], body: .init()),
            responses: []
        )
        let file = MockSetFile(matchHeaders: ["accept"], origins: ["https://api.example.com"], stubs: [full, bare])
        #expect(IndexStubPrinter.fitsPrinter(full) && IndexStubPrinter.fitsPrinter(bare))
        let (written, encoded) = try Self.written(file)
        #expect(written == encoded)
    }

    /// Numbers as the encoder prints them: whole `Double`s without `.0`, exponents, the shortest round trip, `Int`'s
    /// extremes.
    @Test func numbersAsTheEncoderPrintsThem() throws {
        let times: [Double] = [
            0, -0.0, 1, 100, 1.5, 0.1, 1e-7, 1e16, 1e17, 1e20, 123_456_789_012_345_678, .leastNonzeroMagnitude,
            .greatestFiniteMagnitude, -.leastNormalMagnitude, 16.378999999999998, 2_147_483_648,
        ]
        let statuses = [0, 200, -404, Int.max, Int.min]
        let stubs = times.enumerated().map { position, time in
            MockSetFile.StubEntry(
                id: "n\(position)",
                request: .init(method: "GET", path: "/n"),
                responses: [.init(status: statuses[position % statuses.count], recordedTimeMs: time)]
            )
        }
        let (written, encoded) = try Self.written(MockSetFile(stubs: stubs))
        #expect(written == encoded)
    }

    /// A stub holding a field only the encoder prints (a JSON body, GraphQL, a fault, `afterLast`, a time that is not
    /// finite) is the encoder's, indented in place, between printed ones; a time the encoder refuses is refused.
    @Test func stubsThePrinterLeavesToTheEncoder() throws {
        let printed = MockSetFile.StubEntry(
            id: "plain",
            request: .init(method: "GET", path: "/p"),
            responses: [.init(status: 200, body: "ok")]
        )
        var jsonBody = printed
        jsonBody.request.body = .init(json: .object(["a": .array([.int(1), .double(2.5), .string("x"), .null])]))
        var exhausted = printed
        exhausted.afterLast = .cycle
        var faulted = printed
        faulted.responses[0].fault = .connectionReset
        var jsonResponse = printed
        jsonResponse.responses.append(.init(json: .object([:])))
        let others = [jsonBody, exhausted, faulted, jsonResponse]
        for other in others { #expect(!IndexStubPrinter.fitsPrinter(other)) }
        let file = MockSetFile(stubs: [printed] + others.flatMap { [$0, printed] })
        let (written, encoded) = try Self.written(file)
        #expect(written == encoded)

        var infinite = printed
        infinite.responses[0].recordedTimeMs = .infinity
        #expect(!IndexStubPrinter.fitsPrinter(infinite))
        #expect(throws: EncodingError.self) { try Self.written(MockSetFile(stubs: [printed, infinite])) }
    }

    /// 2,000 seeded random stubs over every printed field (present or absent), strings drawn from the awkward
    /// characters, the file compared whole.
    @Test func randomStubsAsTheEncoderPrintsThem() throws {
        var random = SplitMix64(seed: 38)
        let pieces = Self.awkwardText.map(String.init) + ["", "/api/v1", "application/json", "ü", "\u{10FFFF}"]
        func text() -> String {
            (0..<Int.random(in: 0...6, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
        }
        func maybe<T>(_ make: () -> T) -> T? { Bool.random(using: &random) ? make() : nil }
        func list() -> [String] { (0..<Int.random(in: 0...3, using: &random)).map { _ in text() } }
        func body() -> MockSetFile.BodyEntry { .init(file: maybe(text), text: maybe(text), contentType: maybe(text)) }
        func time() -> Double {
            switch Int.random(in: 0...2, using: &random) {
            case 0: return Double(Int.random(in: -100_000...100_000, using: &random))
            case 1: return Double.random(in: -1e6...1e6, using: &random)
            default:
                let bits = UInt64.random(in: .min ... .max, using: &random)
                let value = Double(bitPattern: bits)
                return value.isFinite ? value : 0.5
            }
        }
        var stubs: [MockSetFile.StubEntry] = []
        for _ in 0..<2_000 {
            let request = MockSetFile.RequestEntry(
                method: text(),
                path: text(),
                query: maybe(text),
                headers: maybe(list),
                body: maybe(body),
                host: maybe(text),
                recordedBody: maybe(body)
            )
            let responses = (0..<Int.random(in: 0...3, using: &random)).map { _ in
                var response = MockSetFile.ResponseEntry(
                    status: maybe { Int.random(in: -1_000...1_000, using: &random) },
                    headers: maybe(list),
                    bodyFile: maybe(text),
                    body: maybe(text),
                    recordedTimeMs: maybe(time),
                    templated: maybe { [TemplateMode.on, .off, .redactedOnly].randomElement(using: &random)! }
                )
                response.miss = maybe(text)
                response.conditionalOnly = maybe { Bool.random(using: &random) }
                response.validators = maybe(list)
                response.cachedCopy = maybe(text)
                response.rangeOnly = maybe { Bool.random(using: &random) }
                response.dates = maybe { .init(recordedAt: text(), body: maybe(list), headers: maybe(list)) }
                return response
            }
            stubs.append(.init(id: maybe(text), request: request, responses: responses))
        }
        let (written, encoded) = try Self.written(MockSetFile(cors: true, stubs: stubs))
        #expect(written == encoded)
        if written != encoded {
            let mismatch = zip(written.split(separator: "\n"), encoded.split(separator: "\n")).first { $0 != $1 }
            Issue.record("first differing line: \(String(describing: mismatch))")
        }
    }
}
