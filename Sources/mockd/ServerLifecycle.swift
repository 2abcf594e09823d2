import Foundation
import MockdCore
import MockdOpenAPI
import MockdPlatform
import MockdServer

/// A running server for `serve` and `record`: start, wait for a signal, stop within the shutdown timeout.
enum ServerLifecycle {
    /// Told the base URLs once the server listens (`mockd mcp` runs the daemon in its own process and steers it).
    static let listening = Mutex<(@Sendable ([String]) -> Void)?>(nil)

    /// Serves `scenario` until SIGINT or SIGTERM: with the upstream proxy when `proxying`, over HTTPS with
    /// `--tls-cert`; then stops gracefully and, when recording, writes the HAR and the set.
    ///
    /// Prints the listening lines to stdout once bound, then `banner` to stderr.
    /// - Parameters:
    ///   - proxying: Unmatched requests go to `flags.upstream` (`--on-miss proxy`, `record`).
    ///   - loader: Reloads the scenario on SIGHUP and `POST /__mockd/reload`; `nil` disables reloading.
    ///   - recorder: Records the proxied exchanges and is flushed at the end (`record`, `--record-misses`).
    /// - Returns: `.success` after a graceful stop; `.failure` when TLS, the upstream CA, binding or the final
    ///   flush fails (one line printed).
    static func run(
        _ flags: ServerFlags,
        limits: ServeLimits,
        proxying: Bool,
        scenario: Scenario,
        root: MockdRoot,
        loader: (@Sendable () throws -> Scenario)?,
        recorder: Recorder?,
        banner: String
    ) -> ExitCode {
        let logger = Logger(level: flags.quiet ? .warning : .info)
        var tls: TLSCredentials?
        if let certificate = flags.tlsCertificate, let key = flags.tlsKey {
            do {
                tls = try TLSCredentials.load(certificate: certificate, key: key)
            } catch {
                Output.error("mockd: \(error)")
                return .failure
            }
        }
        var proxy: UpstreamProxy?
        if proxying, let origin = flags.upstream.origin {
            if let caFile = flags.upstream.caFile, !FileManager.default.isReadableFile(atPath: caFile) {
                Output.error("mockd: --upstream-ca \(caFile): no such file or not readable")
                return .failure
            }
            if flags.upstream.insecure {
                Output.error("mockd: warning: --upstream-insecure: the TLS certificate of \(origin) is not verified")
            }
            let client = UpstreamClient(
                configuration: UpstreamClient.Configuration(
                    origin: origin,
                    timeoutSeconds: flags.upstream.timeoutSeconds,
                    insecure: flags.upstream.insecure,
                    caFile: flags.upstream.caFile
                )
            )
            proxy = UpstreamProxy(client: client, recorder: recorder)
        }

        if let summary = flags.summaryFile {
            let folder = URL(fileURLWithPath: summary).deletingLastPathComponent().path
            guard access(folder, W_OK) == 0 else {
                Output.error(
                    "mockd: --summary \(summary): cannot write in \(folder) (\(String(cString: strerror(errno))))"
                )
                return .failure
            }
        }
        let signals = SignalWaiter(signals: [SIGINT, SIGTERM])
        let portSource = flags.portSource
        let hostSource = flags.hostSource
        var configuration = MicroHTTPDServer.Configuration(host: flags.host, port: flags.port)
        if let threads = flags.threads { configuration.threads = threads }
        configuration.connectionMemoryBytes = limits.maxHeaderBytes
        configuration.maxBodyBytes = flags.maxBodyBytes
        configuration.connectionLimit = limits.maxConnections
        configuration.connectionTimeoutSeconds = limits.connectionTimeoutSeconds
        configuration.tls = tls
        configuration.tlsPort = flags.tlsPort
        configuration.webhookAllow = flags.webhookAllow
        var engineOptions = EngineOptions(
            maxSessions: limits.maxSessions,
            sessionIdleTimeoutMs: Double(limits.sessionTimeoutSeconds) * 1000,
            journalLimit: limits.journalLimit,
            controlToken: flags.controlToken
        )
        engineOptions.missesGoUpstream = proxy != nil
        engineOptions.boundToLoopback = ServerLifecycle.isLoopback(flags.host)
        engineOptions.allHTTPS = tls != nil && flags.tlsPort == nil
        engineOptions.httpsPort = tls != nil ? flags.tlsPort : nil
        engineOptions.onSessionEvicted = { eviction in
            logger.warning(
                "session '\(eviction.id)' evicted: --max-sessions (\(eviction.maxSessions)) reached; its journal, "
                    + "scenario and runtime stubs are gone (a request naming it gets 410)"
            )
        }
        if let spec = flags.openAPI {
            do {
                let document = try OpenAPIDocument.load(URL(fileURLWithPath: spec), display: spec)
                engineOptions.contract = OpenAPIContract(document: document)
            } catch {
                proxy?.stop()
                Output.error("mockd: \(error)")
                return .failure
            }
        }
        let engine = MockEngine(scenario: scenario, root: root, options: engineOptions, loader: loader)
        if let recorder { engine.attach(recorder) }
        let server = MicroHTTPDServer(configuration: configuration, engine: engine, logger: logger, proxy: proxy)
        // SIGHUP reloads the scenario and its sets atomically; a broken file leaves the previous version serving.
        let reloader = loader.map { loader in
            SignalHandler(signal: SIGHUP) {
                do {
                    let fresh = try loader()
                    engine.reload(fresh)
                    Output.error(
                        fresh.isSingleSet
                            ? "mockd: SIGHUP: reloaded set '\(fresh.name)', \(fresh.index.stubs.count) stubs"
                            : "mockd: SIGHUP: reloaded scenario '\(fresh.name)', \(fresh.index.stubs.count) stubs, \(fresh.overrides.count) overrides"
                    )
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
        if !isLoopback(flags.host) {
            Output.error(
                flags.controlToken == nil
                    ? "mockd: warning: listening on \(flags.host), reachable from other machines, and the control API (/__mockd/) has no --control-token (--insecure-control)"
                    : "mockd: warning: listening on \(flags.host), reachable from other machines"
            )
        }
        for url in baseURLs { Output.standard("listening on \(url)") }
        if let listener = ServerLifecycle.listening.withLock({ $0 }) { listener(baseURLs) }
        Output.error(banner)
        if flags.stopOnStdinEOF { StandardInputWatch.start { signals.stopWithoutSignal() } }
        let received = signals.wait()
        reloader?.cancel()
        let cause =
            received == SIGINT
            ? "SIGINT received"
            : received == SIGTERM ? "SIGTERM received" : "standard input ended (--stop-on-stdin-eof)"
        let timeout = EnvironmentDefaults.format(flags.shutdownTimeoutSeconds)
        let inFlight = server.requestsInFlight
        Output.error(
            inFlight == 0
                ? "mockd: \(cause), stopping"
                : "mockd: \(cause), stopping; waiting up to \(timeout) s for \(requests(inFlight)) in flight"
        )
        let report = server.shutdown(gracePeriodMs: flags.shutdownTimeoutSeconds * 1000) { signals.count > 1 }
        if report.cut > 0 {
            Output.error(
                report.cutShort
                    ? "mockd: second signal: cut \(requests(report.cut)) still in flight"
                    : "mockd: shutdown timeout (\(timeout) s) reached: cut \(requests(report.cut)) still in flight"
            )
        }
        // Exchanges still waiting on the upstream end (as failures, recorded) before the recording is written.
        proxy?.stop()
        if let summary = flags.summaryFile, !writeSummary(engine, to: summary) { return .failure }
        if let recorder {
            do {
                recorder.announce(try recorder.flush())
                recorder.finish()
            } catch {
                Output.error("mockd: \(error)")
                return .failure
            }
        }
        return .success
    }

    /// Writes the coverage summary (`--summary`) and says in one line what was never used.
    private static func writeSummary(_ engine: MockEngine, to path: String) -> Bool {
        let data = engine.coverageSummary()
        do {
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            Output.error("mockd: --summary \(path): \(error.localizedDescription)")
            return false
        }
        let scenarios =
            ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any])
            .flatMap { ($0["overall"] as? [String: Any])?["scenarios"] as? [[String: Any]] } ?? []
        let parts = scenarios.map { scenario -> String in
            let stubs = scenario["stubs"] as? [String: Any] ?? [:]
            let overrides = scenario["overrides"] as? [String: Any] ?? [:]
            let unusedStubs = (stubs["total"] as? Int ?? 0) - (stubs["used"] as? Int ?? 0)
            let unusedOverrides = (overrides["total"] as? Int ?? 0) - (overrides["used"] as? Int ?? 0)
            return
                "\(scenario["scenario"] ?? "?"): \(unusedStubs) of \(stubs["total"] ?? 0) stubs and \(unusedOverrides) of \(overrides["total"] ?? 0) overrides never used"
        }
        Output.error("mockd: coverage written to \(path): " + parts.joined(separator: "; "))
        return true
    }

    private static func requests(_ count: Int) -> String {
        count == 1 ? "1 request" : "\(count) requests"
    }

    /// A missing, non-folder or unreadable root as one line naming where it came from, or `nil` when usable.
    static func rootProblem(_ root: MockdRoot, option: String?) -> String? {
        let source =
            option != nil
            ? "--root \(root.url.path)"
            : ProcessInfo.processInfo.environment[EnvironmentDefaults.root].flatMap {
                $0.isEmpty ? nil : "\(EnvironmentDefaults.root) \(root.url.path)"
            }
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

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}
