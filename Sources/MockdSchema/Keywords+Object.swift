import MockdFormat

extension SchemaEvaluation {
    /// `maxProperties`, `minProperties`, `required`, 2020-12 `dependentRequired`, and draft 4 `dependencies` with a
    /// list of names (2020-12 Validation §6.5; draft 4 §5.4).
    func evaluateObjectLimits(_ context: KeywordContext, into outcome: inout SchemaOutcome) {
        guard case .object(let object) = context.instance else { return }
        let members = context.members
        if let maximum = members["maxProperties"]?.numberValue, Double(object.count) > maximum {
            outcome.fail(
                context.instancePath,
                context.path("maxProperties"),
                "\(object.count) members, more than \(maximum.clean)"
            )
        }
        if let minimum = members["minProperties"]?.numberValue, Double(object.count) < minimum {
            outcome.fail(
                context.instancePath,
                context.path("minProperties"),
                "\(object.count) members, fewer than \(minimum.clean)"
            )
        }
        if case .array(let names)? = members["required"] {
            for case .string(let name) in names where object[name] == nil {
                outcome.fail(
                    context.instancePath,
                    context.path("required"),
                    "the required member \"\(name)\" is missing"
                )
            }
        }
        let dependencyKeyword = context.dialect == .draft2020_12 ? "dependentRequired" : "dependencies"
        if case .object(let dependencies)? = members[dependencyKeyword] {
            for (trigger, value) in dependencies where object[trigger] != nil {
                guard case .array(let names) = value else { continue }
                for case .string(let name) in names where object[name] == nil {
                    outcome.fail(
                        context.instancePath,
                        context.path(dependencyKeyword),
                        "\"\(name)\" is required when \"\(trigger)\" is present"
                    )
                }
            }
        }
    }

    /// `properties`, `patternProperties`, `additionalProperties`, `propertyNames`, 2020-12 `dependentSchemas` and
    /// draft 4 `dependencies` with a schema (2020-12 Core §10.3.2; draft 4 §5.4.4–5).
    func evaluateProperties(_ context: KeywordContext, into outcome: inout SchemaOutcome) {
        guard case .object(let object) = context.instance else { return }
        let members = context.members
        var covered: Set<String> = []
        if case .object(let properties)? = members["properties"] {
            for (name, subschema) in properties {
                guard let value = object[name] else { continue }
                covered.insert(name)
                outcome.absorbViolations(
                    evaluate(
                        subschema: subschema,
                        of: context,
                        value,
                        instancePath: context.instancePath(name),
                        keywordPath: "/properties/" + JSONPointer.escape(name)
                    )
                )
            }
        }
        if case .object(let patterns)? = members["patternProperties"] {
            for (pattern, subschema) in patterns {
                for (name, value) in object where RegexCache.shared.matches(pattern, name) {
                    covered.insert(name)
                    outcome.absorbViolations(
                        evaluate(
                            subschema: subschema,
                            of: context,
                            value,
                            instancePath: context.instancePath(name),
                            keywordPath: "/patternProperties/" + JSONPointer.escape(pattern)
                        )
                    )
                }
            }
        }
        outcome.evaluatedProperties.formUnion(covered)
        if let additional = members["additionalProperties"] {
            for (name, value) in object where !covered.contains(name) {
                if additional == .bool(false) {
                    outcome.fail(
                        context.instancePath(name),
                        context.path("additionalProperties"),
                        "the member \"\(name)\" is not allowed"
                    )
                    continue
                }
                outcome.absorbViolations(
                    evaluate(
                        subschema: additional,
                        of: context,
                        value,
                        instancePath: context.instancePath(name),
                        keywordPath: "/additionalProperties"
                    )
                )
                outcome.evaluatedProperties.insert(name)
            }
        }
        if context.dialect == .draft2020_12, let names = members["propertyNames"] {
            for name in object.keys {
                let result = evaluate(
                    subschema: names,
                    of: context,
                    .string(name),
                    instancePath: context.instancePath(name),
                    keywordPath: "/propertyNames"
                )
                if !result.isValid {
                    outcome.fail(
                        context.instancePath,
                        context.path("propertyNames"),
                        "the member name \"\(name)\" is not allowed"
                    )
                }
            }
        }
        let schemaDependencyKeyword = context.dialect == .draft2020_12 ? "dependentSchemas" : "dependencies"
        if case .object(let dependencies)? = members[schemaDependencyKeyword] {
            for (trigger, subschema) in dependencies where object[trigger] != nil {
                if case .array = subschema { continue }
                outcome.absorb(
                    evaluate(
                        subschema: subschema,
                        of: context,
                        context.instance,
                        instancePath: context.instancePath,
                        keywordPath: "/\(schemaDependencyKeyword)/" + JSONPointer.escape(trigger)
                    )
                )
            }
        }
    }
}
