import Foundation
import MockdFormat
import MockdOpenAPI
import Testing

/// libyaml through `YAMLReader`: the core schema's scalars, keys as text, anchors and merge keys, errors with lines.
struct YAMLReaderTests {
    @Test func scalarsResolveByTheCoreSchemaAndKeysStayText() throws {
        let yaml = """
            openapi: "3.0.3"
            responses:
              200: {description: ok}
            values: [~, null, true, False, 12, -3, 0x1F, 1.5, 1e3, .inf, "12", '007', plain text, 2026-01-01]
            block: |
              line one
              line two
            """
        let value = try YAMLReader.read(Data(yaml.utf8))
        #expect(value["openapi"] == "3.0.3")
        #expect(value["responses"]?["200"]?["description"] == "ok")
        #expect(
            value["values"]
                == [
                    nil, nil, true, false, 12, -3, 31, 1.5, 1000.0, .double(.infinity), "12", "007", "plain text",
                    "2026-01-01",
                ]
        )
        #expect(value["block"] == "line one\nline two")  // clip chomping; the text ends without a line break
    }

    @Test func anchorsAliasesAndMergeKeys() throws {
        let yaml = """
            base: &base {type: object, required: [id]}
            pet:
              <<: *base
              title: Pet
            again: *base
            """
        let value = try YAMLReader.read(Data(yaml.utf8))
        #expect(value["pet"] == ["type": "object", "required": ["id"], "title": "Pet"])
        #expect(value["again"] == ["type": "object", "required": ["id"]])
    }

    @Test func aSyntaxErrorNamesItsLine() {
        #expect(throws: YAMLError.self) { try YAMLReader.read(Data("a: [1, 2\nb: c\n".utf8)) }
        do {
            _ = try YAMLReader.read(Data("a: 1\nb: [1, 2\n".utf8))
        } catch {
            #expect(error.line == 3)
        }
    }
}
