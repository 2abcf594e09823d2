public import Foundation
import MockdPlatform

/// The exchanges of a recording on disk as they complete, so that a crash (`kill -9`, a power cut after the
/// last sync) loses at most the exchange in flight instead of everything since the last flush.
///
/// `<har>.spool` beside the run's HAR: JSON Lines, append-only. The first line describes the run
/// (`{"mockdSpool": 1, "set", "har", "mode", "upstream"}`); every other line is one HAR entry (as
/// `RecordingHAR` writes it) with its arrival number in `_mockdOrder`. Each exchange is written with one
/// `write(2)` as soon as it completes (the kernel keeps it when the process dies); `fsync(2)` runs every
/// `syncEvery` exchanges or `syncIntervalSeconds`, whichever comes first, bounding what a power cut loses.
/// A recording that ends normally removes its spool after its final flush; `recover(…)` turns a spool left by
/// a crash into the run's HAR and mock set.
public final class RecordingSpool: Sendable {
    static let syncEvery = 16
    static let syncIntervalSeconds = 1.0

    let url: URL
    private struct State {
        var descriptor: Int32
        var unsynced = 0
        var lastSync = Date()
    }

    private let state: Mutex<State>

    /// `<har>.spool`.
    static func url(for har: URL) -> URL { har.appendingPathExtension("spool") }

    /// Creates (or truncates) the spool of a run and writes its first line.
    /// - Throws: `POSIXError` when the file cannot be created.
    init(har: URL, set: String, mode: Recorder.ExistingSet, upstream: String) throws {
        url = Self.url(for: har)
        try FileManager.default.createDirectory(at: har.deletingLastPathComponent(), withIntermediateDirectories: true)
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        state = Mutex(State(descriptor: descriptor))
        let header: [String: Any] = [
            "mockdSpool": 1, "set": set, "har": har.path, "upstream": upstream,
            "mode": mode == .merge ? "merge" : mode == .replace ? "replace" : "create",
        ]
        append(line: header)
        state.withLock { _ = fsync($0.descriptor) }
    }

    /// Writes one exchange (from any thread).
    func append(_ exchange: ProxiedExchange) {
        var entry = RecordingHAR.entry(exchange)
        entry["_mockdOrder"] = exchange.order
        append(line: entry)
    }

    private func append(line object: [String: Any]) {
        guard var line = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
        line.append(0x0A)
        state.withLock { state in
            guard state.descriptor >= 0 else { return }
            line.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = write(state.descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                    if written < 0, errno == EINTR { continue }
                    guard written > 0 else { return }
                    offset += written
                }
            }
            state.unsynced += 1
            if state.unsynced >= RecordingSpool.syncEvery
                || Date().timeIntervalSince(state.lastSync) >= RecordingSpool.syncIntervalSeconds
            {
                _ = fsync(state.descriptor)
                state.unsynced = 0
                state.lastSync = Date()
            }
        }
    }

    /// Closes and deletes the spool (the recording ended and was written whole).
    func remove() {
        state.withLock { state in
            guard state.descriptor >= 0 else { return }
            close(state.descriptor)
            state.descriptor = -1
        }
        try? FileManager.default.removeItem(at: url)
    }

    /// What recovering one spool did.
    public struct Recovery: Sendable {
        /// The spool file, as shown to the user.
        public var spool: String
        public var har: String
        public var set: String
        /// Exchanges recovered.
        public var entries: Int
        /// The import report of the set written from them.
        public var report: String
    }

    /// Recovers every spool in `folder` left by an interrupted recording of `set`: writes the run's HAR from it
    /// (every exchange it holds; a line cut off by the crash is skipped), compiles the HAR into `mocks/<set>/`
    /// as the run would have (merged when it was recording with `--merge`, replaced otherwise), then deletes
    /// the spool.
    /// - Throws: What writing the HAR or the set throws (`HARImportError`, `MockSetWriteError`); the spool is
    ///   then kept for the next try.
    public static func recover(in folder: URL, set: String, root: MockdRoot) throws -> [Recovery] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        var recovered: [Recovery] = []
        for name in names.sorted() where name.hasSuffix(".spool") {
            let url = folder.appendingPathComponent(name)
            guard let data = try? Data(contentsOf: url) else { continue }
            let lines = data.split(separator: 0x0A)
            guard let first = lines.first,
                let header = (try? JSONSerialization.jsonObject(with: Data(first))) as? [String: Any],
                header["mockdSpool"] as? Int == 1, header["set"] as? String == set,
                let harPath = header["har"] as? String
            else { continue }
            var entries: [(order: UInt64, entry: [String: Any])] = []
            for line in lines.dropFirst() {
                guard
                    var entry = (try? JSONSerialization.jsonObject(with: RawByteOrderMarks.escaped(Data(line))))
                        as? [String: Any]
                else {
                    continue
                }
                let order =
                    (entry.removeValue(forKey: "_mockdOrder") as? NSNumber)?.uint64Value ?? UInt64(entries.count)
                entries.append((order, entry))
            }
            let har = URL(fileURLWithPath: harPath)
            let display = root.display(har)
            let document: [String: Any] = [
                "log": [
                    "version": "1.2",
                    "creator": ["name": "mockd record", "version": MockdVersion.current],
                    "pages": [] as [Any],
                    "entries": entries.sorted { $0.order < $1.order }.map(\.entry),
                ] as [String: Any]
            ]
            do {
                let bytes = try JSONSerialization.data(
                    withJSONObject: document,
                    options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                )
                try FileManager.default.createDirectory(
                    at: har.deletingLastPathComponent(),
                    withIntermediateDirectories: true
                )
                try (bytes + Data("\n".utf8)).write(to: har, options: .atomic)
            } catch {
                throw HARImportError(
                    .writeFailed,
                    file: display,
                    message: "cannot write the recovered recording: \(error.localizedDescription)"
                )
            }
            var report = "nothing to replay; only \(display) written"
            if !entries.isEmpty {
                let imported = try HARImportPipeline.run(
                    har: har,
                    displayName: display,
                    into: set,
                    root: root,
                    options: HARImportOptions(),
                    merge: header["mode"] as? String == "merge",
                    replace: true
                )
                report = imported.rendered(
                    source: display,
                    destination: imported.setWritten
                        ? "mocks/\(set)/" : "(nothing written: no exchange can be replayed)"
                )
            }
            try? FileManager.default.removeItem(at: url)
            recovered.append(
                Recovery(spool: root.display(url), har: display, set: set, entries: entries.count, report: report)
            )
        }
        return recovered
    }
}
