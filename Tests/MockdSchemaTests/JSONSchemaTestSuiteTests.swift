import Foundation
import MockdFormat
import MockdSchema
import MockdTestSupport
import Testing

/// The official JSON Schema Test Suite (json-schema-org/JSON-Schema-Test-Suite) from `../shared/jsonschema-test-suite`,
/// required tests only (`tests/<dialect>/*.json`; `optional/` is left out: format assertion, ECMA-262 regex
/// details, bignums and float quirks are optional behaviour). Prints the pass count per keyword file.
struct JSONSchemaTestSuiteTests {
    /// Groups not run, by `file: group description`, with why: they validate a schema against the dialect's
    /// meta-schema, which this validator does not bundle (a reference to it does not resolve).
    static let excludedGroups: [String: String] = [
        "definitions.json: validate definition against metaschema": "needs the draft 4 meta-schema",
        "defs.json: validate definition against metaschema": "needs the 2020-12 meta-schemas",
        "ref.json: remote ref, containing refs itself": "needs the dialect's meta-schema",
    ]

    static var suite: URL? {
        let url = Paths.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/jsonschema-test-suite")
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    @Test(arguments: [("draft4", SchemaDialect.draft4), ("draft2020-12", SchemaDialect.draft2020_12)])
    func passesTheRequiredTests(folder: String, dialect: SchemaDialect) throws {
        guard let suite = Self.suite else {
            Skip.missing(.jsonschema, test: "JSONSchemaTestSuiteTests", "../shared/jsonschema-test-suite not found")
            return
        }
        let remotes = suite.appendingPathComponent("remotes")
        let retrieve: (String) -> JSONValue? = { uri in
            let prefix = "http://localhost:1234/"
            guard uri.hasPrefix(prefix) else { return nil }
            let file = remotes.appendingPathComponent(String(uri.dropFirst(prefix.count)))
            return (try? Data(contentsOf: file)).flatMap { try? JSONValue(parsing: $0) }
        }
        let directory = suite.appendingPathComponent("tests/\(folder)")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }
            .sorted()
        var lines: [String] = []
        var failures: [String] = []
        var excluded: [String] = []
        var totalPassed = 0
        var total = 0
        for file in files {
            let groups = try JSONValue(parsing: Data(contentsOf: directory.appendingPathComponent(file)))
            guard case .array(let list) = groups else { continue }
            var passed = 0
            var count = 0
            for group in list {
                let description = group["description"]?.stringValue ?? "?"
                guard let schema = group["schema"], case .array(let tests)? = group["tests"] else { continue }
                if let reason = Self.excludedGroups["\(file): \(description)"] {
                    excluded.append("\(file): \(description) (\(tests.count) tests): \(reason)")
                    continue
                }
                let validator = try JSONSchemaValidator(schema: schema, dialect: dialect, documents: retrieve)
                for test in tests {
                    guard let data = test["data"], case .bool(let expected)? = test["valid"] else { continue }
                    count += 1
                    let violations = validator.validate(data)
                    if violations.isEmpty == expected {
                        passed += 1
                    } else {
                        failures.append(
                            "\(folder)/\(file): \(description): \(test["description"]?.stringValue ?? "?"): expected \(expected ? "valid" : "invalid") \(violations.first?.description ?? "")"
                        )
                    }
                }
            }
            totalPassed += passed
            total += count
            lines.append("  \(file.dropLast(5)): \(passed)/\(count)")
        }
        print(
            "JSON Schema Test Suite \(folder): \(totalPassed)/\(total) required tests pass\n"
                + lines.joined(separator: "\n")
        )
        for group in excluded { print("EXCLUDED " + group) }
        for failure in failures { print("FAILED " + failure) }
        #expect(failures.isEmpty)
    }
}
