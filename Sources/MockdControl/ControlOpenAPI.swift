public import Foundation
public import MockdFormat

/// The control API as an OpenAPI 3.1 document, made from `ControlRoutes.all` and the schemas `SchemaProbe` derives
/// from the request and answer types: what `GET /__mockd/openapi.json` serves and docs/control-api.openapi.json holds
/// (a test fails when the file is stale). Android (Kotlin) and web (TypeScript) teams generate their clients from it.
///
/// Each operation lists every status it can answer, and for each error status the codes it can carry (the schema of
/// the error body narrows `error` to them), so a fuzzer checking the answers against the document (schemathesis in
/// `scripts/test`) catches an undeclared status or code as well as a malformed answer.
public enum ControlOpenAPI {
    /// The path every route is under.
    public static let prefix = "/__mockd/"

    /// The document for daemon version `version`.
    /// - Throws: What `SchemaProbe` throws for a type whose schema cannot be derived (a programming error the tests
    ///   catch).
    public static func document(version: String) throws -> JSONValue {
        let probe = SchemaProbe()
        var paths: [String: JSONValue] = [:]
        for route in ControlRoutes.all {
            var item = paths[prefix + route.path] ?? [:]
            item = SchemaProbe.merging(item, [route.method.lowercased(): try operation(route, probe)])
            paths[prefix + route.path] = item
        }
        var schemas = probe.components
        _ = try probe.schema(for: ControlError.self)
        schemas = probe.components
        return [
            "openapi": "3.1.0",
            "info": [
                "title": "mockd control API",
                "version": .string(version),
                "summary": "Steer a running mockd daemon from tests: scenarios, runtime stubs, the journal, verify.",
                "description": .string(description),
                "license": ["name": "See the mockd repository"],
            ],
            "servers": [
                [
                    "url": "http://{host}:{port}",
                    "description": "a running mockd (the address it prints: listening on …)",
                    "variables": [
                        "host": ["default": "127.0.0.1"],
                        "port": ["default": "8080"],
                    ],
                ]
            ],
            "security": [[:], ["controlToken": []]],
            "paths": .object(paths),
            "components": [
                "schemas": .object(schemas),
                "parameters": [
                    "SessionHeader": [
                        "name": "X-Mockd-Session", "in": "header", "required": false,
                        "description": "the test's session (the default session when absent)",
                        "schema": sessionSchema,
                    ],
                    "SessionQuery": [
                        "name": "session", "in": "query", "required": false,
                        "description": "the session, where a header cannot be set (X-Mockd-Session wins)",
                        "schema": sessionSchema,
                    ],
                ],
                "securitySchemes": [
                    "controlToken": [
                        "type": "http", "scheme": "bearer",
                        "description": "needed when the daemon runs with --control-token",
                    ]
                ],
            ],
        ]
    }

    /// The document as served and committed: JSON, keys sorted, two-space indent, a final newline.
    public static func data(version: String) throws -> Data {
        try encoded(document(version: version))
    }

    /// `value` as the control API writes JSON: keys sorted, pretty-printed, slashes unescaped, a final newline.
    public static func encoded(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return try encoder.encode(value) + Data("\n".utf8)
    }

    /// A session id: 1–128 letters, digits, `-`, `.`, `_` or `~`.
    public static let sessionSchema: JSONValue = ["type": "string", "pattern": "^[A-Za-z0-9._~-]{1,128}$"]

    static let description = """
        Everything is JSON under /__mockd/ on the daemon's own port. Each call acts on one session, named by the \
        X-Mockd-Session header or ?session= (the default session when neither); only calls that change a session \
        create it (x-mockd-creates-session). Errors are {"error": code, "message": text} with the status of the code; \
        each operation lists the codes it can answer. With --control-token every call needs \
        Authorization: Bearer <token>. The Swift client (MockdClient) has one method per operation \
        (x-mockd-client); mockd mcp offers them as tools (x-mockd-mcp, and shortcut tools in x-mockd-mcp-shortcuts).
        """

    static func operation(_ route: AnyControlRoute, _ probe: SchemaProbe) throws -> JSONValue {
        var operation: [String: JSONValue] = [
            "operationId": .string(route.id.rawValue),
            "summary": .string(route.doc),
            "x-mockd-creates-session": .bool(route.createsSession),
            "x-mockd-client": .string("MockdClient." + route.clientMethod),
        ]
        switch route.mcp {
        case .tool(let name): operation["x-mockd-mcp"] = .string(name)
        case .excluded(let reason): operation["x-mockd-mcp"] = .string("none: " + reason)
        }
        if !route.shortcuts.isEmpty {
            operation["x-mockd-mcp-shortcuts"] = .array(route.shortcuts.map { .string($0.name) })
        }
        var parameters: [JSONValue] = route.parameters.map { parameter in
            [
                "name": .string(parameter.name), "in": .string(parameter.location.rawValue),
                "required": .bool(parameter.location == .path), "description": .string(parameter.doc),
                "schema": parameter.schema,
            ]
        }
        parameters += [
            ["$ref": "#/components/parameters/SessionHeader"], ["$ref": "#/components/parameters/SessionQuery"],
        ]
        operation["parameters"] = .array(parameters)
        if let request = route.requestType {
            operation["requestBody"] = [
                "required": .bool(!route.requestOptional),
                "content": ["application/json": ["schema": try probe.schema(for: request)]],
            ]
        }
        var responses: [String: JSONValue] = [:]
        switch route.kind {
        case .noContent:
            responses[String(route.status)] = ["description": "done; no body"]
        case .json:
            let schema = try route.answerType.map { try probe.schema(for: $0) } ?? [:]
            responses[String(route.status)] = [
                "description": .string(route.status == 201 ? "created" : "the answer"),
                "content": ["application/json": ["schema": schema]],
            ]
        case .eventStream:
            let row = try route.answerType.map { try probe.schema(for: $0) } ?? [:]
            responses[String(route.status)] = [
                "description":
                    "Server-Sent Events, each described by the schema (its `data` is one line of JSON): `hello` when the stream is open, `entry` per request with `id` its sequence number, `reset` when the journal starts over; a `: keep-alive` comment after 15 s of silence",
                "content": ["text/event-stream": ["schema": Self.eventSchema(entry: row)]],
            ]
        }
        if !route.links.isEmpty, case .object(var success)? = responses[String(route.status)] {
            var links: [String: JSONValue] = [:]
            for link in route.links {
                links[link.name] = [
                    "operationId": .string(link.route.rawValue),
                    "parameters": .object(link.parameters.mapValues(JSONValue.string)),
                ]
            }
            success["links"] = .object(links)
            responses[String(route.status)] = .object(success)
        }
        let byStatus = Dictionary(grouping: route.allErrors, by: \.status)
        for (status, codes) in byStatus {
            responses[String(status)] = try errorResponse(codes, probe)
        }
        operation["responses"] = .object(responses)
        return .object(operation)
    }

    /// One event of `GET /__mockd/journal/stream`, as OpenAPI 3.1 describes each event of a stream: its `event`
    /// name, `data` (JSON, `contentSchema`) and `id`.
    static func eventSchema(entry: JSONValue) -> JSONValue {
        func event(_ name: String, _ data: JSONValue) -> JSONValue {
            [
                "type": "object", "required": ["event", "data"],
                "properties": [
                    "event": ["const": .string(name)],
                    "data": ["type": "string", "contentMediaType": "application/json", "contentSchema": data],
                    "id": ["type": "string", "pattern": "^[0-9]+$"],
                ],
            ]
        }
        return [
            "oneOf": [
                event(
                    "hello",
                    ["type": "object", "required": ["session"], "properties": ["session": ["type": "string"]]]
                ),
                event("entry", entry),
                event("reset", ["type": "object", "maxProperties": 0]),
            ]
        ]
    }

    /// The response of one error status: its codes, and the body's schema with `error` narrowed to them (one schema
    /// per body type: `anyOf` when the codes have several).
    static func errorResponse(_ codes: [ControlErrorCode], _ probe: SchemaProbe) throws -> JSONValue {
        var variants: [JSONValue] = []
        var seen: [String] = []
        for code in codes {
            let name = SchemaProbe.componentName(code.bodyType)
            guard !seen.contains(name) else { continue }
            seen.append(name)
            let sharing = codes.filter { SchemaProbe.componentName($0.bodyType) == name }
            variants.append([
                "allOf": [try probe.schema(for: code.bodyType)],
                "properties": ["error": ["enum": .array(sharing.map { .string($0.rawValue) })]],
            ])
        }
        return [
            "description": .string(codes.map(\.rawValue).joined(separator: ", ")),
            "content": [
                "application/json": ["schema": variants.count == 1 ? variants[0] : ["anyOf": .array(variants)]]
            ],
        ]
    }
}
