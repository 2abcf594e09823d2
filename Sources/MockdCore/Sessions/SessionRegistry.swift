import Dispatch
import Synchronization

/// The sessions of the daemon: the default one plus those created on first use.
///
/// Creating a session is one small allocation. Sessions idle longer than `idleTimeoutMs` are removed when
/// a new one is created; beyond `maxSessions` the least recently used one is removed. The default session
/// is never removed.
final class SessionRegistry: Sendable {
    static let defaultID = "default"

    let defaultSession: Session
    /// `defaultSession`, for use without a retain (`_withUnsafeGuaranteedRef`): the compiler retained the session
    /// around each call on it, and as every worker thread did so on every request, its reference count moved its
    /// cache line between the cores. Valid as long as the registry.
    let borrowedDefaultSession: Unmanaged<Session>
    private let sessions = Mutex<[String: Session]>([:])
    let maxSessions: Int
    let idleTimeoutMs: Double
    let journalLimit: Int
    /// Monotonic ms (the engine's clock): when sessions were last used. Tests move a manual clock.
    let clock: @Sendable () -> Double

    init(
        scenario: Scenario,
        maxSessions: Int,
        idleTimeoutMs: Double,
        journalLimit: Int,
        clock: @escaping @Sendable () -> Double = MonotonicClock.milliseconds
    ) {
        self.clock = clock
        defaultSession = Session(
            id: SessionRegistry.defaultID,
            scenario: scenario,
            journalLimit: journalLimit,
            nowMs: clock()
        )
        borrowedDefaultSession = Unmanaged.passUnretained(defaultSession)
        self.maxSessions = max(1, maxSessions)
        self.idleTimeoutMs = idleTimeoutMs
        self.journalLimit = journalLimit
    }

    /// Marks `session` used now.
    func touch(_ session: Session) {
        session.touch(nowMs: clock())
    }

    /// A session that is not kept (what a control request reading an unknown session sees).
    func transient(_ id: String?, scenario: Scenario) -> Session {
        Session(id: id ?? SessionRegistry.defaultID, scenario: scenario, journalLimit: 1, nowMs: clock())
    }

    /// The session `id` (the default one for `nil`), created with `scenario()` when new.
    func session(_ id: String?, create scenario: () -> Scenario) -> Session {
        guard let id, id != SessionRegistry.defaultID else { return defaultSession }
        return sessions.withLock { sessions in
            if let existing = sessions[id] { return existing }
            expire(&sessions)
            if sessions.count >= maxSessions - 1,
                let oldest = sessions.values.min(by: {
                    $0.lastUsed.load(ordering: .relaxed) < $1.lastUsed.load(ordering: .relaxed)
                })
            {
                sessions.removeValue(forKey: oldest.id)
            }
            let session = Session(id: id, scenario: scenario(), journalLimit: journalLimit, nowMs: clock())
            sessions[id] = session
            return session
        }
    }

    /// An existing session, without creating one.
    func existing(_ id: String?) -> Session? {
        guard let id, id != SessionRegistry.defaultID else { return defaultSession }
        return sessions.withLock { $0[id] }
    }

    /// Every session, the default one first.
    var all: [Session] {
        [defaultSession] + sessions.withLock { $0.values.sorted { $0.id < $1.id } }
    }

    /// Removes every session but the default one.
    func removeAll() {
        sessions.withLock { $0.removeAll() }
    }

    private func expire(_ sessions: inout [String: Session]) {
        let now = Session.microseconds(clock())
        let limit = Session.microseconds(idleTimeoutMs)
        sessions = sessions.filter { now - min(now, $0.value.lastUsed.load(ordering: .relaxed)) < limit }
    }
}
