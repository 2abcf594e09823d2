import Foundation
import MockdControl
import MockdCore
import MockdFormat

/// The tools `mockd mcp` offers a coding agent: steering a daemon through its control API (scenarios, runtime
/// stubs, reset, journal, near misses, verify) and the offline commands (import a HAR, lint a set, validate a
/// scenario) run as `mockd` itself. Each has a JSON Schema for its input; a failure is a tool result with
/// `isError` and mockd's one-line message.
struct MCPTools {
    let control: ControlConnection
    /// The mockd binary, for the offline commands.
    let executable: URL
    /// The root folder the offline commands use when a call names none (the daemon's own when `mockd mcp` runs it).
    let root: String?

    struct Outcome {
        let text: String
        let isError: Bool
        let structured: [String: Any]?
    }

    private struct Tool {
        let name: String
        let description: String
        let properties: [String: Any]
        let required: [String]
        let run: (MCPTools, [String: Any]) throws -> Outcome
    }

    private static var session: [String: Any] {
        [
            "type": "string",
            "description": "The test session (X-Mockd-Session); the default session when absent.",
            "pattern": "^[A-Za-z0-9._~-]{1,128}$",
        ]
    }
    private static var rootProperty: [String: Any] {
        [
            "type": "string",
            "description": "Folder holding mocks/ and configs/ (default: the daemon's, or $MOCKD_ROOT).",
        ]
    }

    /// The control API's tools, one per route of `ControlRoutes` that is not excluded (`ControlTool`): made once.
    private static let controlTools: [ControlTool] = (try? ControlTool.all()) ?? []

    /// The offline commands, run as `mockd` itself.
    private static var tools: [Tool] {
        [
            Tool(
                name: "import_har",
                description:
                    "Import a HAR file (Proxyman, Charles, browser DevTools) into the mock set mocks/SET/ with hygiene on (secrets and personal data replaced); returns the import report.",
                properties: [
                    "file": ["type": "string", "description": "Path of the .har file."],
                    "set": ["type": "string", "description": "Mock set name to write."],
                    "hosts": ["type": "array", "items": ["type": "string"], "description": "Keep only these hosts."],
                    "merge": ["type": "boolean", "description": "Merge into the existing set."],
                    "force": ["type": "boolean", "description": "Replace the existing set."],
                    "root": rootProperty,
                ],
                required: ["file", "set"]
            ) { tools, arguments in
                var command = ["import-har", arguments["file"] as! String, "--set", arguments["set"] as! String]
                for host in arguments["hosts"] as? [String] ?? [] { command += ["--host", host] }
                if arguments["merge"] as? Bool == true { command.append("--merge") }
                if arguments["force"] as? Bool == true { command.append("--force") }
                return try tools.offline(command, arguments)
            },
            Tool(
                name: "lint_set",
                description:
                    "Report anything in a mock set that looks like a secret or personal data (exit 1 when any).",
                properties: [
                    "set": ["type": "string", "description": "Mock set name (mocks/SET)."], "root": rootProperty,
                ],
                required: ["set"]
            ) { tools, arguments in
                let root = tools.rootPath(arguments)
                return try tools.offline(
                    ["lint", root + "/mocks/" + (arguments["set"] as! String)],
                    arguments,
                    root: false
                )
            },
            Tool(
                name: "validate_scenario",
                description:
                    "Check a scenario and every mock set it uses, as the daemon loads them; one line per problem.",
                properties: [
                    "name": ["type": "string", "description": "Scenario name (configs/NAME.json)."],
                    "root": rootProperty,
                ],
                required: ["name"]
            ) { tools, arguments in
                try tools.offline(["validate", "--config", arguments["name"] as! String], arguments)
            },
            Tool(
                name: "diff",
                description:
                    "What changed between two mock sets or HAR files (mockd diff --format json): endpoints and statuses added or removed, JSON body fields changed; differing sides are no error.",
                properties: [
                    "old": [
                        "type": "string", "description": "A mock set (name under mocks/ or folder) or a .har file.",
                    ],
                    "new": [
                        "type": "string", "description": "A mock set (name under mocks/ or folder) or a .har file.",
                    ],
                    "root": rootProperty,
                ],
                required: ["old", "new"]
            ) { tools, arguments in
                // Exit 1 means "they differ": an answer, not a failure.
                try tools.offline(
                    ["diff", arguments["old"] as! String, arguments["new"] as! String, "--format", "json"],
                    arguments,
                    succeeding: [0, 1]
                )
            },
        ]
    }

    /// `tools/list`'s tools: name, description, input schema (JSON Schema 2020-12) and, for a control route that
    /// answers JSON, the output schema its structured result follows.
    var definitions: [[String: Any]] {
        let control = Self.controlTools.map { tool -> [String: Any] in
            var definition: [String: Any] = [
                "name": tool.name, "description": tool.description, "inputSchema": tool.inputSchema.foundationValue,
            ]
            if let output = tool.outputSchema { definition["outputSchema"] = output.foundationValue }
            return definition
        }
        return control
            + Self.tools.map { tool in
                [
                    "name": tool.name, "description": tool.description,
                    "inputSchema": [
                        "type": "object", "properties": tool.properties, "required": tool.required,
                        "additionalProperties": false,
                    ] as [String: Any],
                ]
            }
    }

    func has(_ name: String) -> Bool {
        Self.controlTools.contains { $0.name == name } || Self.tools.contains { $0.name == name }
    }

    /// Runs tool `name`; wrong arguments and failures are tool errors with one line.
    func call(_ name: String, _ arguments: [String: Any]) -> Outcome {
        do {
            if let tool = Self.controlTools.first(where: { $0.name == name }) {
                let properties = tool.inputSchema["properties"]?.foundationValue as? [String: Any] ?? [:]
                let required = tool.inputSchema["required"]?.foundationValue as? [String] ?? []
                if let problem = Self.problem(arguments, name: name, properties: properties, required: required) {
                    return Outcome(text: problem, isError: true, structured: nil)
                }
                return try control(tool, arguments)
            }
            let tool = Self.tools.first { $0.name == name }!
            if let problem = Self.problem(arguments, name: name, properties: tool.properties, required: tool.required) {
                return Outcome(text: problem, isError: true, structured: nil)
            }
            return try tool.run(self, arguments)
        } catch {
            return Outcome(text: "mockd is not reachable: \(error)", isError: true, structured: nil)
        }
    }

    /// The first way `arguments` break the tool's schema (required, unknown, or mistyped fields).
    private static func problem(
        _ arguments: [String: Any],
        name toolName: String,
        properties: [String: Any],
        required: [String]
    ) -> String? {
        for name in required where arguments[name] == nil { return "\(toolName): \"\(name)\" is required" }
        for (name, value) in arguments.sorted(by: { $0.key < $1.key }) {
            guard let property = properties[name] as? [String: Any] else {
                return
                    "\(toolName): unknown argument \"\(name)\" (known: \(properties.keys.sorted().joined(separator: ", ")))"
            }
            // `["string", "null"]`: an optional field of a body, which may be given as null.
            let types = property["type"] as? [String] ?? (property["type"] as? String).map { [$0] } ?? []
            if value is NSNull, types.contains("null") { continue }
            let type = types.first { $0 != "null" }
            let fits: Bool
            switch type {
            case "string": fits = value is String
            case "integer":
                fits =
                    (value as? NSNumber).map { !Self.isBoolean($0) && $0.doubleValue == $0.doubleValue.rounded() }
                    ?? false
            case "boolean": fits = (value as? NSNumber).map(Self.isBoolean) ?? (value is Bool)
            case "object": fits = value is [String: Any]
            case "array": fits = value is [Any]
            default: fits = true
            }
            if !fits {
                let article = type == "integer" || type == "object" || type == "array" ? "an" : "a"
                return "\(toolName): \"\(name)\" must be \(article) \(type ?? "value")"
            }
            if type == "integer" {
                let minimum = property["minimum"] as? Int ?? Int.min
                let maximum = property["maximum"] as? Int ?? Int.max
                guard let number = (value as? NSNumber).flatMap({ Int(exactly: $0.doubleValue) }), number >= minimum,
                    number <= maximum
                else {
                    return
                        "\(toolName): \"\(name)\" must be a whole number from \(minimum == Int.min ? "any" : String(minimum)) to \(maximum == Int.max ? "any" : String(maximum))"
                }
            }
            if let pattern = property["pattern"] as? String, let text = value as? String,
                text.range(of: pattern, options: .regularExpression) == nil
            {
                return name == "session"
                    ? "\(toolName): \"session\" '\(text)' is not a valid session id (1–128 letters, digits, '.', '_', '~', '-')"
                    : "\(toolName): \"\(name)\" '\(text)' does not match \(pattern)"
            }
        }
        return nil
    }

    /// Whether a number `JSONSerialization` read is `true`/`false` (its Objective-C type is `char`) rather than a
    /// number: `1 as Any is Bool` holds on Linux, so `is Bool` cannot tell.
    private static func isBoolean(_ number: NSNumber) -> Bool {
        String(cString: number.objCType) == "c"
    }

    /// One control call of `tool`'s route, its arguments placed in the path, the query, the body and the session
    /// header; the daemon's JSON answer is the result, an error status a tool error with its message.
    private func control(_ tool: ControlTool, _ arguments: [String: Any]) throws -> Outcome {
        var route = tool.route
        var body: Any?
        if route.requestType != nil {
            var fields: [String: Any] = [:]
            for (name, value) in arguments where tool.placements[name] == .bodyField { fields[name] = value }
            body = arguments.first { tool.placements[$0.key] == .body }?.value ?? fields
        }
        // A shortcut's arguments become the route's body (`fail_requests`: the stub that fails the next requests),
        // or, given nothing to send, the call goes to its other route (`set_clock` reads the clock).
        if let shortcut = tool.shortcut, let fields = body {
            let arguments = try JSONSerialization.data(withJSONObject: fields)
            do {
                if let made = try shortcut.body(arguments) {
                    body = made.foundationValue
                } else if let otherwise = shortcut.otherwise {
                    route = ControlRoutes.route(otherwise)
                    body = nil
                }
            } catch let refusal as ControlShortcut.Refusal {
                return Outcome(text: refusal.message, isError: true, structured: nil)
            } catch {
                let problem = "\(tool.name): the arguments do not fit its schema"
                return Outcome(text: problem, isError: true, structured: nil)
            }
        }
        var segment = CharacterSet.urlPathAllowed
        segment.remove("/")
        let path = route.segments.map { part -> String in
            switch part {
            case .literal(let text): return text
            case .parameter(let name):
                let value = Self.text(arguments[name] ?? "")
                return value.addingPercentEncoding(withAllowedCharacters: segment) ?? value
            }
        }.joined(separator: "/")
        var query = URLComponents()
        query.queryItems = arguments.sorted(by: { $0.key < $1.key }).compactMap { name, value in
            tool.placements[name] == .query ? URLQueryItem(name: name, value: Self.text(value)) : nil
        }
        let data = try body.map { try JSONSerialization.data(withJSONObject: $0, options: [.fragmentsAllowed]) }
        let target = path + ((query.queryItems?.isEmpty ?? true) ? "" : "?" + (query.percentEncodedQuery ?? ""))
        let answer = try control.call(route.method, target, session: arguments["session"] as? String, body: data)
        let structured = try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
        if answer.status >= 400 {
            return Outcome(text: "\(answer.status): \(answer.message)", isError: true, structured: structured)
        }
        if answer.body.isEmpty { return Outcome(text: "done (\(answer.status))", isError: false, structured: nil) }
        return Outcome(text: answer.text, isError: false, structured: structured)
    }

    /// An argument as it goes in a path or a query: `true`, `42`, the text.
    private static func text(_ value: Any) -> String {
        if let number = value as? NSNumber {
            return isBoolean(number) ? (number.boolValue ? "true" : "false") : number.stringValue
        }
        return value as? String ?? "\(value)"
    }

    private func rootPath(_ arguments: [String: Any]) -> String {
        arguments["root"] as? String ?? root ?? ProcessInfo.processInfo.environment["MOCKD_ROOT"]
            ?? FileManager.default.currentDirectoryPath
    }

    /// `mockd COMMAND…` run as a child; its stdout (and stderr) is the result, a non-zero exit a tool error.
    /// Runs `mockd COMMAND` (with `--root` unless `root` is false); an exit status outside `succeeding` is a tool
    /// error, and output that is a JSON object is the structured result too.
    private func offline(
        _ command: [String],
        _ arguments: [String: Any],
        root: Bool = true,
        succeeding: Set<Int32> = [0]
    ) throws -> Outcome {
        let process = Process()
        process.executableURL = executable
        process.arguments = command + (root ? ["--root", rootPath(arguments)] : [])
        var environment = ProcessInfo.processInfo.environment
        environment["MOCKD_INSECURE_CONTROL"] = nil
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = (String(decoding: out, as: UTF8.self) + String(decoding: err, as: UTF8.self))
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return Outcome(
            text: text.isEmpty ? "ok" : text,
            isError: !succeeding.contains(process.terminationStatus),
            structured: try? JSONSerialization.jsonObject(with: out) as? [String: Any]
        )
    }
}
