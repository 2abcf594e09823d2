import Foundation

/// Cleans up after imports, merges and record flushes that were interrupted (a crash, `kill -9`, a full disk):
/// run at every start of the daemon and before every write of a set.
///
/// - `.NAME.importing-*`: a staging folder. Either a new set that was never put in place, or, after an atomic
///   exchange, the old set waiting to be removed. `mocks/NAME/` is complete in both cases, so it is removed.
/// - `.NAME.replaced-*`: an old set renamed aside (where the file system cannot exchange atomically). Removed
///   when `mocks/NAME/` exists; renamed back to `mocks/NAME/` when it does not (the crash came between the two
///   renames), so the previous set is served again.
///
/// A folder whose writer (the pid in its name) is still running is left alone: that write is not interrupted.
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
            guard let (setName, kind) = leftover(name), set == nil || set == setName else { continue }
            // A folder of a write still running in another process (its pid is in the name) is left alone.
            if let pid = writerPID(name), pid == getpid() || kill(pid, 0) == 0 || errno == EPERM { continue }
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

    /// `(set, "importing" | "replaced")` for a leftover folder's name, `.NAME.importing-PID-N`.
    static func leftover(_ name: String) -> (String, String)? {
        for kind in ["importing", "replaced"] {
            guard let range = name.range(of: ".\(kind)-", options: .backwards) else { continue }
            let set = String(name[name.index(after: name.startIndex)..<range.lowerBound])
            if !set.isEmpty { return (set, kind) }
        }
        return nil
    }

    /// The pid in `.NAME.importing-PID-RANDOM` (as `MockSetWriter` names its folders).
    static func writerPID(_ name: String) -> pid_t? {
        let parts = name.split(separator: "-")
        guard parts.count >= 3, let pid = pid_t(parts[parts.count - 2]), pid > 0 else { return nil }
        return pid
    }

    private static func size(of url: URL) -> Int64 {
        guard let files = FileManager.default.enumerator(at: url, includingPropertiesForKeys: [.fileSizeKey]) else {
            return 0
        }
        var total: Int64 = 0
        for case let file as URL in files {
            total += Int64((try? file.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0)
        }
        return total
    }
}
