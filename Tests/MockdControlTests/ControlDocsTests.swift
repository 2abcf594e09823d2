import Foundation
import MockdControl
import MockdTestSupport
import Testing

/// The hand-written lists of the docs against the table: the routes table of docs/03-steering-from-tests.md names
/// every route, docs/05-dashboard-and-mcp.md every MCP tool and every route left out, so neither drifts.
struct ControlDocsTests {
    static func article(_ name: String) throws -> String {
        try String(contentsOf: Paths.packageRoot.appendingPathComponent("docs/" + name), encoding: .utf8)
    }

    @Test func theRoutesTableNamesEveryRoute() throws {
        let article = try Self.article("03-steering-from-tests.md")
        for route in ControlRoutes.all {
            // `stubs/{id}` is written `stubs/ID` in the table.
            let pattern =
                "/__mockd/"
                + NSRegularExpression.escapedPattern(for: route.path).replacingOccurrences(
                    of: #"\\\{[a-z]+\\\}"#,
                    with: "[A-Z]+",
                    options: .regularExpression
                ) + "[`, ]"
            #expect(
                article.range(of: pattern, options: .regularExpression) != nil,
                "docs/03-steering-from-tests.md does not name \(route.method) /__mockd/\(route.path)"
            )
        }
    }

    @Test func theMCPArticleNamesEveryToolAndExclusion() throws {
        let article = try Self.article("05-dashboard-and-mcp.md")
        for route in ControlRoutes.all {
            for shortcut in route.shortcuts {
                #expect(
                    article.contains("`\(shortcut.name)`"),
                    "docs/05-dashboard-and-mcp.md does not name the tool \(shortcut.name)"
                )
            }
            switch route.mcp {
            case .tool(let name):
                #expect(article.contains("`\(name)`"), "docs/05-dashboard-and-mcp.md does not name the tool \(name)")
            case .excluded:
                #expect(
                    article.contains("`\(route.method) /__mockd/\(route.path)`"),
                    "docs/05-dashboard-and-mcp.md does not say why \(route.method) /__mockd/\(route.path) is no tool"
                )
            }
        }
    }
}
