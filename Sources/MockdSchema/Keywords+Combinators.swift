import MockdFormat

extension SchemaEvaluation {
    /// `allOf`, `anyOf`, `oneOf`, `not` (2020-12 Core §10.2.1; draft 4 Validation §5.5.3–6). Every branch of
    /// `anyOf`/`oneOf` is evaluated (not only up to the first match) so that the annotations of all passing
    /// branches reach `unevaluatedProperties`/`unevaluatedItems`.
    func evaluateCombinators(_ context: KeywordContext, into outcome: inout SchemaOutcome) {
        let members = context.members
        if case .array(let branches)? = members["allOf"] {
            for (index, branch) in branches.enumerated() {
                outcome.absorb(evaluateBranch(branch, "allOf", index, context))
            }
        }
        if case .array(let branches)? = members["anyOf"] {
            let results = branches.enumerated().map { evaluateBranch($1, "anyOf", $0, context) }
            let passed = results.filter(\.isValid)
            if passed.isEmpty {
                outcome.fail(
                    context.instancePath,
                    context.path("anyOf"),
                    "matches none of the \(branches.count) schemas of anyOf" + Self.firstReason(results)
                )
            }
            for result in passed { outcome.absorbAnnotations(result) }
        }
        if case .array(let branches)? = members["oneOf"] {
            let results = branches.enumerated().map { evaluateBranch($1, "oneOf", $0, context) }
            let passed = results.indices.filter { results[$0].isValid }
            if passed.count == 1 {
                outcome.absorbAnnotations(results[passed[0]])
            } else if passed.isEmpty {
                outcome.fail(
                    context.instancePath,
                    context.path("oneOf"),
                    "matches none of the \(branches.count) schemas of oneOf" + Self.firstReason(results)
                )
            } else {
                outcome.fail(
                    context.instancePath,
                    context.path("oneOf"),
                    "matches \(passed.count) schemas of oneOf (\(passed.map(String.init).joined(separator: ", "))), not exactly one"
                )
            }
        }
        if let negated = members["not"] {
            let result = evaluate(
                subschema: negated,
                of: context,
                context.instance,
                instancePath: context.instancePath,
                keywordPath: "/not"
            )
            if result.isValid {
                outcome.fail(context.instancePath, context.path("not"), "matches the schema of not")
            }
        }
    }

    /// `if`, `then`, `else` (2020-12 Core §10.2.2): `if`'s annotations count when it passes.
    func evaluateConditionals(_ context: KeywordContext, into outcome: inout SchemaOutcome) {
        guard context.dialect == .draft2020_12, let condition = context.members["if"] else { return }
        let test = evaluate(
            subschema: condition,
            of: context,
            context.instance,
            instancePath: context.instancePath,
            keywordPath: "/if"
        )
        outcome.absorbAnnotations(test)
        let keyword = test.isValid ? "then" : "else"
        guard let branch = context.members[keyword] else { return }
        outcome.absorb(
            evaluate(
                subschema: branch,
                of: context,
                context.instance,
                instancePath: context.instancePath,
                keywordPath: "/" + keyword
            )
        )
    }

    private func evaluateBranch(
        _ branch: JSONValue,
        _ keyword: String,
        _ index: Int,
        _ context: KeywordContext
    ) -> SchemaOutcome {
        evaluate(
            subschema: branch,
            of: context,
            context.instance,
            instancePath: context.instancePath,
            keywordPath: "/\(keyword)/\(index)"
        )
    }

    /// `: ` and the first violation of the first branch, for a reader to see why the value missed.
    private static func firstReason(_ results: [SchemaOutcome]) -> String {
        guard let first = results.first?.violations.first else { return "" }
        return " (first: \(first.description))"
    }
}
