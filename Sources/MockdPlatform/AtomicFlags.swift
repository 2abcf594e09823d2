#if os(Linux)
import Synchronization
#endif

/// A fixed number of flags, each set once and read from any thread: which stubs of a loaded scenario ever answered
/// (coverage). Setting a flag that is already set only reads it, so a stub answering on every request keeps its
/// cache line shared between the cores.
///
/// One bit per flag, 64 to an `Atomic<UInt64>` word, in memory allocated once: Synchronization's on Linux,
/// MockdPlatform's `LockedAtomic` on Darwin (below macOS 15, without Synchronization; its API is covered by
/// LockedPrimitivesTests): one implementation. (A byte per flag spread 100,000 stubs over 25 pages, one more page
/// and cache line to fetch per request asked at random; as bits they take 12.5 KB.)
public final class AtomicFlags: @unchecked Sendable {
    // @unchecked: the storage is written only through atomics, and never moves.
    public let count: Int
    private let words: UnsafeMutablePointer<Atomic<UInt64>>
    private let wordCount: Int

    /// `count` flags, none set.
    public init(count: Int) {
        self.count = max(0, count)
        wordCount = max(1, (self.count + 63) / 64)
        words = .allocate(capacity: wordCount)
        for index in 0..<wordCount { (words + index).initialize(to: Atomic(0)) }
    }

    deinit {
        words.deinitialize(count: wordCount)
        words.deallocate()
    }

    /// Sets flag `index` (0 ≤ index < `count`; others are ignored).
    @inline(__always)
    public func set(_ index: Int) {
        guard index >= 0, index < count else { return }
        let bit: UInt64 = 1 << UInt64(index & 63)
        var seen = words[index >> 6].load(ordering: .relaxed)
        // Another flag of the word set meanwhile fails the exchange: try again with what it found.
        while seen & bit == 0 {
            let (exchanged, found) = words[index >> 6].compareExchange(
                expected: seen,
                desired: seen | bit,
                ordering: .relaxed
            )
            if exchanged { return }
            seen = found
        }
    }

    /// Whether flag `index` was set (`false` outside 0..<count).
    public func isSet(_ index: Int) -> Bool {
        guard index >= 0, index < count else { return false }
        return words[index >> 6].load(ordering: .relaxed) & (1 << UInt64(index & 63)) != 0
    }
}
