import CMicroHTTPD
import Dispatch
import Synchronization

/// Suspended connections and the timer that resumes them.
///
/// Latency and throttling never sleep on a libmicrohttpd worker: the connection is suspended
/// (`MHD_suspend_connection`), one timer thread resumes it, and the worker serves others
/// meanwhile. Suspended connections neither time out nor notice a client leaving, so every suspension is
/// registered here and `resumeAll()` wakes them before the daemon stops (otherwise `MHD_stop_daemon` hangs).
final class Suspensions: @unchecked Sendable {
    /// A libmicrohttpd connection handle; only resumed through `MHD_resume_connection`, which is thread-safe.
    private struct Handle: @unchecked Sendable {
        let connection: OpaquePointer
    }

    private struct State {
        var nextToken: UInt64 = 0
        var suspended: [UInt64: Handle] = [:]
        var stopping = false
    }

    private let state = Mutex(State())
    private var timer: ResumeTimer!

    init() {
        timer = ResumeTimer { [weak self] token in self?.resume(token) }
    }

    deinit {
        timer.stop()
    }

    /// Whether the daemon is stopping; handlers then end their connections.
    var isStopping: Bool { state.withLock { $0.stopping } }

    /// The number of connections suspended right now.
    var count: Int { state.withLock { $0.suspended.count } }

    /// Suspends `connection` (call on its worker thread) and resumes it after `milliseconds`;
    /// `nil` keeps it suspended until `resumeAll()`.
    /// - Returns: `false` when the daemon is stopping and the connection was not suspended.
    func suspend(_ connection: OpaquePointer, resumeAfter milliseconds: Double?) -> Bool {
        let handle = Handle(connection: connection)
        let token: UInt64? = state.withLock { state in
            guard !state.stopping else { return nil }
            state.nextToken += 1
            state.suspended[state.nextToken] = handle
            return state.nextToken
        }
        guard let token else { return false }
        MHD_suspend_connection(connection)
        if let milliseconds { timer.schedule(token, afterMilliseconds: milliseconds) }
        return true
    }

    /// Resumes one suspension, once: a timer and `resumeAll()` may race, only the first one resumes.
    private func resume(_ token: UInt64) {
        guard let handle = state.withLock({ $0.suspended.removeValue(forKey: token) }) else { return }
        MHD_resume_connection(handle.connection)
    }

    /// Marks the daemon as stopping, ends the timer thread and resumes every suspended connection.
    func resumeAll() {
        timer.stop()
        let connections = state.withLock { state in
            state.stopping = true
            defer { state.suspended.removeAll() }
            return Array(state.suspended.values)
        }
        for handle in connections { MHD_resume_connection(handle.connection) }
    }
}
