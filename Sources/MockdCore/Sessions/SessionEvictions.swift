import MockdPlatform

/// A session removed because `--max-sessions` was reached: what a later request for it is told.
public struct SessionEviction: Sendable, Equatable {
    /// The session's id.
    public let id: String
    /// `--max-sessions` at the time (the default session included).
    public let maxSessions: Int

    /// The `410 Gone` answer (`{"error": "session_evicted", "message": …}`) for a request naming the session.
    var response: MockResponse {
        .jsonError(status: 410, code: "session_evicted", message: message)
    }

    /// One line: what was lost and how to go on.
    public var message: String {
        "session '\(id)' was evicted because --max-sessions (\(maxSessions)) was reached: its journal, scenario and "
            + "runtime stubs are gone; POST /__mockd/reset with this session starts it again empty, "
            + "or raise --max-sessions"
    }
}

/// The ids of sessions evicted by `--max-sessions`, remembered so that a test that goes on using one is told
/// (`410`) instead of silently getting a fresh, empty session; and how many were evicted since the start.
///
/// An evicted id is remembered for as long as its session would have lived had it not been evicted: until the idle
/// timeout (`--session-timeout`) after its last use. After that the id is like an expired session's, which starts
/// afresh when used, so nothing is forgotten that the daemon promised to keep, however many sessions are evicted
/// meanwhile (a fixed count of 10,000 forgot the oldest, and an evicted test then got a fresh 404 instead of 410).
/// Memory: one entry (the id, its deadline) per session evicted within the last timeout; expired entries are pruned
/// as new evictions come. An id is also forgotten when it is started again (`POST /__mockd/reset`) or on
/// `POST /__mockd/reset?all=true`.
final class SessionEvictions: Sendable {
    private struct State {
        /// Evicted ids and the monotonic ms until which each is refused.
        var deadlines: [String: Double] = [:]
        /// Evictions in the order they happened, for pruning; an entry whose id was forgotten or evicted again (with
        /// another deadline) is stale and skipped. Deadlines come in nearly increasing order, since the least
        /// recently used session is the one evicted.
        var order: [(id: String, deadline: Double)] = []
        /// Entries of `order` already pruned.
        var pruned = 0
    }

    private let state = Mutex(State())
    /// Evictions since the daemon started (`sessionsEvicted` in `GET /__mockd/health`).
    private let total = Atomic<Int>(0)
    /// Whether any id is remembered: requests skip the lock while none is (the usual case).
    private let anyRemembered = Atomic<Bool>(false)
    /// How long an idle session lives, in ms (`--session-timeout`).
    let idleTimeoutMs: Double
    /// Monotonic ms, the registry's clock.
    private let clock: @Sendable () -> Double

    init(idleTimeoutMs: Double, clock: @escaping @Sendable () -> Double) {
        self.idleTimeoutMs = idleTimeoutMs
        self.clock = clock
    }

    var count: Int { total.load(ordering: .relaxed) }

    /// Ids remembered now, expired ones not yet pruned included.
    var remembered: Int { state.withLock { $0.deadlines.count } }

    /// Remembers that `id` was evicted; it was last used at `lastUsedMs` (the clock's ms).
    func remember(_ id: String, lastUsedMs: Double) {
        total.add(1, ordering: .relaxed)
        let now = clock()
        let deadline = lastUsedMs + idleTimeoutMs
        state.withLock { state in
            Self.prune(&state, now: now)
            guard deadline > now else { return }
            state.deadlines[id] = deadline
            state.order.append((id, deadline))
            anyRemembered.store(true, ordering: .relaxed)
        }
    }

    /// Drops what has expired (the registry calls it when it expires idle sessions).
    func pruneExpired() {
        guard anyRemembered.load(ordering: .relaxed) else { return }
        let now = clock()
        state.withLock { state in
            Self.prune(&state, now: now)
            anyRemembered.store(!state.deadlines.isEmpty, ordering: .relaxed)
        }
    }

    /// Drops the expired entries at the front of `order`, and compacts it when stale entries pile up.
    private static func prune(_ state: inout State, now: Double) {
        while state.pruned < state.order.count, state.order[state.pruned].deadline <= now {
            let (id, deadline) = state.order[state.pruned]
            if state.deadlines[id] == deadline { state.deadlines.removeValue(forKey: id) }
            state.pruned += 1
        }
        if state.pruned > 1024 || state.order.count > 2 * state.deadlines.count + 1024 {
            let deadlines = state.deadlines
            state.order = state.order[state.pruned...].filter { deadlines[$0.id] == $0.deadline && $0.deadline > now }
            state.pruned = 0
            state.deadlines = state.deadlines.filter { $0.value > now }
        }
    }

    /// Whether `id` was evicted, is not started again and would still be alive had it not been.
    func contains(_ id: String) -> Bool {
        guard anyRemembered.load(ordering: .relaxed) else { return false }
        let now = clock()
        return state.withLock { ($0.deadlines[id] ?? -.infinity) > now }
    }

    /// Forgets `id` (it is being started again).
    func forget(_ id: String) {
        guard anyRemembered.load(ordering: .relaxed) else { return }
        state.withLock { state in
            state.deadlines.removeValue(forKey: id)
            anyRemembered.store(!state.deadlines.isEmpty, ordering: .relaxed)
        }
    }

    /// Forgets every id (the count stays).
    func forgetAll() {
        state.withLock { state in
            state = State()
            anyRemembered.store(false, ordering: .relaxed)
        }
    }
}
