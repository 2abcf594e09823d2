public import Foundation
public import MockdCore
import MockdFormat
import MockdSchema

/// One way a request or an answer breaks the OpenAPI document.
public struct ContractViolation: Sendable, Hashable, CustomStringConvertible {
    /// What part: `operation`, `status`, `path parameter id`, `query parameter limit`, `header X-Id`,
    /// `request body`, `response body`, `media type`.
    public var part: String
    /// JSON path inside a body (`$.items[0].id`), `""` elsewhere.
    public var path: String
    public var message: String

    public init(part: String, path: String = "", message: String) {
        self.part = part
        self.path = path
        self.message = message
    }

    /// `request body: $.name: expected string, got integer`.
    public var description: String { path.isEmpty ? "\(part): \(message)" : "\(part): \(path): \(message)" }
}

/// An OpenAPI document as a contract: which operation a request is, and whether a request or an answer honours it.
///
/// Requests are checked against the operation's parameters (required ones present; path, query and header values
/// against their schemas after reading the text as the schema's type) and its request body (required, media type
/// documented, JSON validated against the schema). Answers are checked for a documented status (exact, range such
/// as `4XX`, or `default`), a documented media type and a JSON body valid against its schema. Strings holding a
/// mockd placeholder (`{{email}}`) are accepted wherever they stand.
public struct OpenAPIContract: Sendable {
    public let document: OpenAPIDocument
    private let routes: [(segments: [Substring], operation: OpenAPIOperation)]

    public init(document: OpenAPIDocument) {
        self.document = document
        routes = document.operations.map { (Self.segments($0.servedPath), $0) }
    }

    /// The operation `method` and the raw `path` (no query) are, with its path parameters' raw values; a literal
    /// segment beats a template (`/pets/mine` before `/pets/{id}`, OpenAPI 3.0.3 §4.7.8).
    ///
    /// - Complexity: O(operations × path segments).
    public func operation(method: String, path: String) -> (operation: OpenAPIOperation, parameters: [String: String])?
    {
        let wanted = Self.segments(path)
        var best: (operation: OpenAPIOperation, parameters: [String: String], literals: Int)?
        for route in routes where route.operation.method == method.uppercased() && route.segments.count == wanted.count
        {
            var parameters: [String: String] = [:]
            var literals = 0
            var matches = true
            for (pattern, segment) in zip(route.segments, wanted) {
                if pattern.hasPrefix("{") && pattern.hasSuffix("}") {
                    parameters[String(pattern.dropFirst().dropLast())] =
                        String(segment).removingPercentEncoding ?? String(segment)
                } else if pattern == segment {
                    literals += 1
                } else {
                    matches = false
                    break
                }
            }
            if matches && literals > (best?.literals ?? -1) { best = (route.operation, parameters, literals) }
        }
        return best.map { ($0.operation, $0.parameters) }
    }

    /// Every violation of the contract by a request.
    ///
    /// - Parameters:
    ///   - query: The query string without `?`, as sent.
    ///   - headers: Header names (any case) and values.
    ///   - body: The request body; empty for none.
    public func check(
        method: String,
        path: String,
        query: String,
        headers: [(name: String, value: String)],
        body: Data
    ) -> [ContractViolation] {
        guard let (operation, pathValues) = self.operation(method: method, path: path) else {
            return [ContractViolation(part: "operation", message: "\(method) \(path) is not in the document")]
        }
        var violations: [ContractViolation] = []
        var queryValues: [String: [String]] = [:]
        for pair in query.split(separator: "&") where !pair.isEmpty {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = Self.decode(parts[0])
            queryValues[name, default: []].append(parts.count > 1 ? Self.decode(parts[1]) : "")
        }
        for parameter in operation.parameters {
            let texts: [String]
            switch parameter.location {
            case "path": texts = pathValues[parameter.name].map { [$0] } ?? []
            case "query": texts = queryValues[parameter.name] ?? []
            case "header":
                texts = headers.filter { $0.name.lowercased() == parameter.name.lowercased() }.map(\.value)
            default: continue
            }
            let part = "\(parameter.location) parameter \(parameter.name)"
            if texts.isEmpty {
                if parameter.required {
                    violations.append(ContractViolation(part: part, message: "required but missing"))
                }
                continue
            }
            guard let pointer = parameter.schemaPointer, let schema = document.schemas.subschema(at: pointer) else {
                continue
            }
            let schemaJSON = OpenAPIDocument.value(at: pointer, in: document.json)
            let value = ParameterValues.value(texts, schema: schemaJSON, in: document)
            for violation in schema.validate(value) {
                // A parameter's own value has no path; an element of an array parameter has `$[1]`.
                let path = violation.instancePath.isEmpty ? "" : Self.jsonPath(violation.instancePath)
                violations.append(ContractViolation(part: part, path: path, message: violation.message))
            }
        }
        if let requestBody = operation.requestBody {
            let contentType = headers.first { $0.name.lowercased() == "content-type" }?.value
            if body.isEmpty {
                if requestBody.required {
                    violations.append(ContractViolation(part: "request body", message: "required but empty"))
                }
            } else {
                violations += checkBody(
                    body,
                    contentType: contentType,
                    contents: requestBody.contents,
                    part: "request body"
                )
            }
        }
        return violations
    }

    /// Every violation of the contract by an answer `status` with `contentType` and `body` to `operation`.
    public func check(
        answerTo operation: OpenAPIOperation,
        status: Int,
        contentType: String?,
        body: Data
    ) -> [ContractViolation] {
        let response =
            operation.responses.first { $0.status == String(status) }
            ?? operation.responses.first { $0.covers(status) }
            ?? operation.responses.first { $0.status == "DEFAULT" }
        guard let response else {
            let documented = operation.responses.map(\.status).joined(separator: ", ")
            return [
                ContractViolation(part: "status", message: "\(status) is not documented (documented: \(documented))")
            ]
        }
        guard !response.contents.isEmpty else {
            return body.isEmpty
                ? []
                : [ContractViolation(part: "response body", message: "the document describes no body for \(status)")]
        }
        if body.isEmpty && status == 204 { return [] }
        return checkBody(body, contentType: contentType, contents: response.contents, part: "response body")
    }

    private func checkBody(
        _ body: Data,
        contentType: String?,
        contents: [OpenAPIMediaType],
        part: String
    ) -> [ContractViolation] {
        let type = contentType ?? "application/json"
        guard
            let media = contents.first(where: { $0.type.lowercased() == Self.bare(type) })
                ?? contents.first(where: { $0.covers(type) })
        else {
            let documented = contents.map(\.type).joined(separator: ", ")
            return [
                ContractViolation(
                    part: "media type",
                    message: "\(Self.bare(type)) is not documented for the \(part) (documented: \(documented))"
                )
            ]
        }
        guard Self.bare(type).contains("json"), let pointer = media.schemaPointer,
            let schema = document.schemas.subschema(at: pointer)
        else { return [] }
        guard let value = try? JSONValue(parsing: body) else {
            return [ContractViolation(part: part, message: "not valid JSON")]
        }
        // In JSON path order: the validator walks an object's members in a hash order that changes from run to run.
        return schema.validate(value).compactMap { violation -> ContractViolation? in
            if Self.isPlaceholder(at: violation.instancePath, in: value) { return nil }
            return ContractViolation(
                part: part,
                path: Self.jsonPath(violation.instancePath),
                message: violation.message
            )
        }
        .sorted { ($0.path, $0.message) < ($1.path, $1.message) }
    }

    /// Whether the value at the JSON Pointer `pointer` is a string holding a mockd placeholder.
    private static func isPlaceholder(at pointer: String, in value: JSONValue) -> Bool {
        guard case .string(let text)? = OpenAPIDocument.value(at: pointer, in: value) else { return false }
        return text.contains("{{")
    }

    /// `$.items[0].name` for the pointer `/items/0/name`.
    static func jsonPath(_ pointer: String) -> String {
        var path = "$"
        for token in pointer.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            let name = JSONPointerToken.unescaped(token)
            if let index = Int(name) { path += "[\(index)]" } else { path += "." + name }
        }
        return path
    }

    private static func segments(_ path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: false)
    }

    private static func bare(_ contentType: String) -> String {
        (contentType.split(separator: ";").first.map(String.init) ?? contentType).trimmingCharacters(in: .whitespaces)
            .lowercased()
    }

    private static func decode(_ text: Substring) -> String {
        let plus = text.replacingOccurrences(of: "+", with: " ")
        return plus.removingPercentEncoding ?? plus
    }
}

extension OpenAPIContract: RequestContract {
    /// `RequestContract`: the request split into path and query and checked by `check(method:path:query:…)`.
    public func violations(
        method: String,
        target: String,
        headers: [(name: String, value: String)],
        body: Data
    ) -> [String] {
        let mark = target.firstIndex(of: "?")
        let path = mark.map { String(target[..<$0]) } ?? target
        let query = mark.map { String(target[target.index(after: $0)...]) } ?? ""
        return check(method: method, path: path, query: query, headers: headers, body: body).map(\.description)
    }

    /// `RequestContract`: the answer checked by `check(answerTo:status:contentType:body:)` against the operation the
    /// request is; without its body, only the status and media type.
    public func answerViolations(
        method: String,
        target: String,
        status: Int,
        headers: [(name: String, value: String)],
        body: Data?
    ) -> [String] {
        let path = target.firstIndex(of: "?").map { String(target[..<$0]) } ?? target
        guard let (operation, _) = operation(method: method, path: path) else { return [] }
        let contentType = headers.first { $0.name.lowercased() == "content-type" }?.value
        return check(answerTo: operation, status: status, contentType: contentType, body: body ?? Data())
            .filter { body != nil || ($0.part != "response body") }
            .map(\.description)
    }
}
