import Foundation
import MockdPlatform

/// Cleans up after imports, merges and record flushes that were interrupted (a crash, `kill -9`, a full disk):
/// run at every start of the daemon and before every write of a set.
///
/// - `.NAME.importing-*`: a staging folder. Either a new set that was never put in place, or, after an atomic
///   exchange, the old set waiting to be removed. `mocks/NAME/` is complete in both cases, so it is removed.
/// - `.NAME.replaced-*`: an old set renamed aside (where the file system cannot exchange atomically). Removed
///   when `mocks/NAME/` exists; renamed back to `mocks/NAME/` when it does not (the crash came between the two
///   renames), so the previous set is served again.
///
/// A folder whose writer is still running is left alone: that write is not interrupted. The writer is known by the
/// lock it holds for its whole life on `.NAME.write-PID-N.lock` (`FileLock`), never by the PID in the names: in a
/// container every mockd is PID 1, so `kill(1, 0)` succeeds in any later one and a PID check never acted. A folder
/// without a held lock (the writer died, or wrote before writers locked) is recovered; a lock file nobody holds is
/// removed with it.
public enum MockSetRecovery {
    /// What was done, one line each, for stderr.
    public struct Report: Sendable, Equatable {
        /// Sets put back from their `.NAME.replaced-*` folder.
        public var restored: [String] = []
        /// Leftover folders removed, by name.
        public var removed: [String] = []
        /// Bytes freed by removing them.
        public var removedBytes: Int64 = 0

        public var isEmpty: Bool { restored.isEmpty && removed.isEmpty }

        /// `mockd: …` lines naming every folder.
        public var lines: [String] {
            var lines = restored.map {
                "mockd: mocks/\($0) was missing after an interrupted replace; restored the previous set"
            }
            if !removed.isEmpty {
                let mebibytes = Double(removedBytes) / 1_048_576
                lines.append(
                    "mockd: removed \(removed.count) folder\(removed.count == 1 ? "" : "s") left by interrupted imports in "
                        + "mocks/ (\(String(format: "%.1f", mebibytes)) MiB): \(removed.joined(separator: ", "))"
                )
            }
            return lines
        }
    }

    /// Recovers every set under `root`'s `mocks/` (or only `set`).
    /// - Returns: What was restored and removed; failures to remove are left for the next run.
    public static func recover(root: MockdRoot, set: String? = nil) -> Report {
        let fileManager = FileManager.default
        var report = Report()
        guard let names = try? fileManager.contentsOfDirectory(atPath: root.mocksURL.path) else { return report }
        for name in names.sorted() where name.hasPrefix(".") {
            guard let (setName, kind, write) = leftover(name), set == nil || set == setName else { continue }
            let lockPath = lockPath(ofWrite: write, set: setName, in: root)
            // The write is still running (in this process or another): its folders are left alone.
            if FileLock.isHeld(path: lockPath) { continue }
            if kind == "write" {
                // A lock file its writer left behind (killed between removing its folder and its lock).
                try? fileManager.removeItem(atPath: lockPath)
                continue
            }
            let url = root.mocksURL.appendingPathComponent(name, isDirectory: true)
            let destination = root.setURL(setName)
            if kind == "replaced", !fileManager.fileExists(atPath: destination.path),
                (try? fileManager.moveItem(at: url, to: destination)) != nil
            {
                report.restored.append(setName)
                continue
            }
            let bytes = size(of: url)
            if (try? fileManager.removeItem(at: url)) != nil {
                report.removed.append(name)
                report.removedBytes += bytes
            }
        }
        return report
    }

    /// `(set, "importing" | "replaced" | "write", write)` for a leftover's name: a folder `.NAME.importing-PID-N` or
    /// `.NAME.replaced-PID-N`, or a writer's lock file `.NAME.write-PID-N.lock`; `write` is `PID-N`.
    static func leftover(_ name: String) -> (set: String, kind: String, write: String)? {
        for kind in ["importing", "replaced", "write"] {
            guard let range = name.range(of: ".\(kind)-", options: .backwards) else { continue }
            let set = String(name[name.index(after: name.startIndex)..<range.lowerBound])
            var write = name[range.upperBound...]
            if kind == "write" {
                guard write.hasSuffix(".lock") else { continue }
                write = write.dropLast(".lock".count)
            }
            if !set.isEmpty, !write.isEmpty { return (set, kind, String(write)) }
        }
        return nil
    }

    /// The lock file a writer of `set` holds for its write `PID-N` (`MockSetWriter`): `mocks/.NAME.write-PID-N.lock`.
    static func lockPath(ofWrite write: String, set: String, in root: MockdRoot) -> String {
        root.mocksURL.appendingPathComponent(".\(set).write-\(write).lock").path
    }

    /// The bytes removing the folder at `url` frees: files with another name elsewhere (a merge's hard links into the
    /// set that replaced this folder) free nothing, and are not counted.
    private static func size(of url: URL) -> Int64 {
        guard let listing = try? FileSystem.listing(of: url.path) else { return 0 }
        var total: Int64 = 0
        for relative in listing.files {
            var info = stat()
            guard lstat(url.path + "/" + relative, &info) == 0, info.st_nlink == 1 else { continue }
            total += Int64(info.st_size)
        }
        return total
    }
}
