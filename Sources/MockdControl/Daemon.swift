/// The answer to `POST /__mockd/reload`.
public struct ReloadResult: Codable, Sendable, Equatable {
    /// The scenario (or set) reloaded.
    public var reloaded: String
    /// Stubs of its mock sets.
    public var stubs: Int
    /// Its overrides.
    public var overrides: Int

    public init(reloaded: String, stubs: Int, overrides: Int) {
        self.reloaded = reloaded
        self.stubs = stubs
        self.overrides = overrides
    }
}

/// `GET /__mockd/record`: the recording of `mockd record` or `--record-misses`.
public struct RecordStatus: Codable, Sendable, Equatable {
    /// The mock set it compiles into.
    public var set: String
    /// The HAR file (relative to the root when inside it).
    public var har: String
    /// The upstream origin, `https://api.example.com`.
    public var upstream: String
    /// Exchanges recorded.
    public var entries: Int
    /// Exchanges that failed (no answer from the upstream).
    public var failed: Int
    /// Exchanges the crash spool could not keep (a full disk): they are in memory only until a flush.
    public var spoolFailed: Int
    /// Why the last spool write failed; `null` when none did.
    @ExplicitNull public var spoolError: String?

    public init(
        set: String,
        har: String,
        upstream: String,
        entries: Int,
        failed: Int,
        spoolFailed: Int = 0,
        spoolError: String? = nil
    ) {
        self.set = set
        self.har = har
        self.upstream = upstream
        self.entries = entries
        self.failed = failed
        self.spoolFailed = spoolFailed
        self.spoolError = spoolError
    }
}

/// The answer to `POST /__mockd/record/flush`: what the flush wrote.
public struct RecordFlush: Codable, Sendable, Equatable {
    public var set: String
    public var har: String
    public var entries: Int
    public var failed: Int
    /// Whether `mocks/SET/` was written (not when nothing could be replayed).
    public var written: Bool
    /// The import report, as `mockd import-har` prints it.
    public var report: String

    public init(set: String, har: String, entries: Int, failed: Int, written: Bool, report: String) {
        self.set = set
        self.har = har
        self.entries = entries
        self.failed = failed
        self.written = written
        self.report = report
    }
}
