import Dispatch
import Foundation
import MockdPlatform

/// Waits for SIGINT or SIGTERM with `sigwait` on a thread of its own.
///
/// Why not a dispatch source: a source starts watching only some time after `resume()` returns, on another
/// thread, and a signal sent in between was ignored (its disposition is `SIG_IGN` then). A test runner that sent
/// SIGTERM right after the daemon's first answer, on a busy machine, left the daemon running on. Here the signals are
/// blocked (`blockInThisThread`) before the command starts any thread, so a signal sent at any moment stays
/// pending until this takes it.
final class SignalWaiter: @unchecked Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    /// The signal that ended the wait (0: none, `stopWithoutSignal`), whether it has ended, and how many signals came.
    private let state = Mutex((received: Int32(0), stopping: false, count: 0))

    /// Blocks `signals` in the calling thread and every thread it creates afterwards. Call it first thing in a
    /// serving command, before anything starts a thread: a thread started earlier does not block them, and the
    /// kernel may hand the signal to it instead (with the default action, ending the process without its clean
    /// stop). A signal that arrives while the set loads waits until the server runs, then stops it cleanly.
    static func blockInThisThread(_ signals: [Int32]) {
        var set = signalSet(signals)
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// - Precondition: `blockInThisThread(signals)` ran before any thread of this process was started.
    init(signals: [Int32]) {
        signal(SIGPIPE, SIG_IGN)
        Self.blockInThisThread(signals)
        let set = Self.signalSet(signals)
        // Named for the kernel too (`/proc/…/comm`): a thread inside `sigwait` shows the signals unblocked.
        ThreadName.startThread(named: "mockd-signals") { [self] in
            var waitedFor = set
            while true {
                var number: Int32 = 0
                guard sigwait(&waitedFor, &number) == 0 else { continue }
                stop(signal: number)
            }
        }
    }

    /// Ends the wait as a signal would, with no signal: `wait()` returns 0 (`--stop-on-stdin-eof`). Not counted in
    /// `count`: a parent that closes the input and sends SIGTERM (MockdDaemon) asks for one graceful stop, not two.
    func stopWithoutSignal() { stop(signal: nil) }

    /// Ends the wait if this is the first stop request; counts `signal`.
    private func stop(signal: Int32?) {
        let first = state.withLock { state -> Bool in
            if signal != nil { state.count += 1 }
            guard !state.stopping else { return false }
            state.stopping = true
            state.received = signal ?? 0
            return true
        }
        if first { semaphore.signal() }
    }

    /// The signal that ended the wait; 0 for `stopWithoutSignal()`.
    func wait() -> Int32 {
        semaphore.wait()
        return state.withLock { $0.received }
    }

    /// How many of the signals have arrived so far.
    var count: Int { state.withLock { $0.count } }

    private static func signalSet(_ signals: [Int32]) -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for number in signals { sigaddset(&set, number) }
        return set
    }
}

/// Reads standard input to its end on a thread of its own, dropping what it reads, then calls `ended` once: the
/// parent holding the other end of a pipe exited, crashed or closed it (`--stop-on-stdin-eof`). An input that
/// cannot be read counts as ended.
enum StandardInputWatch {
    static func start(_ ended: @escaping @Sendable () -> Void) {
        ThreadName.startThread(named: "mockd-stdin") {
            let input = FileHandle.standardInput
            while true {
                do {
                    guard let chunk = try input.read(upToCount: 4096), !chunk.isEmpty else { break }
                } catch let error as NSError where error.domain == NSPOSIXErrorDomain && error.code == Int(EINTR) {
                    continue
                } catch {
                    break
                }
            }
            ended()
        }
    }
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
