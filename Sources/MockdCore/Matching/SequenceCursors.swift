import MockdPlatform

/// How many times each stub or override has answered in one session.
///
/// Counters are created on first use (a new session costs one small allocation, whatever the number of
/// stubs) and advanced under a lock, so concurrent requests to one stub each get a distinct step — none
/// twice, none skipped.
public final class SequenceCursors<Key: Hashable & Sendable>: Sendable {
    private let counts = Mutex<[Key: Int]>([:])

    public init() {}

    /// Returns how many times `key` was taken before this call, and counts this one.
    func take(_ key: Key) -> Int {
        counts.withLock { counts in
            let previous = counts[key, default: 0]
            counts[key] = previous + 1
            return previous
        }
    }

    /// How many times `key` was taken, without counting this call (a `HEAD` answered by a `GET` stub sees the
    /// step the next `GET` gets, and leaves it to that `GET`).
    func peek(_ key: Key) -> Int {
        counts.withLock { $0[key, default: 0] }
    }

    /// Sets every cursor back to the first step.
    public func reset() {
        counts.withLock { $0.removeAll() }
    }

    /// Forgets one key (a removed runtime stub).
    func remove(_ key: Key) {
        _ = counts.withLock { $0.removeValue(forKey: key) }
    }
}
