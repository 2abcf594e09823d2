import MockdFormat

/// Parameter text as the JSON value its schema expects (OpenAPI 3.0.3 §4.7.12 `style: simple` for path and
/// header, `form` for query): `"12"` is the integer 12 under `type: integer`, `true` a boolean, `a,b` (or the
/// repeated values of an exploded query) an array. Text that does not read as the type stays a string, so the
/// schema reports it.
enum ParameterValues {
    static func value(_ texts: [String], schema: JSONValue?, in document: OpenAPIDocument) -> JSONValue {
        let resolved = resolvedSchema(schema, in: document)
        let type = typeName(resolved)
        if type == "array" {
            let items = resolvedSchema(resolved?["items"], in: document)
            let parts =
                texts.count == 1
                ? texts[0].split(separator: ",", omittingEmptySubsequences: false).map(String.init) : texts
            return .array(parts.map { scalar($0, type: typeName(items)) })
        }
        return scalar(texts.first ?? "", type: type)
    }

    static func scalar(_ text: String, type: String?) -> JSONValue {
        switch type {
        case "integer": return Int(text).map(JSONValue.int) ?? .string(text)
        case "number": return Int(text).map(JSONValue.int) ?? Double(text).map(JSONValue.double) ?? .string(text)
        case "boolean": return text == "true" ? .bool(true) : text == "false" ? .bool(false) : .string(text)
        default: return .string(text)
        }
    }

    private static func resolvedSchema(_ schema: JSONValue?, in document: OpenAPIDocument) -> JSONValue? {
        var current = schema
        for _ in 0..<8 {
            guard case .string(let reference)? = current?["$ref"], reference.hasPrefix("#") else { return current }
            current = OpenAPIDocument.value(at: String(reference.dropFirst()), in: document.json)
        }
        return current
    }

    private static func typeName(_ schema: JSONValue?) -> String? {
        switch schema?["type"] {
        case .string(let name)?: return name
        case .array(let names)?: return names.compactMap(\.stringValue).first { $0 != "null" }
        default: return nil
        }
    }
}
