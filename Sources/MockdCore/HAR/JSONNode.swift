import Foundation

/// A value from `JSONSerialization` together with its JSON path, for lenient reading with precise errors.
struct JSONNode {
    let value: Any?
    /// e.g. `log.entries[3].response.status`
    let path: String

    init(_ value: Any?, path: String) {
        self.value = value
        self.path = path
    }

    subscript(key: String) -> JSONNode {
        let object = value as? [String: Any]
        return JSONNode(object?[key], path: path.isEmpty ? key : "\(path).\(key)")
    }

    var isMissing: Bool { value == nil || value is NSNull }
    var object: [String: Any]? { value as? [String: Any] }
    var array: [JSONNode]? {
        guard let items = value as? [Any] else { return nil }
        return items.enumerated().map { JSONNode($0.element, path: "\(path)[\($0.offset)]") }
    }

    /// A string; numbers and booleans are not converted.
    var string: String? { value as? String }

    /// A number, also accepting a numeric string (some producers quote numbers).
    var double: Double? {
        if let number = value as? NSNumber { return number.doubleValue }
        if let text = value as? String { return Double(text.trimmingCharacters(in: .whitespaces)) }
        return nil
    }

    /// A whole number (a fractional value is truncated; producers write `200.0` rarely but do).
    var int: Int? {
        guard let double, double.isFinite, abs(double) < 1e15 else { return nil }
        return Int(double)
    }

    /// A human name for the JSON type of the value, for error messages.
    var typeName: String {
        switch value {
        case nil, is NSNull: return "null"
        case is String: return "a string"
        case is [Any]: return "an array"
        case is [String: Any]: return "an object"
        default: return "a number or boolean"
        }
    }
}
