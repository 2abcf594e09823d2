import MockdFormat

extension SchemaEvaluation {
    /// `unevaluatedItems` and `unevaluatedProperties` (2020-12 Core §11): applied to the items and members that no
    /// sibling keyword, and no passing in-place subschema (`allOf`, `anyOf`, `oneOf`, `if`/`then`/`else`,
    /// `dependentSchemas`, `$ref`, `$dynamicRef`), evaluated. Runs after every other keyword of the schema.
    func evaluateUnevaluated(_ context: KeywordContext, into outcome: inout SchemaOutcome) {
        if let unevaluated = context.members["unevaluatedItems"], case .array(let elements) = context.instance {
            for (index, element) in elements.enumerated() where !outcome.evaluatedItems.contains(index) {
                let result = evaluate(
                    subschema: unevaluated,
                    of: context,
                    element,
                    instancePath: context.instancePath(index),
                    keywordPath: "/unevaluatedItems"
                )
                if !result.isValid {
                    outcome.fail(
                        context.instancePath(index),
                        context.path("unevaluatedItems"),
                        "item \(index) is not allowed"
                    )
                }
            }
            outcome.evaluatedItems.formUnion(elements.indices)
        }
        if let unevaluated = context.members["unevaluatedProperties"], case .object(let object) = context.instance {
            for (name, value) in object where !outcome.evaluatedProperties.contains(name) {
                let result = evaluate(
                    subschema: unevaluated,
                    of: context,
                    value,
                    instancePath: context.instancePath(name),
                    keywordPath: "/unevaluatedProperties"
                )
                if !result.isValid {
                    outcome.fail(
                        context.instancePath(name),
                        context.path("unevaluatedProperties"),
                        "the member \"\(name)\" is not allowed"
                    )
                }
            }
            outcome.evaluatedProperties.formUnion(object.keys)
        }
    }
}
