import Synchronization

/// Everything a session changes while it is served: sequence cursors of stubs (by ordinal in the scenario's
/// index) and overrides (by serial), and rate-limit windows. `reset()` puts it back to the scenario's start.
final class SessionState: Sendable {
    let stubCursors = SequenceCursors<Int>()
    let overrideCursors = SequenceCursors<UInt64>()
    /// WebSocket connections opened per endpoint path, for per-connection scripts.
    let webSocketConnections = SequenceCursors<String>()
    private let windows = Mutex<[WindowKey: (start: Double, count: Int)]>([:])
    /// State machine name → current state; a machine not in here is in `StateRule.initial`.
    private let machines = Mutex<[String: String]>([:])
    /// The session's virtual clock; kept when the scenario is switched or reloaded, new on reset.
    let clock: SessionClock

    init(clock: SessionClock = SessionClock()) {
        self.clock = clock
    }

    /// A rate-limit window: the override's serial and the value of the limit's key (`""` without one).
    struct WindowKey: Hashable {
        let serial: UInt64
        let value: String
    }

    /// Counts a call to override `serial` in the window of `key` and tells whether it is over the limit; when it
    /// is, returns the seconds until the window ends (for `Retry-After`).
    /// - Parameter nowMs: The session's clock, in ms.
    func rateLimited(_ serial: UInt64, key: String, rule: RateLimitRule, nowMs: Double) -> Int? {
        let windowKey = WindowKey(serial: serial, value: key)
        return windows.withLock { windows in
            var window = windows[windowKey] ?? (start: nowMs, count: 0)
            if nowMs - window.start >= rule.windowMs { window = (start: nowMs, count: 0) }
            window.count += 1
            windows[windowKey] = window
            guard window.count > rule.limit else { return nil }
            let remaining = (window.start + rule.windowMs - nowMs) / 1000
            return max(1, Int(remaining.rounded(.up)))
        }
    }

    /// Whether `override` may answer in the machine's current state (always, without a state rule). Only checks:
    /// the machine moves in `enter(_:)`, once the override is known to answer (not refused by a limit).
    func allows(_ override: Override) -> Bool {
        guard let rule = override.state, let required = rule.requires else { return true }
        return machines.withLock { ($0[rule.name] ?? StateRule.initial) == required }
    }

    /// Moves `override`'s machine to its `next` state, if it is still in the required one. Check and move happen
    /// under one lock, so of two concurrent requests that both passed `allows(_:)` only one makes the transition.
    /// - Returns: `false` when the machine left the required state since `allows(_:)` (answer the request afresh).
    func enter(_ override: Override) -> Bool {
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
