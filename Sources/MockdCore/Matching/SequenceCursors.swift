import Synchronization

/// The position of every stub in its response sequence.
///
/// Each stub has its own atomic counter, so concurrent requests to one stub each get a distinct step
/// (none twice, none skipped) without a lock.
public final class SequenceCursors: Sendable {
    private final class Counter: Sendable {
        let value = Atomic<Int>(0)
    }

    private let counters: [Counter]

    /// - Parameter count: The number of stubs (ordinals `0..<count`).
    public init(count: Int) {
        counters = (0..<count).map { _ in Counter() }
    }

    /// Returns how many times stub `ordinal` was taken before this call, and counts this one.
    func take(_ ordinal: Int) -> Int {
        counters[ordinal].value.wrappingAdd(1, ordering: .relaxed).oldValue
    }

    /// Sets every cursor back to the first step.
    public func reset() {
        for counter in counters { counter.value.store(0, ordering: .relaxed) }
    }
}
