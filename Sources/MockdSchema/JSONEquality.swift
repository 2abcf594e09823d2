import MockdFormat

extension JSONValue {
    /// The number, when this is a JSON number.
    var numberValue: Double? {
        switch self {
        case .int(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    /// The JSON type name JSON Schema uses (`integer` for whole numbers, including `1.0`).
    var schemaTypeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .int: return "integer"
        case .double(let value): return value.rounded() == value && value.isFinite ? "integer" : "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    /// Equality as JSON Schema defines it (2020-12 Core §4.2.2): numbers by mathematical value (`1` equals
    /// `1.0`), strings by code points, arrays in order, objects by their set of members; `false` is not `0`.
    func isSchemaEqual(to other: JSONValue) -> Bool {
        switch (self, other) {
        case (.null, .null): return true
        case (.bool(let left), .bool(let right)): return left == right
        case (.int(let left), .int(let right)): return left == right
        case (.int, .double), (.double, .int), (.double, .double): return numberValue == other.numberValue
        case (.string(let left), .string(let right)): return left.unicodeScalars.elementsEqual(right.unicodeScalars)
        case (.array(let left), .array(let right)):
            return left.count == right.count && zip(left, right).allSatisfy { $0.isSchemaEqual(to: $1) }
        case (.object(let left), .object(let right)):
            guard left.count == right.count else { return false }
            for (key, value) in left {
                guard let counterpart = right[key], value.isSchemaEqual(to: counterpart) else { return false }
            }
            return true
        default: return false
        }
    }
}
