public import MockdFormat

/// The MCP tools of the control API, one per route of `ControlRoutes.all` that is not excluded: name, description
/// (the route's doc line), input schema (the route's path and query parameters, its body — spread into arguments
/// when it has properties, else one argument — and `session`), output schema (the answer's), and how arguments
/// become the request. `mockd mcp` offers these and runs them against the daemon.
public struct ControlTool: Sendable {
    /// Where an argument goes in the request.
    public enum Placement: Sendable, Equatable {
        case path
        case query
        case header
        /// A property of the JSON body.
        case bodyField
        /// The whole JSON body.
        case body
        /// `X-Mockd-Session`.
        case session
    }

    public var name: String
    public var route: AnyControlRoute
    /// JSON Schema 2020-12, an object; referenced types in `$defs`.
    public var inputSchema: JSONValue
    /// The answer's schema (an object, types in `$defs`); `nil` for an answer without a body.
    public var outputSchema: JSONValue?
    /// Each argument's placement.
    public var placements: [String: Placement]
    /// For a shortcut tool (`fail_requests`): the one that makes the route's body from the arguments.
    public var shortcut: ControlShortcut?

    public var description: String { shortcut?.doc ?? route.doc }

    /// The tools, in table order (a route's shortcuts after its own tool).
    /// - Throws: What `SchemaProbe` throws (a programming error the tests catch).
    public static func all() throws -> [ControlTool] {
        try ControlRoutes.all.flatMap { route -> [ControlTool] in
            var tools: [ControlTool] = []
            if case .tool(let name) = route.mcp { tools.append(try ControlTool(name: name, route: route)) }
            for shortcut in route.shortcuts {
                tools.append(try ControlTool(name: shortcut.name, route: route, shortcut: shortcut))
            }
            return tools
        }
    }

    init(name: String, route: AnyControlRoute, shortcut: ControlShortcut? = nil) throws {
        self.name = name
        self.route = route
        self.shortcut = shortcut
        let probe = SchemaProbe(referencePrefix: "#/$defs/")
        var properties: [String: JSONValue] = [:]
        var required: [String] = []
        var placements: [String: Placement] = [:]
        for parameter in route.parameters where parameter.location != .header {
            properties[parameter.name] = SchemaProbe.merging(parameter.schema, ["description": .string(parameter.doc)])
            placements[parameter.name] = parameter.location == .path ? .path : .query
            if parameter.location == .path { required.append(parameter.name) }
        }
        if let request = shortcut?.argumentsType ?? route.requestType {
            let schema = try probe.schema(for: request)
            let resolved = Self.resolve(schema, probe.components)
            if case .object(let fields)? = resolved["properties"] {
                for (field, fieldSchema) in fields {
                    properties[field] = fieldSchema
                    placements[field] = .bodyField
                }
                if shortcut != nil || !route.requestOptional, case .array(let names)? = resolved["required"] {
                    required += names.compactMap(\.stringValue)
                }
            } else {
                properties[route.bodyName] = schema
                placements[route.bodyName] = .body
                if !route.requestOptional { required.append(route.bodyName) }
            }
        }
        properties["session"] = SchemaProbe.merging(
            ControlOpenAPI.sessionSchema,
            ["description": "the test session (X-Mockd-Session); the default session when absent"]
        )
        placements["session"] = .session
        var input: [String: JSONValue] = [
            "type": "object", "properties": .object(properties), "additionalProperties": false,
            "required": .array(required.sorted().map(JSONValue.string)),
        ]
        var output: JSONValue?
        if route.kind == .json, let answer = route.answerType {
            let schema = Self.resolve(try probe.schema(for: answer), probe.components)
            if schema["type"] == "object" { output = schema }
        }
        if !probe.components.isEmpty {
            input["$defs"] = .object(probe.components)
            output = output.map { SchemaProbe.merging($0, ["$defs": .object(probe.components)]) }
        }
        inputSchema = .object(input)
        outputSchema = output
        self.placements = placements
    }

    /// `schema`, or the component its `$ref` names.
    static func resolve(_ schema: JSONValue, _ components: [String: JSONValue]) -> JSONValue {
        guard let reference = schema["$ref"]?.stringValue, let slash = reference.lastIndex(of: "/") else {
            return schema
        }
        return components[String(reference[reference.index(after: slash)...])] ?? schema
    }
}
