public import Foundation
import MockdPlatform

/// Collects proxied exchanges and turns them into a HAR file and a mock set (`mockd record`, and
/// `--record-misses` in capture-on-miss mode).
///
/// Thread-safe: exchanges arrive from the upstream client's thread. Every `flush()` rewrites the one HAR
/// file of this run with everything recorded so far (atomically), then compiles it with the HAR importer
/// (`HARImportPipeline`, default hygiene options), so the set always matches the HAR. Nothing
/// recorded is lost: failed exchanges are in the HAR with status 0 and their error, and the importer skips
/// and reports them.
public final class Recorder: Sendable {
    /// What to do with a mock set that already existed when recording started.
    public enum ExistingSet: Sendable {
        /// The set did not exist: write it (and replace this run's own earlier flushes).
        case create
        /// `--force`: replace it.
        case replace
        /// `--merge`: stubs the recording has replace theirs (ids kept), others are kept (see `MockSetMerger`).
        case merge
    }

    /// What one flush did.
    public struct FlushResult: Sendable {
        /// The set written to (or that would have been).
        public var set: String
        /// The HAR file, as shown to the user (relative to the root when inside it).
        public var har: String
        /// Exchanges in the HAR.
        public var entries: Int
        /// Exchanges that failed (status 0 in the HAR).
        public var failed: Int
        /// Whether `mocks/<set>/` was written (false when nothing was recorded or nothing could be replayed).
        public var setWritten: Bool
        /// The import report, as `mockd import-har` prints it.
        public var report: String
    }

    public let set: String
    public let root: MockdRoot
    /// The HAR file of this run.
    public let harURL: URL
    public let existing: ExistingSet
    /// The upstream origin, e.g. `https://api.example.com`.
    public let upstream: String

    private struct State {
        var exchanges: [ProxiedExchange] = []
        var failed = 0
        var nextOrder: UInt64 = 0
        /// Exchanges the last successful flush wrote.
        var flushed = 0
        /// Exchanges the spool could not keep (a full disk…): in memory only until a flush writes the HAR.
        var spoolFailed = 0
        /// The last reason a spool write failed (`No space left on device`).
        var spoolError: String?
    }

    private let state = Mutex(State())
    /// Told about every flush (the command prints the report to stdout).
    private let announcer: @Sendable (FlushResult) -> Void
    /// Serialises flushes (a control API call and a signal may overlap).
    private let flushing = Mutex(())
    /// Every exchange on disk as it completes (`RecordingSpool`), so a crash loses at most the one in flight.
    /// Made with the first exchange (a recording of nothing writes nothing); `nil` inside when the file cannot be
    /// created (every exchange then counts as not spooled).
    private let spool = Mutex<(made: Bool, spool: RecordingSpool?, error: String?)>((false, nil, nil))
    /// Told once, at the first exchange the spool could not keep, with one line for stderr.
    private let onSpoolFailure: @Sendable (String) -> Void

    /// - Parameters:
    ///   - set: The mock set to write, `mocks/<set>/` under `root`.
    ///   - harURL: Where to write the HAR; its folder is created when missing.
    ///   - existing: How to treat the set if it exists (decided when recording starts).
    ///   - spoolFailure: Called once, at the first exchange the spool cannot keep, with a line for stderr
    ///     (`mockd: record: cannot keep an exchange in …`).
    ///   - announce: Called after each flush with its result, e.g. to print the report.
    public init(
        set: String,
        root: MockdRoot,
        harURL: URL,
        existing: ExistingSet,
        upstream: String,
        spoolFailure: @escaping @Sendable (String) -> Void = { _ in },
        announce: @escaping @Sendable (FlushResult) -> Void = { _ in }
    ) {
        self.announcer = announce
        self.onSpoolFailure = spoolFailure
        self.set = set
        self.root = root
        self.harURL = harURL
        self.existing = existing
        self.upstream = upstream
    }

    /// Ends the recording after its final flush: the spool is deleted when everything recorded is in the HAR and
    /// the set; otherwise it is kept for `RecordingSpool.recover` at the next `mockd record`.
    public func finish() {
        let (count, flushed) = state.withLock { ($0.exchanges.count, $0.flushed) }
        if count == flushed { spool.withLock { $0.spool }?.remove() }
    }

    /// The next arrival number, taken when a request is about to be forwarded.
    public func nextOrder() -> UInt64 {
        state.withLock { state in
            defer { state.nextOrder += 1 }
            return state.nextOrder
        }
    }

    /// Adds one exchange (from any thread).
    public func add(_ exchange: ProxiedExchange) {
        state.withLock { state in
            state.exchanges.append(exchange)
            if case .failure = exchange.result { state.failed += 1 }
        }
        let (spool, creationError) = self.spool.withLock { state in
            if !state.made {
                state.made = true
                do {
                    state.spool = try RecordingSpool(har: harURL, set: set, mode: existing, upstream: upstream)
                } catch {
                    state.error =
                        (error as? RecordingSpool.WriteError)?.description
                        ?? (error as? POSIXError).map { String(cString: strerror($0.code.rawValue)) }
                        ?? "\(error)"
                }
            }
            return (state.spool, state.error)
        }
        var failure = creationError
        if let spool, case .failure(let error) = spool.append(exchange) { failure = error.description }
        guard let failure else { return }
        let first = state.withLock { state in
            state.spoolFailed += 1
            state.spoolError = failure
            return state.spoolFailed == 1
        }
        if first {
            onSpoolFailure(
                "mockd: record: cannot keep an exchange in \(RecordingSpool.url(for: harURL).path) (\(failure)): it is in memory only until a flush writes the HAR; GET /__mockd/record counts them (spoolFailed)"
            )
        }
    }

    /// Exchanges recorded so far, and how many of them failed.
    public var counts: (entries: Int, failed: Int) {
        state.withLock { ($0.exchanges.count, $0.failed) }
    }

    /// Exchanges the spool could not keep so far (a full disk…), and the last reason.
    public var spoolFailures: (count: Int, lastError: String?) {
        state.withLock { ($0.spoolFailed, $0.spoolError) }
    }

    /// Passes a flush's result to the `announce` closure given at creation.
    public func announce(_ result: FlushResult) {
        announcer(result)
    }

    /// The HAR path as shown to users.
    public var harDisplay: String { root.display(harURL) }

    /// Writes the HAR (everything recorded so far) and compiles it into `mocks/<set>/`.
    ///
    /// With nothing recorded, nothing is written. When no exchange can be replayed (all failed), the HAR is
    /// written and the set is not.
    /// - Throws: `HARImportError` when the HAR cannot be written or read back, `MockSetWriteError` when the set
    ///   cannot be written, `ConfigError` when the existing set cannot be read for a merge.
    public func flush() throws -> FlushResult {
        try flushing.withLock { _ in
            let (exchanges, failed) = state.withLock { ($0.exchanges, $0.failed) }
            let destination = "mocks/\(set)/"
            var result = FlushResult(
                set: set,
                har: harDisplay,
                entries: exchanges.count,
                failed: failed,
                setWritten: false,
                report: ""
            )
            guard !exchanges.isEmpty else {
                result.report = "recorded nothing for mocks/\(set)/ yet; nothing written"
                return result
            }
            guard exchanges.count != state.withLock({ $0.flushed }) else {
                result.setWritten = true
                result.report = "nothing new since the last flush: \(harDisplay) and mocks/\(set)/ are up to date"
                return result
            }
            do {
                try FileManager.default.createDirectory(
                    at: harURL.deletingLastPathComponent(),
                    withIntermediateDirectories: true
                )
                try RecordingHAR.document(exchanges).write(to: harURL, options: .atomic)
            } catch {
                throw HARImportError(
                    .writeFailed,
                    file: harDisplay,
                    message: "cannot write the recording: \(error.localizedDescription)"
                )
            }
            let imported = try HARImportPipeline.run(
                har: harURL,
                displayName: harDisplay,
                into: set,
                root: root,
                options: HARImportOptions(),
                merge: existing == .merge,
                replace: true
            )
            // Counted only once the set is written (or found to have nothing to replay): after a failed write the next
            // flush writes it again.
            state.withLock { $0.flushed = exchanges.count }
            guard imported.setWritten else {
                result.report = imported.rendered(
                    source: harDisplay,
                    destination: "(nothing written: no exchange can be replayed)"
                )
                return result
            }
            result.setWritten = true
            result.report = imported.rendered(source: harDisplay, destination: destination)
            return result
        }
    }
}
