import Foundation
import MockdTestSupport
import Testing

/// One spelling for milliseconds: a Swift name for a quantity in ms ends in `Ms` (`delayMs`, `timeoutMs`,
/// `nowMs`), as the scenario format's keys do (`delayMs`, `holdMs`, `afterMs`), so a property and its JSON key
/// read the same. A new `…Milliseconds` name in Sources fails here.
struct UnitSpellingTests {
    /// Names that keep `Milliseconds`, and why.
    static let kept: [String: String] = [
        "fixedDelayMilliseconds": "WireMock's own field, read from its mapping files",
        "rfc3339Milliseconds": "a timestamp format (RFC 3339 with milliseconds), not a quantity",
        "isoMilliseconds": "a date layout (ISO 8601 with milliseconds), not a quantity",
        "epochMilliseconds": "a date layout (a Unix time written in ms), not a quantity",
        "subMilliseconds": "the digits of a recorded date below the millisecond, kept as text",
        // To be spelt `…Ms` once the files issue 37 is changing have landed.
        "pollMilliseconds": "LiveFeed, implemented by StreamedJSON, mid-change for issue 37",
        "requestMilliseconds": "RegexBudget, quoted by NearMiss, mid-change for issue 37",
    ]

    @Test func millisecondQuantitiesAreSpeltMs() throws {
        let sources = Paths.packageRoot.appendingPathComponent("Sources")
        let pattern = try NSRegularExpression(pattern: #"\b[a-z][A-Za-z0-9]*Milliseconds\b"#)
        var found: [String] = []
        var seen: Set<String> = []
        let files = FileManager.default.enumerator(atPath: sources.path)?.allObjects as? [String] ?? []
        for path in files.sorted() where path.hasSuffix(".swift") {
            let text = try String(contentsOf: sources.appendingPathComponent(path), encoding: .utf8)
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let line = String(line)
                for match in pattern.matches(in: line, range: NSRange(line.startIndex..., in: line)) {
                    let name = (line as NSString).substring(with: match.range)
                    seen.insert(name)
                    if Self.kept[name] == nil { found.append("Sources/\(path):\(index + 1): \(name)") }
                }
            }
        }
        #expect(files.count > 100, "Sources/ not found at \(sources.path)")
        #expect(found == [], "spell a quantity in ms `…Ms`, as the formats do")
        // A kept name that is gone is taken off the list, so the list says what is left.
        #expect(Set(Self.kept.keys).subtracting(seen).sorted() == [], "no longer in Sources: take off `kept`")
    }
}
