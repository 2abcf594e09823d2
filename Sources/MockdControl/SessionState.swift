public import Foundation
public import MockdFormat

/// The session's virtual clock, as `GET /__mockd/clock` reports it.
public struct VirtualClock: Codable, Sendable, Equatable {
    public var session: String
    /// The session's time, RFC 3339 UTC with milliseconds.
    public var now: String
    /// The session's time in ms since 1970.
    public var epochMs: Int64
    /// How far the session's clock is ahead of real time, in ms (0 = real time).
    public var offsetMs: Int64

    /// `epochMs` as a date.
    public var date: Date { Date(timeIntervalSince1970: Double(epochMs) / 1000) }

    public init(session: String, now: String, epochMs: Int64, offsetMs: Int64) {
        self.session = session
        self.now = now
        self.epochMs = epochMs
        self.offsetMs = offsetMs
    }
}

extension VirtualClock: ControlSchemaNotes {
    public static var propertyNotes: [String: JSONValue] { ["now": ["format": "date-time"]] }
}

/// The body of `POST /__mockd/clock`: one of `advanceMs` (moves the clock forward) or `set` (sets it).
public struct ClockChange: Codable, Sendable, Equatable {
    /// Milliseconds to add, 0…10⁹.
    public var advanceMs: Int?
    /// The time to set: RFC 3339 with a zone, `2026-12-01T09:00:00Z`.
    public var set: String?

    public init(advanceMs: Int? = nil, set: String? = nil) {
        self.advanceMs = advanceMs
        self.set = set
    }
}

extension ClockChange: ControlSchemaNotes {
    public static var propertyNotes: [String: JSONValue] {
        ["advanceMs": ["minimum": 0, "maximum": 1_000_000_000], "set": ["format": "date-time"]]
    }
    public static var typeNotes: JSONValue {
        [
            "minProperties": 1, "maxProperties": 1, "additionalProperties": false,
        ]
    }
}

/// The session's switches, as `GET /__mockd/switches` reports them.
public struct Switches: Codable, Sendable, Equatable {
    public var session: String
    /// Every planned latency is multiplied by this (0 = off).
    public var latencyScale: Double
    /// The seed of the generator that draws `chance` rules.
    public var seed: UInt64
    /// Draws made since the seed was set.
    public var draws: Int
    /// Overrides and runtime stubs turned off, by id.
    public var disabledRules: [String]

    public init(session: String, latencyScale: Double, seed: UInt64, draws: Int, disabledRules: [String]) {
        self.session = session
        self.latencyScale = latencyScale
        self.seed = seed
        self.draws = draws
        self.disabledRules = disabledRules
    }
}

/// The body of `POST /__mockd/switches`: any of the three; an absent one stays as it is.
public struct SwitchesChange: Codable, Sendable, Equatable {
    /// Multiplies every planned latency, 0…1000 (0 = no latency).
    public var latencyScale: Double?
    /// Restarts the generator of `chance` rules from this seed, 0…2⁵³.
    public var seed: UInt64?
    /// Override and runtime stub ids to turn on (`true`) or off (`false`).
    public var rules: [String: Bool]?

    public init(latencyScale: Double? = nil, seed: UInt64? = nil, rules: [String: Bool]? = nil) {
        self.latencyScale = latencyScale
        self.seed = seed
        self.rules = rules
    }
}

extension SwitchesChange: ControlSchemaNotes {
    public static var propertyNotes: [String: JSONValue] {
        [
            "latencyScale": ["minimum": 0, "maximum": 1000],
            "seed": ["minimum": 0, "maximum": 9_007_199_254_740_992],
        ]
    }
    public static var typeNotes: JSONValue { ["minProperties": 1, "additionalProperties": false] }
}

/// One stateful resource of the session's scenario, as `GET /__mockd/resources` lists it.
public struct ResourceSummary: Codable, Sendable, Equatable {
    public var name: String
    /// The collection's path, `/v1/orders`.
    public var path: String
    /// How many items it holds now.
    public var count: Int

    public init(name: String, path: String, count: Int) {
        self.name = name
        self.path = path
        self.count = count
    }
}

/// `GET /__mockd/resources`.
public struct ResourceList: Codable, Sendable, Equatable {
    public var session: String
    public var resources: [ResourceSummary]

    public init(session: String, resources: [ResourceSummary]) {
        self.session = session
        self.resources = resources
    }
}

/// `GET /__mockd/resources/NAME`: one resource with its items in order.
public struct ResourceState: Codable, Sendable, Equatable {
    public var session: String
    public var name: String
    public var path: String
    public var count: Int
    public var items: [JSONValue]

    public init(session: String, name: String, path: String, count: Int, items: [JSONValue]) {
        self.session = session
        self.name = name
        self.path = path
        self.count = count
        self.items = items
    }
}

/// One session as `GET /__mockd/sessions` lists it.
public struct SessionInfo: Codable, Sendable, Equatable {
    public var id: String
    public var scenario: String
    /// Entries its journal holds.
    public var journalCount: Int
    /// How many runtime stubs it has.
    public var runtimeStubs: Int
    /// The time of its newest journal entry (RFC 3339 UTC with ms); `nil` for none.
    @ExplicitNull public var lastActivity: String?

    public init(id: String, scenario: String, journalCount: Int, runtimeStubs: Int, lastActivity: String?) {
        self.id = id
        self.scenario = scenario
        self.journalCount = journalCount
        self.runtimeStubs = runtimeStubs
        self.lastActivity = lastActivity
    }
}

/// `GET /__mockd/sessions`: the sessions alive.
public struct SessionList: Codable, Sendable, Equatable {
    public var sessions: [SessionInfo]

    public init(sessions: [SessionInfo]) {
        self.sessions = sessions
    }
}
