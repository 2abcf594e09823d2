public import MockdFormat

/// A runtime stub as `GET /__mockd/stubs` lists it and `GET /__mockd/stubs/ID` shows it.
public struct RuntimeStub: Codable, Sendable, Equatable {
    public var id: String
    /// The stub JSON as the daemon holds it (the scenario override format).
    public var definition: JSONValue
    /// The stub group it belongs to (`PUT /__mockd/groups/NAME`), if any.
    public var group: String?

    public init(id: String, definition: JSONValue, group: String? = nil) {
        self.id = id
        self.definition = definition
        self.group = group
    }
}

/// `GET /__mockd/stubs`: the session's runtime stubs, in the order they were added.
public struct RuntimeStubList: Codable, Sendable, Equatable {
    public var session: String
    public var stubs: [RuntimeStub]

    public init(session: String, stubs: [RuntimeStub]) {
        self.session = session
        self.stubs = stubs
    }
}

/// The answer to `POST /__mockd/stubs` (201).
public struct AddedStub: Codable, Sendable, Equatable {
    /// The stub's id: the one it was given, or `runtime-N`.
    public var id: String
    public var session: String

    public init(id: String, session: String) {
        self.id = id
        self.session = session
    }
}

/// A stub group as `GET /__mockd/groups` lists it.
public struct GroupInfo: Codable, Sendable, Equatable {
    public var name: String
    /// The ids of its stubs, in the order added.
    public var stubs: [String]

    public init(name: String, stubs: [String]) {
        self.name = name
        self.stubs = stubs
    }
}

/// `GET /__mockd/groups`: the session's stub groups, sorted by name.
public struct GroupList: Codable, Sendable, Equatable {
    public var session: String
    public var groups: [GroupInfo]

    public init(session: String, groups: [GroupInfo]) {
        self.session = session
        self.groups = groups
    }
}

/// The body of `PUT` and `POST /__mockd/groups/NAME`: the stubs, each as for `POST /__mockd/stubs`.
public struct GroupStubs: Codable, Sendable, Equatable {
    public var stubs: [ScenarioFile.OverrideEntry]

    public init(stubs: [ScenarioFile.OverrideEntry]) {
        self.stubs = stubs
    }
}

extension GroupStubs: ControlSchemaNotes {
    public static var propertyNotes: [String: JSONValue] { ["stubs": ["maxItems": 10_000]] }
    public static var typeNotes: JSONValue { ["additionalProperties": false] }
}

/// The answer to `PUT` and `POST /__mockd/groups/NAME`.
public struct GroupChange: Codable, Sendable, Equatable {
    public var session: String
    public var group: String
    /// The ids the stubs are kept under, in order (`NAME.N` for those without an id).
    public var stubs: [String]

    public init(session: String, group: String, stubs: [String]) {
        self.session = session
        self.group = group
        self.stubs = stubs
    }
}

/// The answer to `DELETE /__mockd/groups/NAME`.
public struct GroupRemoval: Codable, Sendable, Equatable {
    public var session: String
    public var group: String
    /// How many stubs the group had.
    public var removed: Int

    public init(session: String, group: String, removed: Int) {
        self.session = session
        self.group = group
        self.removed = removed
    }
}

/// The answer to `DELETE /__mockd/session`.
public struct DroppedSession: Codable, Sendable, Equatable {
    /// The session forgotten (the default session is reset instead).
    public var dropped: String

    public init(dropped: String) {
        self.dropped = dropped
    }
}

/// The answer to `POST /__mockd/reset`.
public struct ResetResult: Codable, Sendable, Equatable {
    /// The session reset, or `all` for `?all=true`.
    public var reset: String

    public init(reset: String) {
        self.reset = reset
    }
}

extension ScenarioFile.OverrideEntry: ControlSchemaDescribed {
    /// Any object: the scenario override format is checked field by field by the daemon, which names what it
    /// refuses; its schema is `override` in docs/schema/scenario.schema.json.
    public static var controlSchema: JSONValue {
        [
            "type": "object",
            "description":
                "a stub in the scenario override format (docs/FORMAT.md; the JSON Schema is $defs/override of docs/schema/scenario.schema.json)",
        ]
    }
    public static var schemaPlaceholder: ScenarioFile.OverrideEntry { .init(match: .init()) }
}

extension JSONValue: ControlSchemaDescribed {
    /// Any JSON value.
    public static var controlSchema: JSONValue { [:] }
    public static var schemaPlaceholder: JSONValue { .null }
}
