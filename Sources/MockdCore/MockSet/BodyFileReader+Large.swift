import Foundation
import MockdFormat
import MockdPlatform

extension BodyFileReader {
    /// A response's body file: its bytes and placeholders for a small file (as `readParsed`), or a `FileBody` (path
    /// and size only, nothing read) for one of `FileBody.threshold` bytes or more, served from disk.
    ///
    /// A large file that may render placeholders (`templated` not `false`) is scanned for `{{` in 1 MiB chunks
    /// (bounded memory, nothing kept); if it is text (no NUL byte) holding one it is read into memory as a small one
    /// is, since placeholders are rendered from the bytes on every answer. A `bodyPatch` on a body served from disk reads the file when
    /// the override answers (see `ResponseRecipe.apply(to:)`).
    /// - Throws: `ConfigError` `.invalidValue` for a path outside the set folder, `.fileNotFound`, `.unreadable`
    ///   (no read permission, a directory), checked with `stat` and `access` without reading the bytes.
    func readParsedOrReference(
        _ relativePath: String,
        templated: TemplateMode,
        indexName: String,
        jsonPath: @autoclosure () -> String
    ) throws -> (data: Data, template: Template?, file: FileBody?) {
        // A plain path is opened without following links, as on first use; resolving every component of every path
        // (a `stat` each) was half of `mockd validate` on 100,000 body files.
        if mayDefer(relativePath) {
            return try readOnFirstUse(relativePath, templated: templated, indexName: indexName, jsonPath: jsonPath())
        }
        return try readResolvingLinks(relativePath, templated: templated, indexName: indexName, jsonPath: jsonPath())
    }

    /// `readParsedOrReference` for any path: resolved through its links, refused outside the set folder.
    func readResolvingLinks(
        _ relativePath: String,
        templated: TemplateMode,
        indexName: String,
        jsonPath: @autoclosure () -> String
    ) throws -> (data: Data, template: Template?, file: FileBody?) {
        let url = folder.appendingPathComponent(relativePath).standardizedFileURL
        let resolved = url.resolvingSymlinksInPath().standardizedFileURL.path
        var info = stat()
        // Anything unusual (outside the folder, missing, unreadable, small) takes the reading path and its errors.
        // The path as written is looked at: `a.json/` names a folder, never the file `a.json`.
        guard !relativePath.hasPrefix("/"), resolved.hasPrefix(resolvedFolder),
            stat(folder.path + "/" + relativePath, &info) == 0,
            info.st_mode & S_IFMT == S_IFREG, Int(info.st_size) >= FileBody.threshold
        else {
            let (data, template) = try readParsed(relativePath, indexName: indexName, jsonPath: jsonPath())
            return (data, template, nil)
        }
        guard access(resolved, R_OK) == 0 else {
            throw Self.unreadable(
                relativePath,
                UserFile.failure(FileDescriptor.lastError),
                indexName: indexName,
                jsonPath: jsonPath()
            )
        }
        if templated != .off, mayHoldPlaceholders(resolved) {
            let (data, template) = try readParsed(relativePath, indexName: indexName, jsonPath: jsonPath())
            return (data, template, nil)
        }
        return (Data(), nil, FileBody(path: resolved, size: Int(info.st_size)))
    }

    /// Whether the file is text containing `{{` (or cannot be scanned: then the reading path reports why), read in
    /// 1 MiB chunks. A file with a NUL byte is binary (a video, an archive): `{{` in it is two bytes of data, not a
    /// placeholder, and 64 MiB of random bytes hold about a thousand of them.
    private func mayHoldPlaceholders(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return true }
        defer { try? handle.close() }
        var previousEndedWithBrace = false
        var sawBraces = false
        while true {
            let read: Data?
            do { read = try handle.read(upToCount: 1 << 20) } catch { return true }
            // `nil` or no bytes: the end of the file.
            guard let chunk = read, !chunk.isEmpty else { return sawBraces }
            if chunk.contains(0) { return false }
            if previousEndedWithBrace, chunk.first == 0x7B { sawBraces = true }
            if !sawBraces, ByteSearch.contains([0x7B, 0x7B], in: chunk) { sawBraces = true }
            previousEndedWithBrace = chunk.last == 0x7B
        }
    }
}
