import CMicroHTTPD
import Foundation
public import MockdCore
import Synchronization

/// An HTTP server on libmicrohttpd that answers every request from a `MockEngine`.
///
/// libmicrohttpd parses HTTP on its own pool of epoll threads (one per core by default); the engine is
/// called on those threads.
/// - Important: Lifecycle is idle → running → (draining →) stopped; `start()` may be called once, `stop()`
///   and `shutdown(gracePeriodMilliseconds:cutShort:)` any time.
public final class MicroHTTPDServer: Sendable {
    /// How the server listens and what it accepts.
    public struct Configuration: Sendable {
        /// Address to bind; `127.0.0.1` by default. `0.0.0.0` or `::` to accept other machines.
        public var host: String
        /// TCP port; 0 picks a free one.
        public var port: Int
        /// Worker threads (`MHD_OPTION_THREAD_POOL_SIZE`); defaults to the number of cores.
        public var threads: Int
        /// Simultaneous connections (`MHD_OPTION_CONNECTION_LIMIT`).
        public var connectionLimit: Int
        /// Idle connection timeout in seconds (`MHD_OPTION_CONNECTION_TIMEOUT`).
        public var connectionTimeoutSeconds: Int
        /// Largest accepted request body in bytes; bigger requests get 413.
        public var maxBodyBytes: Int
        /// How long a `noResponse` fault keeps a connection open before closing it, in ms.
        public var noResponseHoldMilliseconds: Double = 600_000
        /// libmicrohttpd's memory pool per connection (`MHD_OPTION_CONNECTION_MEMORY_LIMIT`), in bytes. The
        /// default 32 KiB is the largest pool libmicrohttpd 0.9.75 takes from malloc; larger pools are
        /// mmap'ed per connection, and the page faults and TLB shootdowns of that halved throughput with a
        /// new connection per request. Query strings beyond ~450 parameters need more.
        public var connectionMemoryBytes: Int = 32 * 1024

        public init(
            host: String = "127.0.0.1",
            port: Int = 0,
            threads: Int = MicroHTTPDServer.defaultThreadCount,
            connectionLimit: Int = 10_000,
            connectionTimeoutSeconds: Int = 60,
            maxBodyBytes: Int = 32 * 1024 * 1024
        ) {
            self.host = host
            self.port = port
            self.threads = threads
            self.connectionLimit = connectionLimit
            self.connectionTimeoutSeconds = connectionTimeoutSeconds
            self.maxBodyBytes = maxBodyBytes
        }
    }

    /// The daemon handle and the settings block libmicrohttpd keeps a pointer to.
    private struct Running: @unchecked Sendable {
        let daemon: OpaquePointer
        let settings: UnsafeMutablePointer<CMicroHTTPD_DaemonSettings>
    }

    private enum State: @unchecked Sendable {
        case idle
        case running(Running)
        /// Graceful shutdown under way: the listening socket, quiesced, is closed after `MHD_stop_daemon`.
        case draining(Running, listenSocket: Int32?)
        case stopped
    }

    /// What a graceful shutdown did.
    public struct ShutdownReport: Sendable, Equatable {
        /// Requests in flight when the listening socket closed.
        public var inFlightAtStart: Int
        /// Requests still in flight when the wait ended; their connections were closed without an answer.
        public var cut: Int
        /// Whether `cutShort` ended the wait before the grace period (a second signal).
        public var cutShort: Bool
        /// From the start of the shutdown until the daemon had stopped, in ms.
        public var elapsedMilliseconds: Double

        public init(inFlightAtStart: Int, cut: Int, cutShort: Bool, elapsedMilliseconds: Double) {
            self.inFlightAtStart = inFlightAtStart
            self.cut = cut
            self.cutShort = cutShort
            self.elapsedMilliseconds = elapsedMilliseconds
        }
    }

    /// One worker thread per core.
    public static var defaultThreadCount: Int { ProcessInfo.processInfo.activeProcessorCount }

    public let configuration: Configuration
    private let bridge: ConnectionBridge
    private let engine: MockEngine
    private let logger: Logger

    /// Connections suspended right now (delayed, throttled or held by a fault); for tests and benchmarks.
    public var suspendedConnections: Int { bridge.suspensions.count }

    /// Requests being answered right now: headers read, exchange not complete, including those waiting on
    /// simulated latency, throttling or a hold. Idle keep-alive connections and open WebSockets do not count.
    public var requestsInFlight: Int { bridge.requestsInFlight }
    private let state = Mutex<State>(.idle)

    public init(configuration: Configuration, engine: MockEngine, logger: Logger) {
        self.configuration = configuration
        self.engine = engine
        self.logger = logger
        self.bridge = ConnectionBridge(
            engine: engine, logger: logger, maxBodyBytes: configuration.maxBodyBytes,
            noResponseHoldMilliseconds: configuration.noResponseHoldMilliseconds
        )
    }

    /// Binds the socket and starts the daemon.
    /// - Returns: The base URL clients use, e.g. `http://127.0.0.1:8080`.
    /// - Throws: `ServerError` (`.portInUse`, `.permissionDenied`, `.invalidAddress`, `.socketFailed`,
    ///   `.daemonFailed`).
    public func start() throws -> String {
        try state.withLock { state in
            guard case .idle = state else { preconditionFailure("MicroHTTPDServer.start() called twice") }
            let socket = try ListeningSocket.bind(host: configuration.host, port: configuration.port)
            NativeResponseSlot.release = { MHD_destroy_response(OpaquePointer($0)) }
            let reactor = WebSocketReactor(engine: engine, logger: logger)
            bridge.webSockets = reactor
            engine.attach(reactor)
            engine.attach(bridge.suspensions)
            ResourceLimits.raiseOpenFileLimit()
            // Suspend/resume carries latency and throttling; TURBO skips the shutdown() before close, so a
            // connection-reset fault really resets.
            var flags =
                MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue | MHD_USE_ERROR_LOG.rawValue
                | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_TURBO.rawValue | MHD_ALLOW_UPGRADE.rawValue
            if socket.isIPv6 { flags |= MHD_USE_IPv6.rawValue }
            let settings = UnsafeMutablePointer<CMicroHTTPD_DaemonSettings>.allocate(capacity: 1)
            let bridgePointer = Unmanaged.passUnretained(bridge).toOpaque()
            settings.initialize(
                to: CMicroHTTPD_DaemonSettings(
                    flags: UInt32(flags),
                    listenSocket: socket.descriptor,
                    threadPoolSize: UInt32(max(1, configuration.threads)),
                    connectionLimit: UInt32(configuration.connectionLimit),
                    connectionTimeoutSeconds: UInt32(configuration.connectionTimeoutSeconds),
                    connectionMemoryLimit: configuration.connectionMemoryBytes,
                    accessHandler: { cls, connection, url, method, version, uploadData, uploadDataSize, slot in
                        guard let cls, let connection, let uploadDataSize, let slot else { return .NO }
                        return Unmanaged<ConnectionBridge>.fromOpaque(cls).takeUnretainedValue().handle(
                            connection: connection, url: url, method: method, version: version, uploadData: uploadData,
                            uploadDataSize: uploadDataSize, slot: slot
                        )
                    },
                    accessContext: bridgePointer,
                    // Keep URLs as sent: matching needs `%2F` distinct from `/` and normalises in one place.
                    unescape: { _, _, text in text.map { strlen($0) } ?? 0 },
                    completed: { cls, _, slot, _ in
                        Unmanaged<ConnectionBridge>.fromOpaque(cls!).takeUnretainedValue().endRequest(slot)
                    },
                    completedContext: bridgePointer,
                    logger: { cls, message in
                        Unmanaged<ConnectionBridge>.fromOpaque(cls!).takeUnretainedValue().log(message)
                    },
                    loggerContext: bridgePointer
                )
            )
            guard let daemon = CMicroHTTPD_startDaemon(settings) else {
                settings.deallocate()
                close(socket.descriptor)
                throw ServerError(.daemonFailed, "libmicrohttpd could not start on \(socket.baseURL) (see the log above)")
            }
            state = .running(Running(daemon: daemon, settings: settings))
            return socket.baseURL
        }
    }

    /// Graceful stop: new connections are refused at once, the requests in flight are answered (each
    /// answer closes its connection), then the daemon stops.
    ///
    /// Requests waiting on simulated latency, throttling or the next server-sent event count as in flight and
    /// are answered when due; open-ended waits end at once: long-poll holds are answered now, `noResponse`
    /// faults close, kept-open event streams end, WebSockets get a 1001 close. Whatever is still in flight
    /// when the grace period ends is cut (its connection closed) by `stop()`.
    /// - Parameters:
    ///   - gracePeriodMilliseconds: How long to wait for requests in flight, in ms; 0 cuts them at once.
    ///   - cutShort: Asked every 10 ms while waiting; `true` ends the wait early (e.g. a second signal).
    /// - Returns: How many requests were in flight and how many were cut; zeros when the server was not running.
    public func shutdown(gracePeriodMilliseconds: Double, cutShort: () -> Bool = { false }) -> ShutdownReport {
        let started = DispatchTime.now().uptimeNanoseconds
        let running: Running? = state.withLock { state in
            guard case .running(let running) = state else { return nil }
            // Taken off libmicrohttpd's epoll sets here; it stays open (and unused) until MHD_stop_daemon.
            let socket = MHD_quiesce_daemon(running.daemon)
            if socket >= 0 { ListeningSocket.refuseNewConnections(socket) }
            state = .draining(running, listenSocket: socket >= 0 ? socket : nil)
            return running
        }
        guard running != nil else { return ShutdownReport(inFlightAtStart: 0, cut: 0, cutShort: false, elapsedMilliseconds: 0) }
        let inFlightAtStart = bridge.requestsInFlight
        bridge.beginDrain()
        let grace = gracePeriodMilliseconds.isFinite ? min(max(0, gracePeriodMilliseconds), 86_400_000) : 86_400_000
        let deadline = started + UInt64(grace * 1_000_000)
        var interrupted = false
        while bridge.requestsInFlight > 0, DispatchTime.now().uptimeNanoseconds < deadline {
            if cutShort() {
                interrupted = true
                break
            }
            usleep(10_000)
        }
        let cut = bridge.requestsInFlight
        stop()
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1_000_000
        return ShutdownReport(inFlightAtStart: inFlightAtStart, cut: cut, cutShort: interrupted && cut > 0, elapsedMilliseconds: elapsed)
    }

    /// Stops at once: stops accepting connections, closes open ones (requests in flight get no answer) and
    /// joins the worker threads.
    public func stop() {
        let stopping: (running: Running, listenSocket: Int32?)? = state.withLock { state in
            defer { state = .stopped }
            switch state {
            case .running(let running): return (running, nil)
            case .draining(let running, let listenSocket): return (running, listenSocket)
            case .idle, .stopped: return nil
            }
        }
        guard let stopping else { return }
        // Upgraded connections would keep MHD_stop_daemon waiting, and a connection still suspended makes it
        // abort the process ("called while we have suspended connections"): close and resume them first.
        bridge.stopWebSockets()
        bridge.suspensions.resumeAll()
        MHD_stop_daemon(stopping.running.daemon)
        // A quiesced listening socket is the caller's to close, and only once the worker threads are gone.
        if let socket = stopping.listenSocket { close(socket) }
        stopping.running.settings.deallocate()
    }
}

/// Connection limits need file descriptors.
enum ResourceLimits {
    /// Raises the soft open-file limit to the hard limit.
    static func raiseOpenFileLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}
