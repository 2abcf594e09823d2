public import MockdFormat

/// The body of `POST /__mockd/emit`: pushes from a test, in the `emit` format of stubs and overrides.
public struct EmitRequest: Codable, Sendable, Equatable {
    /// The pushes, each `after` ms after the previous one (the first after the call); none is no error.
    public var emit: [EmitEntry]

    public init(emit: [EmitEntry]) {
        self.emit = emit
    }
}

extension EmitEntry: ControlSchemaDescribed {
    /// Any object: the daemon checks the emit format field by field and names what it refuses; its schema is `emit`
    /// in docs/schema/scenario.schema.json.
    public static var controlSchema: JSONValue {
        [
            "type": "object",
            "description":
                "one push in the emit format (docs/FORMAT.md): {\"after\"?: ms from the previous one, and one of \"websocket\": {\"path\" | \"pathPattern\", \"send\" | \"close\"}, \"events\": {\"path\" | \"pathPattern\", \"event\", \"data\", \"id\"}, \"webhook\": {\"url\", \"method\", \"headers\", \"body\"}}",
        ]
    }
    public static var schemaPlaceholder: EmitEntry { EmitEntry() }
}

/// One push `POST /__mockd/emit` scheduled.
public struct EmitReceipt: Codable, Sendable, Equatable {
    /// `websocket`, `events` or `webhook`.
    public var channel: String
    /// The connections' path as selected (`/v1/chat`, `~REGEX`, `*`), or the webhook's `METHOD URL`.
    public var target: String
    /// When it is due, in ms from the call.
    public var dueInMs: Double
    /// How many of the session's open connections it reaches now (`nil` for a webhook).
    public var openConnections: Int?

    public init(channel: String, target: String, dueInMs: Double, openConnections: Int?) {
        self.channel = channel
        self.target = target
        self.dueInMs = dueInMs
        self.openConnections = openConnections
    }
}

extension EmitReceipt: ControlSchemaNotes {
    public static var propertyNotes: [String: JSONValue] {
        [
            "channel": ["enum": ["websocket", "events", "webhook"]],
            "dueInMs": ["description": "when it is due, in ms from the call", "minimum": 0],
            "openConnections": ["minimum": 0],
        ]
    }
}

/// The answer to `POST /__mockd/emit`.
public struct EmitResult: Codable, Sendable, Equatable {
    public var session: String
    /// Each push, in the order given.
    public var pushes: [EmitReceipt]

    public init(session: String, pushes: [EmitReceipt]) {
        self.session = session
        self.pushes = pushes
    }
}

/// The arguments of the MCP tool `fail_requests`, a shortcut of `POST /__mockd/stubs`: the session's next `times`
/// requests to `method` and `path` fail with `fault`, then answer as before (an empty step passes the answer below
/// through), as `MockdClient.fail(_:_:with:times:id:)` does.
public struct FailRequests: Codable, Sendable, Equatable {
    /// The path, exact or a template (`/v1/orders/{id}`).
    public var path: String
    /// Only this method; any when absent.
    public var method: String?
    public var fault: Fault
    /// How many requests fail (1 when absent).
    public var times: Int?

    public init(path: String, method: String? = nil, fault: Fault, times: Int? = nil) {
        self.path = path
        self.method = method
        self.fault = fault
        self.times = times
    }

    /// The runtime stub it adds: `{"match": {"method"?, "path"}, "responses": [{"fault": F} × times, {}]}`.
    public var stub: JSONValue {
        var match: [String: JSONValue] = ["path": .string(path)]
        if let method { match["method"] = .string(method) }
        let failing = [JSONValue](repeating: ["fault": .string(fault.rawValue)], count: max(1, times ?? 1))
        return ["match": .object(match), "responses": .array(failing + [[:]])]
    }
}

extension Fault: ControlSchemaEnum {}

extension FailRequests: ControlSchemaNotes {
    public static var propertyNotes: [String: JSONValue] {
        [
            "times": ["minimum": 1, "maximum": 1000, "description": "how many requests fail (default 1)"],
            "path": ["description": "the path, exact or a template (/v1/orders/{id})"],
            "method": ["description": "only this method; any when absent"],
        ]
    }
}

/// The arguments of the MCP tool `add_graphql_stub`, a shortcut of `POST /__mockd/stubs`: a runtime stub for one
/// GraphQL operation, matched by operation name and variables (`match.graphql`, docs/FORMAT.md), answering `data`,
/// GraphQL `errors` or both; with neither it passes the mock set's answer through.
public struct GraphQLStubArguments: Codable, Sendable, Equatable {
    /// The operation's name (`GetUser`).
    public var operationName: String
    /// Variables the request must have, by path (`id`, `input.email`, `ids[0]`): a JSON value or an operator object
    /// (`{"matches": "7|8"}`, `{"absent": true}`); others may be present.
    public var variables: [String: JSONValue]?
    /// The endpoint's path (`/graphql`); any path when absent.
    public var path: String?
    /// The answer's `data`.
    public var data: JSONValue?
    /// GraphQL errors: a message, an error object with a message, or an array of either.
    public var errors: JSONValue?
    /// The stub's id (a stub with this id is replaced).
    public var id: String?
    /// Higher wins among runtime stubs (0 when absent).
    public var priority: Int?

    public init(
        operationName: String,
        variables: [String: JSONValue]? = nil,
        path: String? = nil,
        data: JSONValue? = nil,
        errors: JSONValue? = nil,
        id: String? = nil,
        priority: Int? = nil
    ) {
        self.operationName = operationName
        self.variables = variables
        self.path = path
        self.data = data
        self.errors = errors
        self.id = id
        self.priority = priority
    }

    /// The runtime stub it adds: `match.graphql` (and `match.path`), then `body: {"data", "errors"}` for both,
    /// `body: {"data"}` or `graphqlErrors` for one.
    public var stub: JSONValue {
        var graphql: [String: JSONValue] = ["operationName": .string(operationName)]
        if let variables { graphql["variables"] = .object(variables) }
        var match: [String: JSONValue] = ["graphql": .object(graphql)]
        if let path { match["path"] = .string(path) }
        var stub: [String: JSONValue] = ["match": .object(match)]
        if let id { stub["id"] = .string(id) }
        if let priority { stub["priority"] = .int(priority) }
        switch (data, errors) {
        case (let data?, let errors?):
            let list: [JSONValue]
            if case .array(let items) = errors { list = items } else { list = [errors] }
            let objects = list.map { error -> JSONValue in
                if case .string(let message) = error { return ["message": .string(message)] }
                return error
            }
            stub["body"] = ["data": data, "errors": .array(objects)]
        case (let data?, nil): stub["body"] = ["data": data]
        case (nil, let errors?): stub["graphqlErrors"] = errors
        case (nil, nil): break
        }
        return .object(stub)
    }
}

/// The arguments of the MCP tool `set_clock`, a shortcut of `POST /__mockd/clock`: `set` or `advanceMs`; with
/// neither it reads the clock (`GET /__mockd/clock`).
public struct SetClockArguments: Codable, Sendable, Equatable {
    /// RFC 3339 date-time with a zone: `2030-01-01T09:00:00Z`.
    public var set: String?
    /// Milliseconds to move the clock forward, 0…10⁹.
    public var advanceMs: Int?

    public init(set: String? = nil, advanceMs: Int? = nil) {
        self.set = set
        self.advanceMs = advanceMs
    }

    /// The body of `POST /__mockd/clock`; `nil` when there is nothing to change.
    /// - Throws: `ControlShortcut.Refusal` for both.
    public func body() throws -> JSONValue? {
        switch (set, advanceMs) {
        case (let set?, nil): return ["set": .string(set)]
        case (nil, let advance?): return ["advanceMs": .int(advance)]
        case (nil, nil): return nil
        case (.some, .some): throw ControlShortcut.Refusal("set_clock: give set or advanceMs, not both")
        }
    }
}

extension SetClockArguments: ControlSchemaNotes {
    public static var propertyNotes: [String: JSONValue] {
        [
            "set": ["format": "date-time", "description": "RFC 3339 date-time with a zone: 2030-01-01T09:00:00Z"],
            "advanceMs": ["minimum": 0, "maximum": 1_000_000_000, "description": "milliseconds to move the clock on"],
        ]
    }
}

/// The arguments of the MCP tool `set_seed`, a shortcut of `POST /__mockd/switches`: the session's seed, which
/// `{{fake.…}}` data and `chance` rules are a function of.
public struct SetSeedArguments: Codable, Sendable, Equatable {
    /// A whole number from 0 to 2⁵³.
    public var seed: UInt64

    public init(seed: UInt64) {
        self.seed = seed
    }
}

extension SetSeedArguments: ControlSchemaNotes {
    public static var propertyNotes: [String: JSONValue] {
        ["seed": ["minimum": 0, "maximum": 9_007_199_254_740_992, "description": "a whole number from 0 to 2^53"]]
    }
}
