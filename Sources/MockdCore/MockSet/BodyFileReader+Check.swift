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
        guard self.directory >= 0, let directory = Self.plainDirectory(of: relativePath) else { return false }
        return isInsideFolder(directory)
    }

    /// The directory part of a relative path (`""` for a file at the top of the folder), or `nil` when the path is
    /// refused (`SetRelativePath`) or has an empty or `.` component.
    static func plainDirectory(of relativePath: String) -> String? {
        guard case .plain(let directory) = SetRelativePath.shape(of: relativePath) else { return nil }
        return String(directory)
    }

    /// Whether `directory` (relative, checked by `plainDirectory`) resolves inside the set folder; worked out once
    /// per directory, since a set's thousands of body files sit in a few.
    private func isInsideFolder(_ directory: String) -> Bool {
        if directory.isEmpty { return true }
        if let known = checkedDirectories.withLock({ $0[directory] }) { return known }
        let resolved = URL(fileURLWithPath: resolvedFolder + directory).resolvingSymlinksInPath().standardizedFileURL
            .path
        let inside = (resolved + "/").hasPrefix(resolvedFolder)
        checkedDirectories.withLock { $0[directory] = inside }
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
        if let cached = cache.withLock({ $0[relativePath] }) { return (cached.data, cached.template, nil) }
        let file: Int32
        switch Self.openWithoutLinks(relativePath, in: directory) {
        case .success(let opened): file = opened
        case .failure(let error) where error.code == ELOOP || error.code == ENOTDIR:
            // A symbolic link on the way (a folder: `ENOTDIR` with `O_DIRECTORY`), or a file where a folder should be.
            return try readParsedOrReference(
                relativePath,
                templated: templated,
                indexName: indexName,
                jsonPath: jsonPath()
            )
        case .failure(let error) where error.code == ENOENT:
            throw ConfigError(
                .fileNotFound,
                file: indexName,
                jsonPath: jsonPath(),
                message: "body file '\(relativePath)' not found"
            )
        case .failure: throw unreadable()
        }
        defer { close(file) }
        var info = stat()
        guard fstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { throw unreadable() }
        guard Int(info.st_size) < FileBody.threshold else {
            return try readParsedOrReference(
                relativePath,
                templated: templated,
                indexName: indexName,
                jsonPath: jsonPath()
            )
        }
        let parsed = try parsedOnce(relativePath) {
            guard let data = Self.readAll(file, size: Int(info.st_size)) else { throw unreadable() }
            return data
        }
        return (parsed.data, parsed.template, nil)
    }
}

/// Why `openWithoutLinks` failed: the system's `errno`.
struct OpenFailure: Error {
    let code: Int32
}

extension BodyFileReader {
    /// `relativePath` under the open folder `directory`, opened for reading with `openat`, no component followed
    /// through a symbolic link.
    fileprivate static func openWithoutLinks(_ relativePath: String, in directory: Int32) -> Result<Int32, OpenFailure>
    {
        var components = relativePath.split(separator: "/", omittingEmptySubsequences: true)
        guard let name = components.popLast() else { return .failure(OpenFailure(code: ENOENT)) }
        var parent = directory
        defer { if parent != directory { close(parent) } }
        for component in components {
            let next = openat(parent, String(component), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard next >= 0 else { return .failure(OpenFailure(code: errno)) }
            if parent != directory { close(parent) }
            parent = next
        }
        let file = openat(parent, String(name), O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        return file >= 0 ? .success(file) : .failure(OpenFailure(code: errno))
    }

    /// The bytes of the open `file`, `size` of them by `fstat` (fewer if it was truncated meanwhile); `nil` on a read
    /// error.
    fileprivate static func readAll(_ file: Int32, size: Int) -> Data? {
        var data = Data(count: size)
        var filled = 0
        while filled < data.count {
            let count = data.withUnsafeMutableBytes {
                Foundation.read(file, $0.baseAddress! + filled, $0.count - filled)
            }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                // Shorter than it was a moment ago (truncated meanwhile): what is there.
                if count == 0 { break }
                return nil
            }
            filled += count
        }
        if filled < data.count { data.removeSubrange(filled...) }
        return data
    }
}
