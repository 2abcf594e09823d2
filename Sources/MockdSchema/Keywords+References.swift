import MockdFormat

extension SchemaEvaluation {
    /// `$ref` (draft 4 §7 of draft-pbryan-zyp-json-ref-03: replaces its siblings; 2020-12 Core §8.2.3.1: beside
    /// them) and `$dynamicRef` (2020-12 Core §8.2.3.2).
    func evaluateReferences(_ context: KeywordContext, into outcome: inout SchemaOutcome) {
        if case .string(let reference)? = context.members["$ref"] {
            follow(context.location.base.resolving(reference), keyword: "$ref", context, into: &outcome)
        }
        if context.dialect == .draft2020_12, case .string(let reference)? = context.members["$dynamicRef"] {
            follow(
                dynamicTarget(of: context.location.base.resolving(reference)),
                keyword: "$dynamicRef",
                context,
                into: &outcome
            )
        }
    }

    /// Where a `$dynamicRef` lands: its static target, unless that is a `$dynamicAnchor` of its resource, in which
    /// case the outermost resource of the dynamic scope that declares the same `$dynamicAnchor`.
    private func dynamicTarget(of initial: SchemaURI) -> SchemaURI {
        guard let fragment = initial.fragment, JSONPointer.tokens(ofFragment: fragment) == nil,
            registry.dynamicAnchors[initial.withoutFragment.description]?.contains(fragment) == true
        else { return initial }
        for resource in dynamicScope where registry.dynamicAnchors[resource.description]?.contains(fragment) == true {
            var target = resource
            target.fragment = fragment
            return target
        }
        return initial
    }

    private func follow(
        _ uri: SchemaURI,
        keyword: String,
        _ context: KeywordContext,
        into outcome: inout SchemaOutcome
    ) {
        guard let target = registry.location(of: uri) else {
            outcome.fail(context.instancePath, context.path(keyword), "cannot resolve the reference \(uri)")
            return
        }
        guard depth < Self.maximumDepth else {
            outcome.fail(context.instancePath, context.path(keyword), "references loop without end at \(uri)")
            return
        }
        depth += 1
        defer { depth -= 1 }
        outcome.absorb(
            evaluate(target, context.instance, instancePath: context.instancePath, schemaPath: context.path(keyword))
        )
    }
}
