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
