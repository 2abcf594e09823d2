import Dispatch
import Foundation
import MockdCore
import MockdServer

/// `mockd --config NAME` / `mockd --set NAME`: serve until SIGINT or SIGTERM, then stop gracefully.
enum ServeCommand {
    static func run(_ options: ServeOptions) -> ExitCode {
        let root = MockdRoot.resolve(option: options.root)
        if let problem = rootProblem(root, option: options.root) {
            Output.error("mockd: \(problem)")
            return .failure
        }
        let scenario: Scenario
        do {
            scenario = try load(options, root: root)
        } catch {
            Output.errorLines(error)
            return .failure
        }

        var recorder: Recorder?
        if options.recordMisses {
            let set = scenario.name + "-captured"
            guard MockdRoot.isValidName(set) else {
                Output.error("mockd: --record-misses: '\(set)' is not a valid mock set name; serve the scenario by name (--config NAME)")
                return .failure
            }
            recorder = RecordCommand.makeRecorder(
                set: set, root: root, harURL: RecordCommand.defaultHAR(root: root, set: set), existing: .merge,
                upstream: options.upstream.origin ?? ""
            )
        }
        let stubCount = scenario.index.stubs.count
        var banner =
            "mockd: scenario '\(scenario.name)' (sets: \(scenario.sets.joined(separator: ", "))), \(stubCount) stub\(stubCount == 1 ? "" : "s")"
        if options.onMissProxy, let origin = options.upstream.origin {
            banner += "; unmatched requests go to \(origin)"
            if let recorder { banner += ", recorded into mocks/\(recorder.set)/ (HAR: \(recorder.harDisplay))" }
        }
        return serve(options, scenario: scenario, root: root, loader: { try load(options, root: root) }, recorder: recorder, banner: banner + "; Ctrl-C to stop")
    }

    /// Serves `scenario` until SIGINT or SIGTERM: with the upstream proxy when `--on-miss proxy` or recording,
    /// over HTTPS with `--tls-cert`; then stops gracefully and, when recording, writes the HAR and the set.
    /// - Parameter loader: Reloads the scenario on SIGHUP and `POST /__mockd/reload`; `nil` disables reloading.
    static func serve(
        _ options: ServeOptions, scenario: Scenario, root: MockdRoot, loader: (@Sendable () throws -> Scenario)?, recorder: Recorder?,
        banner: String
    ) -> ExitCode {
        let logger = Logger(level: options.quiet ? .warning : .info)
        var tls: TLSCredentials?
        if let certificate = options.tlsCertificate, let key = options.tlsKey {
            do {
                tls = try TLSCredentials.load(certificate: certificate, key: key)
            } catch {
                Output.error("mockd: \(error)")
                return .failure
            }
        }
        var proxy: UpstreamProxy?
        if options.onMissProxy || recorder != nil, let origin = options.upstream.origin {
            if let caFile = options.upstream.caFile, !FileManager.default.isReadableFile(atPath: caFile) {
                Output.error("mockd: --upstream-ca \(caFile): no such file or not readable")
                return .failure
            }
            if options.upstream.insecure {
                Output.error("mockd: warning: --upstream-insecure: the TLS certificate of \(origin) is not verified")
            }
            let client = UpstreamClient(
                configuration: UpstreamClient.Configuration(
                    origin: origin, timeoutSeconds: options.upstream.timeoutSeconds, insecure: options.upstream.insecure,
                    caFile: options.upstream.caFile
                )
            )
            proxy = UpstreamProxy(client: client, recorder: recorder)
        }

        let signals = SignalWaiter(signals: [SIGINT, SIGTERM])
        let portSource = options.portSource
        let hostSource = options.hostSource
        var configuration = MicroHTTPDServer.Configuration(host: options.host, port: options.port)
        if let threads = options.threads { configuration.threads = threads }
        configuration.connectionMemoryBytes = options.connectionMemory
        configuration.maxBodyBytes = options.maxBodyBytes
        configuration.connectionLimit = options.maxConnections
        configuration.connectionTimeoutSeconds = options.connectionTimeoutSeconds
        configuration.tls = tls
        configuration.tlsPort = options.tlsPort
        var engineOptions = EngineOptions(
            maxSessions: options.maxSessions, sessionIdleTimeoutMs: Double(options.sessionTimeoutSeconds) * 1000,
            journalLimit: options.journalLimit, controlToken: options.controlToken
        )
        engineOptions.missesGoUpstream = proxy != nil
        let engine = MockEngine(scenario: scenario, root: root, options: engineOptions, loader: loader)
        if let recorder { engine.attach(recorder) }
        let server = MicroHTTPDServer(configuration: configuration, engine: engine, logger: logger, proxy: proxy)
        // SIGHUP reloads the scenario and its sets atomically; a broken file leaves the previous version serving.
        let reloader = loader.map { loader in
            SignalHandler(signal: SIGHUP) {
                do {
                    let fresh = try loader()
                    engine.reload(fresh)
                    Output.error("mockd: SIGHUP: reloaded scenario '\(fresh.name)', \(fresh.index.stubs.count) stubs, \(fresh.overrides.count) overrides")
                } catch {
                    Output.error("mockd: SIGHUP: reload failed, still serving the previous version:")
                    Output.errorLines(error)
                }
            }
        }
        let baseURLs: [String]
        do {
            baseURLs = try server.startAll()
        } catch let error as ServerError {
            proxy?.stop()
            Output.error("mockd: \(describe(error, hostSource: hostSource, portSource: portSource))")
            return .failure
        } catch {
            proxy?.stop()
            Output.error("mockd: \(error)")
            return .failure
        }
        if !isLoopback(options.host) {
            Output.error(
                options.controlToken == nil
                    ? "mockd: warning: listening on \(options.host), reachable from other machines, and the control API (/__mockd/) has no --control-token"
                    : "mockd: warning: listening on \(options.host), reachable from other machines"
            )
        }
        for url in baseURLs { Output.standard("listening on \(url)") }
        Output.error(banner)
        let received = signals.wait()
        reloader?.cancel()
        let name = received == SIGINT ? "SIGINT" : "SIGTERM"
        let timeout = EnvironmentDefaults.format(options.shutdownTimeoutSeconds)
        let inFlight = server.requestsInFlight
        Output.error(
            inFlight == 0
                ? "mockd: \(name) received, stopping"
                : "mockd: \(name) received, stopping; waiting up to \(timeout) s for \(requests(inFlight)) in flight"
        )
        let report = server.shutdown(gracePeriodMilliseconds: options.shutdownTimeoutSeconds * 1000) { signals.count > 1 }
        if report.cut > 0 {
            Output.error(
                report.cutShort
                    ? "mockd: second signal: cut \(requests(report.cut)) still in flight"
                    : "mockd: shutdown timeout (\(timeout) s) reached: cut \(requests(report.cut)) still in flight"
            )
        }
        // Exchanges still waiting on the upstream end (as failures, recorded) before the recording is written.
        proxy?.stop()
        if let recorder {
            do {
                recorder.announce(try recorder.flush())
            } catch {
                Output.error("mockd: \(error)")
                return .failure
            }
        }
        return .success
    }

    private static func requests(_ count: Int) -> String {
        count == 1 ? "1 request" : "\(count) requests"
    }

    /// A missing, non-folder or unreadable root as one line naming where it came from, or `nil` when usable.
    static func rootProblem(_ root: MockdRoot, option: String?) -> String? {
        let source =
            option != nil
            ? "--root \(root.url.path)"
            : ProcessInfo.processInfo.environment[EnvironmentDefaults.root].flatMap { $0.isEmpty ? nil : "\(EnvironmentDefaults.root) \(root.url.path)" }
                ?? "root folder \(root.url.path) (the current directory; pass --root)"
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.url.path, isDirectory: &isFolder) else {
            return "\(source): no such folder (it should hold mocks/ and configs/)"
        }
        guard isFolder.boolValue else { return "\(source): not a folder (it should hold mocks/ and configs/)" }
        guard access(root.url.path, R_OK | X_OK) == 0 else {
            return "\(source): permission denied (user id \(getuid()) cannot read it)"
        }
        return nil
    }

    /// The server's message, naming the environment variable when the host or port came from one.
    static func describe(_ error: ServerError, hostSource: String, portSource: String) -> String {
        var message = error.message
        if hostSource != "--host", message.hasPrefix("--host ") {
            message = hostSource + message.dropFirst("--host".count)
        }
        if portSource != "--port", error.code == .portInUse || error.code == .permissionDenied {
            message += " (the port comes from \(portSource))"
        }
        return message
    }

    static func load(_ options: ServeOptions, root: MockdRoot) throws -> Scenario {
        defer {
            // Parsing a large index leaves megabytes of freed buffers in malloc's arenas; hand them back so
            // the daemon's resident size reflects what it keeps.
            ProcessMemory.returnFreedMemory()
        }
        if let config = options.config { return try Scenario.load(named: config, root: root) }
        return try Scenario.single(set: options.set!, root: root)
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}
