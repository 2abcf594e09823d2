public import Foundation

/// A problem with a mock set, scenario or other file the user wrote, located by file and JSON path.
///
/// `description` is the one line printed to the user: `file: JSON path: message`.
public struct ConfigError: Error, Sendable, CustomStringConvertible {
    /// What kind of problem this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String { case fileNotFound, invalidJSON, invalidValue, unsupportedVersion, unreadable }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The file does not exist.
        public static let fileNotFound = Code(.fileNotFound)
        /// The file is not valid JSON.
        public static let invalidJSON = Code(.invalidJSON)
        /// A field has a wrong type or value.
        public static let invalidValue = Code(.invalidValue)
        /// The file's `version` is newer than this mockd understands.
        public static let unsupportedVersion = Code(.unsupportedVersion)
        /// The file exists but could not be read.
        public static let unreadable = Code(.unreadable)

        public var description: String { value.rawValue }
    }

    public let code: Code
    /// The file, as given or relative to the root.
    public let file: String
    /// JSON path of the offending value (`stubs[3].request.path`), or `nil` for the whole file.
    public let jsonPath: String?
    public let message: String

    public init(_ code: Code, file: String, jsonPath: String? = nil, message: String) {
        self.code = code
        self.file = file
        self.jsonPath = jsonPath
        self.message = message
    }

    public var description: String {
        if let jsonPath, !jsonPath.isEmpty { return "\(file): \(jsonPath): \(message)" }
        return "\(file): \(message)"
    }
}

extension ConfigError {
    /// Turns a `DecodingError` into a located `ConfigError`.
    static func decoding(_ error: DecodingError, file: String) -> ConfigError {
        switch error {
        case .typeMismatch(let type, let context):
            return ConfigError(
                .invalidValue, file: file, jsonPath: jsonPath(context.codingPath),
                message: "expected \(typeName(type))"
            )
        case .valueNotFound(let type, let context):
            return ConfigError(
                .invalidValue, file: file, jsonPath: jsonPath(context.codingPath),
                message: "expected \(typeName(type)), found null"
            )
        case .keyNotFound(let key, let context):
            return ConfigError(
                .invalidValue, file: file, jsonPath: jsonPath(context.codingPath + [key]),
                message: "required field is missing"
            )
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                let detail = (context.underlyingError as? any CustomStringConvertible)?.description ?? context.debugDescription
                return ConfigError(.invalidJSON, file: file, message: "not valid JSON (\(oneLine(detail)))")
            }
            return ConfigError(
                .invalidValue, file: file, jsonPath: jsonPath(context.codingPath),
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

/// Collapses a message onto one line.
func oneLine(_ text: String) -> String {
    text.split(whereSeparator: \.isNewline).joined(separator: " ")
}

/// Reads and decodes a user's JSON file, turning every failure into a located `ConfigError`.
public enum ConfigFile {
    /// - Parameters:
    ///   - missing: The message when the file does not exist (say how to create it).
    /// - Returns: The decoded value and the raw bytes (for the unknown-field check).
    public static func decode<Value: Decodable>(_ type: Value.Type, at url: URL, display: String, missing: String) throws -> (Value, Data) {
        let data = try read(at: url, display: display, missing: missing)
        return (try decode(type, from: data, display: display), data)
    }

    /// The file's bytes; `.fileNotFound` with `missing`, or `.unreadable`.
    static func read(at url: URL, display: String, missing: String) throws -> Data {
        do {
            return try Data(contentsOf: url)
        } catch {
            if !FileManager.default.fileExists(atPath: url.path) { throw ConfigError(.fileNotFound, file: display, message: missing) }
            throw ConfigError(.unreadable, file: display, message: "cannot read: \(error.localizedDescription)")
        }
    }

    /// `data` decoded, every decoding failure as a located `ConfigError`.
    static func decode<Value: Decodable>(_ type: Value.Type, from data: Data, display: String) throws -> Value {
        // JSONSerialization first: its errors name the byte (reported as a line) and the reason (too deep,
        // number out of range, invalid UTF-8), where JSONDecoder only says the data is not valid JSON.
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            let detail = HARReader.parserDetail(error)
            var location = ""
            if let offset = HARReader.firstInvalidOffset(detail: detail), offset <= data.count {
                location = " at line \(HARReader.lineNumber(data.prefix(offset)))"
            } else if detail == HARReader.truncatedDetail, let line = HARReader.lastContentLine(data) {
                location = " at line \(line)"
            }
            throw ConfigError(.invalidJSON, file: display, message: "not valid JSON\(location) (\(oneLine(detail)))")
        }
        if let duplicate = DuplicateKeyCheck.firstDuplicate(in: data) {
            throw ConfigError(.invalidJSON, file: display, jsonPath: duplicate.path, message: "\"\(duplicate.name)\" appears twice in this object; JSON parsers disagree on which one counts")
        }
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let error as DecodingError {
            if case .dataCorrupted(let context) = error, context.codingPath.isEmpty,
                let root = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
                let path = ConfigFile.outOfRangeNumber(in: root, path: "")
            {
                // JSONDecoder rejects whole numbers beyond 64 bits without saying where.
                throw ConfigError(.invalidValue, file: display, jsonPath: path, message: "number out of range (whole numbers up to 9223372036854775807)")
            }
            throw ConfigError.decoding(error, file: display)
        }
    }

    /// The JSON path of the first whole number beyond the 64-bit range, if any.
    static func outOfRangeNumber(in value: Any, path: String) -> String? {
        if let object = value as? [String: Any] {
            for name in object.keys.sorted() {
                if let found = outOfRangeNumber(in: object[name]!, path: DuplicateKeyCheck.PathText(path).member(name)) { return found }
            }
        } else if let array = value as? [Any] {
            for (index, element) in array.enumerated() {
                if let found = outOfRangeNumber(in: element, path: "\(path)[\(index)]") { return found }
            }
        } else if let number = value as? NSNumber, !(value is Bool), number.doubleValue.rounded() == number.doubleValue,
            abs(number.doubleValue) >= 9.2e18
        {
            return path.isEmpty ? "(top level)" : path
        }
        return nil
    }
}
