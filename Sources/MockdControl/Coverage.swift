/// A stub of a mock set, by set and id.
public struct SetStub: Codable, Sendable, Equatable, Hashable {
    public var set: String
    public var id: String

    public init(set: String, id: String) {
        self.set = set
        self.id = id
    }
}

/// How many of a scenario's mock-set stubs were used, and which were not.
public struct StubCoverage: Codable, Sendable, Equatable {
    public var total: Int
    public var used: Int
    public var unused: [SetStub]

    public init(total: Int, used: Int, unused: [SetStub]) {
        self.total = total
        self.used = used
        self.unused = unused
    }
}

/// How many overrides (or runtime stubs) were used, and the ids of those that were not.
public struct RuleCoverage: Codable, Sendable, Equatable {
    public var total: Int
    public var used: Int
    public var unused: [String]

    public init(total: Int, used: Int, unused: [String]) {
        self.total = total
        self.used = used
        self.unused = unused
    }
}

/// One session's coverage, from its journal.
public struct SessionCoverage: Codable, Sendable, Equatable {
    public var session: String
    public var scenario: String
    /// Requests the session sent (dropped journal entries included).
    public var requests: Int
    /// `false` when the journal dropped entries (`--journal-limit`): stubs they used may show as unused.
    public var complete: Bool
    public var stubs: StubCoverage
    public var overrides: RuleCoverage
    public var runtimeStubs: RuleCoverage

    public init(
        session: String,
        scenario: String,
        requests: Int,
        complete: Bool,
        stubs: StubCoverage,
        overrides: RuleCoverage,
        runtimeStubs: RuleCoverage
    ) {
        self.session = session
        self.scenario = scenario
        self.requests = requests
        self.complete = complete
        self.stubs = stubs
        self.overrides = overrides
        self.runtimeStubs = runtimeStubs
    }
}

/// One scenario's coverage over the daemon's life.
public struct ScenarioCoverage: Codable, Sendable, Equatable {
    public var scenario: String
    /// The live sessions on it.
    public var sessions: [String]
    public var stubs: StubCoverage
    public var overrides: RuleCoverage

    public init(scenario: String, sessions: [String], stubs: StubCoverage, overrides: RuleCoverage) {
        self.scenario = scenario
        self.sessions = sessions
        self.stubs = stubs
        self.overrides = overrides
    }
}

/// One mock set's coverage over the daemon's life, pooled over the scenarios that serve it.
public struct SetCoverage: Codable, Sendable, Equatable {
    public var set: String
    public var total: Int
    public var used: Int
    public var unused: [String]

    public init(set: String, total: Int, used: Int, unused: [String]) {
        self.set = set
        self.total = total
        self.used = used
        self.unused = unused
    }
}

/// Coverage over the daemon's life, whatever became of the sessions.
public struct OverallCoverage: Codable, Sendable, Equatable {
    public var scenarios: [ScenarioCoverage]
    public var sets: [SetCoverage]

    public init(scenarios: [ScenarioCoverage], sets: [SetCoverage]) {
        self.scenarios = scenarios
        self.sets = sets
    }
}

/// `GET /__mockd/coverage`: which stubs and overrides no request used.
public struct CoverageAnswer: Codable, Sendable, Equatable {
    /// This session's, from its journal.
    public var session: SessionCoverage
    public var overall: OverallCoverage

    public init(session: SessionCoverage, overall: OverallCoverage) {
        self.session = session
        self.overall = overall
    }
}

/// What `mockd --summary FILE` writes at shutdown: the coverage over the daemon's life and every session's.
public struct CoverageSummary: Codable, Sendable, Equatable {
    public var overall: OverallCoverage
    public var sessions: [SessionCoverage]

    public init(overall: OverallCoverage, sessions: [SessionCoverage]) {
        self.overall = overall
        self.sessions = sessions
    }
}
