import CMicroHTTPD
import Foundation
public import MockdCore
import MockdPlatform

/// An HTTP server on libmicrohttpd that answers every request from a `MockEngine`.
///
/// libmicrohttpd parses HTTP on its own pool of epoll threads (one per core by default); the engine is
/// called on those threads.
/// - Important: Lifecycle is idle → running → (draining →) stopped; `start()` may be called once, `stop()`
///   and `shutdown(gracePeriodMs:cutShort:)` any time.
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
        /// Seconds a request may take to arrive whole, a connection may stay idle, and a client may take none of its
        /// answer (`ConnectionWatch`); 0 for no limit.
        public var connectionTimeoutSeconds: Int
        /// Largest accepted request body in bytes; bigger requests get 413.
        public var maxBodyBytes: Int
        /// How long an open-ended answer holds its connection at most, in ms: a `noResponse` fault (then closed) and an
        /// event stream kept open after its last event.
        public var longestHoldMs: Double = 600_000
        /// libmicrohttpd's memory pool per connection (`MHD_OPTION_CONNECTION_MEMORY_LIMIT`), in bytes. The
        /// default 32 KiB is the largest pool libmicrohttpd 0.9.75 takes from malloc; larger pools are
        /// mmap'ed per connection, and the page faults and TLB shootdowns of that halved throughput with a
        /// new connection per request. Query strings beyond ~450 parameters need more.
        public var connectionMemoryBytes: Int = 32 * 1024
        /// Serve HTTPS with this certificate and key (libmicrohttpd's GnuTLS support): on `port` alone, or, with
        /// `tlsPort`, on that second port while `port` serves plain HTTP (one engine behind both).
        public var tls: TLSCredentials?
        /// With `tls`: the port for HTTPS besides plain HTTP on `port`; 0 picks a free one.
        public var tlsPort: Int?
        /// Hosts webhooks (`emit[].webhook`) may reach besides loopback addresses (`--webhook-allow`): `host` or
        /// `host:port` (`[::1]:9000`).
        public var webhookAllow: [String] = []

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

    /// The daemon handles (the HTTP one first; a second one for `tlsPort`) and the settings blocks
    /// libmicrohttpd keeps pointers to.
    private struct Running: @unchecked Sendable {
        let daemons: [OpaquePointer]
        let settings: [UnsafeMutablePointer<CMicroHTTPD_DaemonSettings>]
    }

    private enum State: @unchecked Sendable {
        case idle
        case running(Running)
        /// Graceful shutdown under way: the listening sockets, quiesced, are closed after `MHD_stop_daemon`.
        case draining(Running, listenSockets: [Int32])
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
        public var elapsedMs: Double

        public init(inFlightAtStart: Int, cut: Int, cutShort: Bool, elapsedMs: Double) {
            self.inFlightAtStart = inFlightAtStart
            self.cut = cut
            self.cutShort = cutShort
            self.elapsedMs = elapsedMs
        }
    }

    /// One worker thread per core.
    public static var defaultThreadCount: Int { ProcessInfo.processInfo.activeProcessorCount }

    /// The version of the libmicrohttpd that runs (`MHD_get_version()`: "0.9.75", "1.0.1"); its request parser
    /// decides some framing answers (docs/PLATFORMS.md).
    public static var libraryVersion: String { String(cString: CMicroHTTPD_versionText()) }

    public let configuration: Configuration
    private let bridge: ConnectionBridge
    /// The whole-request deadline and the connection limit (`ConnectionWatch`), shared by the daemons.
    private let watch: ConnectionWatch
    private let engine: MockEngine
    private let logger: Logger

    /// Connections suspended right now (delayed, throttled or held by a fault); for tests and benchmarks.
    public var suspendedConnections: Int { bridge.suspensions.count }

    /// Requests being answered right now: headers read, exchange not complete, including those waiting on
    /// simulated latency, throttling or a hold. Idle keep-alive connections and open WebSockets do not count.
    public var requestsInFlight: Int { bridge.requestsInFlight }
    private let state = Mutex<State>(.idle)

    /// - Parameter proxy: Answers unmatched requests from an upstream (capture-on-miss, `mockd record`);
    ///   `nil` answers them with the engine's 404.
    public init(configuration: Configuration, engine: MockEngine, logger: Logger, proxy: UpstreamProxy? = nil) {
        self.configuration = configuration
        self.engine = engine
        self.logger = logger
        self.bridge = ConnectionBridge(
            engine: engine,
            logger: logger,
            maxBodyBytes: configuration.maxBodyBytes,
            longestHoldMs: configuration.longestHoldMs
        )
        bridge.proxy = proxy
        self.watch = ConnectionWatch(
            maxConnections: configuration.connectionLimit,
            timeoutSeconds: configuration.connectionTimeoutSeconds,
            logger: logger
        )
    }

    /// Binds the socket and starts the daemon.
    /// - Returns: The base URL clients use, e.g. `http://127.0.0.1:8080` (`https://…` when the port serves
    ///   HTTPS); see `startAll()` for both URLs with `tlsPort`.
    /// - Throws: `ServerError` (`.portInUse`, `.permissionDenied`, `.invalidAddress`, `.socketFailed`,
    ///   `.daemonFailed`).
    public func start() throws -> String {
        try startAll()[0]
    }

    /// Binds the sockets and starts the daemons: one, or two with `tlsPort` (HTTP, then HTTPS).
    /// - Returns: The base URLs, the plain HTTP one first (`http://127.0.0.1:8080`, `https://127.0.0.1:8443`).
    /// - Throws: `ServerError` as `start()`; `.daemonFailed` also when GnuTLS refuses the certificate or key.
    public func startAll() throws -> [String] {
        try state.withLock { state in
            guard case .idle = state else { preconditionFailure("MicroHTTPDServer.start() called twice") }
            var listeners: [(socket: ListeningSocket, tls: TLSCredentials?)] = []
            do {
                let primary = try ListeningSocket.bind(host: configuration.host, port: configuration.port)
                if let tls = configuration.tls, let tlsPort = configuration.tlsPort {
                    listeners = [(primary, nil)]
                    do {
                        listeners.append((try ListeningSocket.bind(host: configuration.host, port: tlsPort), tls))
                    } catch let error as ServerError {
                        throw ServerError(
                            error.code,
                            error.message.replacingOccurrences(of: "--port", with: "--tls-port")
                        )
                    }
                } else {
                    listeners = [(primary, configuration.tls)]
                }
            } catch {
                for listener in listeners { FileDescriptor(rawValue: listener.socket.descriptor).close() }
                throw error
            }
            let reactor = WebSocketReactor(engine: engine, logger: logger)
            bridge.webSockets = reactor
            engine.attach(reactor)
            let pushes = PushDispatcher(
                engine: engine,
                logger: logger,
                webSockets: reactor,
                webhookAllow: configuration.webhookAllow
            )
            reactor.pushes = pushes
            bridge.pushes = pushes
            engine.attach(pushes)
            engine.attach(bridge.suspensions)
            engine.attach(bridge as any ServerStatus)
            ProcessLimits.raiseOpenFileLimit()
            var daemons: [OpaquePointer] = []
            var settingsList: [UnsafeMutablePointer<CMicroHTTPD_DaemonSettings>] = []
            var urls: [String] = []
            for (index, listener) in listeners.enumerated() {
                let settings = makeSettings(socket: listener.socket, tls: listener.tls)
                let url =
                    listener.tls == nil
                    ? listener.socket.baseURL : "https" + listener.socket.baseURL.dropFirst("http".count)
                guard let daemon = CMicroHTTPD_startDaemon(settings) else {
                    Self.release(settings)
                    for later in listeners[index...] { FileDescriptor(rawValue: later.socket.descriptor).close() }
                    for daemon in daemons { MHD_stop_daemon(daemon) }
                    settingsList.forEach(Self.release)
                    let why =
                        listener.tls.map {
                            " (GnuTLS refused --tls-cert \($0.certificatePath) or --tls-key \($0.keyPath))"
                        } ?? " (see the log above)"
                    throw ServerError(.daemonFailed, "libmicrohttpd could not start on \(url)\(why)")
                }
                daemons.append(daemon)
                settingsList.append(settings)
                urls.append(url)
            }
            state = .running(Running(daemons: daemons, settings: settingsList))
            return urls
        }
    }

    /// The settings block for one daemon on `socket`; freed by `release(_:)` after the daemon stops.
    private func makeSettings(
        socket: ListeningSocket,
        tls: TLSCredentials?
    ) -> UnsafeMutablePointer<CMicroHTTPD_DaemonSettings> {
        // Suspend/resume carries latency and throttling; TURBO skips the shutdown() before close, so a
        // connection-reset fault really resets.
        var flags =
            MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue | MHD_USE_ERROR_LOG.rawValue
            | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_TURBO.rawValue | MHD_ALLOW_UPGRADE.rawValue
        if socket.isIPv6 { flags |= MHD_USE_IPv6.rawValue }
        if tls != nil { flags |= MHD_USE_TLS.rawValue }
        let settings = UnsafeMutablePointer<CMicroHTTPD_DaemonSettings>.allocate(capacity: 1)
        let bridgePointer = Unmanaged.passUnretained(bridge).toOpaque()
        let watchPointer = Unmanaged.passUnretained(watch).toOpaque()
        settings.initialize(
            to: CMicroHTTPD_DaemonSettings(
                flags: UInt32(flags),
                listenSocket: socket.descriptor,
                threadPoolSize: UInt32(max(1, configuration.threads)),
                // Above ours, so libmicrohttpd never stops accepting: `ConnectionWatch` refuses at the limit.
                connectionLimit: UInt32(
                    ConnectionWatch.daemonLimit(
                        maxConnections: configuration.connectionLimit,
                        threads: configuration.threads
                    )
                ),
                // None: `ConnectionWatch` keeps every deadline. libmicrohttpd's idle timeout is checked before the
                // sockets that are ready are read, so after the daemon was busy or paused for longer than the timeout
                // it closed requests that had arrived whole, unread.
                connectionTimeoutSeconds: 0,
                connectionMemoryLimit: configuration.connectionMemoryBytes,
                accessHandler: { cls, connection, url, method, version, uploadData, uploadDataSize, slot in
                    guard let cls, let connection, let uploadDataSize, let slot else { return .NO }
                    // A guaranteed reference: the server keeps the bridge alive, and a retain/release pair on
                    // the one object every worker thread calls through bounced its cache line between cores.
                    return Unmanaged<ConnectionBridge>.fromOpaque(cls)._withUnsafeGuaranteedRef {
                        $0.handle(
                            connection: connection,
                            url: url,
                            method: method,
                            version: version,
                            uploadData: uploadData,
                            uploadDataSize: uploadDataSize,
                            slot: slot
                        )
                    }
                },
                accessContext: bridgePointer,
                // Keep URLs as sent: matching needs `%2F` distinct from `/` and normalises in one place.
                unescape: { _, _, text in text.map { strlen($0) } ?? 0 },
                completed: { cls, _, slot, _ in
                    Unmanaged<ConnectionBridge>.fromOpaque(cls!)._withUnsafeGuaranteedRef { $0.endRequest(slot) }
                },
                completedContext: bridgePointer,
                logger: { cls, message in
                    Unmanaged<ConnectionBridge>.fromOpaque(cls!).takeUnretainedValue().log(message)
                },
                loggerContext: bridgePointer,
                tlsCertificate: tls.map { UnsafePointer(strdup($0.certificatePEM)) },
                tlsKey: tls.map { UnsafePointer(strdup($0.keyPEM)) },
                acceptPolicy: { cls, _, _ in
                    Unmanaged<ConnectionWatch>.fromOpaque(cls!)._withUnsafeGuaranteedRef { $0.admits() } ? .YES : .NO
                },
                acceptPolicyContext: watchPointer,
                notifyConnection: { cls, connection, socketContext, code in
                    Unmanaged<ConnectionWatch>.fromOpaque(cls!)._withUnsafeGuaranteedRef {
                        $0.notify(connection, context: socketContext, code: code)
                    }
                },
                notifyConnectionContext: watchPointer,
                requestLine: { _, _, connection in
                    ConnectionWatch.requestLineArrived(connection.flatMap { ConnectionWatch.connection(of: $0) })
                    return nil
                },
                requestLineContext: nil
            )
        )
        return settings
    }

    /// Frees a settings block and its copies of the certificate and key.
    private static func release(_ settings: UnsafeMutablePointer<CMicroHTTPD_DaemonSettings>) {
        free(UnsafeMutableRawPointer(mutating: settings.pointee.tlsCertificate))
        free(UnsafeMutableRawPointer(mutating: settings.pointee.tlsKey))
        settings.deallocate()
    }

    /// Graceful stop: new connections are refused at once, the requests in flight are answered (each
    /// answer closes its connection), then the daemon stops.
    ///
    /// Requests waiting on simulated latency, throttling or the next server-sent event count as in flight and
    /// are answered when due; open-ended waits end at once: long-poll holds are answered now, `noResponse`
    /// faults close, kept-open event streams end, WebSockets get a 1001 close. Whatever is still in flight
    /// when the grace period ends is cut (its connection closed) by `stop()`.
    /// - Parameters:
    ///   - gracePeriodMs: How long to wait for requests in flight, in ms; 0 cuts them at once.
    ///   - cutShort: Asked every 10 ms while waiting; `true` ends the wait early (e.g. a second signal).
    /// - Returns: How many requests were in flight and how many were cut; zeros when the server was not running.
    public func shutdown(gracePeriodMs: Double, cutShort: () -> Bool = { false }) -> ShutdownReport {
        let started = DispatchTime.now().uptimeNanoseconds
        let running: Running? = state.withLock { state in
            guard case .running(let running) = state else { return nil }
            // Taken off libmicrohttpd's epoll sets here; they stay open (and unused) until MHD_stop_daemon.
            let sockets = running.daemons.map { MHD_quiesce_daemon($0) }.filter { $0 >= 0 }
            sockets.forEach(ListeningSocket.refuseNewConnections)
            state = .draining(running, listenSockets: sockets)
            return running
        }
        guard running != nil else {
            return ShutdownReport(inFlightAtStart: 0, cut: 0, cutShort: false, elapsedMs: 0)
        }
        let inFlightAtStart = bridge.requestsInFlight
        bridge.beginDrain()
        let grace = gracePeriodMs.isFinite ? min(max(0, gracePeriodMs), 86_400_000) : 86_400_000
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
        return ShutdownReport(
            inFlightAtStart: inFlightAtStart,
            cut: cut,
            cutShort: interrupted && cut > 0,
            elapsedMs: elapsed
        )
    }

    /// Stops at once: stops accepting connections, closes open ones (requests in flight get no answer) and
    /// joins the worker threads.
    public func stop() {
        let stopping: (running: Running, listenSockets: [Int32])? = state.withLock { state in
            defer { state = .stopped }
            switch state {
            case .running(let running): return (running, [])
            case .draining(let running, let listenSockets): return (running, listenSockets)
            case .idle, .stopped: return nil
            }
        }
        guard let stopping else { return }
        // Pushes not yet due are dropped; webhooks in flight end.
        bridge.pushes?.stop()
        // Upgraded connections would keep MHD_stop_daemon waiting, and a connection still suspended makes it
        // abort the process ("called while we have suspended connections"): close and resume them first.
        bridge.stopWebSockets()
        bridge.suspensions.resumeAll()
        stopping.running.daemons.forEach { MHD_stop_daemon($0) }
        // A quiesced listening socket is the caller's to close, and only once the worker threads are gone.
        for socket in stopping.listenSockets { FileDescriptor(rawValue: socket).close() }
        stopping.running.settings.forEach(Self.release)
    }
}
