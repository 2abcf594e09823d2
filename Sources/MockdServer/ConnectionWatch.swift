import CMicroHTTPD
import Foundation
import MockdCore
import MockdPlatform

/// Bounds what a slow or surplus client can hold: the whole request (head and body) must arrive within the
/// connection timeout, and a client beyond `--max-connections` is refused at once instead of waiting in the
/// listen backlog.
///
/// libmicrohttpd 0.9.75 measures `MHD_OPTION_CONNECTION_TIMEOUT` as idle time only, so a client sending a header
/// byte every second holds its connection forever; and once its connection limit is reached it stops polling the
/// listening socket, so new clients hang until they give up. Here every connection is registered when it opens
/// (`MHD_OPTION_NOTIFY_CONNECTION`) with its socket; a watch thread shuts down (`shutdown(2)`, which libmicrohttpd
/// then sees as the client leaving) each one that has been receiving the same request for longer than the
/// timeout, not counting time the watch itself did not run (the process was paused) nor time a request sent before
/// the deadline waited unread behind busy workers. New connections past the limit are refused by the accept policy
/// (closed at once: the client sees the connection reset or closed), and libmicrohttpd's own limit is set above ours
/// so that it never stops accepting.
final class ConnectionWatch: @unchecked Sendable {
    /// One open connection, kept in libmicrohttpd's socket context.
    final class Connection: @unchecked Sendable {  // seenPhase and seenAt: the watch thread only
        let socket: Int32
        /// Advanced by 2 when a request line arrives and when an exchange ends, + 1 while the request is being
        /// answered (its head and body are all in): written only by the connection's own libmicrohttpd thread, read
        /// by the watch thread, which restarts a deadline whenever it changes.
        let phase = Atomic<UInt64>(0)
        /// The phase the watch thread last saw, and when (monotonic ns) it or, while an answer is sent, the bytes
        /// the client has not taken last changed; only the watch thread touches these.
        var seenPhase: UInt64 = .max
        var seenAt: UInt64 = 0
        /// The answer's bytes in the socket's send buffer at the last sweep (0 while the answer is not stuck).
        var seenUnsent = 0
        /// Cut already: not counted again while libmicrohttpd closes it.
        var isCut = false
        /// Since when (monotonic ns) a request not begun yet has waited unread in the socket, at every sweep past the
        /// deadline; 0 when none does. The watch thread only.
        var unreadSince: UInt64 = 0
        /// Consecutive sweeps that found the client gone (EOF) with the phase unchanged; the watch thread only.
        var sweepsAtEOF = 0

        /// Whether the current request's line has arrived (its head or body may still be on the way); false while
        /// the connection waits for its next request. Written by the connection's own libmicrohttpd thread.
        let requestStarted = Atomic<Bool>(false)

        /// Set for a WebSocket: the reactor owns the socket from the upgrade on.
        let exempted = Atomic<Bool>(false)

        /// The request context of the connection's last request, cleared, for its next one (`RequestContext`), as the
        /// retained pointer libmicrohttpd's request slot holds (handed over without reference counting); only the
        /// connection's own libmicrohttpd thread touches it.
        var idleRequest: UnsafeMutableRawPointer?

        deinit {
            if let idleRequest { Unmanaged<RequestContext>.fromOpaque(idleRequest).release() }
        }

        init(socket: Int32) {
            self.socket = socket
        }

        /// No deadline any more (the connection became a WebSocket).
        func exempt() {
            exempted.store(true, ordering: .relaxed)
        }

        /// The whole request is in: no deadline while it is answered (latency, holds, streams, WebSockets).
        @inline(__always)
        func requestReceived() {
            let current = phase.load(ordering: .relaxed)
            phase.store(current | 1, ordering: .relaxed)
        }

        /// The request line has arrived: the request is begun, and its deadline starts now (a new phase, still
        /// even: the request is not whole yet).
        @inline(__always)
        func requestLineArrived() {
            requestStarted.store(true, ordering: .relaxed)
            let current = phase.load(ordering: .relaxed)
            phase.store(current &+ 2, ordering: .relaxed)
        }

        /// The exchange is over: the next request's deadline starts now.
        @inline(__always)
        func requestCompleted() {
            requestStarted.store(false, ordering: .relaxed)
            let current = phase.load(ordering: .relaxed)
            phase.store((current | 1) &+ 1, ordering: .relaxed)
        }
    }

    let maxConnections: Int
    let timeoutNanoseconds: UInt64
    let logger: Logger
    private let open = Atomic<Int>(0)
    /// Open connections by address; the lock also keeps a socket from being closed while it is shut down.
    private let connections = Mutex<[ObjectIdentifier: Connection]>([:])
    /// The watch thread: sweeps once per interval (a dedicated thread from the start, not a dispatch timer, whose
    /// queue spawned a worker thread at its first tick).
    private var timer: ResumeTimer?
    /// The time between sweeps (ns), and when the last one ran (monotonic ns; 0 before the first); the watch thread
    /// only.
    private var sweepIntervalNanoseconds: UInt64 = 0
    private var lastSweepAt: UInt64 = 0
    /// Connections refused at the limit and closed for a late request, for the log.
    private let refused = Atomic<Int>(0)

    /// - Parameters:
    ///   - maxConnections: Connections kept open at most (`--max-connections`).
    ///   - timeoutSeconds: How long a request may take to arrive whole (`--connection-timeout`); 0 for no limit.
    init(maxConnections: Int, timeoutSeconds: Int, logger: Logger) {
        self.maxConnections = max(1, maxConnections)
        self.timeoutNanoseconds = UInt64(max(0, timeoutSeconds)) * 1_000_000_000
        self.logger = logger
        guard timeoutSeconds > 0 else { return }
        // An eighth of the timeout, between 50 and 500 ms: a late request is cut within the timeout + 500 ms.
        let interval = Double(min(500, max(50, timeoutSeconds * 125)))
        sweepIntervalNanoseconds = UInt64(interval * 1_000_000)
        sweepsBeforeClosingHalfClosed = max(2, Int(2000 / interval))
        let timer = ResumeTimer(name: "mockd-watch") { [weak self] token in
            guard let self else { return }
            self.sweep()
            self.timer?.schedule(token, afterMs: interval)
        }
        self.timer = timer
        timer.schedule(0, afterMs: interval)
    }

    deinit {
        timer?.stop()
    }

    /// libmicrohttpd's own connection limit: far enough above ours (per worker thread) that it never stops
    /// accepting before the accept policy refuses.
    static func daemonLimit(maxConnections: Int, threads: Int) -> Int {
        (maxConnections + 64) * max(1, threads)
    }

    /// The accept policy: refuse once `maxConnections` are open.
    func admits() -> Bool {
        if open.load(ordering: .relaxed) < maxConnections { return true }
        let count = refused.add(1, ordering: .relaxed).newValue
        // One line for the first refusal, then one per 1,000, so a flood does not flood the log.
        if count == 1 || count % 1000 == 0 {
            logger.warning(
                "refused a connection: --max-connections (\(maxConnections)) are open (\(count) refused so far)"
            )
        }
        return false
    }

    /// `MHD_OPTION_NOTIFY_CONNECTION`.
    func notify(
        _ connection: OpaquePointer?,
        context: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
        code: MHD_ConnectionNotificationCode
    ) {
        guard let context else { return }
        if code == .CONNECTION_NOTIFY_STARTED {
            let watched = register(socket: connection.map { CMicroHTTPD_connectionSocket($0) } ?? -1)
            context.pointee = Unmanaged.passRetained(watched).toOpaque()
        } else if let pointer = context.pointee {
            let watched = Unmanaged<Connection>.fromOpaque(pointer)
            unregister(watched.takeUnretainedValue())
            watched.release()
            context.pointee = nil
        }
    }

    /// Watches the connection on `socket` from now on (`notify` at its start).
    func register(socket: Int32) -> Connection {
        let watched = Connection(socket: socket)
        open.add(1, ordering: .relaxed)
        connections.withLock { $0[ObjectIdentifier(watched)] = watched }
        return watched
    }

    /// Stops watching `watched` (`notify` at its end): before libmicrohttpd closes the socket, under the lock the
    /// sweep shuts sockets down with.
    func unregister(_ watched: Connection) {
        _ = connections.withLock { $0.removeValue(forKey: ObjectIdentifier(watched)) }
        open.subtract(1, ordering: .relaxed)
    }

    /// The watched connection of `connection`, as the raw pointer kept in libmicrohttpd's socket context (nil
    /// before it is registered, which does not happen in practice). Raw, and used through the helpers below, so a
    /// request pays no reference counting for it.
    @inline(__always)
    static func connection(of connection: OpaquePointer) -> UnsafeMutableRawPointer? {
        CMicroHTTPD_connectionSocketContext(connection)
    }

    /// `Connection.requestReceived()` on a pointer from `connection(of:)`.
    @inline(__always)
    static func requestReceived(_ pointer: UnsafeMutableRawPointer?) {
        guard let pointer else { return }
        Unmanaged<Connection>.fromOpaque(pointer)._withUnsafeGuaranteedRef { $0.requestReceived() }
    }

    /// Marks the request on a pointer from `connection(of:)` as begun: its line has arrived
    /// (`MHD_OPTION_URI_LOG_CALLBACK`). A connection cut at the deadline without one was idle, not late; and the
    /// request's own deadline starts here, so a connection reused after idling gets the whole timeout for its
    /// request (an upload shorter than the timeout was cut when the idle time before it counted too).
    @inline(__always)
    static func requestLineArrived(_ pointer: UnsafeMutableRawPointer?) {
        guard let pointer else { return }
        Unmanaged<Connection>.fromOpaque(pointer)._withUnsafeGuaranteedRef { $0.requestLineArrived() }
    }

    /// `Connection.requestCompleted()` on a pointer from `connection(of:)`.
    @inline(__always)
    static func requestCompleted(_ pointer: UnsafeMutableRawPointer?) {
        guard let pointer else { return }
        Unmanaged<Connection>.fromOpaque(pointer)._withUnsafeGuaranteedRef { $0.requestCompleted() }
    }

    /// Takes the context the connection kept from its previous request, if any (`Connection.idleRequest`): a retained
    /// pointer, for libmicrohttpd's request slot.
    @inline(__always)
    static func takeIdleRequest(_ pointer: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
        guard let pointer else { return nil }
        return Unmanaged<Connection>.fromOpaque(pointer)._withUnsafeGuaranteedRef { connection in
            defer { connection.idleRequest = nil }
            return connection.idleRequest
        }
    }

    /// Keeps `request` (a retained, cleared `RequestContext` pointer) for the connection's next request, unless it
    /// keeps one already.
    /// - Returns: Whether it was kept (else the caller still owns it).
    @inline(__always)
    static func keepIdleRequest(_ request: UnsafeMutableRawPointer, in pointer: UnsafeMutableRawPointer?) -> Bool {
        guard let pointer else { return false }
        return Unmanaged<Connection>.fromOpaque(pointer)._withUnsafeGuaranteedRef { connection in
            guard connection.idleRequest == nil else { return false }
            connection.idleRequest = request
            return true
        }
    }

    /// `Connection.exempt()` on a pointer from `connection(of:)`.
    static func exempt(_ pointer: UnsafeMutableRawPointer?) {
        guard let pointer else { return }
        Unmanaged<Connection>.fromOpaque(pointer)._withUnsafeGuaranteedRef { $0.exempt() }
    }

    /// Sweeps in a row (2 s) that must find a connection's client gone, with no request in it, before it is closed:
    /// libmicrohttpd 0.9.75 (edge-triggered epoll) can miss the end of a stream that arrives in the same read as
    /// the last bytes (junk after a request, a request line it skips), and then holds the connection until the
    /// idle timeout. Two seconds leave a worker busy elsewhere time to read a request it has buffered but not
    /// yet handed over.
    private(set) var sweepsBeforeClosingHalfClosed = 8

    /// What a connection's socket holds that libmicrohttpd has not read yet.
    enum Unread: Equatable {
        /// Bytes the client sent.
        case bytes
        /// Nothing, and the client has closed its side.
        case endOfStream
        /// Nothing yet (or the socket could not be asked).
        case nothing
    }

    /// What `socket` holds unread (`recv` with `MSG_PEEK | MSG_DONTWAIT`: never consumes a byte, never waits).
    static func unread(_ socket: Int32) -> Unread {
        var byte: UInt8 = 0
        switch recv(socket, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) {
        case 0: return .endOfStream
        case 1...: return .bytes
        default: return .nothing
        }
    }

    /// Whether the client has closed its side and nothing unread is left in the socket; never consumes a byte.
    static func peerHasClosed(_ socket: Int32) -> Bool {
        unread(socket) == .endOfStream
    }

    /// `closed N connection(s) …`, a sweep's log line.
    private static func closed(_ count: Int, _ rest: String) -> String {
        "closed \(count) connection\(count == 1 ? "" : "s") \(rest)"
    }

    /// Whether more than the timeout has passed from `start` to `now` (monotonic ns).
    @inline(__always)
    private func isOverdue(since start: UInt64, now: UInt64) -> Bool {
        now > start && now - start > timeoutNanoseconds
    }

    /// Shuts down every connection whose current request has been arriving (or which has been idle) for longer than
    /// the timeout, every one whose client has taken none of its answer for that long, and every one whose client
    /// left with nothing to answer (see `sweepsBeforeClosingHalfClosed`).
    private func sweep() {
        let now = RequestContext.monotonicNanoseconds()
        // A sweep more than an interval late means the process was paused (a debugger, SIGSTOP) or starved: what
        // time it did not run in is the daemon's, not its clients', so every deadline moves by it. At the first
        // sweep after a pause, a worker may have read a request but not yet handed it over.
        let gap = lastSweepAt == 0 ? 0 : now &- lastSweepAt
        let missed = gap > 2 * sweepIntervalNanoseconds ? gap - sweepIntervalNanoseconds : 0
        lastSweepAt = now
        var cut = 0
        var stalled = 0
        var idle = 0
        var halfClosed = 0
        var unreadCut = 0
        connections.withLock { connections in
            for watched in connections.values {
                let phase = watched.phase.load(ordering: .relaxed)
                if watched.exempted.load(ordering: .relaxed) || watched.socket < 0 { continue }
                if phase != watched.seenPhase {
                    watched.seenPhase = phase
                    watched.seenAt = now
                    watched.sweepsAtEOF = 0
                    watched.seenUnsent = 0
                    watched.unreadSince = 0
                    continue
                }
                if watched.isCut { continue }
                watched.seenAt &+= missed
                if watched.unreadSince != 0 { watched.unreadSince &+= missed }
                if phase & 1 == 1 {
                    // Being answered (latency, holds and streams included): only a client that takes none of the
                    // answer for the timeout is cut. libmicrohttpd's own idle timeout did this, but it also closed
                    // requests that had arrived while the daemon was busy or paused, before reading them.
                    let unsent = PlatformSocket.unsentBytes(watched.socket) ?? 0
                    if unsent != watched.seenUnsent {
                        watched.seenUnsent = unsent
                        watched.seenAt = now
                        continue
                    }
                    guard unsent > 0, isOverdue(since: watched.seenAt, now: now) else { continue }
                    shutdown(watched.socket, Int32(SHUT_RDWR))
                    watched.isCut = true
                    stalled += 1
                    continue
                }
                let unread = ConnectionWatch.unread(watched.socket)
                if unread == .endOfStream {
                    watched.sweepsAtEOF += 1
                    if watched.sweepsAtEOF == sweepsBeforeClosingHalfClosed {
                        shutdown(watched.socket, Int32(SHUT_RDWR))
                        halfClosed += 1
                    }
                    continue
                }
                watched.sweepsAtEOF = 0
                guard isOverdue(since: watched.seenAt, now: now) else { continue }
                // A request sent whose line the workers have not read yet waits for them, not for its client. Cut,
                // it still took effect: libmicrohttpd read it from the socket after the shutdown, carried it out and
                // could not answer (the client saw an empty reply). Bounded all the same (four timeouts more): a
                // connection libmicrohttpd stopped reading must not be held for ever. Bytes waiting in a request
                // already begun do not spare it: libmicrohttpd 1.0 stops reading a chunk extension longer than its
                // buffer and waits, and only this deadline ends that.
                if unread == .bytes, !watched.requestStarted.load(ordering: .relaxed) {
                    if watched.unreadSince == 0 { watched.unreadSince = now }
                    guard now &- watched.unreadSince > 4 * timeoutNanoseconds else { continue }
                    shutdown(watched.socket, Int32(SHUT_RDWR))
                    watched.isCut = true
                    unreadCut += 1
                    continue
                }
                // libmicrohttpd closes the connection on its next read.
                shutdown(watched.socket, Int32(SHUT_RDWR))
                watched.isCut = true
                if watched.requestStarted.load(ordering: .relaxed) { cut += 1 } else { idle += 1 }
            }
        }
        let timeout = "--connection-timeout (\(timeoutNanoseconds / 1_000_000_000) s)"
        // Idle keep-alive connections are housekeeping, as libmicrohttpd's own idle timeout did it: not worth a line
        // by default.
        if idle > 0 { logger.debug(Self.closed(idle, "idle for \(timeout)")) }
        if stalled > 0 {
            logger.warning(Self.closed(stalled, "whose client took none of the answer within \(timeout)"))
        }
        if halfClosed > 0 {
            logger.info(Self.closed(halfClosed, "its client had half-closed with no request left to answer"))
        }
        if cut > 0 { logger.warning(Self.closed(cut, "whose request did not arrive whole within \(timeout)")) }
        if unreadCut > 0 {
            logger.warning(
                Self.closed(
                    unreadCut,
                    "whose request waited unread for four times \(timeout) past its deadline: the workers were busy"
                )
            )
        }
    }
}
