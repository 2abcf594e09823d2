public import MockdFormat

/// `GET /__mockd/scenarios`: the scenarios under the daemon's `configs/`, sorted by name.
public struct ScenarioList: Codable, Sendable, Equatable {
    public var session: String
    /// The session's scenario.
    public var active: String
    public var scenarios: [ScenarioInfo]

    public init(session: String, active: String, scenarios: [ScenarioInfo]) {
        self.session = session
        self.active = active
        self.scenarios = scenarios
    }
}

/// One entry of `GET /__mockd/scenarios`: a `configs/NAME.json` under the daemon's root.
public struct ScenarioInfo: Codable, Sendable, Equatable {
    public var name: String
    /// Whether this is the scenario of the client's session.
    public var active: Bool
    public var description: String?
    /// Why the file does not load, when it does not (`nil` for a usable scenario).
    public var problem: String?

    public init(name: String, active: Bool, description: String? = nil, problem: String? = nil) {
        self.name = name
        self.active = active
        self.description = description
        self.problem = problem
    }
}

/// `GET /__mockd/scenario`: the session's scenario and where its state machines stand.
public struct ScenarioState: Codable, Sendable, Equatable {
    public var session: String
    public var name: String
    /// The mock sets the scenario serves from, in order (later ones win).
    public var sets: [String]
    @ExplicitNull public var description: String?
    /// Each state machine's current state, by machine name (`{"todo": "Added"}`).
    public var states: [String: String]

    public init(session: String, name: String, sets: [String], description: String?, states: [String: String]) {
        self.session = session
        self.name = name
        self.sets = sets
        self.description = description
        self.states = states
    }
}

/// The body of `PUT /__mockd/scenario`.
public struct UseScenario: Codable, Sendable, Equatable {
    /// The scenario's name: `configs/NAME.json`.
    public var name: String

    public init(name: String) {
        self.name = name
    }
}

extension UseScenario: ControlSchemaNotes {
    public static var propertyNotes: [String: JSONValue] { ["name": ["minLength": 1]] }
}

/// The answer to `PUT /__mockd/scenario`.
public struct ActiveScenario: Codable, Sendable, Equatable {
    public var session: String
    public var name: String
    /// The mock sets the scenario serves from, in order (later ones win).
    public var sets: [String]

    public init(session: String, name: String, sets: [String]) {
        self.session = session
        self.name = name
        self.sets = sets
    }
}

/// `GET /__mockd/scenario/answers/ID`: what answers as `ID` in the session (what a journal entry's `stub` names).
///
/// `kind` says which fields are set: a `runtimeStub` (`definition`), an `override` of the scenario (`priority`,
/// `match`, `steps`, `afterLast`, `state`), or a `stub` of one of its mock sets (`set`, `request`, `responses`,
/// `afterLast`).
public struct AnswerSource: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable, ControlSchemaEnum {
        case runtimeStub, override, stub
    }

    /// What an override matches, as the scenario file says it.
    public struct Match: Codable, Sendable, Equatable {
        public var method: String?
        public var path: String?
        public var host: String?
        /// `name=value` each.
        public var query: [String]?
        /// `Name: value` each.
        public var headers: [String]?
        /// `true` when the override matches the body too.
        public var body: Bool?

        public init(
            method: String? = nil,
            path: String? = nil,
            host: String? = nil,
            query: [String]? = nil,
            headers: [String]? = nil,
            body: Bool? = nil
        ) {
            self.method = method
            self.path = path
            self.host = host
            self.query = query
            self.headers = headers
            self.body = body
        }
    }

    /// The recorded request key of a mock set's stub.
    public struct Request: Codable, Sendable, Equatable {
        public var method: String
        public var path: String
        /// The sorted query, `a=1&b=2`.
        public var query: String
        /// Header constraints, `Name: value` each.
        public var headers: [String]
        public var host: String?
        /// The recorded body's first 512 bytes, when the stub matches a UTF-8 body.
        public var body: String?

        public init(
            method: String,
            path: String,
            query: String,
            headers: [String],
            host: String? = nil,
            body: String? = nil
        ) {
            self.method = method
            self.path = path
            self.query = query
            self.headers = headers
            self.host = host
            self.body = body
        }
    }

    /// One recorded response of a mock set's stub.
    public struct Response: Codable, Sendable, Equatable {
        public var status: Int
        /// `Name: value` each.
        public var headers: [String]
        /// In bytes.
        public var bodySize: Int

        public init(status: Int, headers: [String], bodySize: Int) {
            self.status = status
            self.headers = headers
            self.bodySize = bodySize
        }
    }

    public var session: String
    public var id: String
    public var kind: Kind
    /// The session's scenario (not for a runtime stub).
    public var scenario: String?
    /// A runtime stub's definition, as posted.
    public var definition: JSONValue?
    public var priority: Int?
    public var match: Match?
    /// How many response steps an override has.
    public var steps: Int?
    /// What follows the last step: `repeatLast`, `notFound`, `loop`…
    public var afterLast: String?
    /// The state machine an override belongs to.
    public var state: String?
    /// The mock set of a stub.
    public var set: String?
    public var request: Request?
    public var responses: [Response]?

    public init(
        session: String,
        id: String,
        kind: Kind,
        scenario: String? = nil,
        definition: JSONValue? = nil,
        priority: Int? = nil,
        match: Match? = nil,
        steps: Int? = nil,
        afterLast: String? = nil,
        state: String? = nil,
        set: String? = nil,
        request: Request? = nil,
        responses: [Response]? = nil
    ) {
        self.session = session
        self.id = id
        self.kind = kind
        self.scenario = scenario
        self.definition = definition
        self.priority = priority
        self.match = match
        self.steps = steps
        self.afterLast = afterLast
        self.state = state
        self.set = set
        self.request = request
        self.responses = responses
    }
}
