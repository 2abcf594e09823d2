import Foundation
import MockdFormat
import MockdPlatform

/// Reads body files of one mock set, refusing any path that leaves the set folder. Each file is read (and
/// its path checked) once, and stubs sharing a file share its bytes; safe to use from several threads.
final class BodyFileReader: Sendable {
    let folder: URL
    let resolvedFolder: String
    /// Keyed by the path's bytes: "é" and "e" + U+0301 name two files (`ByteKey`).
    let cache = Mutex<[ByteKey: (data: Data, template: Template?)]>([:])
    /// Directories of body files (relative) and whether they resolve inside the folder; see `mayDefer`.
    /// Keyed by bytes: two spellings of a name equal under canonical equivalence are two directories on disk, and one
    /// may be a link leading out of the set.
    let checkedDirectories = Mutex<[ByteKey: Bool]>([:])
    /// The set folder, held open while its stubs live (`nil` if it could not be opened): body files read on first
    /// use are opened relative to it, so a set replaced on disk meanwhile (`import-har --force`) is never mixed into
    /// the loaded one.
    let directory: FileDescriptor?

    init(folder: URL) {
        self.folder = folder
        let resolved = folder.resolvingSymlinksInPath().standardizedFileURL.path
        self.resolvedFolder = resolved.hasSuffix("/") ? resolved : resolved + "/"
        self.directory = try? FileDescriptor.open(resolved, .folder)
    }

    deinit { directory?.close() }

    /// - Parameter jsonPath: Named in an error; built only then.
    func read(_ relativePath: String, indexName: String, jsonPath: @autoclosure () -> String) throws -> Data {
        try readParsed(relativePath, indexName: indexName, jsonPath: jsonPath()).data
    }

    /// The file's bytes and their placeholders (`Template.parse`), both worked out once per file.
    func readParsed(
        _ relativePath: String,
        indexName: String,
        jsonPath: @autoclosure () -> String
    ) throws -> (data: Data, template: Template?) {
        try parsedOnce(relativePath) { try readUncached(relativePath, indexName: indexName, jsonPath: jsonPath()) }
    }

    /// The bytes of `relativePath` and their placeholders from the cache, or from `read` (then kept): each file is
    /// read and parsed once, and stubs sharing it share its bytes.
    func parsedOnce(_ relativePath: String, read: () throws -> Data) rethrows -> (data: Data, template: Template?) {
        let key = ByteKey(relativePath)
        if let cached = cache.withLock({ $0[key] }) { return cached }
        return try parsedOnce(key, read: read)
    }

    /// `parsedOnce(_:read:)` once the cache was asked for `key` and did not have it.
    func parsedOnce(_ key: ByteKey, read: () throws -> Data) rethrows -> (data: Data, template: Template?) {
        let data = try read()
        let parsed = (data, Template.parse(data))
        // Not kept while a placeholder is broken: a body read on first use refuses it, and the file fixed meanwhile
        // must be read again, not these bytes.
        if let problems = parsed.1?.problems, !problems.isEmpty { return parsed }
        // Two threads may read a file at once; the first copy stored is the one every stub shares.
        // One lookup: the default is stored only when no other thread stored its copy first.
        func stored(_ value: inout (data: Data, template: Template?)) -> (data: Data, template: Template?) { value }
        return cache.withLock { stored(&$0[key, default: parsed]) }
    }

    private func readUncached(_ relativePath: String, indexName: String, jsonPath: String) throws -> Data {
        if let problem = SetRelativePath.problem(relativePath) {
            throw ConfigError(.invalidValue, file: indexName, jsonPath: jsonPath, message: problem)
        }
        // A plain path opened without following links is inside the folder: no resolving of every component.
        if mayDefer(relativePath), let file = try openPlain(relativePath, indexName: indexName, jsonPath: jsonPath) {
            defer { file.close() }
            let kind = file.kind()
            guard case .regular(let size) = kind, let data = Self.readAll(file, size: size) else {
                throw Self.unreadable(
                    relativePath,
                    UserFile.failure(reading: kind) ?? UserFile.failure(FileDescriptor.lastError),
                    indexName: indexName,
                    jsonPath: jsonPath
                )
            }
            return data
        }
        let url = folder.appendingPathComponent(relativePath).standardizedFileURL
        // The folder itself (`.`) is inside it: opened, it is refused as a folder, not as a way out.
        guard (url.resolvingSymlinksInPath().standardizedFileURL.path + "/").hasPrefix(resolvedFolder) else {
            throw ConfigError(
                .invalidValue,
                file: indexName,
                jsonPath: jsonPath,
                message: "'\(relativePath)' is outside the mock set folder; body files must stay inside it"
            )
        }
        let file: FileDescriptor
        do {
            // Without waiting, and only a regular file: a FIFO would wait for a writer, a device might never end. The
            // path as written, not standardized: `a.json/` names a folder, and must not open the file `a.json`.
            file = try FileDescriptor.open(folder.path + "/" + relativePath, .readWithoutWaiting)
        } catch {
            throw Self.unreadable(relativePath, UserFile.failure(error), indexName: indexName, jsonPath: jsonPath)
        }
        defer { file.close() }
        let kind = file.kind()
        guard case .regular(let size) = kind, let data = Self.readAll(file, size: size) else {
            throw Self.unreadable(
                relativePath,
                UserFile.failure(reading: kind) ?? UserFile.failure(FileDescriptor.lastError),
                indexName: indexName,
                jsonPath: jsonPath
            )
        }
        return data
    }

    /// Why the body file at `relativePath` could not be read (`UserFile`'s reasons, which every user file gets), in
    /// the words every command gives: serving, `validate`, `diff`.
    static func unreadable(
        _ relativePath: String,
        _ failure: UserFile.Failure,
        indexName: String,
        jsonPath: String
    ) -> ConfigError {
        let reason: String
        switch failure {
        case .notFound:
            return ConfigError(
                .fileNotFound,
                file: indexName,
                jsonPath: jsonPath,
                message: "body file '\(relativePath)' not found"
            )
        case .folder: reason = "a folder, not a file"
        case .notAFile: reason = "not a regular file"
        case .system(let message): reason = message
        }
        return ConfigError(
            .unreadable,
            file: indexName,
            jsonPath: jsonPath,
            message: "cannot read '\(relativePath)': \(reason)"
        )
    }
}
