import Foundation
import MockdControl
import MockdCore
import MockdFormat
import MockdOpenAPI
import MockdSchema
import MockdTestSupport
import Testing

/// The OpenAPI 3.1 document of the control API (`ControlOpenAPI`, made from `ControlRoutes`): the committed copy is
/// current, it is a valid OpenAPI 3.1 document by mockd's own schema validator, and it describes every route.
struct ControlOpenAPITests {
    static let committed = Paths.packageRoot.appendingPathComponent("docs/control-api.openapi.json")

    /// docs/control-api.openapi.json is what the table makes; `MOCKD_UPDATE_OPENAPI=1` writes it anew.
    @Test func committedDocumentIsCurrent() throws {
        let made = try ControlOpenAPI.data(version: MockdVersion.current)
        if ProcessInfo.processInfo.environment["MOCKD_UPDATE_OPENAPI"] == "1" {
            try made.write(to: Self.committed, options: .atomic)
        }
        let committed = try Data(contentsOf: Self.committed)
        let first = zip(committed.split(separator: 0x0A), made.split(separator: 0x0A)).enumerated()
            .first { $0.element.0 != $0.element.1 }
        #expect(
            committed == made,
            """
            docs/control-api.openapi.json is stale (first difference at line \((first?.offset ?? 0) + 1)): \
            regenerate it with MOCKD_UPDATE_OPENAPI=1 scripts/test ControlOpenAPITests and commit it
            """
        )
    }

    /// mockd reads it as it reads any OpenAPI document (`--openapi`, `check`): every schema compiles (2020-12), every
    /// reference resolves, and each route of the table is one operation with its id, parameters and statuses.
    @Test func everyRouteIsAnOperation() throws {
        let json = try JSONValue(parsing: try ControlOpenAPI.data(version: MockdVersion.current))
        let document = try OpenAPIDocument(json: json, display: "control-api.openapi.json")
        #expect(document.version == "3.1.0")
        #expect(document.operations.count == ControlRoutes.all.count)
        for route in ControlRoutes.all {
            let operation = document.operations.first { $0.operationID == route.id.rawValue }
            try #require(operation != nil, "\(route.id) has no operation")
            #expect(operation?.method == route.method, "\(route.id)")
            #expect(operation?.path == ControlOpenAPI.prefix + route.path, "\(route.id)")
            let statuses = Set(operation?.responses.map(\.status) ?? [])
            let expected = Set([String(route.status)] + route.allErrors.map { String($0.status) })
            #expect(statuses == expected, "\(route.id)")
            #expect(!route.doc.isEmpty && route.doc.hasSuffix("."), "\(route.id): a doc line, a sentence")
        }
    }

    /// Valid against the OpenAPI 3.1 schema (spec.openapis.org/oas/3.1/schema/2022-10-07) by MockdSchema, the
    /// validator of `--openapi`; the schema is read from schemathesis's copy in the test venv.
    @Test func documentIsValidOpenAPI31() throws {
        guard let python = PythonTools.python(with: "schemathesis", test: "ControlOpenAPITests") else { return }
        let dump = try ProcessRunner.run(
            python,
            [
                "-c",
                "import json; from schemathesis.specs.openapi.definitions import OPENAPI_31; print(json.dumps(OPENAPI_31))",
            ]
        )
        try #require(dump.status == 0, "\(dump.stderr)")
        let metaSchema = try JSONValue(parsing: Data(dump.stdout.utf8))
        #expect(metaSchema["$id"]?.stringValue == "https://spec.openapis.org/oas/3.1/schema/2022-10-07")
        let validator = try JSONSchemaValidator(schema: metaSchema, dialect: .draft2020_12)
        let document = try JSONValue(parsing: try ControlOpenAPI.data(version: MockdVersion.current))
        let violations = validator.validate(document)
        #expect(violations.isEmpty, "\(violations.prefix(5))")
        // And it can tell: a document without `info` is refused.
        guard case .object(var broken) = document else { return }
        broken["info"] = nil
        #expect(!validator.validate(.object(broken)).isEmpty)
    }

    /// The document defines each type it names, and names each type it defines.
    @Test func componentsAreReferencedAndDefined() throws {
        let text = String(decoding: try ControlOpenAPI.data(version: MockdVersion.current), as: UTF8.self)
        let json = try JSONValue(parsing: Data(text.utf8))
        guard case .object(let schemas)? = json["components"]?["schemas"] else {
            Issue.record("no components")
            return
        }
        let references = Set(
            text.split(separator: "\"").filter { $0.hasPrefix("#/components/schemas/") }
                .map { String($0.dropFirst("#/components/schemas/".count)) }
        )
        #expect(references == Set(schemas.keys), "unused: \(Set(schemas.keys).subtracting(references))")
    }
}

/// The Python of the test venv (scripts/install-deps) when it has `module`; else a `SKIPPED [module]` line.
enum PythonTools {
    static func python(with module: String, test: String) -> URL? {
        let candidates = [
            ProcessInfo.processInfo.environment["MOCKD_TEST_PYTHON"],
            Paths.packageRoot.appendingPathComponent(".build/test-venv/bin/python").path,
        ].compactMap { $0 }
        for path in candidates where FileManager.default.isExecutableFile(atPath: path) {
            let check = try? ProcessRunner.run(URL(fileURLWithPath: path), ["-c", "import \(module)"])
            if check?.status == 0 { return URL(fileURLWithPath: path) }
        }
        Skip.missing(
            .schemathesis,
            test: test,
            "\(module) is not installed (scripts/install-deps makes .build/test-venv)"
        )
        return nil
    }
}
