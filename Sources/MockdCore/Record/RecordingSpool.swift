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
///
/// A write that fails or comes up short (a full disk, a quota, an I/O error) is cut back to the last whole line, so
/// the spool never holds half an exchange that would spoil the next one, and `append` says so: the `Recorder` counts
/// it and tells the user. The exchange stays in memory for the next flush.
public final class RecordingSpool: Sendable {
    static let syncEvery = 16
    static let syncIntervalSeconds = 1.0

    let url: URL
    private struct State {
        /// The open spool; `nil` once removed.
        var file: FileDescriptor?
        var unsynced = 0
        var lastSync = Date()
        /// Bytes of whole lines written so far: where a failed write is cut back to.
        var size: off_t = 0
    }

    /// Why a line could not be kept: the system's message (`No space left on device`).
    struct WriteError: Error, Equatable, CustomStringConvertible {
        let description: String

        init(code: Int32) { description = String(cString: strerror(code)) }
    }

    private let state: Mutex<State>
    /// Held on the spool for the recording's life: `recover` leaves a spool alone while its recording runs.
    private let writerLock: FileLock

    /// `<har>.spool`.
    static func url(for har: URL) -> URL { har.appendingPathExtension("spool") }

    /// Creates (or truncates) the spool of a run, locks it for the run's life and writes its first line.
    /// - Throws: `POSIXError` when the file cannot be created, `EBUSY` when another recording holds it (the same
    ///   `--har` twice), `WriteError` when its first line cannot be written.
    init(har: URL, set: String, mode: Recorder.ExistingSet, upstream: String) throws {
        url = Self.url(for: har)
        try FileManager.default.createDirectory(at: har.deletingLastPathComponent(), withIntermediateDirectories: true)
        let file = try FileDescriptor.open(url.path, .append(permissions: 0o600))
        // Locked before it is emptied: another recording's live spool is never truncated.
        guard let lock = FileLock.lock(descriptor: file.rawValue) else {
            file.close()
            throw POSIXError(.EBUSY)
        }
        writerLock = lock
        file.truncate(to: 0)
        state = Mutex(State(file: file))
        let header: [String: Any] = [
            "mockdSpool": 1, "set": set, "har": har.path, "upstream": upstream,
            "mode": mode == .merge ? "merge" : mode == .replace ? "replace" : "create",
        ]
        // A spool that cannot even hold its first line is no spool: the caller records in memory only.
        if case .failure(let error) = append(line: header, syncNow: true) {
            remove()
            throw error
        }
    }

    /// Writes one exchange (from any thread).
    /// - Returns: `.failure` when it is not on disk whole (the spool is cut back to its last whole line).
    func append(_ exchange: ProxiedExchange) -> Result<Void, WriteError> {
        var entry = RecordingHAR.entry(exchange)
        entry["_mockdOrder"] = exchange.order
        return append(line: entry, syncNow: false)
    }

    private func append(line object: [String: Any], syncNow: Bool) -> Result<Void, WriteError> {
        guard var line = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
            return .failure(WriteError(code: EINVAL))
        }
        line.append(0x0A)
        return state.withLock { state in
            guard let file = state.file else { return .failure(WriteError(code: EBADF)) }
            do {
                // 0 bytes written for a non-empty write: no room, as ENOSPC says on the next try (`writeAll`).
                try file.writeAll(line)
            } catch {
                // Half a line would spoil the next one: cut back to the last whole line (O_APPEND writes at the end).
                file.truncate(to: Int64(state.size))
                return .failure(WriteError(code: (error as? POSIXError)?.code.rawValue ?? EIO))
            }
            state.size += off_t(line.count)
            state.unsynced += 1
            if syncNow || state.unsynced >= RecordingSpool.syncEvery
                || Date().timeIntervalSince(state.lastSync) >= RecordingSpool.syncIntervalSeconds
            {
                let failure = file.sync()
                state.unsynced = 0
                state.lastSync = Date()
                // Some file systems (NFS, a full thin volume) report a lost write only here.
                if failure != 0, failure != EINVAL { return .failure(WriteError(code: failure)) }
            }
            return .success(())
        }
    }

    /// Closes and deletes the spool (the recording ended and was written whole).
    func remove() {
        state.withLock { state in
            guard let file = state.file else { return }
            // Removed while still locked, so no recovery reads it on its way out.
            try? FileManager.default.removeItem(at: url)
            writerLock.release()
            file.close()
            state.file = nil
        }
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
            // A recording still running (this process or another) holds its spool's lock.
            if FileLock.isHeld(path: url.path) { continue }
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
                    var entry = (try? JSONObjectReader.jsonObject(with: RawByteOrderMarks.escaped(Data(line))))
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
