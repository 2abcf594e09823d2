import Synchronization

/// Everything a session changes while it is served: sequence cursors of stubs (by ordinal in the scenario's
/// index) and overrides (by serial), and rate-limit windows. `reset()` puts it back to the scenario's start.
final class SessionState: Sendable {
    let stubCursors = SequenceCursors<Int>()
    let overrideCursors = SequenceCursors<UInt64>()
    /// WebSocket connections opened per endpoint path, for per-connection scripts.
    let webSocketConnections = SequenceCursors<String>()
    private let windows = Mutex<[UInt64: (start: Double, count: Int)]>([:])
    /// State machine name → current state; a machine not in here is in `StateRule.initial`.
    private let machines = Mutex<[String: String]>([:])

    init() {}

    /// Counts a call to override `serial` and tells whether it is over the limit; when it is, returns the
    /// seconds until the window ends (for `Retry-After`).
    func rateLimited(_ serial: UInt64, rule: RateLimitRule, nowMs: Double) -> Int? {
        windows.withLock { windows in
            var window = windows[serial] ?? (start: nowMs, count: 0)
            if nowMs - window.start >= rule.windowMs { window = (start: nowMs, count: 0) }
            window.count += 1
            windows[serial] = window
            guard window.count > rule.limit else { return nil }
            let remaining = (window.start + rule.windowMs - nowMs) / 1000
            return max(1, Int(remaining.rounded(.up)))
        }
    }

    /// Whether `override` may answer now, given its state rule; when it may and the rule names a `next`
    /// state, the machine moves there in the same step. Check and move happen under one lock, so of two
    /// concurrent requests only one sees the machine in the required state and makes the transition.
    func admits(_ override: Override) -> Bool {
        guard let rule = override.state else { return true }
        return machines.withLock { machines in
            if let required = rule.requires, (machines[rule.name] ?? StateRule.initial) != required { return false }
            if let next = rule.next { machines[rule.name] = next }
            return true
        }
    }

    /// The current state of machine `name` (`Started` until an override moves it).
    func state(of name: String) -> String {
        machines.withLock { $0[name] ?? StateRule.initial }
    }

    func reset() {
        machines.withLock { $0.removeAll() }
        stubCursors.reset()
        overrideCursors.reset()
        webSocketConnections.reset()
        windows.withLock { $0.removeAll() }
    }
}
