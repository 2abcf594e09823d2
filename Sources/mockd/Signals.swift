import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Blocks until one of the given signals arrives; installed before the server starts.
final class SignalWaiter: @unchecked Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private var sources: [any DispatchSourceSignal] = []
    private var received: Int32 = 0
    private var receivedCount = 0
    private let queue = DispatchQueue(label: "mockd.signals")

    init(signals: [Int32]) {
        signal(SIGPIPE, SIG_IGN)
        for number in signals {
            // The default action would kill the process before the dispatch source sees the signal.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [unowned self] in
                self.receivedCount += 1
                if self.receivedCount == 1 {
                    self.received = number
                    self.semaphore.signal()
                }
            }
            source.resume()
            sources.append(source)
        }
    }

    /// The signal that ended the wait.
    func wait() -> Int32 {
        semaphore.wait()
        return queue.sync { received }
    }

    /// How many of the signals have arrived so far.
    var count: Int { queue.sync { receivedCount } }
}

/// Runs `action` on a private queue each time `signal` arrives, until cancelled.
final class SignalHandler: @unchecked Sendable {
    private let source: any DispatchSourceSignal

    init(signal number: Int32, action: @escaping @Sendable () -> Void) {
        signal(number, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: number, queue: DispatchQueue(label: "mockd.signal.\(number)"))
        source.setEventHandler(handler: action)
        source.resume()
    }

    func cancel() { source.cancel() }
}
