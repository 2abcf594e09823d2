import Foundation
import MockdTestSupport
import Testing

@testable import MockdCore

/// `JSONObjectReader` gives exactly what `JSONSerialization` gives (the same value, of the same Foundation types, or
/// the same failure), reading the plain case itself and leaving the rest to Foundation.
struct JSONObjectReaderTests {
    /// Documents the reader reads itself, each a kind of value: every number class Foundation tells apart, escapes,
    /// surrogate pairs, raw multi-byte UTF-8, empty and nested containers, whitespace.
    static let readDocuments = [
        "[0, -0, 7, -7, 9223372036854775807, -922337203685477580, 18446744073709551615]",
        "[1.5, -0.25, 0.1, 1e5, 1e-7, 2.5e+3, -3.75e-2, 0e0, 12345678901234.5]",
        // Chrome's times: more than 17 characters before the exponent make an NSDecimalNumber in Foundation.
        "[16.378999999999998, -16.378999999999998, 1234567890123456.75, 1.2345678901234567e10]",
        #"{"a": "plain", "b": "esc \" \\ \/ \b \f \n \r \t", "c": "\u00e9\u4e2d\ud83d\ude00", "d": "\u0000 end"}"#,
        "{\"raw\": \"caf\u{e9} \u{4e2d}\u{6587} \u{1F600}\", \"mixed\": \"\u{e9}\\n\u{e9}\"}",
        #"{"e": {}, "f": [], "g": [[], {}, [{"h": null}]], "t": true, "u": false, "": "empty name"}"#,
        " \t\r\n[ 1 ,\n 2 ]\n ",
        #"{"log": {"entries": [{"time": 135.277, "request": {"url": "https://x.test/a?b=1"}}]}}"#,
    ]

    @Test(arguments: readDocuments)
    func readsThePlainCaseAsFoundationDoes(_ text: String) throws {
        let data = Data(text.utf8)
        let read = try #require(JSONObjectReader.value(of: data))
        let foundation = try JSONSerialization.jsonObject(with: data)
        #expect(Self.sameFoundationValue(read, foundation), "\(text)")
    }

    /// Top-level scalars with `.fragmentsAllowed`, read as Foundation reads them; refused without it.
    @Test(arguments: [#""text""#, "12", "-1.5", "true", "null", "16.378999999999998"])
    func fragments(_ text: String) throws {
        let data = Data(text.utf8)
        let read = try #require(JSONObjectReader.value(of: data, fragmentsAllowed: true))
        #expect(
            Self.sameFoundationValue(read, try JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed))
        )
        #expect(JSONObjectReader.value(of: data) == nil)
        #expect(throws: (any Error).self) { try JSONObjectReader.jsonObject(with: data) }
    }

    /// Text the reader leaves to Foundation: not JSON, or JSON Foundation treats in its own way. The drop-in gives
    /// Foundation's outcome for each, value or error.
    static let leftToFoundation: [[UInt8]] =
        [
            "[01]", "[1.]", "[.5]", "[-]", "[1e]", "[1E5]", "[+1]", "[1,]", "[,1]", "{\"a\":1,}", "{\"a\" 1}", "{a: 1}",
            "[1] [2]", "[\"unterminated]", "[\"tab\there\"]", "[\"bad \\x escape\"]", "[\"\\u12\"]",
            "[\"\\ud83d alone\"]", "[\"\\ude00 alone\"]", "[\"\\ufeff escaped\"]", "{\"a\": 1, \"a\": 2}",
            "[99999999999999999999]", "[-9223372036854775808]", "[-9223372036854775807]", "[-99999999999999999999]",
            "[1e400]", "[12345678901234567.5e300]", "", "   ",
            "[tru]", "[nul]", "[True]",
        ].map { Array($0.utf8) } + [
            [0x5B, 0x22, 0xC3, 0x28, 0x22, 0x5D],  // invalid UTF-8 in a string
            [0x5B, 0x22, 0xED, 0xA0, 0x80, 0x22, 0x5D],  // an encoded surrogate
            [0x5B, 0x22, 0xEF, 0xBB, 0xBF, 0x61, 0x22, 0x5D],  // a raw U+FEFF opening a string
            [0xEF, 0xBB, 0xBF, 0x5B, 0x31, 0x5D],  // a byte order mark before the document
            [0x00, 0x5B, 0x00, 0x31, 0x00, 0x5D],  // UTF-16 big endian
            [0x5B, 0x00, 0x31, 0x00, 0x5D, 0x00],  // UTF-16 little endian
            [0x5B, 0x31, 0x5D, 0x00],  // a NUL after the document
        ] + [Array(String(repeating: "[", count: 600).utf8) + Array(String(repeating: "]", count: 600).utf8)]

    @Test(arguments: leftToFoundation)
    func leavesTheRestToFoundation(_ bytes: [UInt8]) {
        let data = Data(bytes)
        #expect(JSONObjectReader.value(of: data) == nil)
        for options in [JSONSerialization.ReadingOptions(), .fragmentsAllowed] {
            let foundation = Result { try JSONSerialization.jsonObject(with: data, options: options) }
            let dropIn = Result { try JSONObjectReader.jsonObject(with: data, options: options) }
            switch (foundation, dropIn) {
            case (.success(let expected), .success(let got)):
                #expect(Self.sameFoundationValue(got, expected))
            case (.failure(let expected), .failure(let got)):
                #expect("\(got)" == "\(expected)")
            default:
                Issue.record("\(bytes): Foundation gave \(foundation), the reader \(dropIn)")
            }
        }
    }

    /// Every HAR file of the corpus, whole and entry by entry, and every file of the JSON Schema Test Suite: what
    /// the reader reads equals Foundation's value. The corpus is real producers' output, so the reader must read
    /// almost all of it itself (the count printed).
    @Test func readsRealDocumentsAsFoundationDoes() throws {
        var documents: [(name: String, data: Data)] = []
        for url in Paths.corpusHARFiles(for: "JSONObjectReaderTests") {
            let data = try Data(contentsOf: url)
            documents.append((url.lastPathComponent, data))
            if let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let entries = (root["log"] as? [String: Any])?["entries"] as? [Any]
            {
                for (index, entry) in entries.enumerated() {
                    let text = try JSONSerialization.data(withJSONObject: [entry])
                    documents.append(("\(url.lastPathComponent) entry \(index)", text))
                    for body in Self.bodyTexts(of: entry) { documents.append(("\(url.lastPathComponent) body", body)) }
                }
            }
        }
        let suite = Paths.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/jsonschema-test-suite")
        if let files = FileManager.default.enumerator(atPath: suite.path) {
            for case let path as String in files where path.hasSuffix(".json") {
                documents.append((path, try Data(contentsOf: suite.appendingPathComponent(path))))
            }
        } else {
            Skip.missing(.jsonschema, test: "JSONObjectReaderTests", "../shared/jsonschema-test-suite not found")
        }
        var readByTheReader = 0
        var json = 0
        for document in documents {
            let foundation = try? JSONSerialization.jsonObject(with: document.data, options: .fragmentsAllowed)
            if foundation != nil { json += 1 }
            guard let read = JSONObjectReader.value(of: document.data, fragmentsAllowed: true) else { continue }
            readByTheReader += 1
            let expected = try #require(foundation, "\(document.name): the reader read what Foundation refuses")
            #expect(Self.sameFoundationValue(read, expected), "\(document.name)")
        }
        print(
            "JSONObjectReaderTests: the reader read \(readByTheReader) of \(json) JSON documents (\(documents.count) texts)"
        )
        if json > 0 { #expect(readByTheReader * 100 >= json * 95) }
    }

    /// The deepest document the reader reads, on a thread with the stack macOS gives a secondary thread (512 KiB,
    /// as libmicrohttpd's workers have there), objects and arrays alternating: read, not a crash.
    @Test func readsItsDeepestDocumentOnASmallStack() async {
        let depth = JSONObjectReader.maximumDepth - 1
        var text = ""
        for level in 0..<depth { text += level.isMultiple(of: 2) ? "[" : "{\"k\":" }
        text += "1"
        for level in (0..<depth).reversed() { text += level.isMultiple(of: 2) ? "]" : "}" }
        let data = Data(text.utf8)
        let read = await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: JSONObjectReader.value(of: data) != nil) }
            thread.stackSize = 512 << 10
            thread.start()
        }
        #expect(read)
        #expect(JSONObjectReader.value(of: Data(("[" + text + "]").utf8)) == nil)
    }

    /// Seeded random documents (numbers of every length and form, strings with escapes and raw UTF-8, nesting),
    /// each also with one byte changed: the drop-in's outcome is Foundation's, value or error, for every one.
    @Test func randomDocumentsAndTheirMutationsGiveFoundationsOutcome() {
        var random = SplitMix64(seed: 38)
        var read = 0
        for round in 0..<3_000 {
            var text = Array(Self.randomValue(depth: 0, using: &random).utf8)
            if round % 2 == 1, !text.isEmpty {
                let bytes: [UInt8] = Array(#"{}[],:"\ue.-+0159aZ"#.utf8) + [0x00, 0x0A, 0xC3, 0xEF, 0xBB, 0xBF, 0x80]
                text[Int.random(in: 0..<text.count, using: &random)] = bytes.randomElement(using: &random)!
            }
            let data = Data(text)
            if JSONObjectReader.value(of: data, fragmentsAllowed: true) != nil { read += 1 }
            let foundation = Result { try JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed) }
            let dropIn = Result { try JSONObjectReader.jsonObject(with: data, options: .fragmentsAllowed) }
            switch (foundation, dropIn) {
            case (.success(let expected), .success(let got)):
                #expect(Self.sameFoundationValue(got, expected), "\(String(decoding: text, as: UTF8.self))")
            case (.failure, .failure):
                break
            default:
                Issue.record(
                    "\(String(decoding: text, as: UTF8.self)): Foundation gave \(foundation), the reader \(dropIn)"
                )
            }
        }
        // Every unchanged document is JSON; most of them are the plain case.
        #expect(read > 1_200)
    }

    private static func randomValue(depth: Int, using random: inout SplitMix64) -> String {
        switch Int.random(in: 0..<(depth > 3 ? 4 : 6), using: &random) {
        case 0: return ["true", "false", "null"].randomElement(using: &random)!
        case 1, 2: return randomNumber(using: &random)
        case 3: return randomString(using: &random)
        case 4:
            let items = (0..<Int.random(in: 0..<5, using: &random)).map { _ in
                randomValue(depth: depth + 1, using: &random)
            }
            return "[" + items.joined(separator: Bool.random(using: &random) ? "," : " , ") + "]"
        default:
            var names = Set<String>()
            let members = (0..<Int.random(in: 0..<5, using: &random)).compactMap { _ -> String? in
                let name = randomString(using: &random)
                guard names.insert(name).inserted else { return nil }
                return name + ":" + randomValue(depth: depth + 1, using: &random)
            }
            return "{" + members.joined(separator: ",\n ") + "}"
        }
    }

    private static func randomNumber(using random: inout SplitMix64) -> String {
        func digits(_ range: ClosedRange<Int>) -> String {
            String((0..<Int.random(in: range, using: &random)).map { _ in "0123456789".randomElement(using: &random)! })
        }
        var text = Bool.random(using: &random) ? "-" : ""
        let whole = digits(1...21)
        text += whole.count > 1 && whole.hasPrefix("0") ? "1" + whole.dropFirst() : whole
        if Int.random(in: 0..<3, using: &random) == 0 { text += "." + digits(1...18) }
        if Int.random(in: 0..<4, using: &random) == 0 {
            text += ["e", "E", "e+", "e-"].randomElement(using: &random)! + digits(1...3)
        }
        return text
    }

    private static func randomString(using random: inout SplitMix64) -> String {
        let pieces = [
            "a", "Z", " ", "é", "中", "😀", "\\n", "\\\"", "\\\\", "\\/", "\\u00e9", "\\ud83d\\ude00", "\\u0000", "\\t",
        ]
        return "\""
            + (0..<Int.random(in: 0..<8, using: &random)).map { _ in pieces.randomElement(using: &random)! }
            .joined() + "\""
    }

    /// The response and request body texts of a HAR entry, as the importer parses them.
    private static func bodyTexts(of entry: Any) -> [Data] {
        guard let entry = entry as? [String: Any] else { return [] }
        let response = (entry["response"] as? [String: Any])?["content"] as? [String: Any]
        let request = (entry["request"] as? [String: Any])?["postData"] as? [String: Any]
        return [response?["text"], request?["text"]].compactMap { ($0 as? String).map { Data($0.utf8) } }
    }

    /// Equal values of the same Foundation types: numbers of the same kind (`objCType`, `NSDecimalNumber` or not)
    /// and value, strings of the same scalars.
    static func sameFoundationValue(_ left: Any, _ right: Any) -> Bool {
        switch (left, right) {
        case (let left as [String: Any], let right as [String: Any]):
            return left.count == right.count
                && left.allSatisfy { key, value in right[key].map { sameFoundationValue(value, $0) } ?? false }
        case (let left as [Any], let right as [Any]):
            return left.count == right.count && zip(left, right).allSatisfy { sameFoundationValue($0, $1) }
        case (is NSNull, is NSNull):
            return true
        case (let left as String, let right as String):
            return Array(left.unicodeScalars) == Array(right.unicodeScalars)
        case (let left as NSNumber, let right as NSNumber):
            return String(cString: left.objCType) == String(cString: right.objCType)
                && (left is NSDecimalNumber) == (right is NSDecimalNumber) && left == right
                && left.description == right.description
        default:
            return false
        }
    }
}
