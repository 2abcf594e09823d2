/// The memory orderings `LockedAtomic` accepts, named as Synchronization's. A lock orders every access
/// sequentially, so each is as strong as `.sequentiallyConsistent`; they exist so that call sites read the same on
/// every platform.
public struct LockedLoadOrdering: Sendable {
    public static let relaxed = LockedLoadOrdering()
    public static let acquiring = LockedLoadOrdering()
    public static let sequentiallyConsistent = LockedLoadOrdering()
}

/// See `LockedLoadOrdering`.
public struct LockedStoreOrdering: Sendable {
    public static let relaxed = LockedStoreOrdering()
    public static let releasing = LockedStoreOrdering()
    public static let sequentiallyConsistent = LockedStoreOrdering()
}

/// See `LockedLoadOrdering`.
public struct LockedUpdateOrdering: Sendable {
    public static let relaxed = LockedUpdateOrdering()
    public static let acquiring = LockedUpdateOrdering()
    public static let releasing = LockedUpdateOrdering()
    public static let acquiringAndReleasing = LockedUpdateOrdering()
    public static let sequentiallyConsistent = LockedUpdateOrdering()
}

/// A value read and changed atomically, with the API of `Synchronization.Atomic` that the daemon uses (`load`,
/// `store`, `exchange`, `compareExchange`, and for integers `add`, `subtract`, `wrappingAdd`, `wrappingSubtract`,
/// `min`, `max`), for platforms without Synchronization (Darwin below macOS 15; `Atomic` there). Compiled and tested
/// on Linux too.
///
/// Each value has its own lock: correct for every ordering, slower than a hardware atomic under contention.
public final class LockedAtomic<Value: Sendable>: @unchecked Sendable {
    private let lock = PlatformLock()
    private var value: Value

    public init(_ initialValue: Value) {
        value = initialValue
    }

    @inline(__always)
    private func locked<R>(_ body: (inout Value) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }

    public func load(ordering: LockedLoadOrdering) -> Value {
        locked { $0 }
    }

    public func store(_ desired: Value, ordering: LockedStoreOrdering) {
        locked { $0 = desired }
    }

    /// Stores `desired`; returns the value before.
    public func exchange(_ desired: Value, ordering: LockedUpdateOrdering) -> Value {
        locked { value in
            defer { value = desired }
            return value
        }
    }
}

extension LockedAtomic where Value: Equatable {
    /// Stores `desired` if the value is `expected`; whether it did, and the value found.
    public func compareExchange(
        expected: Value,
        desired: Value,
        ordering: LockedUpdateOrdering
    ) -> (exchanged: Bool, original: Value) {
        locked { value in
            let original = value
            guard original == expected else { return (false, original) }
            value = desired
            return (true, original)
        }
    }

    /// As `compareExchange(expected:desired:ordering:)`; both orderings are honoured by the lock.
    public func compareExchange(
        expected: Value,
        desired: Value,
        successOrdering: LockedUpdateOrdering,
        failureOrdering: LockedLoadOrdering
    ) -> (exchanged: Bool, original: Value) {
        compareExchange(expected: expected, desired: desired, ordering: successOrdering)
    }
}

extension LockedAtomic where Value: FixedWidthInteger {
    /// Adds `operand`, trapping on overflow as `Atomic.add` does; the values before and after.
    public func add(_ operand: Value, ordering: LockedUpdateOrdering) -> (oldValue: Value, newValue: Value) {
        update { $0 + operand }
    }

    /// Subtracts `operand`, trapping on overflow; the values before and after.
    public func subtract(_ operand: Value, ordering: LockedUpdateOrdering) -> (oldValue: Value, newValue: Value) {
        update { $0 - operand }
    }

    /// Adds `operand` wrapping around; the values before and after.
    public func wrappingAdd(_ operand: Value, ordering: LockedUpdateOrdering) -> (oldValue: Value, newValue: Value) {
        update { $0 &+ operand }
    }

    /// Subtracts `operand` wrapping around; the values before and after.
    public func wrappingSubtract(
        _ operand: Value,
        ordering: LockedUpdateOrdering
    ) -> (oldValue: Value, newValue: Value) {
        update { $0 &- operand }
    }

    /// Keeps the smaller of the value and `operand`; the values before and after.
    public func min(_ operand: Value, ordering: LockedUpdateOrdering) -> (oldValue: Value, newValue: Value) {
        update { Swift.min($0, operand) }
    }

    /// Keeps the larger of the value and `operand`; the values before and after.
    public func max(_ operand: Value, ordering: LockedUpdateOrdering) -> (oldValue: Value, newValue: Value) {
        update { Swift.max($0, operand) }
    }

    private func update(_ next: (Value) -> Value) -> (oldValue: Value, newValue: Value) {
        locked { value in
            let old = value
            value = next(old)
            return (old, value)
        }
    }
}
