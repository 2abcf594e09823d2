import Foundation
import MockdTestSupport
import Testing

/// One spelling for milliseconds: a Swift name for a quantity in ms ends in `Ms` (`delayMs`, `timeoutMs`,
/// `nowMs`), as the scenario format's keys do (`delayMs`, `holdMs`, `afterMs`), so a property and its JSON key
/// read the same. A new `…Milliseconds` name in Sources or Tests fails here (a test's own name, on its `@Test` line,
/// says what it checks and is no quantity).
struct UnitSpellingTests {
    /// Names that keep `Milliseconds`, and why.
    static let kept: [String: String] = [
        "fixedDelayMilliseconds": "WireMock's own field, read from its mapping files",
        "rfc3339Milliseconds": "a timestamp format (RFC 3339 with milliseconds), not a quantity",
        "isoMilliseconds": "a date layout (ISO 8601 with milliseconds), not a quantity",
        "epochMilliseconds": "a date layout (a Unix time written in ms), not a quantity",
        "subMilliseconds": "the digits of a recorded date below the millisecond, kept as text",
    ]

    @Test func millisecondQuantitiesAreSpeltMs() throws {
        var found: [String] = []
        var seen: Set<String> = []
        var swiftFiles = 0
        for folder in ["Sources", "Tests"] {
            let root = Paths.packageRoot.appendingPathComponent(folder)
            let files = FileManager.default.enumerator(atPath: root.path)?.allObjects as? [String] ?? []
            // This file names the kept spellings (and would name any other it is shown).
            for path in files.sorted() where path.hasSuffix(".swift") && !path.hasSuffix("/UnitSpellingTests.swift") {
                swiftFiles += 1
                let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
                for (line, name) in try Self.millisecondNames(in: text) {
                    seen.insert(name)
                    if Self.kept[name] == nil { found.append("\(folder)/\(path):\(line): \(name)") }
                }
            }
        }
        #expect(swiftFiles > 300, "Sources/ and Tests/ not found at \(Paths.packageRoot.path)")
        #expect(found == [], "spell a quantity in ms `…Ms`, as the formats do")
        // A kept name that is gone is taken off the list, so the list says what is left.
        #expect(Set(Self.kept.keys).subtracting(seen).sorted() == [], "no longer in Sources or Tests: take off `kept`")
    }

    /// The check itself: a `…Milliseconds` name is found with its line, a `…Ms` name and a test's name are not.
    @Test func findsMillisecondNames() throws {
        let text = """
            let pollMilliseconds = 200.0
            let pollMs = 200.0
            @Test func timestampIsRFC3339WithMilliseconds() {}
            feed.requestMilliseconds + RegexBudget.requestMs
            """
        let names = try Self.millisecondNames(in: text)
        #expect(names.map(\.line) == [1, 4])
        #expect(names.map(\.name) == ["pollMilliseconds", "requestMilliseconds"])
    }

    /// The lower-camel-case names ending in `Milliseconds` in Swift source, with their line numbers; `@Test` lines
    /// are left out (a test's name describes what it checks).
    static func millisecondNames(in text: String) throws -> [(line: Int, name: String)] {
        let pattern = try NSRegularExpression(pattern: #"\b[a-z][A-Za-z0-9]*Milliseconds\b"#)
        var names: [(line: Int, name: String)] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(line)
            guard !line.contains("@Test") else { continue }
            for match in pattern.matches(in: line, range: NSRange(line.startIndex..., in: line)) {
                names.append((index + 1, (line as NSString).substring(with: match.range)))
            }
        }
        return names
    }
}
