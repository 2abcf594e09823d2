import Foundation
import MockdCore
import MockdTestSupport
import Testing

/// The placeholders docs/FORMAT.md documents are exactly the helpers templates accept (`TemplateHelpers.list`): a
/// helper added without docs, or a documented one that `validate` would refuse, fails here.
struct TemplateHelperDocsTests {
    static func placeholdersSection() throws -> String {
        let format = try String(
            contentsOf: Paths.packageRoot.appendingPathComponent("docs/FORMAT.md"),
            encoding: .utf8
        )
        let start = try #require(format.range(of: "\n### Placeholders\n"))
        let end = try #require(format.range(of: "\n### ", range: start.upperBound..<format.endIndex))
        return String(format[start.upperBound..<end.lowerBound])
    }

    @Test func everyHelperIsDocumentedAndEveryDocumentedHelperExists() throws {
        let section = try Self.placeholdersSection()
        for helper in TemplateHelpers.list {
            #expect(section.contains("{{" + helper.name), "docs/FORMAT.md, Placeholders: {{\(helper.name)}} missing")
        }
        // Every `{{name` in the first column of the section's tables is a helper or a redaction placeholder.
        func generic(_ name: String) -> String {
            name.replacingOccurrences(of: #"\[N\]|\.(ID|PATH|NAME)"#, with: "", options: .regularExpression)
        }
        let names = Set(TemplateHelpers.list.map { generic($0.name) })
        let redaction: Set = [
            "token", "accessToken", "refreshToken", "apiKey", "cookie", "jwt", "email", "phone", "name",
        ]
        let firstCells = section.split(separator: "\n").filter { $0.hasPrefix("| `{{") }
            .map { $0.dropFirst(2).prefix { $0 != "|" } }
        let pattern = try NSRegularExpression(pattern: #"\{\{([A-Za-z][A-Za-z0-9.]*(?:\[N\])?)"#)
        let shown = firstCells.flatMap { cell in
            let text = String(cell)
            return pattern.matches(in: text, range: NSRange(text.startIndex..., in: text))
                .compactMap { Range($0.range(at: 1), in: text).map { String(text[$0]) } }
        }
        #expect(shown.count >= TemplateHelpers.list.count)
        for name in Set(shown) where !names.contains(generic(name)) && !redaction.contains(name) {
            Issue.record("docs/FORMAT.md, Placeholders lists {{\(name)}}, which templates do not accept")
        }
    }
}
