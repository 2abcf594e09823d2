public import MockdFormat

/// `GET /__mockd/health`: the daemon's status, for a CI readiness probe or a test waiting on requests in flight.
public struct Health: Codable, Sendable, Equatable {
    /// `"ok"`.
    public var status: String
    /// The daemon's version, `"0.1.0"`.
    public var version: String
    /// Seconds since the daemon started, to the millisecond.
    public var uptimeSeconds: Double
    /// The scenario the daemon was started with (new sessions begin with it); for a mock set served alone
    /// (`mockd --set NAME`), the set's name, as `set` says.
    public var scenario: String
    /// The mock set the daemon serves alone (`mockd --set NAME`); `nil` when it serves a scenario.
    public var set: String?
    /// How many sessions exist (the default one included).
    public var sessions: Int
    /// Sessions evicted by `--max-sessions` since the daemon started.
    public var sessionsEvicted: Int
    /// Requests being answered now besides the health check itself (waiting on latency, a hold or the upstream
    /// included); `nil` when the engine runs without a server (in process).
    public var inFlight: Int?
    /// Log lines dropped because stderr was not read fast enough.
    public var logLinesDropped: Int
    /// Live journal streams open (`GET /__mockd/journal/stream`: dashboard tabs).
    public var liveJournals: Int
    /// While recording: exchanges the crash spool could not keep (a full disk), as `RecordStatus.spoolFailed`
    /// counts them; `nil` when not recording.
    public var recordSpoolFailed: Int?

    public init(
        status: String = "ok",
        version: String,
        uptimeSeconds: Double,
        scenario: String,
        set: String? = nil,
        sessions: Int,
        sessionsEvicted: Int,
        inFlight: Int? = nil,
        logLinesDropped: Int,
        liveJournals: Int,
        recordSpoolFailed: Int? = nil
    ) {
        self.status = status
        self.version = version
        self.uptimeSeconds = uptimeSeconds
        self.scenario = scenario
        self.set = set
        self.sessions = sessions
        self.sessionsEvicted = sessionsEvicted
        self.inFlight = inFlight
        self.logLinesDropped = logLinesDropped
        self.liveJournals = liveJournals
        self.recordSpoolFailed = recordSpoolFailed
    }
}

extension Health: ControlSchemaNotes {
    public static var propertyNotes: [String: JSONValue] {
        [
            "status": ["const": "ok"],
            "uptimeSeconds": ["description": "seconds since the daemon started", "minimum": 0],
            "inFlight": ["description": "requests being answered besides this one", "minimum": 0],
            "recordSpoolFailed": ["description": "exchanges the recording's crash spool could not keep", "minimum": 0],
        ]
    }
}
