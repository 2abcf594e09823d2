import Dispatch
import MockdPlatform
import Testing

/// The Darwin side of the lock seam (`LockedMutex`, `LockedAtomic`), compiled and run here over `pthread_mutex_t`:
/// the same code, with `os_unfair_lock`, is what `Mutex` and `Atomic` are on a Mac below macOS 15.
struct LockedPrimitivesTests {
    static let threads = 8
    static let rounds = 20_000

    @Test func mutexLosesNoUpdateUnderParallelWriters() {
        let counter = LockedMutex([Int]())
        DispatchQueue.concurrentPerform(iterations: Self.threads) { thread in
            for _ in 0..<Self.rounds {
                counter.withLock { $0.append(thread) }
            }
        }
        let values = counter.withLock { $0 }
        #expect(values.count == Self.threads * Self.rounds)
        for thread in 0..<Self.threads { #expect(values.filter { $0 == thread }.count == Self.rounds) }
    }

    @Test func mutexRethrowsAndUnlocks() {
        struct Refused: Error {}
        let mutex = LockedMutex(1)
        #expect(throws: Refused.self) { try mutex.withLock { _ throws(Refused) in throw Refused() } }
        #expect(mutex.withLock { $0 } == 1)
    }

    @Test func integerOperationsReturnTheValuesBeforeAndAfter() {
        let atomic = LockedAtomic<UInt64>(5)
        #expect(atomic.add(3, ordering: .relaxed) == (oldValue: 5, newValue: 8))
        #expect(atomic.subtract(2, ordering: .relaxed) == (oldValue: 8, newValue: 6))
        #expect(atomic.min(4, ordering: .relaxed) == (oldValue: 6, newValue: 4))
        #expect(atomic.max(9, ordering: .relaxed) == (oldValue: 4, newValue: 9))
        #expect(atomic.wrappingAdd(UInt64.max, ordering: .relaxed) == (oldValue: 9, newValue: 8))
        #expect(atomic.wrappingSubtract(9, ordering: .relaxed) == (oldValue: 8, newValue: UInt64.max))
        atomic.store(7, ordering: .releasing)
        #expect(atomic.load(ordering: .acquiring) == 7)
        #expect(atomic.exchange(1, ordering: .acquiringAndReleasing) == 7)
        #expect(atomic.compareExchange(expected: 2, desired: 3, ordering: .relaxed) == (exchanged: false, original: 1))
        #expect(
            atomic.compareExchange(
                expected: 1,
                desired: 3,
                successOrdering: .acquiringAndReleasing,
                failureOrdering: .acquiring
            ) == (exchanged: true, original: 1)
        )
        #expect(atomic.load(ordering: .relaxed) == 3)
    }

    @Test func parallelAddsAndExchangesCountEveryCall() {
        let counter = LockedAtomic<Int>(0)
        let flag = LockedAtomic<Bool>(false)
        let winners = LockedAtomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: Self.threads) { _ in
            for _ in 0..<Self.rounds { _ = counter.add(1, ordering: .relaxed) }
            if !flag.exchange(true, ordering: .relaxed) { _ = winners.add(1, ordering: .relaxed) }
        }
        #expect(counter.load(ordering: .relaxed) == Self.threads * Self.rounds)
        #expect(winners.load(ordering: .relaxed) == 1)
    }
}
