import Dispatch
import Foundation
import MockdCore
import MockdServer

/// `mockd --config NAME` / `mockd --set NAME`: serve until SIGINT or SIGTERM.
enum ServeCommand {
    static func run(_ options: ServeOptions) -> ExitCode {
        let logger = Logger(level: options.quiet ? .warning : .info)
        let root = MockdRoot.resolve(option: options.root)
        let scenario: Scenario
        do {
            scenario = try load(options, root: root)
        } catch {
            Output.errorLines(error)
            return .failure
        }

        let signals = SignalWaiter(signals: [SIGINT, SIGTERM])
        var configuration = MicroHTTPDServer.Configuration(host: options.host, port: options.port)
        if let threads = options.threads { configuration.threads = threads }
        configuration.connectionMemoryBytes = options.connectionMemory
        configuration.maxBodyBytes = options.maxBodyBytes
        configuration.connectionLimit = options.maxConnections
        configuration.connectionTimeoutSeconds = options.connectionTimeoutSeconds
        let engine = MockEngine(
            scenario: scenario, root: root,
            options: EngineOptions(
                maxSessions: options.maxSessions, sessionIdleTimeoutMs: Double(options.sessionTimeoutSeconds) * 1000,
                journalLimit: options.journalLimit, controlToken: options.controlToken
            ),
            loader: { try load(options, root: root) }
        )
        let server = MicroHTTPDServer(configuration: configuration, engine: engine, logger: logger)
        // SIGHUP reloads the scenario and its sets atomically; a broken file leaves the previous version serving.
        let reloader = SignalHandler(signal: SIGHUP) {
            do {
                let fresh = try load(options, root: root)
                engine.reload(fresh)
                Output.error("mockd: SIGHUP: reloaded scenario '\(fresh.name)', \(fresh.index.stubs.count) stubs, \(fresh.overrides.count) overrides")
            } catch {
                Output.error("mockd: SIGHUP: reload failed, still serving the previous version:")
                Output.errorLines(error)
            }
        }
        let baseURL: String
        do {
            baseURL = try server.start()
        } catch {
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
        Output.standard("listening on \(baseURL)")
        let stubCount = scenario.index.stubs.count
        Output.error(
            "mockd: scenario '\(scenario.name)' (sets: \(scenario.sets.joined(separator: ", "))), \(stubCount) stub\(stubCount == 1 ? "" : "s"); Ctrl-C to stop"
        )
        let received = signals.wait()
        reloader.cancel()
        Output.error("mockd: \(received == SIGINT ? "SIGINT" : "SIGTERM") received, stopping")
        server.stop()
        return .success
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

/// Blocks until one of the given signals arrives; installed before the server starts.
final class SignalWaiter: @unchecked Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private var sources: [any DispatchSourceSignal] = []
    private var received: Int32 = 0
    private let queue = DispatchQueue(label: "mockd.signals")

    init(signals: [Int32]) {
        signal(SIGPIPE, SIG_IGN)
        for number in signals {
            // The default action would kill the process before the dispatch source sees the signal.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [unowned self] in
                self.received = number
                self.semaphore.signal()
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
