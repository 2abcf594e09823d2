import MockdFormat

extension SchemaEvaluation {
    /// `type`, `enum`, `const` (2020-12 Validation §6.1; draft 4 Validation §5.5.1–2), OpenAPI 3.0's `nullable`
    /// (§4.7.24: `null` is allowed besides the declared type and values), and `format` when asserted.
    func evaluateTypeKeywords(_ context: KeywordContext, into outcome: inout SchemaOutcome) {
        let instance = context.instance
        let nullAllowed =
            context.dialect == .openAPI30 && instance == .null && context.members["nullable"] == .bool(true)
        if let type = context.members["type"], !nullAllowed {
            let names: [String]
            switch type {
            case .string(let name): names = [name]
            case .array(let list): names = list.compactMap(\.stringValue)
            default: names = []
            }
            let actual = instance.schemaTypeName
            let matches = names.contains { $0 == actual || ($0 == "number" && actual == "integer") }
            if !matches && !names.isEmpty {
                outcome.fail(
                    context.instancePath,
                    context.path("type"),
                    "expected \(names.joined(separator: " or ")), got \(actual)"
                )
            }
        }
        if case .array(let values)? = context.members["enum"], !nullAllowed,
            !values.contains(where: { $0.isSchemaEqual(to: instance) })
        {
            outcome.fail(
                context.instancePath,
                context.path("enum"),
                "\(instance.briefText) is not one of the allowed values"
            )
        }
        if context.dialect == .draft2020_12, let constant = context.members["const"],
            !constant.isSchemaEqual(to: instance)
        {
            outcome.fail(
                context.instancePath,
                context.path("const"),
                "\(instance.briefText) is not \(constant.briefText)"
            )
        }
        if assertsFormats, case .string(let format)? = context.members["format"], case .string(let text) = instance,
            let problem = FormatCheck.problem(with: text, format: format)
        {
            outcome.fail(context.instancePath, context.path("format"), problem)
        }
    }
}

extension JSONValue {
    /// The value as short JSON-like text for messages (strings quoted, containers by their size).
    var briefText: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return String(value)
        case .int(let value): return String(value)
        case .double(let value): return String(value)
        case .string(let value): return value.count > 40 ? "\"\(value.prefix(40))…\"" : "\"\(value)\""
        case .array(let elements): return "an array of \(elements.count)"
        case .object(let members): return "an object of \(members.count) members"
        }
    }
}
