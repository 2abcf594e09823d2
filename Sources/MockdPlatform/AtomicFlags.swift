#if os(Linux)
import Synchronization
#endif

/// A fixed number of flags, each set once and read from any thread: which stubs of a loaded scenario ever answered
/// (coverage). Setting a flag that is already set only reads it, so a stub answering on every request keeps its
/// cache line shared between the cores.
///
/// One `Atomic<Bool>` per flag, in memory allocated once: Synchronization's on Linux, MockdPlatform's `LockedAtomic`
/// on Darwin (below macOS 15, without Synchronization; its API is covered by LockedPrimitivesTests): one implementation.
public final class AtomicFlags: @unchecked Sendable {
    // @unchecked: the storage is written only through atomics, and never moves.
    public let count: Int
    private let flags: UnsafeMutablePointer<Atomic<Bool>>

    /// `count` flags, none set.
    public init(count: Int) {
        self.count = max(0, count)
        flags = .allocate(capacity: max(1, self.count))
        for index in 0..<self.count { (flags + index).initialize(to: Atomic(false)) }
    }

    deinit {
        flags.deinitialize(count: count)
        flags.deallocate()
    }

    /// Sets flag `index` (0 ≤ index < `count`; others are ignored).
    @inline(__always)
    public func set(_ index: Int) {
        guard index >= 0, index < count else { return }
        if !flags[index].load(ordering: .relaxed) { flags[index].store(true, ordering: .relaxed) }
    }

    /// Whether flag `index` was set (`false` outside 0..<count).
    public func isSet(_ index: Int) -> Bool {
        guard index >= 0, index < count else { return false }
        return flags[index].load(ordering: .relaxed)
    }
}
