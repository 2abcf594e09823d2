import MockdFormat

extension SchemaEvaluation {
    /// `multipleOf`, `maximum`, `minimum`, `exclusiveMaximum`, `exclusiveMinimum`: numbers in 2020-12
    /// (Validation §6.2), booleans qualifying `maximum`/`minimum` in draft 4 (Validation §5.1).
    func evaluateNumberKeywords(_ context: KeywordContext, into outcome: inout SchemaOutcome) {
        guard let number = context.instance.numberValue else { return }
        let members = context.members
        if let divisor = members["multipleOf"]?.numberValue, divisor > 0,
            !Self.isMultiple(context.instance, of: members["multipleOf"]!)
        {
            outcome.fail(
                context.instancePath,
                context.path("multipleOf"),
                "\(context.instance.briefText) is not a multiple of \(divisor.clean)"
            )
        }
        let draft4 = context.dialect != .draft2020_12
        if let maximum = members["maximum"]?.numberValue {
            let exclusive = draft4 && members["exclusiveMaximum"] == .bool(true)
            if exclusive ? number >= maximum : number > maximum {
                outcome.fail(
                    context.instancePath,
                    context.path("maximum"),
                    "\(context.instance.briefText) is \(exclusive ? "not less than" : "greater than") the maximum \(maximum.clean)"
                )
            }
        }
        if let minimum = members["minimum"]?.numberValue {
            let exclusive = draft4 && members["exclusiveMinimum"] == .bool(true)
            if exclusive ? number <= minimum : number < minimum {
                outcome.fail(
                    context.instancePath,
                    context.path("minimum"),
                    "\(context.instance.briefText) is \(exclusive ? "not greater than" : "less than") the minimum \(minimum.clean)"
                )
            }
        }
        if !draft4, let maximum = members["exclusiveMaximum"]?.numberValue, number >= maximum {
            outcome.fail(
                context.instancePath,
                context.path("exclusiveMaximum"),
                "\(context.instance.briefText) is not less than \(maximum.clean)"
            )
        }
        if !draft4, let minimum = members["exclusiveMinimum"]?.numberValue, number <= minimum {
            outcome.fail(
                context.instancePath,
                context.path("exclusiveMinimum"),
                "\(context.instance.briefText) is not greater than \(minimum.clean)"
            )
        }
    }

    /// Whether `value` is an integer multiple of `divisor`: exactly for two integers, else by the quotient being
    /// whole to within 1e-9 (binary fractions cannot spell 0.01 exactly); an overflowing quotient is not.
    static func isMultiple(_ value: JSONValue, of divisor: JSONValue) -> Bool {
        if case .int(let whole) = value, case .int(let step) = divisor { return whole % step == 0 }
        guard let number = value.numberValue, let step = divisor.numberValue else { return true }
        let quotient = number / step
        guard quotient.isFinite else { return false }
        return abs(quotient - quotient.rounded()) <= 1e-9
    }
}

extension Double {
    /// The number without a trailing `.0` when it is whole (`5`, `0.5`).
    var clean: String {
        rounded() == self && abs(self) < 1e15 ? String(Int(self)) : String(self)
    }
}
