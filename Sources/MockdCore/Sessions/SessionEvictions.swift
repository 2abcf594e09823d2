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
/// Bounded: the most recent `capacity` evictions are remembered (the oldest forgotten first). An id is
/// forgotten when it is started again (`POST /__mockd/reset`) or on `POST /__mockd/reset?all=true`.
final class SessionEvictions: Sendable {
    private struct State {
        var ids: [String: UInt64] = [:]
        var order: [(id: String, serial: UInt64)] = []
        var nextSerial: UInt64 = 0
    }

    private let state = Mutex(State())
    /// Evictions since the daemon started (`sessionsEvicted` in `GET /__mockd/health`).
    private let total = Atomic<Int>(0)
    /// Whether any id is remembered: requests skip the lock while none is (the usual case).
    private let anyRemembered = Atomic<Bool>(false)
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    var count: Int { total.load(ordering: .relaxed) }

    /// Remembers that `id` was evicted.
    func remember(_ id: String) {
        total.add(1, ordering: .relaxed)
        state.withLock { state in
            state.nextSerial += 1
            state.ids[id] = state.nextSerial
            state.order.append((id, state.nextSerial))
            // Compacted in batches: stale order entries (ids forgotten or evicted again) are skipped.
            if state.order.count > 2 * capacity {
                state.order = state.order.filter { state.ids[$0.id] == $0.serial }
            }
            while state.ids.count > capacity, !state.order.isEmpty {
                let oldest = state.order.removeFirst()
                if state.ids[oldest.id] == oldest.serial { state.ids.removeValue(forKey: oldest.id) }
            }
            anyRemembered.store(!state.ids.isEmpty, ordering: .relaxed)
        }
    }

    /// Whether `id` was evicted and not started again.
    func contains(_ id: String) -> Bool {
        guard anyRemembered.load(ordering: .relaxed) else { return false }
        return state.withLock { $0.ids[id] != nil }
    }

    /// Forgets `id` (it is being started again).
    func forget(_ id: String) {
        guard anyRemembered.load(ordering: .relaxed) else { return }
        state.withLock { state in
            state.ids.removeValue(forKey: id)
            anyRemembered.store(!state.ids.isEmpty, ordering: .relaxed)
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
