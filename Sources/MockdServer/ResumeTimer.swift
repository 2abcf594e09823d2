import Dispatch
import Foundation

/// One dedicated thread that fires resume deadlines in order.
///
/// A single thread (started with the server) rather than dispatch timers, so the daemon's thread count
/// stays flat however many requests wait: 2,000 delayed requests are 2,000 heap entries, not threads.
final class ResumeTimer: @unchecked Sendable {
    private let condition = NSCondition()
    /// Min-heap of (deadline in uptime ns, token).
    private var heap: [(deadline: UInt64, token: UInt64)] = []
    private var stopped = false
    private let fire: @Sendable (UInt64) -> Void

    /// - Parameter fire: Called on the timer thread with each token whose deadline has passed.
    init(fire: @escaping @Sendable (UInt64) -> Void) {
        self.fire = fire
        // The thread keeps the timer alive until `stop()` ends its loop.
        let thread = Thread { self.run() }
        thread.name = "mockd-timer"
        thread.start()
    }

    /// Fires `token` after `milliseconds`.
    func schedule(_ token: UInt64, afterMilliseconds milliseconds: Double) {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, milliseconds) * 1_000_000)
        condition.lock()
        push((deadline, token))
        condition.signal()
        condition.unlock()
    }

    /// Ends the thread; pending tokens are dropped (the caller resumes those connections itself).
    func stop() {
        condition.lock()
        stopped = true
        heap.removeAll()
        condition.signal()
        condition.unlock()
    }

    private func run() {
        condition.lock()
        while !stopped {
            guard let next = heap.first else {
                condition.wait()
                continue
            }
            let now = DispatchTime.now().uptimeNanoseconds
            if next.deadline > now {
                _ = condition.wait(until: Date(timeIntervalSinceNow: Double(next.deadline - now) / 1_000_000_000))
                continue
            }
            var due: [UInt64] = []
            while let top = heap.first, top.deadline <= now {
                due.append(pop().token)
            }
            condition.unlock()
            for token in due { fire(token) }
            condition.lock()
        }
        condition.unlock()
    }

    private func push(_ item: (deadline: UInt64, token: UInt64)) {
        heap.append(item)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].deadline < heap[parent].deadline else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private func pop() -> (deadline: UInt64, token: UInt64) {
        let top = heap[0]
        heap[0] = heap[heap.count - 1]
        heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].deadline < heap[smallest].deadline { smallest = left }
            if right < heap.count, heap[right].deadline < heap[smallest].deadline { smallest = right }
            if smallest == parent { break }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
        return top
    }
}
