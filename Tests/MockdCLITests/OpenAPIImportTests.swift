import Foundation
import MockdFormat
import MockdOpenAPI
import MockdSchema
import MockdTestSupport
import Testing

/// `mockd import-openapi` end to end: each document of `../shared/openapi` imported by the binary and served by
/// the real daemon; every documented operation and status answers, with a body its schema accepts.
@Suite(.serialized)
struct OpenAPIImportTests {
    static var specs: [URL] {
        let folder = Paths.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/openapi")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".json") }.sorted().map {
            folder.appendingPathComponent($0)
        }
    }

    @Test func everyDocumentedOperationAndStatusIsServedWithABodyItsSchemaAccepts() throws {
        let specs = Self.specs
        guard !specs.isEmpty else {
            Skip.missing(.openapi, test: "OpenAPIImportTests", "../shared/openapi not found")
            return
        }
        var checked = 0
        for spec in specs {
            let root = Paths.makeTemporaryDirectory()
            defer { try? FileManager.default.removeItem(at: root) }
            let imported = try ProcessRunner.mockd(["import-openapi", spec.path, "--set", "api", "--root", root.path])
            #expect(imported.status == 0, "\(spec.lastPathComponent): \(imported.stderr)")
            // The hint serves what was written: with the same --root.
            #expect(imported.stdout.contains("(serve with: mockd --config api --root \(root.path))"))
            let document = try OpenAPIDocument.load(spec, display: spec.lastPathComponent)
            let daemon = try RunningDaemon(["--config", "api", "--root", root.path, "--port", "0", "--quiet"])
            defer { daemon.stop() }
            for operation in document.operations {
                let path = operation.servedPath.replacingOccurrences(
                    of: #"\{[^}]+\}"#,
                    with: "1",
                    options: .regularExpression
                )
                let codes = operation.responses.compactMap { response -> (Int, OpenAPIResponse)? in
                    if response.status == "DEFAULT" {
                        return operation.responses.count == 1 ? (200, response) : (500, response)
                    }
                    return Int(response.status.replacingOccurrences(of: "XX", with: "00")).map { ($0, response) }
                }
                let primary = codes.map(\.0).filter { (200..<300).contains($0) }.min() ?? codes.map(\.0).min()!
                for (code, response) in codes {
                    let headers = code == primary ? [] : [("Prefer", "code=\(code)")]
                    let answer = try Curl.send(
                        CurlRequest(method: operation.method, url: daemon.baseURL + path, headers: headers)
                    )
                    let what = "\(spec.lastPathComponent) \(operation.method) \(path) \(code)"
                    #expect(answer.status == code, "\(what): \(answer.text)")
                    guard let media = response.contents.first(where: { $0.isJSON }) ?? response.contents.first else {
                        continue
                    }
                    #expect(answer.header("Content-Type")?.hasPrefix(media.type) == true, "\(what)")
                    guard media.isJSON else { continue }
                    let parsed = try? JSONValue(parsing: answer.body)
                    #expect(parsed != nil, "\(what): not JSON: \(answer.text)")
                    guard let body = parsed else { continue }
                    if case .string(let text)? = media.example ?? media.examples.first?.1 {
                        #expect(answer.text == text, "\(what)")  // JSON written as a string in the document
                    } else if let example = media.example ?? media.examples.first?.1 {
                        #expect(body == example, "\(what)")
                    }
                    if let pointer = media.schemaPointer, let schema = document.schemas.subschema(at: pointer) {
                        #expect(schema.validate(body) == [], "\(what): \(body)")
                    }
                    checked += 1
                }
            }
        }
        print("OpenAPIImportTests: \(checked) JSON answers of \(specs.count) documents checked against their schemas")
        #expect(checked > 10)
    }

    @Test func generatedExamplesAreDeterministicPerSeed() throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let spec = root.appendingPathComponent("spec.json")
        try Data(
            #"""
            {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
             "paths": {"/users/{id}": {"get": {"responses": {"200": {"description": "ok", "content": {"application/json":
               {"schema": {"$ref": "#/components/schemas/User"}}}}}}}},
             "components": {"schemas": {"User": {"type": "object", "required": ["id", "email"],
               "properties": {"id": {"type": "integer", "minimum": 10, "maximum": 20},
                              "email": {"type": "string", "format": "email"},
                              "nick": {"type": ["string", "null"], "maxLength": 5},
                              "role": {"enum": ["admin", "user"]},
                              "tags": {"type": "array", "minItems": 2, "items": {"type": "string", "format": "uuid"}}}}}}}
            """#.utf8
        ).write(to: spec)
        var bodies: [JSONValue] = []
        for (name, seed) in [("a", "7"), ("b", "7"), ("c", "8")] {
            #expect(
                try ProcessRunner.mockd([
                    "import-openapi", spec.path, "--set", name, "--root", root.path, "--seed", seed,
                ]).status == 0
            )
            let config = try JSONValue(parsing: Data(contentsOf: root.appendingPathComponent("configs/\(name).json")))
            let body = try #require(config["overrides"]?[0]?["body"])
            let document = try OpenAPIDocument.load(spec, display: "spec.json")
            #expect(document.schemas.subschema(at: "/components/schemas/User")?.validate(body) == [])
            #expect(body["role"] == "admin")
            bodies.append(body)
        }
        #expect(bodies[0] == bodies[1])
        #expect(bodies[0] != bodies[2])
    }
}
