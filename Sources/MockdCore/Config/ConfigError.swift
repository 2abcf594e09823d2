import Foundation

/// A problem with a mock set, scenario or other file the user wrote, located by file and JSON path.
///
/// `description` is the one line printed to the user: `file: JSON path: message`.
public typealias ConfigError = LocatedError<ConfigErrorCode>

/// What kind of problem a `ConfigError` is.
public struct ConfigErrorCode: Hashable, Sendable, CustomStringConvertible {
    private enum Value: String { case fileNotFound, invalidJSON, invalidValue, unsupportedVersion, unreadable }
    private let value: Value
    private init(_ value: Value) { self.value = value }

    /// The file does not exist.
    public static let fileNotFound = ConfigErrorCode(.fileNotFound)
    /// The file is not valid JSON.
    public static let invalidJSON = ConfigErrorCode(.invalidJSON)
    /// A field has a wrong type or value.
    public static let invalidValue = ConfigErrorCode(.invalidValue)
    /// The file's `version` is newer than this mockd understands.
    public static let unsupportedVersion = ConfigErrorCode(.unsupportedVersion)
    /// The file exists but could not be read.
    public static let unreadable = ConfigErrorCode(.unreadable)

    public var description: String { value.rawValue }
}

extension ConfigError {
    /// Turns a `DecodingError` into a located `ConfigError`.
    static func decoding(_ error: DecodingError, file: String) -> ConfigError {
        switch error {
        case .typeMismatch(let type, let context):
            return ConfigError(
                .invalidValue,
                file: file,
                jsonPath: jsonPath(context.codingPath),
                message: "expected \(typeName(type))"
            )
        case .valueNotFound(let type, let context):
            return ConfigError(
                .invalidValue,
                file: file,
                jsonPath: jsonPath(context.codingPath),
                message: "expected \(typeName(type)), found null"
            )
        case .keyNotFound(let key, let context):
            return ConfigError(
                .invalidValue,
                file: file,
                jsonPath: jsonPath(context.codingPath + [key]),
                message: "required field is missing"
            )
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                let detail =
                    (context.underlyingError as? any CustomStringConvertible)?.description ?? context.debugDescription
                return ConfigError(.invalidJSON, file: file, message: "not valid JSON (\(oneLine(detail)))")
            }
            return ConfigError(
                .invalidValue,
                file: file,
                jsonPath: jsonPath(context.codingPath),
                message: oneLine(context.debugDescription)
            )
        @unknown default:
            return ConfigError(.invalidValue, file: file, message: oneLine(String(describing: error)))
        }
    }

    /// `stubs[3].request.path` from a coding path.
    static func jsonPath(_ path: [any CodingKey]) -> String {
        var result = ""
        for key in path {
            if let index = key.intValue {
                result += "[\(index)]"
            } else {
                result += result.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return result.isEmpty ? "(top level)" : result
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Int.Type, is Int64.Type, is Double.Type: return "a number"
        case is Bool.Type: return "true or false"
        case is [Any].Type: return "an array"
        default:
            let name = String(describing: type)
            if name.hasPrefix("Array") { return "an array" }
            if name.hasPrefix("Dictionary") { return "an object" }
            return "an object"
        }
    }
}
