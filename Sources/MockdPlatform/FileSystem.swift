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
