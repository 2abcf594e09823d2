import Foundation

/// Runs a blocking client (curl, python) on its own thread while the test goes on; `value()` waits for it.
public final class BackgroundJob<Value: Sendable>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var result: Value?

    public static func start(_ body: @escaping @Sendable () -> Value) -> BackgroundJob<Value> {
        let job = BackgroundJob<Value>()
        Thread {
            job.result = body()
            job.done.signal()
        }.start()
        return job
    }

    /// Blocks until the job has finished and returns its result.
    public func value() -> Value {
        done.wait()
        return result!
    }
}
