import Foundation
import MockdPlatform

/// Splits `0..<count` into contiguous slices, runs `body` on them on every core at once, and returns the results in
/// slice order. Used where start-up work over a large index divides cleanly (decoding, building).
enum ParallelSlices {
    /// How many threads work at once: one per core, at most four.
    static var sliceCount: Int { min(4, max(1, ProcessInfo.processInfo.activeProcessorCount)) }

    /// Slices per thread: more, smaller slices than threads, taken as threads come free, so a thread slowed down
    /// (page faults, another process on its core) does not leave the others waiting for its half: with one slice
    /// per core, one of two threads ran alone for the last 15% of a 100,000-stub build.
    static let slicesPerThread = 8

    /// - Parameter body: Called once per slice, possibly on another thread, with the slice's range.
    static func run<T: Sendable>(over count: Int, _ body: @Sendable (Range<Int>) -> T) -> [T] {
        let slices = max(1, min(count, sliceCount * slicesPerThread))
        let bounds = (0...slices).map { count * $0 / slices }
        let results = Mutex([T?](repeating: nil, count: slices))
        DispatchQueue.concurrentPerform(iterations: slices) { slice in
            let result = body(bounds[slice]..<bounds[slice + 1])
            results.withLock { $0[slice] = result }
        }
        return results.withLock { $0.map { $0! } }
    }
}
