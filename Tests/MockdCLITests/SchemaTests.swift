import Foundation
import MockdTestSupport
import Testing

/// The published JSON Schemas (docs/schema) agree with the files mockd reads and writes, checked with the
/// `jsonschema` validator (Debian's python3-jsonschema, installed by scripts/install-deps).
struct SchemaTests {
    static let python = URL(fileURLWithPath: "/usr/bin/python3")

    /// Validates each (schema, file) pair; returns one line per file: `ok FILE` or `FAIL FILE: message`.
    static func validate(_ pairs: [(schema: String, file: String)]) throws -> [String] {
        let script = """
            import json, sys
            from jsonschema import Draft202012Validator
            pairs = json.loads(sys.argv[1])
            for schema_path, file_path in pairs:
                schema = json.load(open(schema_path))
                Draft202012Validator.check_schema(schema)
                errors = sorted(Draft202012Validator(schema).iter_errors(json.load(open(file_path))), key=lambda e: list(e.path))
                print(("FAIL %s: %s: %s" % (file_path, "/".join(map(str, errors[0].path)), errors[0].message)) if errors else "ok " + file_path)
            """
        let argument = String(
            decoding: try JSONSerialization.data(withJSONObject: pairs.map { [$0.schema, $0.file] }),
            as: UTF8.self
        )
        let result = try ProcessRunner.run(python, ["-c", script, argument])
        try #require(result.status == 0, "python3 jsonschema failed: \(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    static let scenarioSchema = Paths.packageRoot.appendingPathComponent("docs/schema/scenario.schema.json").path
    static let mockSetSchema = Paths.packageRoot.appendingPathComponent("docs/schema/mockset.schema.json").path

    @Test func bundledScenariosAndMockSetsMatchTheSchemas() throws {
        let root = Paths.packageRoot
        let configs = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("configs").path)
            .filter { $0.hasSuffix(".json") }.sorted().map { root.appendingPathComponent("configs/\($0)").path }
        let sets = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("mocks").path)
            .sorted().map { root.appendingPathComponent("mocks/\($0)/index.json").path }
        let lines = try Self.validate(configs.map { (Self.scenarioSchema, $0) } + sets.map { (Self.mockSetSchema, $0) })
        #expect(lines == (configs + sets).map { "ok \($0)" })
        #expect(lines.count >= 8)
    }

    @Test func importedMockSetsMatchTheSchema() throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let har = root.appendingPathComponent("x.har")
        try ImportCommandTests.har.write(to: har, atomically: true, encoding: .utf8)
        _ = try ProcessRunner.mockd(["import-har", har.path, "--set", "x", "--root", root.path])
        let index = root.appendingPathComponent("mocks/x/index.json").path
        #expect(try Self.validate([(Self.mockSetSchema, index)]) == ["ok \(index)"])
        // Every new field an import can write: hosts, normalize rules, cors, conditional 304s, faults, templated "redacted".
        let shop = root.appendingPathComponent("shop.har")
        try ImportHygieneTests.write(
            ImportHygieneTests.shopEntries + [
                ImportHygieneTests.entry(
                    "GET",
                    "https://api.shop.test/page",
                    headers: [("Content-Type", "text/html"), ("Set-Cookie", "a=b")],
                    text: "{{x}} me@corp.io"
                ),
                ImportHygieneTests.entry("GET", "https://api.shop.test/gone", status: 0, headers: [], text: nil),
                ImportHygieneTests.entry("GET", "https://api.shop.test/c", headers: [("ETag", "\"1\"")], text: "c"),
                ImportHygieneTests.entry("GET", "https://api.shop.test/c", status: 304, headers: [], text: nil),
            ],
            to: shop
        )
        let imported = try ProcessRunner.mockd([
            "import-har", shop.path, "--set", "shop", "--root", root.path, "--cors", "--failed", "keep",
            "--ignore-query", "utm_*", "--ignore-body-field", "id",
        ])
        #expect(imported.status == 0)
        let shopIndex = root.appendingPathComponent("mocks/shop/index.json").path
        let text = try String(contentsOfFile: shopIndex, encoding: .utf8)
        for field in [
            #""host" : "#, #""normalize" : {"#, #""cors" : true"#, #""conditionalRequests" : true"#,
            #""fault" : "connectionReset""#, #""templated" : "redacted""#,
        ] {
            #expect(text.contains(field), "index lacks \(field)")
        }
        #expect(try Self.validate([(Self.mockSetSchema, shopIndex)]) == ["ok \(shopIndex)"])
    }

    @Test func aTypoFailsTheSchemaAndMockdAlike() throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("configs"),
            withIntermediateDirectories: true
        )
        try Paths.copyBundledSets(into: root)
        let config = root.appendingPathComponent("configs/typo.json")
        try #"{"sets": ["chat"], "overrides": [{"match": {"path": "/v1/me"}, "latancy": 300}]}"#.write(
            to: config,
            atomically: true,
            encoding: .utf8
        )
        let lines = try Self.validate([(Self.scenarioSchema, config.path)])
        #expect(
            lines.first?.hasPrefix(
                "FAIL \(config.path): overrides/0: Additional properties are not allowed ('latancy' was unexpected)"
            ) == true
        )
        let validate = try ProcessRunner.mockd(["validate", "--config", "typo", "--root", root.path])
        #expect(validate.status == 1)
        #expect(
            validate.stderr
                == "mockd: configs/typo.json: overrides[0].latancy: unknown field (did you mean \"latency\"?)\n"
        )
    }
}
