import Foundation
import MockdPlatform

/// How a mock set's files reach the disk when a set is written (`MockSetWriter`).
///
/// Foundation's `Data.write(to:)` syncs every file to disk: 10,000 body files took 0.9 s of system time in
/// syncing alone, and 100,000 took 13 s. The files are written plainly and flushed together before the set takes
/// its place (`FileSystem.flush`: one call for the whole file system where the system has one, else each file),
/// which gives the same guarantee for the whole set: after the swap, every file of the new set is on disk.
enum SetFileWrite {
    /// Writes `data` to `url`, creating or truncating it, without syncing it (see `flush(folder:)`).
    /// - Throws: `POSIXError` when the disk refuses.
    static func write(_ data: Data, to url: URL) throws {
        try FileSystem.write(data, to: url.path)
    }

    /// Puts every file written with `write` under `folder` on disk (`FileSystem.flush`).
    static func flush(folder: URL) {
        FileSystem.flush(folder: folder.path)
    }
}
