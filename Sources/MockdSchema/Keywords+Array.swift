import MockdFormat

extension SchemaEvaluation {
    /// `maxItems`, `minItems`, `uniqueItems` (2020-12 Validation §6.4; draft 4 §5.3).
    func evaluateArrayLimits(_ context: KeywordContext, into outcome: inout SchemaOutcome) {
        guard case .array(let elements) = context.instance else { return }
        let members = context.members
        if let maximum = members["maxItems"]?.numberValue, Double(elements.count) > maximum {
            outcome.fail(
                context.instancePath,
                context.path("maxItems"),
                "\(elements.count) items, more than \(maximum.clean)"
            )
        }
        if let minimum = members["minItems"]?.numberValue, Double(elements.count) < minimum {
            outcome.fail(
                context.instancePath,
                context.path("minItems"),
                "\(elements.count) items, fewer than \(minimum.clean)"
            )
        }
        if members["uniqueItems"] == .bool(true) {
            outer: for first in elements.indices {
                for second in elements.indices
                where second > first && elements[first].isSchemaEqual(to: elements[second]) {
                    outcome.fail(
                        context.instancePath,
                        context.path("uniqueItems"),
                        "items \(first) and \(second) are equal"
                    )
                    break outer
                }
            }
        }
    }

    /// The applicators on arrays: 2020-12 `prefixItems`, `items`, `contains` with `minContains`/`maxContains`
    /// (Core §10.3.1); draft 4 `items` (one schema or a list) and `additionalItems` (§5.3.1).
    func evaluateItems(_ context: KeywordContext, into outcome: inout SchemaOutcome) {
        guard case .array(let elements) = context.instance else { return }
        let members = context.members
        var prefixCount = 0
        let prefix: [JSONValue]?
        let rest: JSONValue?
        let restKeyword: String
        if context.dialect == .draft2020_12 {
            if case .array(let list)? = members["prefixItems"] { prefix = list } else { prefix = nil }
            rest = members["items"]
            restKeyword = "items"
        } else if case .array(let list)? = members["items"] {
            prefix = list
            rest = members["additionalItems"]
            restKeyword = "additionalItems"
        } else {
            prefix = nil
            rest = members["items"]
            restKeyword = "items"
        }
        if let prefix {
            let prefixKeyword = context.dialect == .draft2020_12 ? "prefixItems" : "items"
            prefixCount = min(prefix.count, elements.count)
            for index in 0..<prefixCount {
                let result = evaluate(
                    subschema: prefix[index],
                    of: context,
                    elements[index],
                    instancePath: context.instancePath(index),
                    keywordPath: "/\(prefixKeyword)/\(index)"
                )
                outcome.absorbViolations(result)
                outcome.evaluatedItems.insert(index)
            }
        }
        if let rest, elements.count > prefixCount {
            for index in prefixCount..<elements.count {
                let result = evaluate(
                    subschema: rest,
                    of: context,
                    elements[index],
                    instancePath: context.instancePath(index),
                    keywordPath: "/" + restKeyword
                )
                outcome.absorbViolations(result)
                outcome.evaluatedItems.insert(index)
            }
        }
        if context.dialect == .draft2020_12, let contains = members["contains"] {
            var matched: [Int] = []
            for (index, element) in elements.enumerated() {
                let result = evaluate(
                    subschema: contains,
                    of: context,
                    element,
                    instancePath: context.instancePath(index),
                    keywordPath: "/contains"
                )
                if result.isValid { matched.append(index) }
            }
            outcome.evaluatedItems.formUnion(matched)
            let minimum = members["minContains"]?.numberValue ?? 1
            if Double(matched.count) < minimum {
                outcome.fail(
                    context.instancePath,
                    context.path(members["minContains"] == nil ? "contains" : "minContains"),
                    "\(matched.count) items match the contains schema, fewer than \(minimum.clean)"
                )
            }
            if let maximum = members["maxContains"]?.numberValue, Double(matched.count) > maximum {
                outcome.fail(
                    context.instancePath,
                    context.path("maxContains"),
                    "\(matched.count) items match the contains schema, more than \(maximum.clean)"
                )
            }
        }
    }
}
