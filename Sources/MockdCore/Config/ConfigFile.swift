public import Foundation

/// Reads and decodes a user's JSON file, turning every failure into a located `ConfigError`.
public enum ConfigFile {
    /// - Parameters:
    ///   - missing: The message when the file does not exist (say how to create it).
    /// - Returns: The decoded value and the raw bytes (for the unknown-field check).
    public static func decode<Value: Decodable>(
        _ type: Value.Type,
        at url: URL,
        display: String,
        missing: String
    ) throws -> (Value, Data) {
        let data = try utf8(try read(at: url, display: display, missing: missing), display: display)
        return (try decode(type, from: data, display: display), data)
    }

    /// The file's bytes; `.fileNotFound` with `missing`, or `.unreadable` saying why (a folder, permission denied).
    static func read(at url: URL, display: String, missing: String) throws -> Data {
        do {
            return try UserFile.read(url, from: .folder)
        } catch .notFound {
            throw ConfigError(.fileNotFound, file: display, message: missing)
        } catch {
            throw ConfigError(.unreadable, file: display, message: "cannot read: \(error)")
        }
    }

    /// `data` as UTF-8 (`JSONTextEncoding.utf8`).
    /// - Throws: `ConfigError` `.invalidJSON` naming the line and column of wide text that cannot be decoded.
    static func utf8(_ data: Data, display: String) throws -> Data {
        do {
            return try JSONTextEncoding.utf8(data)
        } catch {
            throw ConfigError(.invalidJSON, file: display, message: error.description)
        }
    }

    /// `data` decoded, every decoding failure as a located `ConfigError`; UTF-16/32 text is read as UTF-8
    /// (`JSONTextEncoding`), so that lines and the duplicate-key check count the text's own characters.
    static func decode<Value: Decodable>(_ type: Value.Type, from data: Data, display: String) throws -> Value {
        let data = try utf8(data, display: display)
        // JSONSerialization first: its errors name the byte (reported as a line) and the reason (too deep,
        // number out of range, invalid UTF-8), where JSONDecoder only says the data is not valid JSON.
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            let detail = JSONSyntaxLocation.parserDetail(error)
            let location = JSONSyntaxLocation.atLine(detail: detail, in: data)
            throw ConfigError(.invalidJSON, file: display, message: "not valid JSON\(location) (\(oneLine(detail)))")
        }
        if let duplicate = DuplicateKeyCheck.firstDuplicate(in: data) {
            throw ConfigError(
                .invalidJSON,
                file: display,
                jsonPath: duplicate.path,
                message: "\(duplicate.phrase); JSON parsers disagree on which one counts"
            )
        }
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let error as DecodingError {
            if case .dataCorrupted(let context) = error, context.codingPath.isEmpty,
                let root = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
                let path = ConfigFile.outOfRangeNumber(in: root, path: "")
            {
                // JSONDecoder rejects whole numbers beyond 64 bits without saying where.
                throw ConfigError(
                    .invalidValue,
                    file: display,
                    jsonPath: path,
                    message: "number out of range (whole numbers up to 9223372036854775807)"
                )
            }
            throw ConfigError.decoding(error, file: display)
        }
    }

    /// The JSON path of the first whole number beyond the 64-bit range, if any.
    static func outOfRangeNumber(in value: Any, path: String) -> String? {
        if let object = value as? [String: Any] {
            for name in object.keys.sorted() {
                if let found = outOfRangeNumber(in: object[name]!, path: DuplicateKeyCheck.PathText(path).member(name))
                {
                    return found
                }
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
