/// Limits and switches of the engine.
public struct EngineOptions: Sendable {
    /// Sessions besides the default one kept at most (least recently used removed first).
    public var maxSessions: Int
    /// A session unused this long (ms) is removed when another is created.
    public var sessionIdleTimeoutMs: Double
    /// Journal entries kept per session; older ones are dropped and counted.
    public var journalLimit: Int
    /// When set, `/__mockd/*` requires `Authorization: Bearer <token>`.
    public var controlToken: String?
    /// Unmatched requests are answered by an upstream (`--on-miss proxy`, `mockd record`): their planned 404
    /// is left without the near-miss search and JSON body nobody would see.
    public var missesGoUpstream = false
    /// Whether the daemon listens on loopback only: then control requests must name it by a loopback `Host`
    /// (`ControlGuard`, against DNS rebinding).
    public var boundToLoopback = true
    /// How clients reach the daemon, for URLs rewritten to its address (`OriginRewrite`): `allHTTPS` when the main
    /// port serves TLS, else `httpsPort` for `--tls-port` (a request whose `Host` names that port used https).
    /// `X-Forwarded-Proto` from a TLS-terminating proxy wins over both.
    public var allHTTPS = false
    public var httpsPort: Int?
    /// Called for each session evicted because `maxSessions` was reached (the daemon logs a line); on the thread
    /// of the request that created the newer session, outside every engine lock.
    public var onSessionEvicted: (@Sendable (SessionEviction) -> Void)?
    /// The contract journaled requests are checked against when read (`--openapi`); `nil`: none.
    public var contract: (any RequestContract)?

    public init(
        maxSessions: Int = 1000,
        sessionIdleTimeoutMs: Double = 30 * 60 * 1000,
        journalLimit: Int = 10_000,
        controlToken: String? = nil
    ) {
        self.maxSessions = maxSessions
        self.sessionIdleTimeoutMs = sessionIdleTimeoutMs
        self.journalLimit = journalLimit
        self.controlToken = controlToken
    }
}
