/// `request.graphql` of a mock set stub: the GraphQL operation it answers, keyed by operation name and variables
/// rather than by the body's text (GraphQL over HTTP; docs/FORMAT.md, GraphQL).
///
/// ```json
/// "request": {"method": "POST", "path": "/graphql", "graphql": {"operationName": "GetUser", "variables": {"id": "7"}}}
/// ```
///
/// A request for the operation matches whether it is sent by `POST` (JSON body) or `GET` (query parameters), with its
/// document or only its persisted-query hash, its variables in any order and with top-level `null`s left out.
public struct GraphQLEntry: Codable, Sendable, Equatable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case operationName, operationType, variables, persistedQuery, document
    }

    /// The operation's name (`operationName`, or the name of the document's only operation).
    public var operationName: String?
    /// `query`, `mutation` or `subscription`, as recorded (shown in reports; not matched).
    public var operationType: String?
    /// The variables: compared as JSON (members in any order, numbers by value); absent, `null` and `{}` are alike.
    public var variables: JSONValue?
    /// The persisted query's SHA-256 (`extensions.persistedQuery.sha256Hash`) or persisted document id: the key
    /// when the operation has no name.
    public var persistedQuery: String?
    /// The document, the key when the operation has neither a name nor a persisted query.
    public var document: String?

    public init(
        operationName: String? = nil,
        operationType: String? = nil,
        variables: JSONValue? = nil,
        persistedQuery: String? = nil,
        document: String? = nil
    ) {
        self.operationName = operationName
        self.operationType = operationType
        self.variables = variables
        self.persistedQuery = persistedQuery
        self.document = document
    }
}

extension ScenarioFile {
    /// `match.graphql` of an override: `{"operationName": "GetUser", "variables": {"id": "7"}}`. Every given part
    /// must hold; the request must be one GraphQL operation (not a batch).
    public struct GraphQLMatchEntry: Codable, Sendable, Equatable {
        enum CodingKeys: String, CodingKey, CaseIterable { case operationName, operationType, variables }

        /// The operation's name: a string, or an operator object (`{"matches": "Get.*"}`).
        public var operationName: ValueMatchEntry?
        /// `query`, `mutation` or `subscription` (needs the document in the request).
        public var operationType: String?
        /// Variables by path (`id`, `input.email`, `ids[0]`): a JSON value (equal; an object holds these members),
        /// or an operator object on the value's text (`{"matches": "7|8"}`, `{"absent": true}`).
        public var variables: [String: GraphQLVariableMatch]?

        public init(
            operationName: ValueMatchEntry? = nil,
            operationType: String? = nil,
            variables: [String: GraphQLVariableMatch]? = nil
        ) {
            self.operationName = operationName
            self.operationType = operationType
            self.variables = variables
        }
    }
}

/// A condition on one GraphQL variable: a JSON value, or an operator object whose members are all operators
/// (`equalTo`, `caseInsensitive`, `matches`, `doesNotMatch`, `contains`, `absent`).
public enum GraphQLVariableMatch: Codable, Sendable, Equatable {
    case value(JSONValue)
    case matcher(ValueMatchEntry)

    static let operators: Set<String> = ["equalTo", "caseInsensitive", "matches", "doesNotMatch", "contains", "absent"]

    public init(from decoder: any Decoder) throws {
        let value = try JSONValue(from: decoder)
        if case .object(let members) = value, !members.isEmpty, members.keys.allSatisfy(Self.operators.contains) {
            self = .matcher(try ValueMatchEntry(from: decoder))
        } else {
            self = .value(value)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .value(let value): try value.encode(to: encoder)
        case .matcher(let matcher): try matcher.encode(to: encoder)
        }
    }
}

/// `graphqlErrors` of a response step: a GraphQL error answer in one line, `200` with `{"data": null, "errors":
/// [...]}` (GraphQL spec §7.1.2). A string is an error with that message; an object is an error as written (it needs
/// a `message`); an array holds several of either.
public typealias GraphQLErrorsEntry = JSONValue

/// `websocket.graphql`: subscriptions played over GraphQL's WebSocket protocols, keyed by operation.
///
/// ```json
/// "graphql": {"subscriptions": [
///   {"operationName": "OnMessage", "variables": {"room": "general"},
///    "events": [{"after": 500, "data": {"message": {"id": "m2", "text": "Hello"}}}], "complete": false}
/// ]}
/// ```
public struct GraphQLWebSocketScript: Codable, Sendable, Equatable {
    enum CodingKeys: String, CodingKey, CaseIterable { case subscriptions, ackPayload }

    /// The operations the endpoint answers, tried in order: the first whose name (and variables, when given) fit.
    public var subscriptions: [GraphQLSubscriptionEntry]
    /// The `payload` of `connection_ack`; none when absent.
    public var ackPayload: JSONValue?

    public init(subscriptions: [GraphQLSubscriptionEntry], ackPayload: JSONValue? = nil) {
        self.subscriptions = subscriptions
        self.ackPayload = ackPayload
    }
}

/// One operation a GraphQL WebSocket endpoint plays: its results, timed from the client's `subscribe` (`start`).
public struct GraphQLSubscriptionEntry: Codable, Sendable, Equatable {
    enum CodingKeys: String, CodingKey, CaseIterable { case operationName, variables, events, complete }

    public var operationName: String
    /// The variables a subscription must have (compared as JSON, `null` members as none); absent: any.
    public var variables: JSONValue?
    /// The results, each `after` ms after the previous one (the first after the subscription started).
    public var events: [GraphQLSubscriptionEvent]?
    /// Send `complete` after the last event (a subscription the server ended); default false: it stays open.
    public var complete: Bool?

    public init(
        operationName: String,
        variables: JSONValue? = nil,
        events: [GraphQLSubscriptionEvent]? = nil,
        complete: Bool? = nil
    ) {
        self.operationName = operationName
        self.variables = variables
        self.events = events
        self.complete = complete
    }
}

/// One result of a subscription: `data` (sent as `{"data": …}`) or a whole `payload` (`{"data": …, "errors": […]}`).
public struct GraphQLSubscriptionEvent: Codable, Sendable, Equatable {
    enum CodingKeys: String, CodingKey, CaseIterable { case after, data, payload }

    /// ms after the previous event (or the subscription's start).
    public var after: Double?
    public var data: JSONValue?
    public var payload: JSONValue?

    public init(after: Double? = nil, data: JSONValue? = nil, payload: JSONValue? = nil) {
        self.after = after
        self.data = data
        self.payload = payload
    }
}

/// A literal is a value to equal: `["id": "7", "first": 10, "withAvatar": true]`.
extension GraphQLVariableMatch: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral {
    public init(stringLiteral value: String) { self = .value(.string(value)) }
    public init(integerLiteral value: Int) { self = .value(.int(value)) }
    public init(booleanLiteral value: Bool) { self = .value(.bool(value)) }
}
