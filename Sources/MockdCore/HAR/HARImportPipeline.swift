public import Foundation
import MockdFormat

/// A HAR file compiled into the mock set `mocks/<set>/`: streamed (`HARStreamReader`, on a thread of its own:
/// `HARReadAhead`) → `HARCompiler` → merged
/// into the existing set when asked (`MockSetMerger`) → written atomically (`MockSetWriter`).
///
/// What `mockd import-har` and every flush of `mockd record` do. Nothing is written before the whole file has
/// been read and found valid, and nothing at all when no entry can be replayed: the result says so, and the
/// caller decides whether that is an error.
public enum HARImportPipeline {
    /// How far an import has got, for a progress line.
    public enum Progress: Sendable {
        /// After each chunk of the HAR file.
        case reading(HARStreamReader.Progress)
        /// The whole file is read and compiled (`entries` is the length of `log.entries`); merging and
        /// writing come next.
        case compiled(entries: Int)
    }

    /// What one import did.
    public struct Result: Sendable {
        /// `log.version`, `log.creator` and the number of entries.
        public var log: HARLogInfo
        /// Entries read, stubs written, skips, redactions.
        public var report: ImportReport
        /// What the merge did; `nil` when nothing was merged (not asked, no existing set, nothing written).
        public var merge: MockSetMerger.Summary?
        /// Whether `mocks/<set>/` was written; `false` when no entry can be replayed.
        public var setWritten: Bool
        /// What the merge changed in the set, as `mockd diff` shows it; `nil` without a merge.
        public var changelog: MockSetChangelog?

        /// The report as `mockd import-har` prints it, several lines without a final line feed: the
        /// report's own lines, then a `merged:` line after a merge.
        /// - Parameters:
        ///   - source: The HAR as shown to the user.
        ///   - destination: Where it went (`mocks/<set>/`), or why nowhere.
        public func rendered(source: String, destination: String) -> String {
            var text = report.rendered(source: source, destination: destination)
            if let merge {
                text +=
                    "\n  merged:         \(merge.replaced) stubs replaced, \(merge.added) added, \(merge.kept) kept as they were"
                for stub in merge.replacedStubs { text += "\n    replaced \(stub)" }
                for stub in merge.addedStubs { text += "\n    added \(stub)" }
            }
            if let changelog {
                let lines = changelog.text(old: "before", new: "after").split(separator: "\n").dropFirst()
                text += "\n  changes:        \(changelog.summary)"
                for line in lines { text += "\n    \(line)" }
            }
            return text
        }
    }

    /// Imports the HAR at `url` into `mocks/<set>/` under `root`.
    ///
    /// - Parameters:
    ///   - url: The HAR file; Playwright `content._file` side files resolve in its folder.
    ///   - displayName: How to name the file in errors and as the set's source.
    ///   - set: The mock set to write; a valid name (`MockdRoot.isValidName`), checked by the caller.
    ///   - options: Host filter, match headers, hygiene, normalisation, WebSocket timing.
    ///   - merge: When `mocks/<set>/` exists, fold the import into it: stubs the HAR records replace theirs
    ///     (ids kept), others are kept (`MockSetMerger`).
    ///   - replace: Replace an existing set; a merge rewrites the set, so it needs this too.
    ///   - progress: Called after each chunk read, then once when compiled; `nil` for none.
    /// - Returns: The report; `setWritten` is `false`, and nothing was written, when no entry can be replayed.
    /// - Throws: `HARImportError` when the file is missing, unreadable, not JSON or not a HAR (nothing
    ///   written); `ConfigError` when the existing set cannot be read for a merge; `MockSetWriteError`
    ///   `.setExists` when the set exists and `replace` is false, `.writeFailed` when the disk refuses (the old
    ///   set is untouched).
    /// - Complexity: O(entries + body bytes); memory grows with the bodies kept for the set, not with the
    ///   size of the file.
    public static func run(
        har url: URL,
        displayName: String,
        into set: String,
        root: MockdRoot,
        options: HARImportOptions,
        merge: Bool,
        replace: Bool,
        progress: ((Progress) -> Void)? = nil
    ) throws -> Result {
        var compiler = HARCompiler(options: options, harDirectory: url.deletingLastPathComponent())
        let log = try HARReadAhead.read(
            HARStreamReader(),
            contentsOf: url,
            displayName: displayName,
            progress: progress.map { report in { report(.reading($0)) } }
        ) { compiler.add($0) }
        let (compiled, report) = compiler.finish()
        var build = compiled
        progress?(.compiled(entries: log.entryCount))
        var result = Result(log: log, report: report, merge: nil, setWritten: false, changelog: nil)
        guard !build.file.stubs.isEmpty else { return result }
        if merge, FileManager.default.fileExists(atPath: root.setURL(set).path) {
            let existing = try MockSetMerger.read(set: set, root: root)
            let summary: MockSetMerger.Summary
            (build, summary) = MockSetMerger.merge(build, into: existing)
            result.merge = summary
            result.changelog = MockSetDiff.changelog(from: existing, to: build)
        }
        try MockSetWriter(root: root).write(build, set: set, replace: replace, source: displayName, offeringMerge: true)
        result.setWritten = true
        return result
    }
}
