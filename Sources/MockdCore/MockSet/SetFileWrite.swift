import Foundation

/// How a mock set's files reach the disk when a set is written (`MockSetWriter`).
///
/// Foundation's `Data.write(to:)` calls `fsync` for every file: 10,000 body files took 0.9 s of system time in
/// `fsync` alone, and 100,000 took 13 s. On Linux the files are written plainly and the file system is flushed
/// once (`syncfs(2)`) before the set takes its place, which gives the same guarantee for the whole set: after the
/// swap, every file of the new set is on disk. Elsewhere `Data.write` does as before.
enum SetFileWrite {
    /// Writes `data` to `url`, creating or truncating it; on Linux without `fsync` (see `flush(folder:)`).
    /// - Throws: `POSIXError` (Linux) or Foundation's error when the disk refuses.
    static func write(_ data: Data, to url: URL) throws {
        #if os(Linux)
        let file = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard file >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(file) }
        var written = 0
        while written < data.count {
            let count = data.withUnsafeBytes { Foundation.write(file, $0.baseAddress! + written, $0.count - written) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            written += count
        }
        #else
        try data.write(to: url)
        #endif
    }

    /// Puts every file written with `write` under `folder` on disk: one `syncfs` of its file system on Linux
    /// (looked up at run time: Glibc's module leaves it out), `sync()` if that is missing; nothing elsewhere, where
    /// `write` synced each file.
    static func flush(folder: URL) {
        #if os(Linux)
        typealias SyncFileSystem = @convention(c) (Int32) -> Int32
        let directory = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { if directory >= 0 { close(directory) } }
        // RTLD_DEFAULT is the null handle on glibc.
        if directory >= 0, let symbol = dlsym(nil, "syncfs"),
            unsafeBitCast(symbol, to: SyncFileSystem.self)(directory) == 0
        {
            return
        }
        sync()
        #endif
    }
}
