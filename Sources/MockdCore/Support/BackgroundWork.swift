import Foundation

/// Work started on another thread at once, whose result the starter collects later with `wait()`.
final class BackgroundWork<Value: Sendable>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    /// Written once by the worker before it signals `done`, read only after `wait()` has seen that signal.
    private var outcome: Result<Value, any Error>?

    /// Starts `work` on a global queue.
    init(_ work: @escaping @Sendable () throws -> Value) {
        DispatchQueue.global(qos: .userInitiated).async {
            self.outcome = Result { try work() }
            self.done.signal()
        }
    }

    /// What `work` returned or threw, waiting for it to end; call it once.
    func wait() -> Result<Value, any Error> {
        done.wait()
        return outcome!
    }
}
