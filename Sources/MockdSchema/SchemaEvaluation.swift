import MockdFormat

/// The result of evaluating one schema against one instance: its violations and, for
/// `unevaluatedProperties`/`unevaluatedItems`, the annotations of which members and items it evaluated.
struct SchemaOutcome {
    var violations: [SchemaViolation] = []
    var evaluatedProperties: Set<String> = []
    var evaluatedItems: Set<Int> = []

    var isValid: Bool { violations.isEmpty }

    /// Takes in an applicator's subschema result: its violations, and its annotations only when it passed
    /// (2020-12 Core §7.7.1.3: a failed subschema's annotations are dropped).
    mutating func absorb(_ other: SchemaOutcome) {
        if other.isValid {
            evaluatedProperties.formUnion(other.evaluatedProperties)
            evaluatedItems.formUnion(other.evaluatedItems)
        } else {
            violations += other.violations
        }
    }

    /// Takes in the violations of a subschema applied to a member or item: its annotations are about another
    /// instance location and stay there.
    mutating func absorbViolations(_ child: SchemaOutcome) {
        violations += child.violations
    }

    /// Takes in the annotations of a passed subschema without its violations.
    mutating func absorbAnnotations(_ other: SchemaOutcome) {
        guard other.isValid else { return }
        evaluatedProperties.formUnion(other.evaluatedProperties)
        evaluatedItems.formUnion(other.evaluatedItems)
    }

    mutating func fail(_ instancePath: String, _ schemaPath: String, _ message: String) {
        violations.append(SchemaViolation(instancePath: instancePath, schemaPath: schemaPath, message: message))
    }
}

/// One validation: the walk over schema and instance, with the dynamic scope `$dynamicRef` needs.
///
/// A class so that the scope is shared by the recursive walk; one per `validate` call, never shared between
/// threads.
final class SchemaEvaluation {
    let registry: SchemaRegistry
    let assertsFormats: Bool
    /// The schema resources entered, outermost first (2020-12 Core §7.1 dynamic scope).
    var dynamicScope: [SchemaURI] = []
    /// How many references deep the walk is; a schema that refers to itself without consuming the instance stops
    /// at `maximumDepth` as a violation instead of overflowing the stack.
    var depth = 0
    static let maximumDepth = 256

    init(registry: SchemaRegistry, assertsFormats: Bool) {
        self.registry = registry
        self.assertsFormats = assertsFormats
    }

    /// Evaluates `location.schema` against `instance`.
    func evaluate(
        _ location: SchemaLocation,
        _ instance: JSONValue,
        instancePath: String,
        schemaPath: String
    ) -> SchemaOutcome {
        var outcome = SchemaOutcome()
        switch location.schema {
        case .bool(true): return outcome
        case .bool(false):
            outcome.fail(instancePath, schemaPath, "no value is allowed here (schema false)")
            return outcome
        case .object: break
        default: return outcome
        }
        guard case .object(let members) = location.schema else { return outcome }
        var location = location
        if let base = SchemaRegistry.identifier(of: location.schema, base: location.base, dialect: location.dialect),
            let registered = registry.resources[base.description]
        {
            location.base = base
            location.dialect = registered.dialect
            location.vocabularies = registered.vocabularies
        }
        let entered = dynamicScope.last != location.base
        if entered { dynamicScope.append(location.base) }
        defer { if entered { dynamicScope.removeLast() } }

        let context = KeywordContext(
            members: members,
            location: location,
            instance: instance,
            instancePath: instancePath,
            schemaPath: schemaPath
        )
        evaluateReferences(context, into: &outcome)
        if location.dialect.referenceReplacesSiblings && members["$ref"] != nil { return outcome }
        if location.vocabularies.contains(.validation) {
            evaluateTypeKeywords(context, into: &outcome)
            evaluateNumberKeywords(context, into: &outcome)
            evaluateStringKeywords(context, into: &outcome)
            evaluateArrayLimits(context, into: &outcome)
            evaluateObjectLimits(context, into: &outcome)
        }
        if location.vocabularies.contains(.applicator) {
            evaluateCombinators(context, into: &outcome)
            evaluateConditionals(context, into: &outcome)
            evaluateItems(context, into: &outcome)
            evaluateProperties(context, into: &outcome)
        }
        if location.dialect == .draft2020_12 && location.vocabularies.contains(.unevaluated) {
            evaluateUnevaluated(context, into: &outcome)
        }
        return outcome
    }

    /// Evaluates a subschema found under the current one (`properties/x`, `allOf/0`): same base and dialect.
    func evaluate(
        subschema: JSONValue,
        of context: KeywordContext,
        _ instance: JSONValue,
        instancePath: String,
        keywordPath: String
    ) -> SchemaOutcome {
        var location = context.location
        location.schema = subschema
        return evaluate(location, instance, instancePath: instancePath, schemaPath: context.schemaPath + keywordPath)
    }
}

/// The schema object under evaluation, its location and the instance: what each keyword reads.
struct KeywordContext {
    var members: [String: JSONValue]
    var location: SchemaLocation
    var instance: JSONValue
    var instancePath: String
    var schemaPath: String

    var dialect: SchemaDialect { location.dialect }

    /// The pointer of `keyword` in the schema.
    func path(_ keyword: String) -> String { schemaPath + "/" + JSONPointer.escape(keyword) }

    /// The instance pointer of member `name` or element `index`.
    func instancePath(_ name: String) -> String { instancePath + "/" + JSONPointer.escape(name) }
    func instancePath(_ index: Int) -> String { instancePath + "/" + String(index) }
}
