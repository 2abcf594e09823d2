import Foundation
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

    private static var tools: [Tool] {
        [
            Tool(
                name: "list_scenarios",
                description: "List the scenarios (configs/*.json) and which one the session uses.",
                properties: ["session": session],
                required: []
            ) { tools, arguments in try tools.control("GET", "scenarios", arguments) },
            Tool(
                name: "use_scenario",
                description: "Switch the session to a scenario by name; its state machines and sequences start over.",
                properties: [
                    "name": ["type": "string", "description": "Scenario name (configs/NAME.json)."], "session": session,
                ],
                required: ["name"]
            ) { tools, arguments in
                try tools.control("PUT", "scenario", arguments, body: ["name": arguments["name"]!])
            },
            Tool(
                name: "list_stubs",
                description: "List the session's runtime stubs (added through the control API), newest first.",
                properties: ["session": session],
                required: []
            ) { tools, arguments in try tools.control("GET", "stubs", arguments) },
            Tool(
                name: "add_stub",
                description:
                    "Add a runtime stub to the session, tried before the scenario's overrides and mock sets. The stub is a scenario override: {\"id\"?, \"match\": {\"method\", \"path\", \"host\", \"query\", \"headers\", \"body\"…}, \"status\", \"headers\", \"body\" or \"bodyPatch\", \"latency\", \"fault\", \"responses\": […]} (docs/FORMAT.md). A stub with an id that exists replaces it.",
                properties: [
                    "stub": ["type": "object", "description": "The stub, in the scenario override format."],
                    "session": session,
                ],
                required: ["stub"]
            ) { tools, arguments in try tools.control("POST", "stubs", arguments, body: arguments["stub"]!) },
            Tool(
                name: "replace_stub",
                description: "Replace the runtime stub with this id by a new definition, in one step.",
                properties: [
                    "id": ["type": "string", "description": "The stub's id."],
                    "stub": ["type": "object", "description": "The new definition (its id is set to `id`)."],
                    "session": session,
                ],
                required: ["id", "stub"]
            ) { tools, arguments in
                var stub = arguments["stub"] as? [String: Any] ?? [:]
                stub["id"] = arguments["id"]
                return try tools.control("POST", "stubs", arguments, body: stub)
            },
            Tool(
                name: "remove_stub",
                description: "Remove one runtime stub by id, or every runtime stub of the session when id is absent.",
                properties: ["id": ["type": "string", "description": "The stub's id."], "session": session],
                required: []
            ) { tools, arguments in
                guard let id = arguments["id"] as? String else {
                    return try tools.control("DELETE", "stubs", arguments)
                }
                var segment = CharacterSet.urlPathAllowed
                segment.remove("/")
                return try tools.control(
                    "DELETE",
                    "stubs/" + (id.addingPercentEncoding(withAllowedCharacters: segment) ?? id),
                    arguments
                )
            },
            Tool(
                name: "add_graphql_stub",
                description:
                    "Add a runtime stub for one GraphQL operation, matched by operation name and variables rather than the body's text (POST or GET, document or persisted-query hash, variables in any order): answers {\"data\": data}, a GraphQL error answer (200 {\"data\": null, \"errors\": […]}) from errors, or both. Without data and errors it passes the mock set's answer through.",
                properties: [
                    "operationName": ["type": "string", "description": "The operation's name (GetUser)."],
                    "variables": [
                        "type": "object",
                        "description":
                            "Variables the request must have, by path (id, input.email, ids[0]): a JSON value, or an operator object ({\"matches\": \"7|8\"}, {\"absent\": true}); others may be present.",
                    ],
                    "path": ["type": "string", "description": "The endpoint's path (/graphql); any path when absent."],
                    "data": ["description": "The answer's data."],
                    "errors": [
                        "description":
                            "GraphQL errors: a message, an error object with a message, or an array of either."
                    ],
                    "id": ["type": "string", "description": "The stub's id (a stub with this id is replaced)."],
                    "priority": ["type": "integer", "description": "Higher wins among runtime stubs (default 0)."],
                    "session": session,
                ],
                required: ["operationName"]
            ) { tools, arguments in
                try tools.control("POST", "stubs", arguments, body: MCPTools.graphQLStub(arguments))
            },
            Tool(
                name: "set_clock",
                description:
                    "Read or move the session's virtual clock, which {{now}}, rebased recorded dates (rebaseDates), the Date header, state timeouts and rate-limit windows read: set (an RFC 3339 date-time with a zone) or advanceMs; with neither, the clock as it is. It runs on with real time from there.",
                properties: [
                    "set": ["type": "string", "description": "RFC 3339 date-time with a zone: 2030-01-01T09:00:00Z."],
                    "advanceMs": [
                        "type": "integer", "minimum": 0, "maximum": 1_000_000_000,
                        "description": "Milliseconds to move the clock forward.",
                    ],
                    "session": session,
                ],
                required: []
            ) { tools, arguments in
                var body: [String: Any] = [:]
                if let set = arguments["set"] { body["set"] = set }
                if let advance = arguments["advanceMs"] { body["advanceMs"] = advance }
                if body.count > 1 {
                    return Outcome(text: "set_clock: give set or advanceMs, not both", isError: true, structured: nil)
                }
                return body.isEmpty
                    ? try tools.control("GET", "clock", arguments)
                    : try tools.control("POST", "clock", arguments, body: body)
            },
            Tool(
                name: "set_seed",
                description:
                    "Set the session's seed: {{fake.…}} data (names, e-mails, phones, addresses, UUIDs, numbers) and chance rules are a function of it, so a run with the same seed gets the same values. Answers the session's switches.",
                properties: [
                    "seed": [
                        "type": "integer", "minimum": 0, "maximum": 9_007_199_254_740_992,
                        "description": "A whole number from 0 to 2^53.",
                    ],
                    "session": session,
                ],
                required: ["seed"]
            ) { tools, arguments in
                try tools.control("POST", "switches", arguments, body: ["seed": arguments["seed"]!])
            },
            Tool(
                name: "replace_group",
                description:
                    "Replace the session's stub group NAME by these stubs in one atomic step (the group is created when new): a request sees the old stubs or all of the new ones, never a mix. Each stub is in the add_stub format; one bad stub refuses the call and changes nothing.",
                properties: groupProperties,
                required: ["name", "stubs"]
            ) { tools, arguments in try tools.group("PUT", arguments) },
            Tool(
                name: "add_group",
                description:
                    "Add stubs to the session's stub group NAME in one atomic step (a stub whose id exists replaces it).",
                properties: groupProperties,
                required: ["name", "stubs"]
            ) { tools, arguments in try tools.group("POST", arguments) },
            Tool(
                name: "remove_group",
                description: "Remove every stub of the session's stub group NAME in one step.",
                properties: ["name": groupProperties["name"]!, "session": session],
                required: ["name"]
            ) { tools, arguments in try tools.group("DELETE", arguments) },
            Tool(
                name: "reset",
                description: "Reset the session: sequences, state machines, rate limits and the journal start over.",
                properties: ["session": session],
                required: []
            ) { tools, arguments in try tools.control("POST", "reset", arguments) },
            Tool(
                name: "read_journal",
                description:
                    "The requests the app sent in the session, oldest first, with the stub that answered each.",
                properties: [
                    "limit": [
                        "type": "integer", "minimum": 1, "maximum": 10000, "description": "At most this many entries.",
                    ],
                    "session": session,
                ],
                required: []
            ) { tools, arguments in
                let limit = (arguments["limit"] as? Int).map { "?limit=\($0)" } ?? ""
                return try tools.control("GET", "journal" + limit, arguments)
            },
            Tool(
                name: "explain_miss",
                description:
                    "The session's requests that nothing matched, each with its nearest stubs and what differed (method, path, query, header, body, host, state).",
                properties: ["session": session],
                required: []
            ) { tools, arguments in try tools.control("GET", "unmatched", arguments) },
            Tool(
                name: "verify",
                description: "Check how often the app sent a request: exactly `count` times or `atLeast` times.",
                properties: [
                    "path": ["type": "string", "description": "The path, e.g. /v1/orders (the query is ignored)."],
                    "method": ["type": "string"], "host": ["type": "string"],
                    "count": ["type": "integer", "minimum": 0], "atLeast": ["type": "integer", "minimum": 0],
                    "session": session,
                ],
                required: ["path"]
            ) { tools, arguments in
                var body: [String: Any] = [:]
                for key in ["path", "method", "host", "count", "atLeast"] { body[key] = arguments[key] }
                return try tools.control("POST", "verify", arguments, body: body)
            },
            Tool(
                name: "emit",
                description:
                    "Push to the session's open connections now or after a delay, as a stub's emit does (docs/FORMAT.md): each entry {\"after\"?: ms from the previous one, and one of \"websocket\": {\"path\" | \"pathPattern\", \"send\" | \"close\"}, \"events\": {\"path\" | \"pathPattern\", \"event\", \"data\", \"id\"}, \"webhook\": {\"url\", \"method\", \"headers\", \"body\"}}. Returns each push's channel, target, due time and how many open connections it reaches now; the journal links what it sent.",
                properties: [
                    "emit": [
                        "type": "array", "items": ["type": "object"], "minItems": 1,
                        "description": "The pushes, in the emit format.",
                    ],
                    "session": session,
                ],
                required: ["emit"]
            ) { tools, arguments in try tools.control("POST", "emit", arguments, body: ["emit": arguments["emit"]!]) },
            Tool(
                name: "fail_requests",
                description:
                    "Make the session's next requests to a path fail, then answer as before. Client faults (offline, dnsFailure, tlsFailure, timeout, cancelled) are raised in the app by MockdAppRedirect as URLError (notConnectedToInternet, cannotFindHost, secureConnectionFailed, timedOut, cancelled); a client without it gets a reset (no answer for timeout). Wire faults (connectionReset, emptyResponse, truncatedBody, malformedChunk, noResponse) break the connection.",
                properties: [
                    "path": ["type": "string", "description": "The path, exact or a template (/v1/orders/{id})."],
                    "method": ["type": "string", "description": "Only this method; any when absent."],
                    "fault": ["type": "string", "enum": Fault.allCases.map(\.rawValue)],
                    "times": [
                        "type": "integer", "minimum": 1, "maximum": 1000,
                        "description": "How many requests fail (default 1).",
                    ],
                    "session": session,
                ],
                required: ["path", "fault"]
            ) { tools, arguments in
                var match: [String: Any] = ["path": arguments["path"]!]
                if let method = arguments["method"] { match["method"] = method }
                let times = arguments["times"] as? Int ?? 1
                let failing = [[String: Any]](repeating: ["fault": arguments["fault"]!], count: max(1, times))
                return try tools.control(
                    "POST",
                    "stubs",
                    arguments,
                    body: ["match": match, "responses": failing + [[:]]]
                )
            },
            Tool(
                name: "list_sessions",
                description: "The sessions the daemon keeps, with their scenario and request counts.",
                properties: [:],
                required: []
            ) { tools, arguments in try tools.control("GET", "sessions", arguments) },
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

    private static var groupProperties: [String: Any] {
        [
            "name": [
                "type": "string", "description": "The group's name: 1–128 letters, digits, '-', '.', '_' or '~'.",
            ],
            "stubs": [
                "type": "array", "items": ["type": "object"],
                "description": "The stubs, each in the add_stub format; those without an id are named NAME.1, NAME.2…",
            ],
            "session": session,
        ]
    }

    /// `add_graphql_stub`'s arguments as a scenario override: `match.graphql` and `body` / `graphqlErrors`
    /// (docs/FORMAT.md, GraphQL).
    static func graphQLStub(_ arguments: [String: Any]) -> [String: Any] {
        var graphql: [String: Any] = ["operationName": arguments["operationName"]!]
        if let variables = arguments["variables"] { graphql["variables"] = variables }
        var match: [String: Any] = ["graphql": graphql]
        if let path = arguments["path"] { match["path"] = path }
        var stub: [String: Any] = ["match": match]
        for name in ["id", "priority"] { if let value = arguments[name] { stub[name] = value } }
        switch (arguments["data"], arguments["errors"]) {
        case (let data?, let errors?):
            let list = (errors as? [Any]) ?? [errors]
            stub["body"] = ["data": data, "errors": list.map { ($0 as? String).map { ["message": $0] } ?? $0 }]
        case (let data?, nil): stub["body"] = ["data": data]
        case (nil, let errors?): stub["graphqlErrors"] = errors
        case (nil, nil): break
        }
        return stub
    }

    /// `/__mockd/groups/NAME` with `method`, the stubs as the body (none for `DELETE`).
    private func group(_ method: String, _ arguments: [String: Any]) throws -> Outcome {
        var segment = CharacterSet.urlPathAllowed
        segment.remove("/")
        let name = arguments["name"] as! String
        return try control(
            method,
            "groups/" + (name.addingPercentEncoding(withAllowedCharacters: segment) ?? name),
            arguments,
            body: method == "DELETE" ? nil : ["stubs": arguments["stubs"]!]
        )
    }

    /// `tools/list`'s tools: name, description and input schema (JSON Schema 2020-12).
    var definitions: [[String: Any]] {
        Self.tools.map { tool in
            [
                "name": tool.name, "description": tool.description,
                "inputSchema": [
                    "type": "object", "properties": tool.properties, "required": tool.required,
                    "additionalProperties": false,
                ] as [String: Any],
            ]
        }
    }

    func has(_ name: String) -> Bool { Self.tools.contains { $0.name == name } }

    /// Runs tool `name`; wrong arguments and failures are tool errors with one line.
    func call(_ name: String, _ arguments: [String: Any]) -> Outcome {
        let tool = Self.tools.first { $0.name == name }!
        if let problem = Self.problem(arguments, tool) { return Outcome(text: problem, isError: true, structured: nil) }
        do {
            return try tool.run(self, arguments)
        } catch {
            return Outcome(text: "mockd is not reachable: \(error)", isError: true, structured: nil)
        }
    }

    /// The first way `arguments` break the tool's schema (required, unknown, or mistyped fields).
    private static func problem(_ arguments: [String: Any], _ tool: Tool) -> String? {
        for name in tool.required where arguments[name] == nil { return "\(tool.name): \"\(name)\" is required" }
        for (name, value) in arguments.sorted(by: { $0.key < $1.key }) {
            guard let property = tool.properties[name] as? [String: Any] else {
                return
                    "\(tool.name): unknown argument \"\(name)\" (known: \(tool.properties.keys.sorted().joined(separator: ", ")))"
            }
            let type = property["type"] as? String
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
                return "\(tool.name): \"\(name)\" must be \(article) \(type ?? "value")"
            }
            if type == "integer" {
                let minimum = property["minimum"] as? Int ?? Int.min
                let maximum = property["maximum"] as? Int ?? Int.max
                guard let number = (value as? NSNumber).flatMap({ Int(exactly: $0.doubleValue) }), number >= minimum,
                    number <= maximum
                else {
                    return
                        "\(tool.name): \"\(name)\" must be a whole number from \(minimum == Int.min ? "any" : String(minimum)) to \(maximum == Int.max ? "any" : String(maximum))"
                }
            }
            if let pattern = property["pattern"] as? String, let text = value as? String,
                text.range(of: pattern, options: .regularExpression) == nil
            {
                return
                    "\(tool.name): \"\(name)\" '\(text)' is not a valid session id (1–128 letters, digits, '.', '_', '~', '-')"
            }
        }
        return nil
    }

    /// Whether a number `JSONSerialization` read is `true`/`false` (its Objective-C type is `char`) rather than a
    /// number: `1 as Any is Bool` holds on Linux, so `is Bool` cannot tell.
    private static func isBoolean(_ number: NSNumber) -> Bool {
        String(cString: number.objCType) == "c"
    }

    /// One control call; the daemon's JSON answer is the result, an error status a tool error with its message.
    private func control(
        _ method: String,
        _ route: String,
        _ arguments: [String: Any],
        body: Any? = nil
    ) throws -> Outcome {
        let data = try body.map { try JSONSerialization.data(withJSONObject: $0, options: [.fragmentsAllowed]) }
        let answer = try control.call(method, route, session: arguments["session"] as? String, body: data)
        let structured = try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
        if answer.status >= 400 {
            return Outcome(text: "\(answer.status): \(answer.message)", isError: true, structured: structured)
        }
        return Outcome(text: answer.text, isError: false, structured: structured)
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
