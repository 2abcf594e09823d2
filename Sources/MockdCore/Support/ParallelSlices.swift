import Foundation
import MockdPlatform

/// Splits `0..<count` into contiguous slices, one per core (at most four), runs `body` on each at once, and returns
/// the results in slice order. Used where start-up work over a large index divides cleanly (decoding, building).
enum ParallelSlices {
    /// How many slices `run` makes: one per core, at most four.
    static var sliceCount: Int { min(4, max(1, ProcessInfo.processInfo.activeProcessorCount)) }

    /// - Parameter body: Called once per slice, possibly on another thread, with the slice's range.
    static func run<T: Sendable>(over count: Int, _ body: @Sendable (Range<Int>) -> T) -> [T] {
        let slices = sliceCount
        let bounds = (0...slices).map { count * $0 / slices }
        let results = Mutex([T?](repeating: nil, count: slices))
        DispatchQueue.concurrentPerform(iterations: slices) { slice in
            let result = body(bounds[slice]..<bounds[slice + 1])
            results.withLock { $0[slice] = result }
        }
        return results.withLock { $0.map { $0! } }
    }
}
