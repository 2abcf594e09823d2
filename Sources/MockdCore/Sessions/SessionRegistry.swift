import Dispatch
import MockdPlatform

/// The sessions of the daemon: the default one plus those created on first use.
///
/// Creating a session is one small allocation. Sessions idle longer than `idleTimeoutMs` are removed when
/// a new one is created; beyond `maxSessions` the least recently used one is removed, counted, logged
/// (`onEvicted`) and remembered (`evictions`), so that its test is told (`410`) rather than handed a fresh, empty
/// session. The default session is never removed.
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
    /// Sessions evicted by `maxSessions` (not those that expired idle): remembered ids and the count.
    let evictions: SessionEvictions
    /// Called (outside the registry's lock) for each session evicted by `maxSessions`.
    let onEvicted: (@Sendable (SessionEviction) -> Void)?

    init(
        scenario: Scenario,
        maxSessions: Int,
        idleTimeoutMs: Double,
        journalLimit: Int,
        clock: @escaping @Sendable () -> Double = MonotonicClock.milliseconds,
        onEvicted: (@Sendable (SessionEviction) -> Void)? = nil
    ) {
        self.clock = clock
        self.onEvicted = onEvicted
        self.evictions = SessionEvictions(idleTimeoutMs: idleTimeoutMs, clock: clock)
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
    ///
    /// Creating one past `maxSessions` evicts the least recently used session: it is remembered in `evictions`
    /// and reported to `onEvicted`. The caller checks `eviction(of:)` first where an evicted id must be refused.
    func session(_ id: String?, create scenario: () -> Scenario) -> Session {
        guard let id, id != SessionRegistry.defaultID else { return defaultSession }
        var evicted: (id: String, lastUsedMs: Double)?
        let session = sessions.withLock { sessions in
            if let existing = sessions[id] { return existing }
            expire(&sessions)
            if sessions.count >= maxSessions - 1,
                let oldest = sessions.values.min(by: {
                    $0.lastUsed.load(ordering: .relaxed) < $1.lastUsed.load(ordering: .relaxed)
                })
            {
                sessions.removeValue(forKey: oldest.id)
                evicted = (oldest.id, Double(oldest.lastUsed.load(ordering: .relaxed)) / 1000)
            }
            let session = Session(id: id, scenario: scenario(), journalLimit: journalLimit, nowMs: clock())
            sessions[id] = session
            return session
        }
        if let evicted {
            evictions.remember(evicted.id, lastUsedMs: evicted.lastUsedMs)
            onEvicted?(SessionEviction(id: evicted.id, maxSessions: maxSessions))
        }
        return session
    }

    /// Why `id` is refused, when it names a session evicted by `maxSessions` and not started again.
    @inline(__always)
    func eviction(of id: String?) -> SessionEviction? {
        guard let id, evictions.contains(id) else { return nil }
        return SessionEviction(id: id, maxSessions: maxSessions)
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

    /// Forgets the session `id` (not the default one, and not remembered as evicted).
    func remove(_ id: String) {
        guard id != SessionRegistry.defaultID else { return }
        _ = sessions.withLock { $0.removeValue(forKey: id) }
    }

    /// Removes every session but the default one.
    func removeAll() {
        sessions.withLock { $0.removeAll() }
        evictions.forgetAll()
    }

    private func expire(_ sessions: inout [String: Session]) {
        let now = Session.microseconds(clock())
        let limit = Session.microseconds(idleTimeoutMs)
        sessions = sessions.filter { now - min(now, $0.value.lastUsed.load(ordering: .relaxed)) < limit }
        evictions.pruneExpired()
    }
}
