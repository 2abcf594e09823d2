import Foundation
import MockdFormat
import MockdPlatform

/// `mocks/<set>/index.cache`: the set's compact index (`CompactIndex`), a cache of `index.json` that a start reads
/// instead of parsing JSON.
///
/// Generated, never edited, safe to delete: every command that writes a set (`MockSetWriter`: import-har, merge,
/// record, refresh, import-wiremock, import-openapi) writes it beside `index.json`, and a start that finds it missing
/// or stale writes it again when the folder lets it. It names the `index.json` it was made from by size and
/// `ContentHash`, so a hand-edited `index.json` always wins (a start hashes that file, a piece at a time and without
/// parsing it, to check); a cache of another layout revision or mockd version, or whose own hash does not match, is
/// never read. Tools that list a set's files skip it (`isCacheFile`). It stays out of version control by itself: the
/// set folder gets a `.gitignore` naming it (`ignoreFileName`) unless the folder already has one.
public enum CompactIndexFile {
    public static let name = "index.cache"
    /// The start of the name of a cache being written (renamed over `name` when complete).
    static let temporaryPrefix = ".index.cache."
    /// The file written beside the cache so that git never offers it for a commit.
    static let ignoreFileName = ".gitignore"
    static let ignoreFileText = """
        # Written by mockd: index.cache is generated from index.json (safe to delete; a start rebuilds it).
        \(name)
        \(temporaryPrefix)*

        """

    /// Whether `relativePath` (inside a set folder) is the compact index or one being written: not a body file.
    public static func isCacheFile(_ relativePath: String) -> Bool {
        relativePath == name || relativePath.hasPrefix(temporaryPrefix)
    }

    /// The size and digest of `index` as it is now.
    static func source(of index: FileSnapshot) -> CompactIndex.Source {
        CompactIndex.Source(indexSize: UInt64(index.count), indexHash: ContentHash.of(index.bytes))
    }

    /// The size and digest of `index` (the bytes of `index.json`), as `source(of:)` gives them for the file.
    static func source(of index: Data) -> CompactIndex.Source {
        index.withUnsafeBytes { CompactIndex.Source(indexSize: UInt64($0.count), indexHash: ContentHash.of($0)) }
    }

    /// The set read from `folder`'s compact index when it was made from that `index.json` by this mockd and is
    /// intact (`source`: `index.json` now); else `nil` (missing, unreadable, damaged, of another revision or version, or made from another index).
    static func read(folder: URL, source: CompactIndex.Source) -> MockSetFile? {
        guard let cache = FileSnapshot(path: folder.appendingPathComponent(name).path) else { return nil }
        return CompactIndex.decode(cache.bytes, source: source)
    }

    /// The set-wide settings (no stubs) and the stub records of `folder`'s compact index, read in place, when it is
    /// fresh for the `index.json` at `index` as that file is now and intact as `read` checks it; else `nil` (then
    /// the caller reads `index.json` itself, and names what is wrong with it). A start builds each stub from its
    /// record (`StubEntries.compact`) without decoding the whole index first.
    ///
    /// `index.json` is not read whole here: the cache names its size, so a file of another size is stale without a
    /// read, and one of the same size is hashed a piece at a time (`ContentHash.of(file:size:)`). Read whole, its
    /// bytes came into fresh pages that were only hashed.
    static func readInPlace(folder: URL, index: URL) -> (settings: MockSetFile, entries: StubEntries)? {
        let cachePath = folder.appendingPathComponent(name).path
        guard let named = header(ofCacheAt: cachePath)?.source,
            let file = try? FileDescriptor.open(index.path, .readWithoutWaiting)
        else { return nil }
        defer { file.close() }
        guard case .regular(let size)? = file.kind(), UInt64(size) == named.indexSize,
            let hash = ContentHash.of(file: file, size: size)
        else { return nil }
        let source = CompactIndex.Source(indexSize: UInt64(size), indexHash: hash)
        guard source == named, let cache = FileSnapshot(path: cachePath),
            let (settings, table) = CompactIndex.readInPlace(cache.bytes, source: source)
        else { return nil }
        return (settings, .compact(table, cache))
    }

    /// The header of the cache at `path`, read alone and checked against the file's size, before the file is read
    /// whole: a cache of another revision, version or size (a 2 GB file dropped in its place) is passed over
    /// without reading it, and so is one made from another `index.json` (the caller compares `source`).
    private static func header(ofCacheAt path: String) -> CompactIndex.Layout? {
        guard let file = try? FileDescriptor.open(path, .readWithoutWaiting) else { return nil }
        defer { file.close() }
        guard case .regular(let size)? = file.kind() else { return nil }
        var header = [UInt8](repeating: 0, count: CompactIndex.headerWords * 8)
        let read = header.withUnsafeMutableBytes { try? file.readFully(into: $0) }
        guard read == header.count else { return nil }
        return header.withUnsafeBytes { CompactIndex.Layout($0, fileSize: size) }
    }

    /// Writes `file`'s compact index into `folder`, naming `source` (the `index.json` it was decoded from).
    ///
    /// Atomic: the bytes go to a sibling file renamed over `index.cache`, so a reader (another daemon starting on the
    /// same set) sees the old cache or the new one, whole; the sibling is removed when anything fails. The bytes are
    /// streamed to it as they are laid out (`CompactIndex.encode(_:source:output:)`), never held whole.
    /// - Returns: Whether it was written; a folder that refuses (read-only, full) is not an error: the set is then
    ///   read from its JSON at every start.
    @discardableResult
    static func write(_ file: MockSetFile, source: CompactIndex.Source, folder: URL) -> Bool {
        let unique = "\(ProcessInfo.processInfo.processIdentifier)-\(UInt32.random(in: 0...UInt32.max))"
        let temporary = folder.appendingPathComponent(temporaryPrefix + unique).path
        do {
            let output = try FileDescriptor.open(temporary, .replace(permissions: 0o644))
            defer { output.close() }
            try CompactIndex.encode(file, source: source) { try output.writeAll($0) }
            try FileSystem.rename(temporary, to: folder.appendingPathComponent(name).path)
            removeTemporaryFiles(in: folder)
            writeIgnoreFile(in: folder)
            return true
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            return false
        }
    }

    /// Writes `ignoreFileName` into `folder` when it has none: a user's own `.gitignore` is never touched. A
    /// folder that refuses it is not an error (the cache is written; git will list it).
    private static func writeIgnoreFile(in folder: URL) {
        let path = folder.appendingPathComponent(ignoreFileName).path
        guard !FileManager.default.fileExists(atPath: path) else { return }
        try? FileSystem.write(Data(ignoreFileText.utf8), to: path)
    }

    /// Removes every cache being written in `folder`: one left by a process killed between writing and renaming,
    /// and one another start is writing at this moment (its rename then fails and it keeps serving: the cache just
    /// written is as fresh as its own).
    private static func removeTemporaryFiles(in folder: URL) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names where name.hasPrefix(temporaryPrefix) {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
    }
}
