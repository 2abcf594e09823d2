public import MockdFormat

/// JSON Merge Patch (RFC 7386): `null` removes a member, objects merge recursively, anything else replaces.
public enum MergePatch {
    public static func apply(_ patch: JSONValue, to target: JSONValue) -> JSONValue {
        guard case .object(let patchObject) = patch else { return patch }
        var result: [String: JSONValue]
        if case .object(let targetObject) = target { result = targetObject } else { result = [:] }
        for (key, value) in patchObject {
            if value == .null {
                result.removeValue(forKey: key)
            } else {
                result[key] = apply(value, to: result[key] ?? .null)
            }
        }
        return .object(result)
    }
}
