public import MockdFormat

/// A compiled JSON Schema that validates instances: draft 4, OpenAPI 3.0's draft 4 dialect, or 2020-12.
///
/// Build it once (references are indexed and remote documents fetched then), validate many times from any
/// thread. `format` is an annotation (2020-12 Validation §7.2.1; draft 4 §7.2 leaves assertion optional): the
/// validator never fails an instance for its format unless `assertsFormats` is set, then it checks `date-time`,
/// `date`, `time`, `email`, `uuid`, `ipv4`, `ipv6` and `uri`.
///
/// ```swift
/// let validator = try JSONSchemaValidator(schema: ["type": "integer", "minimum": 1], dialect: .draft2020_12)
/// validator.validate(0)  // [$: 0 is less than the minimum 1]
/// ```
public struct JSONSchemaValidator: Sendable {
    let registry: SchemaRegistry
    let root: SchemaLocation
    /// Whether `format` is asserted (the Format-Assertion vocabulary) rather than an annotation.
    public var assertsFormats: Bool

    /// Compiles `schema`.
    ///
    /// - Parameters:
    ///   - schema: the root schema (an object, or `true`/`false` in 2020-12).
    ///   - dialect: the dialect when the schema has no known `$schema` (a `$schema` naming draft 4 or 2020-12 wins,
    ///     except that `openAPI30` stays `openAPI30`).
    ///   - baseURI: the URI the root is read from (default `urn:mockd:schema`), against which its relative
    ///     identifiers and references resolve.
    ///   - documents: other documents by their absolute URI (without fragment), for references that name them;
    ///     the default knows none.
    ///   - assertsFormats: see the property (default `false`).
    /// - Throws: `SchemaError` when a reference in the schema cannot be resolved.
    public init(
        schema: JSONValue,
        dialect: SchemaDialect,
        baseURI: String = "urn:mockd:schema",
        documents: @escaping (String) -> JSONValue? = { _ in nil },
        assertsFormats: Bool = false
    ) throws {
        var registry = SchemaRegistry()
        let base = SchemaURI(baseURI)
        registry.add(schema, at: base, dialect: dialect, retrieve: documents)
        self.registry = registry
        guard let root = registry.resources[base.withoutFragment.description] else {
            throw SchemaError(message: "the schema could not be indexed", pointer: "")
        }
        var located = root
        if let fragment = base.fragment,
            let target = registry.location(of: base.withoutFragment.resolving("#" + fragment))
        {
            located = target
        }
        self.root = located
        self.assertsFormats = assertsFormats
    }

    /// The schema the pointer `fragment` names inside the root document (`/components/schemas/Pet`), as a
    /// validator sharing this one's index: how OpenAPI validates against one Schema Object of a whole document.
    ///
    /// - Returns: `nil` when nothing stands at that pointer.
    public func subschema(at pointer: String) -> JSONSchemaValidator? {
        guard let location = registry.location(of: root.base.resolving("#" + pointer)) else { return nil }
        return JSONSchemaValidator(registry: registry, root: location, assertsFormats: assertsFormats)
    }

    private init(registry: SchemaRegistry, root: SchemaLocation, assertsFormats: Bool) {
        self.registry = registry
        self.root = root
        self.assertsFormats = assertsFormats
    }

    /// Every violation of the schema by `instance`, in evaluation order; empty when it is valid.
    ///
    /// - Complexity: O(size of instance × schema), more when `anyOf`/`oneOf` branches overlap.
    public func validate(_ instance: JSONValue) -> [SchemaViolation] {
        let evaluation = SchemaEvaluation(registry: registry, assertsFormats: assertsFormats)
        return evaluation.evaluate(root, instance, instancePath: "", schemaPath: "").violations
    }

    /// Whether `instance` is valid (stops at nothing less than a full evaluation, so it costs what `validate` does).
    public func isValid(_ instance: JSONValue) -> Bool { validate(instance).isEmpty }
}

/// A schema this validator cannot use, with the JSON Pointer of the offending keyword.
public struct SchemaError: Error, Sendable, CustomStringConvertible {
    public var message: String
    /// Where in the schema (`/properties/a/$ref`).
    public var pointer: String

    public var description: String { pointer.isEmpty ? message : "\(pointer): \(message)" }
}
