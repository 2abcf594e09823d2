import Foundation
import MockdFormat
import MockdPlatform

extension BodyFileReader {
    /// Whether `relativePath` names a regular file smaller than `FileBody.threshold` that this process may read,
    /// inside the set folder: checked with one `lstat` and no read, so that a start can defer reading it
    /// (`DeferredResponses`).
    ///
    /// `false` means "take the reading path", which then reports what is wrong in its own words: a path leaving the
    /// folder or through a symbolic link (resolved there), a large file (served from disk), a directory, a file
    /// without read permission.
    /// - Throws: `ConfigError` `.fileNotFound` naming `jsonPath` when the file does not exist.
    func isSmallReadableFile(
        _ relativePath: String,
        indexName: String,
        jsonPath: @autoclosure () -> String
    ) throws -> Bool {
        guard self.directory >= 0, let directory = Self.plainDirectory(of: relativePath), isInsideFolder(directory)
        else { return false }
        var info = stat()
        guard fstatat(self.directory, relativePath, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
            guard errno == ENOENT || errno == ENOTDIR else { return false }
            throw ConfigError(
                .fileNotFound,
                file: indexName,
                jsonPath: jsonPath(),
                message: "body file '\(relativePath)' not found"
            )
        }
        return info.st_mode & S_IFMT == S_IFREG && Int(info.st_size) < FileBody.threshold
            && Self.mayRead(info)
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

    /// Whether the permission bits let this process read the file (root reads any).
    private static func mayRead(_ info: stat) -> Bool {
        let user = effectiveUser
        if user == 0 { return true }
        if info.st_uid == user { return info.st_mode & S_IRUSR != 0 }
        if processGroups.contains(info.st_gid) { return info.st_mode & S_IRGRP != 0 }
        return info.st_mode & S_IROTH != 0
    }

    private static let effectiveUser = geteuid()

    /// The effective group and the supplementary groups, read once.
    private static let processGroups: Set<gid_t> = {
        var groups = [gid_t](repeating: 0, count: Int(getgroups(0, nil)) + 1)
        let count = Int(getgroups(Int32(groups.count - 1), &groups))
        return Set(groups.prefix(max(0, count))).union([getegid()])
    }()

    /// The bytes and placeholders of a body file that `isSmallReadableFile` accepted at load, read now (first use)
    /// from the folder as it was loaded.
    /// - Throws: `BodyFileReadError` with the system's reason when it cannot be read any more (deleted, its
    ///   permissions changed, the set folder replaced or removed since the load).
    func readChecked(_ relativePath: String) throws -> (data: Data, template: Template?) {
        try parsedOnce(relativePath) { try Self.readAll(relativePath, in: directory) }
    }
}

/// Why a body file read on first use could not be read: the system's message (`strerror`).
struct BodyFileReadError: Error, CustomStringConvertible {
    let description: String
}

extension BodyFileReader {
    /// The whole file `relativePath` under the open folder `directory`, with `openat`, `fstat` and `read`.
    fileprivate static func readAll(_ relativePath: String, in directory: Int32) throws -> Data {
        func failure() -> BodyFileReadError { BodyFileReadError(description: String(cString: strerror(errno))) }
        // Every component opened without following a symbolic link: a folder of the set swapped for a link after
        // the load must not lead out of it (the load checked the folders as they were then).
        var components = relativePath.split(separator: "/", omittingEmptySubsequences: true)
        guard let name = components.popLast() else { throw BodyFileReadError(description: "empty path") }
        var parent = directory
        defer { if parent != directory { close(parent) } }
        for component in components {
            let next = openat(parent, String(component), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard next >= 0 else { throw failure() }
            if parent != directory { close(parent) }
            parent = next
        }
        let file = openat(parent, String(name), O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard file >= 0 else { throw failure() }
        defer { close(file) }
        var info = stat()
        guard fstat(file, &info) == 0 else { throw failure() }
        guard info.st_mode & S_IFMT == S_IFREG, Int(info.st_size) < FileBody.threshold else {
            // Small and regular at load; a large file is served from disk, which needs a reload to set up.
            throw BodyFileReadError(description: "now \(info.st_size) bytes, not a small regular file")
        }
        var data = Data(count: Int(info.st_size))
        var filled = 0
        while filled < data.count {
            let count = data.withUnsafeMutableBytes {
                Foundation.read(file, $0.baseAddress! + filled, $0.count - filled)
            }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                // Shorter than it was a moment ago (truncated meanwhile): what is there.
                if count == 0 { break }
                throw BodyFileReadError(description: String(cString: strerror(errno)))
            }
            filled += count
        }
        if filled < data.count { data.removeSubrange(filled...) }
        return data
    }
}
