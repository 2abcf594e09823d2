import Synchronization

/// Everything a session changes while it is served: sequence cursors of stubs (by ordinal in the scenario's
/// index) and overrides (by serial), and rate-limit windows. `reset()` puts it back to the scenario's start.
final class SessionState: Sendable {
    let stubCursors = SequenceCursors<Int>()
    let overrideCursors = SequenceCursors<UInt64>()
    /// WebSocket connections opened per endpoint path, for per-connection scripts.
    let webSocketConnections = SequenceCursors<String>()
    private let windows = Mutex<[UInt64: (start: Double, count: Int)]>([:])

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

    func reset() {
        stubCursors.reset()
        overrideCursors.reset()
        webSocketConnections.reset()
        windows.withLock { $0.removeAll() }
    }
}
