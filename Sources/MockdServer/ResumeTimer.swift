import Dispatch
import Foundation
import MockdPlatform

/// One dedicated thread that fires resume deadlines in order.
///
/// A single thread (started with the server) rather than dispatch timers, so the daemon's thread count
/// stays flat however many requests wait: 2,000 delayed requests are 2,000 heap entries, not threads.
final class ResumeTimer: @unchecked Sendable {
    private let condition = NSCondition()
    /// Tokens by deadline (uptime ns).
    private var heap = DeadlineHeap<UInt64>()
    private var stopped = false
    private let fire: @Sendable (UInt64) -> Void

    /// - Parameters:
    ///   - name: The thread's name as `top -H` and debuggers show it (at most 15 bytes kept on Linux).
    ///   - fire: Called on the timer thread with each token whose deadline has passed.
    init(name: String, fire: @escaping @Sendable (UInt64) -> Void) {
        self.fire = fire
        // The thread keeps the timer alive until `stop()` ends its loop.
        ThreadName.startThread(named: name) { self.run() }
    }

    /// Fires `token` after `milliseconds`.
    func schedule(_ token: UInt64, afterMs milliseconds: Double) {
        // Clamped to a day so no input can overflow the deadline.
        let bounded = milliseconds.isFinite ? min(max(0, milliseconds), 86_400_000) : 86_400_000
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(bounded * 1_000_000)
        condition.lock()
        heap.push(token, deadline: deadline)
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
            guard let next = heap.nextDeadline else {
                condition.wait()
                continue
            }
            let now = DispatchTime.now().uptimeNanoseconds
            if next > now {
                _ = condition.wait(until: Date(timeIntervalSinceNow: Double(next - now) / 1_000_000_000))
                continue
            }
            var due: [UInt64] = []
            while let token = heap.popDue(now: now) { due.append(token) }
            condition.unlock()
            for token in due { fire(token) }
            condition.lock()
        }
        condition.unlock()
    }
}
