import Foundation
import MockdFormat
import MockdTestSupport
import Testing

@testable import MockdCore

/// `CanonicalJSONWriter` writes what `JSONSerialization` writes (stored stubs' bodies were canonicalised by it: a
/// different byte would turn a recorded match into a miss), and a large body is canonicalised once per request.
struct CanonicalJSONWriterTests {
    /// The document `text` as canonicalisation parses it (numbers marked), written both ways.
    static func bothWays(_ text: String) throws -> (writer: Data?, foundation: Data?) {
        let marked = try #require(ExactJSONNumbers.markingNumbers(Data(text.utf8)), "\(text)")
        let object = try JSONSerialization.jsonObject(with: marked, options: [.fragmentsAllowed])
        return (CanonicalJSONWriter.data(object), BodyCanonicalizer.foundationJSON(object))
    }

    @Test(arguments: [
        // Key order: numeric runs by value, case only to break ties, then the rest.
        #"{"a10": 1, "a9": 2, "A1": 3, "a1": 4, "_x": 5, "Z": 6, "z": 7, "10": 8, "9": 9, "": 10, "a b": 11}"#,
        #"{"é": 1, "e": 2, "ä": 3, "ß": 4, "ss": 5, "😀": 6, "Ω": 7, "ω": 8, "İ": 9, "i": 10, "ı": 11}"#,
        #"{"item2": {"b": [], "a": {}}, "item10": [true, false, null], "Item1": ["x", {"d": "y", "c": "z"}]}"#,
        // Escapes: quotes, backslashes, the short forms, other control characters, slashes left as they are.
        #"{"s": "\"\\\/ \b\f\n\r\t \u0000\u0001\u000b\u000f\u0010\u001f\u007f \u2028 é 😀"}"#,
        #"["a/b", "<\/script>", "\ud83d\ude00", "tab\there"]"#,
        // Numbers, marked as canonicalisation marks them.
        #"{"n": [0, -0.0, 275.00, 2.75e2, 9007199254740993, 1e-7, 1.5e40]}"#,
        // Fragments and empty containers.
        #""just a string""#, "true", "false", "null", "[]", "{}", "[[[]]]", #"{"a": {"b": {"c": {}}}}"#,
    ])
    func writesWhatJSONSerializationWrites(_ text: String) throws {
        let (writer, foundation) = try Self.bothWays(text)
        #expect(writer != nil)
        #expect(writer == foundation, "\(String(decoding: writer ?? Data(), as: UTF8.self))")
    }

    /// Every file of the JSON Schema Test Suite (schemas and instances: unusual keys, every kind of value, Unicode).
    @Test func writesEveryJSONSchemaTestSuiteFileAsJSONSerializationDoes() throws {
        let suite = Paths.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/jsonschema-test-suite")
        guard FileManager.default.fileExists(atPath: suite.path) else {
            Skip.missing(.jsonschema, test: "CanonicalJSONWriterTests", "../shared/jsonschema-test-suite not found")
            return
        }
        let files =
            FileManager.default.enumerator(atPath: suite.path)?.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".json") }.sorted() ?? []
        #expect(files.count > 100)
        var compared = 0
        var different: [String] = []
        for file in files {
            let text = try String(contentsOf: suite.appendingPathComponent(file), encoding: .utf8)
            guard let marked = ExactJSONNumbers.markingNumbers(Data(text.utf8)),
                let object = try? JSONSerialization.jsonObject(with: marked, options: [.fragmentsAllowed])
            else { continue }
            compared += 1
            if CanonicalJSONWriter.data(object) != BodyCanonicalizer.foundationJSON(object) { different.append(file) }
        }
        #expect(compared == files.count)
        #expect(different == [])
    }

    /// A value the parser never makes here (a number: numbers are marked strings) is left to `JSONSerialization`.
    @Test func leavesUnknownValuesToJSONSerialization() {
        #expect(CanonicalJSONWriter.data(["n": NSNumber(value: 5)]) == nil)
        #expect(CanonicalJSONWriter.data([1.5]) == nil)
        #expect(
            BodyCanonicalizer.canonicalJSON(Data(#"{"b": 1.50, "a": true}"#.utf8)) == Data(#"{"a":true,"b":1.5}"#.utf8)
        )
    }

    /// A body is canonicalised once per form asked for: the same bytes again are the stored result; another
    /// content type, other body rules or a replaced body are made anew.
    @Test func theMemoMakesEachCanonicalFormOnce() {
        let memo = CanonicalBodyMemo()
        let body = Data(#"{"b": 1, "a": 2}"#.utf8)
        var made = 0
        func canonical(_ body: Data, _ type: String?, _ normalizer: RequestNormalizer) -> Data {
            memo.canonical(of: body, contentType: type, bodyRules: normalizer.hasBodyRules ? normalizer.rules : nil) {
                made += 1
                return BodyCanonicalizer.canonicalize(body, contentType: type, normalizer: normalizer)
            }
        }
        let rules = RequestNormalizer(RequestNormalization(ignoreBodyFields: ["b"]))
        #expect(canonical(body, "application/json", .none) == Data(#"{"a":2,"b":1}"#.utf8))
        #expect(canonical(body, "application/json", .none) == Data(#"{"a":2,"b":1}"#.utf8))
        #expect(made == 1)
        #expect(canonical(body, "application/json", rules) == Data(#"{"a":2}"#.utf8))
        #expect(canonical(body, "text/plain", .none) == body)
        #expect(canonical(Data(#"{"c": 3}"#.utf8), "application/json", .none) == Data(#"{"c":3}"#.utf8))
        #expect(made == 4)
        memo.removeAll()
        _ = canonical(body, "application/json", .none)
        #expect(made == 5)
        // Made with the request only for a large body.
        #expect(HTTPRequest(method: "POST", target: "/", body: body).canonicalBodies == nil)
        let large = Data(repeating: UInt8(ascii: " "), count: CanonicalBodyMemo.threshold)
        #expect(HTTPRequest(method: "POST", target: "/", body: large).canonicalBodies != nil)
    }
}
