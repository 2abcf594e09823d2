/// A scenario file, `configs/<name>.json` (format version 1; docs/FORMAT.md, docs/schema/scenario.schema.json).
///
/// A scenario layers mock sets (base first) and then **overrides**: request patterns with a priority that
/// replace or modify what the sets answer.
public struct ScenarioFile: Codable, Sendable, Equatable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case version, description, include, sets, defaults, conditionalRequests, overrides, normalize, cors, resources
        case rebaseDates
    }

    public static let currentVersion = 1

    public var version: Int
    public var description: String?
    /// Scenarios this one extends; their sets, defaults and overrides come first.
    public var include: [String]?
    /// Mock sets under `mocks/`, base first; later sets win.
    public var sets: [String]?
    /// Behaviour applied to every response unless an override says otherwise.
    public var defaults: ResponseStepEntry?
    /// Answer `If-None-Match` with 304 for responses that carry an `ETag` (RFC 9110 §13.1.2).
    public var conditionalRequests: Bool?
    public var overrides: [OverrideEntry]?
    /// Matching rules added to those of every set (see `RequestNormalization`).
    public var normalize: RequestNormalization?
    /// Answer unmatched CORS preflights with 204 and allow the request's origin in every answer (see `MockSetFile.cors`).
    public var cors: Bool?
    /// Stateful REST collections, per session (`ResourceEntry`).
    public var resources: [ResourceEntry]?
    /// Serve the recorded dates of every set's responses moved to the session's clock (`true`) or as recorded
    /// (`false`), whatever the sets say (`MockSetFile.rebaseDates`); absent: each set's own setting.
    public var rebaseDates: Bool?

    public init(
        version: Int = ScenarioFile.currentVersion,
        description: String? = nil,
        include: [String]? = nil,
        sets: [String]? = nil,
        defaults: ResponseStepEntry? = nil,
        conditionalRequests: Bool? = nil,
        overrides: [OverrideEntry]? = nil,
        normalize: RequestNormalization? = nil,
        cors: Bool? = nil,
        resources: [ResourceEntry]? = nil,
        rebaseDates: Bool? = nil
    ) {
        self.version = version
        self.description = description
        self.include = include
        self.sets = sets
        self.defaults = defaults
        self.conditionalRequests = conditionalRequests
        self.overrides = overrides
        self.normalize = normalize
        self.cors = cors
        self.resources = resources
        self.rebaseDates = rebaseDates
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decodeVersion(upTo: ScenarioFile.currentVersion, forKey: .version)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        include = try container.decodeIfPresent([String].self, forKey: .include)
        sets = try container.decodeIfPresent([String].self, forKey: .sets)
        defaults = try container.decodeIfPresent(ResponseStepEntry.self, forKey: .defaults)
        conditionalRequests = try container.decodeIfPresent(Bool.self, forKey: .conditionalRequests)
        overrides = try container.decodeIfPresent([OverrideEntry].self, forKey: .overrides)
        normalize = try container.decodeIfPresent(RequestNormalization.self, forKey: .normalize)
        cors = try container.decodeIfPresent(Bool.self, forKey: .cors)
        resources = try container.decodeIfPresent([ResourceEntry].self, forKey: .resources)
        rebaseDates = try container.decodeIfPresent(Bool.self, forKey: .rebaseDates)
    }

    /// One override: which requests it catches, its priority, and what it answers.
    public struct OverrideEntry: Codable, Sendable, Equatable {
        public var id: String?
        /// Higher wins; ties go to the override listed later. Default 0.
        public var priority: Int?
        public var match: MatchEntry
        /// An explicit response sequence; without it the override modifies the matching stub's response.
        public var responses: [ResponseStepEntry]?
        public var afterLast: ExhaustionPolicy?
        /// After `limit` calls within `windowMs`, answer 429 with `Retry-After`.
        public var rateLimit: RateLimitEntry?
        /// The single-step form: the same fields as one entry of `responses`.
        public var step: ResponseStepEntry
        /// A state machine condition and transition: match only in a state, move to another after answering.
        public var state: StateEntry?
        /// The share of matching calls (0…1) the override answers, drawn from the session's seeded generator
        /// (`POST /__mockd/switches {"seed": N}`); the other calls go on to the next override or the mock sets.
        /// Absent = every call.
        public var chance: Double?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case id, priority, match, responses, afterLast, rateLimit, state, chance
        }

        public init(
            id: String? = nil,
            priority: Int? = nil,
            match: MatchEntry,
            responses: [ResponseStepEntry]? = nil,
            afterLast: ExhaustionPolicy? = nil,
            rateLimit: RateLimitEntry? = nil,
            step: ResponseStepEntry = ResponseStepEntry(),
            state: StateEntry? = nil,
            chance: Double? = nil
        ) {
            self.id = id
            self.priority = priority
            self.match = match
            self.responses = responses
            self.afterLast = afterLast
            self.rateLimit = rateLimit
            self.step = step
            self.state = state
            self.chance = chance
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decodeIfPresent(String.self, forKey: .id)
            priority = try container.decodeIfPresent(Int.self, forKey: .priority)
            match = try container.decode(MatchEntry.self, forKey: .match)
            responses = try container.decodeIfPresent([ResponseStepEntry].self, forKey: .responses)
            afterLast = try container.decodeIfPresent(ExhaustionPolicy.self, forKey: .afterLast)
            rateLimit = try container.decodeIfPresent(RateLimitEntry.self, forKey: .rateLimit)
            state = try container.decodeIfPresent(StateEntry.self, forKey: .state)
            chance = try container.decodeIfPresent(Double.self, forKey: .chance)
            step = try ResponseStepEntry(from: decoder)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(id, forKey: .id)
            try container.encodeIfPresent(priority, forKey: .priority)
            try container.encode(match, forKey: .match)
            try container.encodeIfPresent(responses, forKey: .responses)
            try container.encodeIfPresent(afterLast, forKey: .afterLast)
            try container.encodeIfPresent(rateLimit, forKey: .rateLimit)
            try container.encodeIfPresent(state, forKey: .state)
            try container.encodeIfPresent(chance, forKey: .chance)
            try step.encode(to: encoder)
        }
    }

    /// `state`: `{"name": "checkout", "requires": "Started", "next": "Paid"}`. Every state machine starts in
    /// `Started`, per session; `POST /__mockd/reset` puts it back there.
    ///
    /// `after: N` makes the transition a counter ("after 3 wrong codes"): the machine counts the override's answers
    /// in its current state and moves to `next` at the Nth (the count starts over in every state). `timeout` moves
    /// the machine on by itself once it has been in `next` for `afterMs` of the session's clock (an expiring lock).
    public struct StateEntry: Codable, Sendable, Equatable {
        enum CodingKeys: String, CodingKey, CaseIterable { case name, requires, next, after, timeout }

        /// The state machine; every override naming it shares its state.
        public var name: String
        /// The override matches only while the machine is in this state, or in any of these; absent = in any state.
        public var requires: StateNames?
        /// The state the machine moves to when this override answers; absent = no change.
        public var next: String?
        /// Move to `next` only at the override's Nth answer in the current state (≥ 1); absent = at the first.
        public var after: Int?
        /// Once moved to `next`, move on to `timeout.next` after `timeout.afterMs` ms of the session's clock.
        public var timeout: StateTimeout?

        public init(
            name: String,
            requires: StateNames? = nil,
            next: String? = nil,
            after: Int? = nil,
            timeout: StateTimeout? = nil
        ) {
            self.name = name
            self.requires = requires
            self.next = next
            self.after = after
            self.timeout = timeout
        }
    }

    /// `requires`: one state name (`"Started"`) or any of several (`["Started", "OneWrong"]`).
    public struct StateNames: Codable, Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByArrayLiteral {
        public var names: [String]

        public init(_ names: [String]) { self.names = names }
        public init(_ name: String) { self.names = [name] }
        public init(stringLiteral value: String) { self.names = [value] }
        public init(arrayLiteral elements: String...) { self.names = elements }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let name = try? container.decode(String.self) {
                names = [name]
            } else {
                names = try container.decode([String].self)
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            if names.count == 1 { try container.encode(names[0]) } else { try container.encode(names) }
        }
    }

    /// `timeout`: `{"afterMs": 300000, "next": "Started"}`, a transition that happens by itself.
    public struct StateTimeout: Codable, Sendable, Equatable {
        enum CodingKeys: String, CodingKey, CaseIterable { case afterMs, next }

        /// How long the machine stays in the state, in ms of the session's clock.
        public var afterMs: Int
        /// The state it then moves to.
        public var next: String

        public init(afterMs: Int, next: String) {
            self.afterMs = afterMs
            self.next = next
        }
    }

    /// `rateLimit`: after `limit` calls in `windowMs`, answer 429 with `Retry-After` (RFC 6585 §4).
    ///
    /// With a `key` (a request expression written as a placeholder is, without the braces: `request.json.phone`,
    /// `request.header.X-Device`, `request.query.account`, `request.method`, `request.path`), each value of the key
    /// gets its own window, so two phone numbers are counted separately; a request whose key is empty shares the
    /// window of the empty value. A refused request never moves the override's state machine or sequence.
    public struct RateLimitEntry: Codable, Sendable, Equatable {
        enum CodingKeys: String, CodingKey, CaseIterable { case limit, windowMs, retryAfter, key, body }

        public var limit: Int
        /// Window length in ms, counted from the first call of the window. Default 60,000.
        public var windowMs: Int?
        /// `Retry-After` seconds. Default: the rest of the window, rounded up.
        public var retryAfter: Int?
        /// The request expression that keys the windows (see above); absent = one window for every request.
        public var key: String?
        /// The body of the 429: a string is sent as text, anything else as JSON (placeholders render, with
        /// `{{retryAfter}}` the seconds). Default `{"error": "rate_limited", "message": "…"}`.
        public var body: JSONValue?

        public init(
            limit: Int,
            windowMs: Int? = nil,
            retryAfter: Int? = nil,
            key: String? = nil,
            body: JSONValue? = nil
        ) {
            self.limit = limit
            self.windowMs = windowMs
            self.retryAfter = retryAfter
            self.key = key
            self.body = body
        }
    }
}
