import CPlatform
import Foundation

/// File-system calls whose spelling differs between Linux and Darwin, one seam.
public enum FileSystem {
    /// Exchanges the folders (or files) at `from` and `to` in one atomic step: at every instant each path holds one
    /// of the two. Linux `renameat2(RENAME_EXCHANGE)`, Darwin `renamex_np(RENAME_SWAP)`.
    /// - Returns: 0, or the `errno` of the failure (`EINVAL`, `ENOSYS` or `ENOTSUP` where the file system cannot
    ///   exchange).
    public static func exchange(_ from: String, _ to: String) -> Int32 {
        mockd_rename_exchange(from, to) == 0 ? 0 : errno
    }

    /// Whether `code`, from `exchange`, says this file system cannot exchange at all (each system spells it its own
    /// way: `EINVAL`, `ENOSYS`, `ENOTSUP`), so that the caller moves the folders one at a time instead.
    public static func cannotExchange(_ code: Int32) -> Bool {
        code == EINVAL || code == ENOSYS || code == ENOTSUP
    }

    /// Puts every file written under `folder` on disk: one `syncfs(2)` of the file system holding it on Linux;
    /// where that call is missing or fails (Darwin has none), each regular file below `folder` is `fsync`ed.
    /// - Returns: Whether everything was flushed.
    @discardableResult
    public static func flush(folder: String) -> Bool {
        let directory = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { return false }
        defer { close(directory) }
        if mockd_sync_file_system(directory) == 0 { return true }
        var flushed = fsync(directory) == 0
        let files = FileManager.default.enumerator(atPath: folder)
        while let relative = files?.nextObject() as? String {
            let path = folder + "/" + relative
            let file = open(path, O_RDONLY | O_CLOEXEC)
            guard file >= 0 else { continue }
            flushed = fsync(file) == 0 && flushed
            close(file)
        }
        return flushed
    }
}

extension FileSystem {
    /// The regular files below `folder`, as paths relative to it (`bodies/GET_a.json`), sorted by their bytes. A
    /// symbolic link is neither listed nor followed, to a file or to a folder; a folder that cannot be opened is
    /// skipped. One `readdir` pass per folder: the file type comes with the name where the file system gives it (a
    /// `stat` per entry only where it does not), where a `URL` walk resolved every component of every path, 15 `stat`
    /// calls a file.
    /// - Returns: The paths, and those whose bytes are not UTF-8 (no `String` can name them), decoded with U+FFFD
    ///   for an error message.
    /// - Throws: `POSIXError` when `folder` itself cannot be opened.
    public static func regularFiles(under folder: String) throws -> (paths: [String], notUTF8: [String]) {
        let top = try FileDescriptor.open(folder, .folder)
        var found: [[UInt8]] = []
        collectRegularFiles(in: top, prefix: [], into: &found)
        found.sort { $0.lexicographicallyPrecedes($1) }
        var paths: [String] = []
        var notUTF8: [String] = []
        for bytes in found {
            if let path = String(validating: bytes, as: UTF8.self) {
                paths.append(path)
            } else {
                notUTF8.append(String(decoding: bytes, as: UTF8.self))
            }
        }
        return (paths, notUTF8)
    }

    /// Adds the regular files below the open folder `directory` (closed here) to `found`, each behind `prefix`.
    private static func collectRegularFiles(in directory: FileDescriptor, prefix: [UInt8], into found: inout [[UInt8]])
    {
        guard let stream = fdopendir(directory.rawValue) else {
            directory.close()
            return
        }
        defer { closedir(stream) }
        var folders: [[UInt8]] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: &entry.pointee.d_name) { raw in
                Array(raw.prefix { $0 != 0 })
            }
            if name == [0x2E] || name == [0x2E, 0x2E] { continue }
            var type = Int32(entry.pointee.d_type)
            if type == Int32(DT_UNKNOWN) {
                var info = stat()
                guard
                    fstatat(directory.rawValue, name.map { CChar(bitPattern: $0) } + [0], &info, AT_SYMLINK_NOFOLLOW)
                        == 0
                else { continue }
                switch info.st_mode & S_IFMT {
                case S_IFREG: type = Int32(DT_REG)
                case S_IFDIR: type = Int32(DT_DIR)
                default: continue
                }
            }
            if type == Int32(DT_REG) {
                found.append(prefix + name)
            } else if type == Int32(DT_DIR) {
                folders.append(name)
            }
        }
        for name in folders {
            guard let folder = try? FileDescriptor.open(String(decoding: name, as: UTF8.self), in: directory, .folder)
            else { continue }
            collectRegularFiles(in: folder, prefix: prefix + name + [0x2F], into: &found)
        }
    }

    /// Makes `to` a second name of the file at `from` (`link(2)`), the same file on disk: nothing is copied.
    /// - Returns: 0, or the `errno` of the failure (`EXDEV` across file systems, `EPERM` or `ENOTSUP` where the file
    ///   system has no hard links, `EMLINK`, `EEXIST`): the caller then writes a copy.
    public static func hardLink(_ from: String, to: String) -> Int32 {
        link(from, to) == 0 ? 0 : errno
    }
}

/// Process-wide limits, one seam.
public enum ProcessLimits {
    /// Raises the soft open-file limit to the hard limit (on Darwin at most `OPEN_MAX`, 10,240: `setrlimit` refuses
    /// more for `RLIMIT_NOFILE`, and the hard limit there is often unlimited).
    /// - Returns: The soft limit in force afterwards (0 if it could not be read).
    @discardableResult
    public static func raiseOpenFileLimit() -> UInt64 {
        UInt64(mockd_raise_open_file_limit())
    }
}
