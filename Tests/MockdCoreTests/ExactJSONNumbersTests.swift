import Foundation
import MockdFormat
import Testing

@testable import MockdCore

/// JSON request bodies compare numbers by exact decimal value, and the recorder keeps binary request bodies.
struct ExactJSONNumbersTests {
    @Test(arguments: [
        ("275", "275"), ("275.00", "275"), ("2.75e2", "275"), ("27500e-2", "275"), ("-0.0", "0"), ("0", "0"),
        ("9007199254740993", "9007199254740993"), ("9.007199254740993e15", "9007199254740993"),
        ("0.5", "0.5"), ("-12.250", "-12.25"), ("1E+3", "1000"), ("1e-7", "0.0000001"), ("1.5e40", "1.5e40"),
        ("12e-40", "1.2e-39"),
    ])
    func canonicalDecimalText(_ literal: String, _ expected: String) {
        #expect(ExactJSONNumbers.canonical(ArraySlice(Array(literal.utf8))) == expected)
    }

    @Test(arguments: ["01", "1.", ".5", "1e", "--1", "1e1234567890", "+1"])
    func malformedNumbersAreNotJSON(_ literal: String) {
        #expect(ExactJSONNumbers.canonical(ArraySlice(Array(literal.utf8))) == nil)
    }

    @Test func canonicalBodiesAgreeOnlyForEqualValues() {
        func canonical(_ text: String) -> String {
            String(decoding: BodyCanonicalizer.canonicalJSON(Data(text.utf8)) ?? Data("not JSON".utf8), as: UTF8.self)
        }
        #expect(canonical(#"{"b": [1.50, "2.0"], "a": 2.75e2}"#) == #"{"a":275,"b":[1.5,"2.0"]}"#)
        #expect(canonical(#"{"n": 9007199254740992}"#) == #"{"n":9007199254740992}"#)
        #expect(canonical(#"{"n": 9.007199254740993e15}"#) == #"{"n":9007199254740993}"#)
        #expect(canonical(#"{"s": "1e2 \" 5"}"#) == #"{"s":"1e2 \" 5"}"#)
    }

    @Test func normalizeRulesSeeNumbersAsTheirDecimalText() throws {
        let rules = try JSONDecoder().decode(
            RequestNormalization.self,
            from: Data(#"{"bodyValues": [{"name": "ts", "pattern": "^[0-9]{10}$", "placeholder": "t"}]}"#.utf8)
        )
        let normalizer = RequestNormalizer(rules)
        let one = BodyCanonicalizer.canonicalJSON(Data(#"{"ts": 1764633600, "n": 1.0}"#.utf8), normalizer: normalizer)
        let two = BodyCanonicalizer.canonicalJSON(Data(#"{"ts": 1.7646336e9, "n": 1}"#.utf8), normalizer: normalizer)
        #expect(one == two)
        #expect(one.map { String(decoding: $0, as: UTF8.self) } == #"{"n":1,"ts":"{{t}}"}"#)
    }

    @Test func theRecorderKeepsBinaryRequestBodiesAsBase64() throws {
        let body = Data([0x08, 0x96, 0x01, 0xFF, 0xFE, 0x00])
        let exchange = ProxiedExchange(
            order: 1,
            startedAt: Date(timeIntervalSince1970: 1_800_000_000),
            elapsedMs: 1,
            method: "POST",
            url: "https://api.example.com/rpc",
            requestHeaders: HTTPHeaders([("Content-Type", "application/x-protobuf")]),
            requestBody: body,
            result: .success(UpstreamResponse(status: 200, headers: HTTPHeaders(), body: Data("ok".utf8)))
        )
        let request = RecordingHAR.entry(exchange)["request"] as? [String: Any]
        let postData = request?["postData"] as? [String: Any]
        #expect(postData?["text"] as? String == body.base64EncodedString())
        #expect(postData?["_encoding"] as? String == "base64")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "mockd-binary-\(UUID().uuidString).har"
        )
        defer { try? FileManager.default.removeItem(at: file) }
        try RecordingHAR.document([exchange]).write(to: file)
        let archive = try HARReader.read(contentsOf: file)
        #expect(archive.entries.first?.request.postData?.encoding == "base64")
    }
}
