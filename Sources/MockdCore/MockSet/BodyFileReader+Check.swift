import Foundation
import MockdFormat
import MockdPlatform

extension BodyFileReader {
    /// Whether a body file at `relativePath` may be read on first use instead of at load: a plain relative path (no
    /// `..`, empty or `.` component, `SetRelativePath`) whose directory resolves inside the set folder (worked out once
    /// per directory, since a set's thousands of body files sit in a few). The file itself is not looked at.
    ///
    /// `false` means "take the reading path at load", which reports what is wrong in its own words.
    func mayDefer(_ relativePath: String) -> Bool {
        var remembered: String?
        return mayDefer(relativePath, lastInside: &remembered)
    }

    /// `mayDefer(_:)` for a loading thread that remembers the last directory found inside the folder: a set's body
    /// files nearly all sit in one, and asking the shared table (a lock and a hash of the directory) for each was 2% of
    /// a 100,000-stub start.
    func mayDefer(_ relativePath: String, lastInside: inout String?) -> Bool {
        guard self.directory != nil, case .plain(let directory) = SetRelativePath.shape(of: relativePath) else {
            return false
        }
        // Compared as bytes: two spellings of one name under canonical equivalence are two directories on disk.
        if let lastInside, ByteKey.sameBytes(directory, lastInside) { return true }
        let whole = String(directory)
        guard isInsideFolder(whole) else { return false }
        lastInside = whole
        return true
    }

    /// Whether `directory` (relative: the directory part of a plain path, `SetRelativePath`) resolves inside the set
    /// folder; worked out once per directory, since a set's thousands of body files sit in a few.
    private func isInsideFolder(_ directory: String) -> Bool {
        if directory.isEmpty { return true }
        if let known = checkedDirectories.withLock({ $0[ByteKey(directory)] }) { return known }
        let resolved = URL(fileURLWithPath: resolvedFolder + directory).resolvingSymlinksInPath().standardizedFileURL
            .path
        let inside = (resolved + "/").hasPrefix(resolvedFolder)
        checkedDirectories.withLock { $0[ByteKey(directory)] = inside }
        return inside
    }

    /// A body file `mayDefer` accepted at load, read now (first use) from the set folder as it was loaded: its
    /// bytes and placeholders (kept, shared by every stub naming it), or for a file of `FileBody.threshold` bytes or
    /// more what `readParsedOrReference` gives (served from disk).
    ///
    /// Every directory on the way is opened without following a symbolic link, so a folder of the set swapped for a
    /// link after the load does not lead out of it; a path through a link takes the load's reading path, which
    /// resolves it and refuses it outside the folder.
    /// - Throws: `ConfigError` naming `jsonPath` and the file, the one `mockd validate` gives: `.fileNotFound` (missing,
    ///   or gone with the folder it was loaded from), `.unreadable` (no permission, not a regular file),
    ///   `.invalidValue` (a link leading out of the folder).
    func readOnFirstUse(
        _ relativePath: String,
        templated: TemplateMode,
        indexName: String,
        jsonPath: @autoclosure () -> String
    ) throws -> (data: Data, template: Template?, file: FileBody?) {
        func unreadable() -> ConfigError {
            ConfigError(.unreadable, file: indexName, jsonPath: jsonPath(), message: "cannot read '\(relativePath)'")
        }
        let key = ByteKey(relativePath)
        if let cached = cache.withLock({ $0[key] }) { return (cached.data, cached.template, nil) }
        guard let file = try openPlain(relativePath, indexName: indexName, jsonPath: jsonPath()) else {
            return try readResolvingLinks(
                relativePath,
                templated: templated,
                indexName: indexName,
                jsonPath: jsonPath()
            )
        }
        defer { file.close() }
        let kind = file.kind()
        guard case .regular(let size) = kind else {
            throw Self.unreadable(
                relativePath,
                UserFile.failure(reading: kind) ?? UserFile.failure(FileDescriptor.lastError),
                indexName: indexName,
                jsonPath: jsonPath()
            )
        }
        guard size < FileBody.threshold else {
            return try readResolvingLinks(
                relativePath,
                templated: templated,
                indexName: indexName,
                jsonPath: jsonPath()
            )
        }
        let parsed = try parsedOnce(key) {
            guard let data = Self.readAll(file, size: size) else { throw unreadable() }
            return data
        }
        return (parsed.data, parsed.template, nil)
    }
}

extension BodyFileReader {
    /// A plain `relativePath` (`mayDefer`) opened from the set folder without following a link; `nil` when it must take
    /// the resolving path, which words every other failure the same for every command: a symbolic link on the way (a
    /// folder: `ENOTDIR` with `O_DIRECTORY`), a file where a folder should be, no permission, a name too long, or no
    /// folder held open.
    /// - Throws: `ConfigError` `.fileNotFound` when nothing is there.
    func openPlain(
        _ relativePath: String,
        indexName: String,
        jsonPath: @autoclosure () -> String
    ) throws
        -> FileDescriptor?
    {
        guard let directory else { return nil }
        switch Self.openWithoutLinks(relativePath, in: directory) {
        case .success(let file): return file
        case .failure(let error) where error.code == .ENOENT:
            throw ConfigError(
                .fileNotFound,
                file: indexName,
                jsonPath: jsonPath(),
                message: "body file '\(relativePath)' not found"
            )
        case .failure: return nil
        }
    }

    /// `relativePath` under the open folder `directory`, opened for reading, no component followed through a symbolic
    /// link (`FileDescriptor.open(_:in:_:)`).
    private static func openWithoutLinks(
        _ relativePath: String,
        in directory: FileDescriptor
    ) -> Result<FileDescriptor, POSIXError> {
        // Cut into components on the byte, as the kernel does, in one NUL-terminated copy of the path: each `/` becomes
        // the end of the component before it (a split into an array of strings was a fifth of a first use).
        var path = Array(relativePath.utf8CString)
        return path.withUnsafeMutableBufferPointer { bytes -> Result<FileDescriptor, POSIXError> in
            guard let base = bytes.baseAddress else { return .failure(POSIXError(.ENOENT)) }
            let end = bytes.count - 1
            var parent = directory
            defer { if parent != directory { parent.close() } }
            do {
                var start = 0
                while true {
                    while start < end, bytes[start] == CChar(UInt8(ascii: "/")) { start += 1 }
                    guard start < end else { return .failure(POSIXError(.ENOENT)) }
                    var stop = start
                    while stop < end, bytes[stop] != CChar(UInt8(ascii: "/")) { stop += 1 }
                    var last = true
                    for index in stop..<end where bytes[index] != CChar(UInt8(ascii: "/")) {
                        last = false
                        break
                    }
                    bytes[stop] = 0
                    if last {
                        // Without waiting: a FIFO put where the file was would hold the worker until something wrote
                        // to it.
                        return .success(try FileDescriptor.open(base + start, in: parent, .readWithoutWaiting))
                    }
                    let next = try FileDescriptor.open(base + start, in: parent, .folder)
                    if parent != directory { parent.close() }
                    parent = next
                    start = stop + 1
                }
            } catch let error as POSIXError {
                return .failure(error)
            } catch {
                return .failure(POSIXError(.EIO))
            }
        }
    }

    /// The bytes of the open `file`, `size` of them by `regularFileSize()` (fewer if it was truncated meanwhile);
    /// `nil` on a read error.
    static func readAll(_ file: FileDescriptor, size: Int) -> Data? {
        var data = Data(count: size)
        guard let filled = try? data.withUnsafeMutableBytes({ try file.readFully(into: $0) }) else { return nil }
        if filled < data.count { data.removeSubrange(filled...) }
        return data
    }
}
