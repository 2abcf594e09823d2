import Foundation

/// A value from `JSONSerialization` together with its JSON path, for lenient reading with precise errors.
struct JSONNode {
    let value: Any?
    private let location: Location

    /// e.g. `log.entries[3].response.status`; spelt out when asked (for an error message), not at every step down,
    /// where building it cost more than reading the value.
    var path: String { location.text }

    init(_ value: Any?, path: String) {
        self.value = value
        location = .root(path)
    }

    private init(_ value: Any?, location: Location) {
        self.value = value
        self.location = location
    }

    subscript(key: String) -> JSONNode {
        let object = value as? [String: Any]
        return JSONNode(object?[key], location: .member(location, key))
    }

    var isMissing: Bool { value == nil || value is NSNull }
    var object: [String: Any]? { value as? [String: Any] }
    var array: [JSONNode]? {
        guard let items = value as? [Any] else { return nil }
        return items.enumerated().map { JSONNode($0.element, location: .element(location, $0.offset)) }
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

    /// Where a node is: a root path and the steps down from it.
    private indirect enum Location {
        case root(String)
        case member(Location, String)
        case element(Location, Int)

        var text: String {
            switch self {
            case .root(let path): return path
            case .member(let parent, let key):
                let base = parent.text
                return base.isEmpty ? key : "\(base).\(key)"
            case .element(let parent, let offset): return "\(parent.text)[\(offset)]"
            }
        }
    }
}
