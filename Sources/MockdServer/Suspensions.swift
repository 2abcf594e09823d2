import CMicroHTTPD
import Dispatch
import Foundation
import MockdCore
import MockdPlatform

/// Suspended connections and the timer that resumes them.
///
/// Latency and throttling never sleep on a libmicrohttpd worker: the connection is suspended
/// (`MHD_suspend_connection`), one timer thread resumes it, and the worker serves others
/// meanwhile. Suspended connections neither time out nor notice a client leaving, so every suspension is
/// registered here and `resumeAll()` wakes them before the daemon stops (libmicrohttpd 0.9.75's
/// `MHD_stop_daemon` aborts the process with "called while we have suspended connections" otherwise).
///
/// A graceful shutdown first calls `beginDrain()`: suspensions that wait only for time to pass (latency,
/// throttling, the next server-sent event) keep running, so those requests still get their answer; those
/// that would wait indefinitely or for a test's call (long-poll holds, `noResponse` faults, kept-open event
/// streams) end at once.
final class Suspensions: HeldRequestHub, @unchecked Sendable {
    /// A libmicrohttpd connection handle; only resumed through `MHD_resume_connection`, which is thread-safe.
    private struct Handle: @unchecked Sendable {
        let connection: OpaquePointer
    }

    private struct State {
        var nextToken: UInt64 = 0
        var suspended: [UInt64: Handle] = [:]
        /// Long-poll holds that the control API may release early: token → (session, path).
        var held: [UInt64: (session: String, path: String)] = [:]
        /// Suspensions ended by `beginDrain()` besides long-poll holds: `noResponse` and kept-open streams.
        var endsAtDrain: Set<UInt64> = []
        var draining = false
        var stopping = false
    }

    private let state = Mutex(State())
    private var timer: ResumeTimer!

    /// The timer token that means "check suspended connections for clients that left".
    private static let sweepToken: UInt64 = .max
    /// How often suspended connections are checked, in ms.
    private static let sweepIntervalMs: Double = 1000

    init() {
        timer = ResumeTimer(name: "mockd-resume") { [weak self] token in
            guard let self else { return }
            if token == Suspensions.sweepToken {
                self.resumeDeparted()
                self.timer.schedule(Suspensions.sweepToken, afterMs: Suspensions.sweepIntervalMs)
            } else {
                self.resume(token)
            }
        }
        timer.schedule(Suspensions.sweepToken, afterMs: Suspensions.sweepIntervalMs)
    }

    /// Suspended connections do not notice a client leaving (libmicrohttpd stops polling them), so once a
    /// second each one is peeked at: a closed peer (EOF or error) is resumed at once, and libmicrohttpd then
    /// fails the write and frees the connection instead of holding it until its timer.
    private func resumeDeparted() {
        let suspended = state.withLock { $0.suspended }
        for (token, handle) in suspended {
            let socket = CMicroHTTPD_connectionSocket(handle.connection)
            guard socket >= 0 else { continue }
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 0) > 0 else { continue }
            var byte: UInt8 = 0
            let peeked = recv(socket, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
            if peeked == 0 || (peeked < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
                resume(token)
            }
        }
    }

    deinit {
        timer.stop()
    }

    /// Whether the daemon is stopping; handlers then end their connections. Read on every request, so kept
    /// beside the lock as an atomic: the lock taken for it by both worker threads showed as context switches
    /// under keep-alive load. Set under the lock with `State.stopping`, which decisions made under the lock read.
    var isStopping: Bool { stoppingFlag.load(ordering: .acquiring) }
    private let stoppingFlag = Atomic<Bool>(false)

    /// Whether a graceful shutdown has begun (`beginDrain()`); requests in flight are still answered.
    var isDraining: Bool { state.withLock { $0.draining } }

    /// The number of connections suspended right now.
    var count: Int { state.withLock { $0.suspended.count } }

    /// Suspends `connection` (call on its worker thread) and resumes it after `milliseconds`;
    /// `nil` keeps it suspended until `resumeAll()`.
    /// - Returns: `false` when the connection was not suspended: the daemon is stopping, or it is draining
    ///   and this is a hold or `endsAtDrain` suspension.
    /// - Parameters:
    ///   - heldFor: The session and path of a long-poll hold, releasable with `release(session:path:)`; ended
    ///     by `beginDrain()`.
    ///   - endsAtDrain: Resume this one as soon as a graceful shutdown begins (a wait for nothing but time).
    func suspend(
        _ connection: OpaquePointer,
        resumeAfter milliseconds: Double?,
        heldFor: (session: String, path: String)? = nil,
        endsAtDrain: Bool = false
    ) -> Bool {
        suspendResumable(connection, resumeAfter: milliseconds, heldFor: heldFor, endsAtDrain: endsAtDrain) != nil
    }

    /// `suspend`, returning the token that `resume(token:)` ends the suspension with early (an event pushed to a
    /// waiting stream); `nil` when the connection was not suspended.
    func suspendResumable(
        _ connection: OpaquePointer,
        resumeAfter milliseconds: Double?,
        heldFor: (session: String, path: String)? = nil,
        endsAtDrain: Bool = false
    ) -> UInt64? {
        let handle = Handle(connection: connection)
        let token: UInt64? = state.withLock { state in
            guard !state.stopping, !(state.draining && (endsAtDrain || heldFor != nil)) else { return nil }
            state.nextToken += 1
            state.suspended[state.nextToken] = handle
            if let heldFor { state.held[state.nextToken] = heldFor }
            if endsAtDrain { state.endsAtDrain.insert(state.nextToken) }
            return state.nextToken
        }
        guard let token else { return nil }
        MHD_suspend_connection(connection)
        if let milliseconds { timer.schedule(token, afterMs: milliseconds) }
        return token
    }

    /// Suspends `connection` until `resume(token:)` (an answer from elsewhere, e.g. the upstream client, whose
    /// own timeout guarantees one). No timer: the caller owes the resume. Not ended by a graceful shutdown's
    /// start (the answer is awaited); `resumeAll()` and the departed-client sweep still resume it.
    /// - Returns: The token to resume it with, or `nil` when the daemon is stopping (not suspended).
    func suspendUntilAnswered(_ connection: OpaquePointer) -> UInt64? {
        let handle = Handle(connection: connection)
        let token: UInt64? = state.withLock { state in
            guard !state.stopping else { return nil }
            state.nextToken += 1
            state.suspended[state.nextToken] = handle
            return state.nextToken
        }
        guard let token else { return nil }
        MHD_suspend_connection(connection)
        return token
    }

    /// Resumes a suspension from `suspendUntilAnswered`; nothing when it was resumed already.
    func resume(token: UInt64) {
        resume(token)
    }

    /// Resumes one suspension, once: a timer and `resumeAll()` may race, only the first one resumes.
    private func resume(_ token: UInt64) {
        guard
            let handle = state.withLock({ state in
                state.held.removeValue(forKey: token)
                state.endsAtDrain.remove(token)
                return state.suspended.removeValue(forKey: token)
            })
        else { return }
        MHD_resume_connection(handle.connection)
    }

    func release(session: String, path: String?) -> Int {
        let tokens = state.withLock { state in
            state.held.filter { $0.value.session == session && (path == nil || $0.value.path == path) }.map(\.key)
        }
        for token in tokens { resume(token) }
        return tokens.count
    }

    func held(session: String) -> [String] {
        state.withLock { $0.held.values.filter { $0.session == session }.map(\.path).sorted() }
    }

    /// Starts a graceful shutdown: ends long-poll holds (they are answered now) and the other
    /// `endsAtDrain` suspensions; timed ones keep their timers. Later holds are answered without waiting.
    func beginDrain() {
        let tokens = state.withLock { state in
            state.draining = true
            return Array(state.held.keys) + Array(state.endsAtDrain)
        }
        for token in tokens { resume(token) }
    }

    /// Marks the daemon as stopping, ends the timer thread and resumes every suspended connection.
    func resumeAll() {
        timer.stop()
        let connections = state.withLock { state in
            state.stopping = true
            stoppingFlag.store(true, ordering: .releasing)
            state.held.removeAll()
            state.endsAtDrain.removeAll()
            defer { state.suspended.removeAll() }
            return Array(state.suspended.values)
        }
        for handle in connections { MHD_resume_connection(handle.connection) }
    }
}
