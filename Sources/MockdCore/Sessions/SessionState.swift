import MockdPlatform

/// Everything a session changes while it is served: sequence cursors of stubs (by ordinal in the scenario's
/// index) and overrides (by serial), and rate-limit windows. `reset()` puts it back to the scenario's start.
final class SessionState: Sendable {
    let stubCursors = SequenceCursors<Int>()
    let overrideCursors = SequenceCursors<UInt64>()
    /// WebSocket connections opened per endpoint path, for per-connection scripts.
    let webSocketConnections = SequenceCursors<String>()
    private let windows = Mutex<[WindowKey: (start: Double, count: Int)]>([:])
    /// State machine name → current state; a machine not in here is in `StateRule.initial`.
    private let machines = Mutex<[String: Machine]>([:])
    /// The session's virtual clock; kept when the scenario is switched or reloaded, new on reset.
    let clock: SessionClock
    /// Latency scale, overrides turned off, the chance generator; kept and renewed as the clock is.
    let switches: SessionSwitches
    /// The session's copies of the scenario's stateful resources (seeded on first use).
    let resources = ResourceStore()

    init(clock: SessionClock = SessionClock(), switches: SessionSwitches = SessionSwitches()) {
        self.clock = clock
        self.switches = switches
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
    /// the machine moves in `enter(_:nowMs:)`, once the override is known to answer (not refused by a limit).
    /// - Parameter nowMs: The session's clock in ms, read only when the machine has a pending timeout.
    func allows(_ override: Override, nowMs: () -> Double) -> Bool {
        guard let rule = override.state, let required = rule.requires else { return true }
        return machines.withLock { required.contains(SessionState.current(rule.name, in: &$0, nowMs: nowMs).state) }
    }

    /// Counts the answer and moves `override`'s machine to its `next` state (at the `after`th answer in the current
    /// state), if it is still in a required one. Check and move happen under one lock, so of two concurrent requests
    /// that both passed `allows(_:nowMs:)` only one makes the transition.
    /// - Returns: `false` when the machine left the required states since `allows` (answer the request afresh).
    func enter(_ override: Override, nowMs: () -> Double) -> Bool {
        guard let rule = override.state else { return true }
        return machines.withLock { machines in
            var machine = SessionState.current(rule.name, in: &machines, nowMs: nowMs)
            if let required = rule.requires, !required.contains(machine.state) { return false }
            guard let next = rule.next else { return true }
            machine.count += 1
            if machine.count >= rule.after {
                machine = Machine(state: next)
                if let timeout = rule.timeout {
                    machine.deadline = nowMs() + timeout.afterMs
                    machine.timeoutNext = timeout.next
                }
            }
            machines[rule.name] = machine
            return true
        }
    }

    /// Moves machine `name` to `next` (a WebSocket reply's `state`), when it is in one of `requires` (any state when
    /// `nil`); a pending timeout of the state it leaves is dropped, as an override's transition does.
    /// - Returns: The state it was in, and whether it moved.
    func move(_ name: String, to next: String, requires: [String]?, nowMs: Double) -> (from: String, moved: Bool) {
        machines.withLock { machines in
            let current = SessionState.current(name, in: &machines, nowMs: { nowMs })
            if let requires, !requires.contains(current.state) { return (current.state, false) }
            machines[name] = Machine(state: next)
            return (current.state, true)
        }
    }

    /// The current state of machine `name` (`Started` until an override moves it).
    /// - Parameter nowMs: The session's clock in ms (default: real monotonic time plus the clock's offset).
    func state(of name: String, nowMs: Double? = nil) -> String {
        let now = nowMs ?? clock.milliseconds(MonotonicClock.milliseconds())
        return machines.withLock { SessionState.current(name, in: &$0, nowMs: { now }).state }
    }

    /// One machine: its state, the answers counted toward an `after` in it, and a pending timeout.
    struct Machine {
        var state: String
        var count = 0
        var deadline: Double?
        var timeoutNext: String?
    }

    /// Machine `name` as it is at `nowMs`: a timeout that has passed is applied (and stored).
    private static func current(_ name: String, in machines: inout [String: Machine], nowMs: () -> Double) -> Machine {
        guard var machine = machines[name] else { return Machine(state: StateRule.initial) }
        if let deadline = machine.deadline, let next = machine.timeoutNext, nowMs() >= deadline {
            machine = Machine(state: next)
            machines[name] = machine
        }
        return machine
    }

    func reset() {
        machines.withLock { $0.removeAll() }
        stubCursors.reset()
        overrideCursors.reset()
        webSocketConnections.reset()
        windows.withLock { $0.removeAll() }
    }
}
