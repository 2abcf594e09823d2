import Synchronization

/// Everything a session changes while it is served: sequence cursors of stubs and overrides and rate-limit
/// windows. `reset()` puts it back to the scenario's start.
final class SessionState: Sendable {
    let stubCursors: SequenceCursors
    let overrideCursors: SequenceCursors
    private let windows = Mutex<[Int: (start: Double, count: Int)]>([:])

    init(stubCount: Int, overrideCount: Int) {
        stubCursors = SequenceCursors(count: stubCount)
        overrideCursors = SequenceCursors(count: overrideCount)
    }

    /// Counts a call to override `ordinal` and tells whether it is over the limit; when it is, returns the
    /// seconds until the window ends (for `Retry-After`).
    func rateLimited(_ ordinal: Int, rule: RateLimitRule, nowMs: Double) -> Int? {
        windows.withLock { windows in
            var window = windows[ordinal] ?? (start: nowMs, count: 0)
            if nowMs - window.start >= rule.windowMs { window = (start: nowMs, count: 0) }
            window.count += 1
            windows[ordinal] = window
            guard window.count > rule.limit else { return nil }
            let remaining = (window.start + rule.windowMs - nowMs) / 1000
            return max(1, Int(remaining.rounded(.up)))
        }
    }

    func reset() {
        stubCursors.reset()
        overrideCursors.reset()
        windows.withLock { $0.removeAll() }
    }
}
