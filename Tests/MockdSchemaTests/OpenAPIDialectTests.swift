import MockdFormat
import MockdSchema
import Testing

/// OpenAPI 3.0's changes to draft 4 (§4.7.24) and the shape of reported violations.
struct OpenAPIDialectTests {
    @Test func nullableAdmitsNullOnlyInOpenAPI30() throws {
        let schema: JSONValue = ["type": "string", "nullable": true, "enum": ["a"]]
        #expect(try JSONSchemaValidator(schema: schema, dialect: .openAPI30).validate(nil) == [])
        let draft4 = try JSONSchemaValidator(schema: schema, dialect: .draft4).validate(nil)
        #expect(
            draft4.map(\.description) == ["$: expected string, got null", "$: null is not one of the allowed values"]
        )
    }

    @Test func violationsNameTheInstanceAndSchemaPaths() throws {
        let schema: JSONValue = [
            "type": "object", "required": ["id"],
            "properties": ["tags": ["type": "array", "items": ["$ref": "#/definitions/tag"]]],
            "definitions": ["tag": ["type": "string"]],
        ]
        let violations = try JSONSchemaValidator(schema: schema, dialect: .openAPI30).validate(["tags": ["a", 2]])
        #expect(
            violations == [
                SchemaViolation(
                    instancePath: "",
                    schemaPath: "/required",
                    message: "the required member \"id\" is missing"
                ),
                SchemaViolation(
                    instancePath: "/tags/1",
                    schemaPath: "/properties/tags/items/$ref/type",
                    message: "expected string, got integer"
                ),
            ]
        )
    }

    @Test func formatsAreAssertedOnlyWhenAsked() throws {
        let schema: JSONValue = ["type": "string", "format": "date-time"]
        #expect(try JSONSchemaValidator(schema: schema, dialect: .draft2020_12).validate("yesterday") == [])
        let asserting = try JSONSchemaValidator(schema: schema, dialect: .draft2020_12, assertsFormats: true)
        #expect(asserting.validate("2026-12-02T01:50:00Z") == [])
        #expect(asserting.validate("yesterday").map(\.description) == ["$: \"yesterday\" is not a valid date-time"])
    }
}
