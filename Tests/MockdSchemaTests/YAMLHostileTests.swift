import Foundation
import MockdFormat
import MockdOpenAPI
import Testing

/// After a hostile review of issue 21: a "billion laughs" document is refused with its line instead of hanging
/// whoever expands it, and a long sequence is read in linear time.
struct YAMLHostileTests {
    @Test func aliasesThatExpandToBillionsAreRefused() throws {
        var yaml = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for level in 1...9 {
            let previous = "*a\(level - 1)"
            yaml += "a\(level): &a\(level) [\(Array(repeating: previous, count: 10).joined(separator: ", "))]\n"
        }
        // Caught by hand: the error returned by #expect(throws:) needs Swift 6.1 (scripts/check-swift-floor).
        var refusal: YAMLError?
        do { _ = try YAMLReader.read(Data(yaml.utf8)) } catch { refusal = error }
        #expect(refusal != nil)
        #expect(refusal?.message.hasPrefix("aliases expand to more than 1000000 values") == true)
        #expect(refusal?.line == 6)
        // A few shared anchors stay fine.
        let small = try YAMLReader.read(Data("base: &b {x: 1}\none: *b\ntwo: *b\n".utf8))
        let shared: JSONValue = .object(["x": .int(1)])
        guard case .object(let members) = small else {
            Issue.record("not a mapping")
            return
        }
        #expect(members["one"] == shared)
        #expect(members["two"] == shared)
    }

    @Test func aLongSequenceIsReadWhole() throws {
        let yaml = "enum:\n" + (0..<50_000).map { "  - v\($0)\n" }.joined()
        let value = try YAMLReader.read(Data(yaml.utf8))
        guard case .object(let members) = value, case .array(let items)? = members["enum"] else {
            Issue.record("not read as a mapping with a sequence")
            return
        }
        #expect(items.count == 50_000)
        #expect(items.last == .string("v49999"))
    }
}
