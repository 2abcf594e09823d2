#if os(Linux)
import Synchronization
#endif

/// A fixed number of flags, each set once and read from any thread: which stubs of a loaded scenario ever answered
/// (coverage). Setting a flag that is already set only reads it, so a stub answering on every request keeps its
/// cache line shared between the cores.
///
/// Linux: one `Synchronization.Atomic<Bool>` per flag, in memory allocated once. Darwin (below macOS 15, without
/// Synchronization): the flags behind one lock.
public final class AtomicFlags: @unchecked Sendable {
    // @unchecked: the storage is written only through atomics (Linux) or under the lock (Darwin), and never moves.
    public let count: Int
    #if os(Linux)
    private let flags: UnsafeMutablePointer<Atomic<Bool>>
    #else
    private let flags: LockedMutex<[Bool]>
    #endif

    /// `count` flags, none set.
    public init(count: Int) {
        self.count = max(0, count)
        #if os(Linux)
        flags = .allocate(capacity: max(1, self.count))
        for index in 0..<self.count { (flags + index).initialize(to: Atomic(false)) }
        #else
        flags = LockedMutex(Array(repeating: false, count: self.count))
        #endif
    }

    deinit {
        #if os(Linux)
        flags.deinitialize(count: count)
        flags.deallocate()
        #endif
    }

    /// Sets flag `index` (0 ≤ index < `count`; others are ignored).
    @inline(__always)
    public func set(_ index: Int) {
        guard index >= 0, index < count else { return }
        #if os(Linux)
        if !flags[index].load(ordering: .relaxed) { flags[index].store(true, ordering: .relaxed) }
        #else
        flags.withLock { $0[index] = true }
        #endif
    }

    /// Whether flag `index` was set (`false` outside 0..<count).
    public func isSet(_ index: Int) -> Bool {
        guard index >= 0, index < count else { return false }
        #if os(Linux)
        return flags[index].load(ordering: .relaxed)
        #else
        return flags.withLock { $0[index] }
        #endif
    }
}
