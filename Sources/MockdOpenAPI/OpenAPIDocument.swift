public import Foundation
import MockdCore
public import MockdFormat
public import MockdSchema

/// An OpenAPI 3.0.x or 3.1.x document, read from JSON or YAML, with its operations listed and one schema
/// validator over the whole document (so `$ref: '#/components/schemas/Pet'` resolves inside it).
///
/// Schemas are read in OpenAPI 3.0.3's dialect (draft 4 with `nullable`, `SchemaDialect.openAPI30`) or in 3.1.0's
/// (JSON Schema 2020-12). `$ref` is followed for Path Items' Parameters, Request Bodies, Responses and Examples
/// within the document (OpenAPI 3.0.3 §4.7.23 Reference Object); references to other files are not followed.
public struct OpenAPIDocument: Sendable {
    /// The document as JSON.
    public var json: JSONValue
    /// `openapi`: `3.0.3`, `3.1.0`.
    public var version: String
    public var dialect: SchemaDialect
    /// The path of the first server's URL (`/v1` of `http://petstore.swagger.io/v1`, variables at their
    /// defaults), the prefix every path template is served under; `""` when there is none.
    public var basePath: String
    public var operations: [OpenAPIOperation]
    /// Validates the schemas of this document (`validator.subschema(at: pointer)`).
    public var schemas: JSONSchemaValidator
    /// The document's name as the user gave it.
    public var display: String

    /// HTTP methods of a Path Item (OpenAPI 3.0.3 §4.7.9), in the order operations are listed.
    static let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    /// Reads the document at `url`: JSON when its first character is `{`, else YAML.
    ///
    /// - Parameter basePath: Overrides the servers' path prefix (`""` serves the paths as written).
    /// - Throws: `OpenAPIError` naming the file and the line (YAML) or JSON Pointer of the problem: unreadable,
    ///   not JSON/YAML, no `openapi` 3.0/3.1 version, no `paths`, a `$ref` that does not resolve.
    public static func load(
        _ url: URL,
        display: String,
        basePath: String? = nil
    ) throws(OpenAPIError) -> OpenAPIDocument {
        var data: Data
        do {
            data = try UserFile.read(url, from: .argument)
        } catch {
            throw OpenAPIError(file: display, location: "", message: "cannot read the file (\(error))")
        }
        do {
            // UTF-16/32 text (a Windows editor's "Unicode") read as UTF-8: the YAML reader takes UTF-8 only.
            data = try JSONTextEncoding.utf8(data)
        } catch {
            throw OpenAPIError(file: display, location: "", message: error.description)
        }
        let json: JSONValue
        let firstByte = data.first { ![0x20, 0x0A, 0x0D, 0x09, 0xEF, 0xBB, 0xBF].contains($0) }
        if firstByte == UInt8(ascii: "{") {
            do {
                json = try JSONValue(parsing: data)
            } catch {
                throw OpenAPIError(file: display, location: "", message: "not valid JSON")
            }
        } else {
            do {
                json = try YAMLReader.read(data)
            } catch {
                throw OpenAPIError(
                    file: display,
                    location: "line \(error.line), column \(error.column)",
                    message: error.message
                )
            }
        }
        return try OpenAPIDocument(json: json, display: display, basePath: basePath)
    }

    /// The document `json`; see `load`.
    public init(json: JSONValue, display: String, basePath: String? = nil) throws(OpenAPIError) {
        self.json = json
        self.display = display
        guard let version = json["openapi"]?.stringValue else {
            let swagger = json["swagger"] != nil ? " (Swagger 2.0 is not supported; convert it to OpenAPI 3)" : ""
            throw OpenAPIError(file: display, location: "/openapi", message: "no OpenAPI version\(swagger)")
        }
        self.version = version
        if version.hasPrefix("3.0") {
            dialect = .openAPI30
        } else if version.hasPrefix("3.1") {
            dialect = .draft2020_12
        } else {
            throw OpenAPIError(
                file: display,
                location: "/openapi",
                message: "OpenAPI \(version) is not supported (3.0.x and 3.1.x are)"
            )
        }
        do {
            schemas = try JSONSchemaValidator(schema: json, dialect: dialect, baseURI: "urn:mockd:openapi")
        } catch {
            throw OpenAPIError(file: display, location: "", message: "\(error)")
        }
        self.basePath = basePath.map { $0 == "/" ? "" : $0 } ?? Self.serverPath(json)
        operations = []
        guard case .object(let paths)? = json["paths"] else {
            if json["webhooks"] != nil { return }
            throw OpenAPIError(file: display, location: "/paths", message: "no paths")
        }
        for (path, item) in paths.sorted(by: { $0.key < $1.key }) {
            let itemPointer = "/paths/" + Self.escape(path)
            let (pathItem, _) = try resolve(item, at: itemPointer)
            let shared = try parameters(of: pathItem, at: itemPointer)
            for method in Self.methods {
                guard let operation = pathItem[method] else { continue }
                let pointer = itemPointer + "/" + method
                var merged = shared
                for parameter in try parameters(of: operation, at: pointer) {
                    merged.removeAll { $0.name == parameter.name && $0.location == parameter.location }
                    merged.append(parameter)
                }
                operations.append(
                    OpenAPIOperation(
                        method: method.uppercased(),
                        path: path,
                        servedPath: self.basePath + path,
                        operationID: operation["operationId"]?.stringValue,
                        pointer: pointer,
                        parameters: merged,
                        requestBody: try requestBody(of: operation, at: pointer),
                        responses: try responses(of: operation, at: pointer)
                    )
                )
            }
        }
    }

    /// `value`, or the object its `$ref` names (followed up to 32 times), with the pointer of where it stands.
    func resolve(_ value: JSONValue, at pointer: String) throws(OpenAPIError) -> (JSONValue, String) {
        var value = value
        var pointer = pointer
        for _ in 0..<32 {
            guard case .string(let reference)? = value["$ref"] else { return (value, pointer) }
            guard reference.hasPrefix("#"), let target = Self.value(at: String(reference.dropFirst()), in: json) else {
                throw OpenAPIError(file: display, location: pointer + "/$ref", message: "cannot resolve '\(reference)'")
            }
            value = target
            pointer = String(reference.dropFirst())
        }
        throw OpenAPIError(file: display, location: pointer, message: "$ref loops")
    }

    /// The value at the JSON Pointer `pointer` in `json`.
    static func value(at pointer: String, in json: JSONValue) -> JSONValue? {
        guard !pointer.isEmpty else { return json }
        // A `$ref` is a URI fragment: percent-decoded before the pointer's own `~1`/`~0` escapes.
        return json.value(
            at: pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map { raw in
                JSONPointerToken.unescaped(String(raw).removingPercentEncoding ?? String(raw))
            }
        )
    }

    static func escape(_ token: String) -> String {
        token.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }

    private static func serverPath(_ json: JSONValue) -> String {
        guard let server = json["servers"]?[0], var url = server["url"]?.stringValue else { return "" }
        if case .object(let variables)? = server["variables"] {
            for (name, variable) in variables {
                url = url.replacingOccurrences(of: "{\(name)}", with: variable["default"]?.stringValue ?? "")
            }
        }
        if let scheme = url.range(of: "://") {
            let afterHost = url[scheme.upperBound...].firstIndex(of: "/") ?? url.endIndex
            url = String(url[afterHost...])
        }
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }

    private func parameters(of object: JSONValue, at pointer: String) throws(OpenAPIError) -> [OpenAPIParameter] {
        guard case .array(let list)? = object["parameters"] else { return [] }
        var parameters: [OpenAPIParameter] = []
        for (index, entry) in list.enumerated() {
            let (parameter, at) = try resolve(entry, at: pointer + "/parameters/\(index)")
            guard let name = parameter["name"]?.stringValue, let location = parameter["in"]?.stringValue else {
                throw OpenAPIError(file: display, location: at, message: "a parameter needs 'name' and 'in'")
            }
            parameters.append(
                OpenAPIParameter(
                    name: name,
                    location: location,
                    required: parameter["required"] == .bool(true) || location == "path",
                    schemaPointer: parameter["schema"] != nil ? at + "/schema" : nil,
                    example: parameter["example"]
                )
            )
        }
        return parameters
    }

    private func requestBody(of operation: JSONValue, at pointer: String) throws(OpenAPIError) -> OpenAPIRequestBody? {
        guard let entry = operation["requestBody"] else { return nil }
        let (body, at) = try resolve(entry, at: pointer + "/requestBody")
        return OpenAPIRequestBody(required: body["required"] == .bool(true), contents: try contents(of: body, at: at))
    }

    private func responses(of operation: JSONValue, at pointer: String) throws(OpenAPIError) -> [OpenAPIResponse] {
        guard case .object(let responses)? = operation["responses"] else { return [] }
        var list: [OpenAPIResponse] = []
        for (status, entry) in responses.sorted(by: { $0.key < $1.key }) where !status.hasPrefix("x-") {
            let (response, at) = try resolve(entry, at: pointer + "/responses/" + Self.escape(status))
            list.append(OpenAPIResponse(status: status.uppercased(), contents: try contents(of: response, at: at)))
        }
        return list
    }

    private func contents(of object: JSONValue, at pointer: String) throws(OpenAPIError) -> [OpenAPIMediaType] {
        guard case .object(let content)? = object["content"] else { return [] }
        var list: [OpenAPIMediaType] = []
        for (type, media) in content.sorted(by: { $0.key < $1.key }) {
            let at = pointer + "/content/" + Self.escape(type)
            var examples: [(String, JSONValue)] = []
            if case .object(let named)? = media["examples"] {
                for (name, example) in named.sorted(by: { $0.key < $1.key }) {
                    let (resolved, _) = try resolve(example, at: at + "/examples/" + Self.escape(name))
                    if let value = resolved["value"] { examples.append((name, value)) }
                }
            }
            list.append(
                OpenAPIMediaType(
                    type: type,
                    schemaPointer: media["schema"] != nil ? at + "/schema" : nil,
                    example: media["example"],
                    examples: examples
                )
            )
        }
        return list
    }
}

/// One operation: a method on a path (OpenAPI 3.0.3 §4.7.10).
public struct OpenAPIOperation: Sendable {
    /// `GET`.
    public var method: String
    /// The path as the document writes it (`/pets/{petId}`).
    public var path: String
    /// The path served: the base path and `path` (`/v1/pets/{petId}`), a scenario path template.
    public var servedPath: String
    public var operationID: String?
    /// The JSON Pointer of the Operation Object (`/paths/~1pets~1{petId}/get`).
    public var pointer: String
    /// Path Item and Operation parameters (the operation's win by name and location).
    public var parameters: [OpenAPIParameter]
    public var requestBody: OpenAPIRequestBody?
    /// By status as written (`200`, `4XX`, `DEFAULT`), sorted.
    public var responses: [OpenAPIResponse]

    /// `GET /pets/{petId}` (the document's path), or the operation id when there is one: `showPetById`.
    public var name: String { operationID ?? "\(method) \(path)" }
}

public struct OpenAPIParameter: Sendable {
    public var name: String
    /// `path`, `query`, `header` or `cookie`.
    public var location: String
    public var required: Bool
    public var schemaPointer: String?
    public var example: JSONValue?
}

public struct OpenAPIRequestBody: Sendable {
    public var required: Bool
    public var contents: [OpenAPIMediaType]
}

public struct OpenAPIResponse: Sendable {
    /// `200`, `4XX` or `DEFAULT`.
    public var status: String
    public var contents: [OpenAPIMediaType]

    /// Whether `code` is this response's status, directly or through a range (`4XX`).
    public func covers(_ code: Int) -> Bool {
        if status == String(code) { return true }
        return status.count == 3 && status.hasSuffix("XX") && status.first == String(code).first
    }
}

public struct OpenAPIMediaType: Sendable {
    /// `application/json`, `image/*`, `*/*`.
    public var type: String
    public var schemaPointer: String?
    public var example: JSONValue?
    /// Named examples' values, sorted by name.
    public var examples: [(String, JSONValue)]

    /// Whether the media range covers `contentType` (parameters ignored, case-insensitive, `*` wildcards).
    public func covers(_ contentType: String) -> Bool {
        let wanted =
            contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        let range = type.lowercased()
        if range == "*/*" || range == wanted { return true }
        if range.hasSuffix("/*") { return wanted.hasPrefix(range.dropLast()) }
        return false
    }

    /// Whether the media type is JSON (`application/json`, `application/problem+json`, `*/*`).
    public var isJSON: Bool {
        let lower = type.lowercased()
        return lower.contains("json") || lower == "*/*"
    }
}
