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
    /// where that call is missing or fails (Darwin has none), each folder and regular file below `folder` is
    /// `fsync`ed (a folder's own entries too: a new file's name is in its folder).
    /// - Returns: Whether everything was flushed.
    @discardableResult
    public static func flush(folder: String) -> Bool {
        let directory = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { return false }
        defer { close(directory) }
        if mockd_sync_file_system(directory) == 0 { return true }
        var flushed = fsync(directory) == 0
        let below = (try? listing(of: folder)) ?? FolderListing()
        for relative in below.folders + below.files {
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
    /// What a folder holds, every level below it, each entry as a path relative to the folder (`bodies/GET_a.json`),
    /// sorted by bytes within each list. Symbolic links are listed, never followed.
    public struct FolderListing: Sendable, Equatable {
        /// Regular files.
        public var files: [String] = []
        /// Folders (empty ones too).
        public var folders: [String] = []
        /// Symbolic links, to anything.
        public var links: [String] = []
        /// FIFOs, sockets and devices.
        public var others: [String] = []
        /// Folders that could not be opened (no permission): what they hold is not listed.
        public var unreadableFolders: [String] = []
        /// Entries whose path is not UTF-8 (no `String` can name it), decoded with U+FFFD for a message; not in the
        /// lists above. What a folder of such a name holds is listed here too.
        public var notUTF8: [String] = []

        /// Nothing listed.
        public init() {}
    }

    /// Lists everything below `folder`: one `readdir` pass per folder, the type from the directory entry where the
    /// file system gives it (a `stat` only where it does not), folders opened by their bytes without following a
    /// link. Where a `URL` walk resolved every component of every path: 15 `stat` calls a file.
    /// - Throws: `POSIXError` when `folder` itself cannot be opened.
    public static func listing(of folder: String) throws -> FolderListing {
        let top = try FileDescriptor.open(folder, .folder)
        var found: [(path: [UInt8], kind: UInt8)] = []
        collectEntries(in: top, prefix: [], into: &found)
        found.sort { $0.path.lexicographicallyPrecedes($1.path) }
        var listing = FolderListing()
        for (bytes, kind) in found {
            guard let path = String(validating: bytes, as: UTF8.self) else {
                listing.notUTF8.append(String(decoding: bytes, as: UTF8.self))
                continue
            }
            switch kind {
            case UInt8(DT_REG): listing.files.append(path)
            case UInt8(DT_DIR): listing.folders.append(path)
            case UInt8(DT_LNK): listing.links.append(path)
            case unreadableFolder: listing.unreadableFolders.append(path)
            default: listing.others.append(path)
            }
        }
        return listing
    }

    /// The kind `collectEntries` gives a folder it could not open (no `DT_` constant has it).
    private static let unreadableFolder: UInt8 = 0xFF

    /// Adds every entry below the open folder `directory` (closed here) to `found`, each behind `prefix`, with its
    /// `DT_` type (`unreadableFolder` for a folder that could not be opened).
    private static func collectEntries(
        in directory: FileDescriptor,
        prefix: [UInt8],
        into found: inout [(path: [UInt8], kind: UInt8)]
    ) {
        guard let stream = fdopendir(directory.rawValue) else {
            directory.close()
            return
        }
        defer { closedir(stream) }
        /// Each folder's name and its place in `found`.
        var folders: [(name: [UInt8], index: Int)] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: &entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            if name == [0x2E] || name == [0x2E, 0x2E] { continue }
            var kind = UInt8(entry.pointee.d_type)
            if kind == UInt8(DT_UNKNOWN) {
                var info = stat()
                let status = fstatat(
                    directory.rawValue,
                    name.map { CChar(bitPattern: $0) } + [0],
                    &info,
                    AT_SYMLINK_NOFOLLOW
                )
                guard status == 0 else { continue }  // gone meanwhile
                switch info.st_mode & S_IFMT {
                case S_IFREG: kind = UInt8(DT_REG)
                case S_IFDIR: kind = UInt8(DT_DIR)
                case S_IFLNK: kind = UInt8(DT_LNK)
                default: kind = UInt8(DT_FIFO)
                }
            }
            if kind == UInt8(DT_DIR) { folders.append((name, found.count)) }
            found.append((prefix + name, kind))
        }
        for (name, index) in folders {
            // Opened by its bytes: a name that is not UTF-8 still leads to what the folder holds.
            let opened = (name.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer { bytes in
                try? FileDescriptor.open(bytes.baseAddress!, in: directory, .folder)
            }
            guard let folder = opened else {
                found[index].kind = unreadableFolder
                continue
            }
            collectEntries(in: folder, prefix: prefix + name + [0x2F], into: &found)
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
