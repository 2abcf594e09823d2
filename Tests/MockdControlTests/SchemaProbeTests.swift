import Foundation
import MockdControl
import MockdFormat
import Testing

/// `SchemaProbe`: the JSON Schema of a Codable type, from decoding it once.
struct SchemaProbeTests {
    struct Inner: Codable {
        let name: String
    }

    enum Color: String, Codable, ControlSchemaEnum {
        case red, green
    }

    struct Outer: Codable, ControlSchemaNotes {
        let count: Int
        let ratio: Double
        let flag: Bool?
        let tags: [String]
        let inner: Inner
        let innerMaybe: Inner?
        let map: [String: Int]
        let color: Color
        let any: JSONValue
        @ExplicitNull var note: String?

        static var propertyNotes: [String: JSONValue] { ["count": ["minimum": 1]] }
    }

    @Test func requiredOptionalNestedAndNotes() throws {
        let probe = SchemaProbe()
        #expect(try probe.schema(for: Outer.self) == ["$ref": "#/components/schemas/SchemaProbeTestsOuter"])
        let outer = try #require(probe.components["SchemaProbeTestsOuter"])
        #expect(
            outer["required"]
                == ["count", "ratio", "tags", "inner", "map", "color", "any"]
        )
        #expect(outer["properties"]?["count"] == ["type": "integer", "minimum": 1])
        #expect(outer["properties"]?["ratio"] == ["type": "number"])
        #expect(outer["properties"]?["flag"] == ["type": ["boolean", "null"]])
        #expect(outer["properties"]?["tags"] == ["type": "array", "items": ["type": "string"]])
        #expect(outer["properties"]?["inner"] == ["$ref": "#/components/schemas/SchemaProbeTestsInner"])
        #expect(
            outer["properties"]?["innerMaybe"]
                == ["anyOf": [["$ref": "#/components/schemas/SchemaProbeTestsInner"], ["type": "null"]]]
        )
        #expect(outer["properties"]?["map"] == ["type": "object", "additionalProperties": ["type": "integer"]])
        #expect(outer["properties"]?["color"] == ["type": "string", "enum": ["red", "green"]])
        #expect(outer["properties"]?["any"] == [:])
        #expect(outer["properties"]?["note"] == ["type": ["string", "null"]])
        #expect(
            probe.components["SchemaProbeTestsInner"]
                == ["type": "object", "properties": ["name": ["type": "string"]], "required": ["name"]]
        )
    }

    /// `@ExplicitNull` sends `null` rather than leaving the key out, and reads an absent key as `nil`.
    @Test func explicitNullIsSentAndMayBeAbsent() throws {
        struct Answer: Codable, Equatable {
            @ExplicitNull var next: String?
            var more: String?
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        #expect(String(decoding: try encoder.encode(Answer(next: nil, more: nil)), as: UTF8.self) == #"{"next":null}"#)
        #expect(try JSONDecoder().decode(Answer.self, from: Data("{}".utf8)) == Answer(next: nil, more: nil))
        #expect(try JSONDecoder().decode(Answer.self, from: Data(#"{"next":"4"}"#.utf8)).next == "4")
    }
}
