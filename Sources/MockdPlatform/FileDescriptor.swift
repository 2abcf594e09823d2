public import Foundation  // POSIX: re-exported from Glibc on Linux and from Darwin on a Mac

/// An open file, folder, socket or standard stream by its descriptor, and the POSIX calls mockd makes on one: the
/// only place outside this module where `open(2)`, `openat(2)`, `read(2)`, `pread(2)`, `write(2)`, `fsync(2)`,
/// `ftruncate(2)`, `fcntl(2)` and `close(2)` are spelled (`scripts/check-layers` refuses them elsewhere), so that a
/// platform difference (`F_FULLFSYNC`, `O_CLOEXEC`, `EINTR`) is handled once. Every descriptor opened here is
/// close-on-exec. The same calls on Linux and Darwin: one implementation.
///
/// A value type: copying it does not duplicate the descriptor; whoever opened it closes it once (`close()`).
public struct FileDescriptor: RawRepresentable, Hashable, Sendable {
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// File descriptor 1.
    public static let standardOutput = FileDescriptor(rawValue: 1)
    /// File descriptor 2.
    public static let standardError = FileDescriptor(rawValue: 2)

    /// How `open` opens a path.
    public enum Mode: Sendable, Equatable {
        /// Reading (`O_RDONLY`).
        case read
        /// Reading a path that may not be a regular file (`O_RDONLY | O_NONBLOCK`): opening a FIFO returns at once
        /// instead of waiting for a writer (check the type with `regularFileSize()` before reading).
        case readWithoutWaiting
        /// A folder, for `open(_:in:_:)` and `flush` (`O_RDONLY | O_DIRECTORY`).
        case folder
        /// Writing from the start, created with `permissions` if missing, emptied if present
        /// (`O_WRONLY | O_CREAT | O_TRUNC`).
        case replace(permissions: UInt16)
        /// Appending at the end, created with `permissions` if missing (`O_WRONLY | O_CREAT | O_APPEND`).
        case append(permissions: UInt16)

        var flags: (Int32, mode_t) {
            switch self {
            case .read: (O_RDONLY | O_CLOEXEC, 0)
            case .readWithoutWaiting: (O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0)
            case .folder: (O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)
            case .replace(let permissions): (O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode_t(permissions))
            case .append(let permissions): (O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, mode_t(permissions))
            }
        }
    }

    /// The error of the last failed call (`errno`), as a `POSIXError` (`EIO` for a code Foundation does not name).
    public static var lastError: POSIXError { POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }

    /// The system's message for `error` (`strerror(3)`: "No space left on device"), or its description when it is
    /// not a `POSIXError`.
    public static func message(of error: any Error) -> String {
        guard let code = (error as? POSIXError)?.code.rawValue else { return "\(error)" }
        return String(cString: strerror(code))
    }

    /// Opens `path` (`open(2)`).
    /// - Throws: `POSIXError` with the system's code (`ENOENT`, `EACCES`, `EISDIR`, …).
    public static func open(_ path: String, _ mode: Mode) throws -> FileDescriptor {
        let (flags, permissions) = mode.flags
        let descriptor = Foundation.open(path, flags, permissions)
        guard descriptor >= 0 else { throw lastError }
        return FileDescriptor(rawValue: descriptor)
    }

    /// Opens `name`, one path component, inside the open folder `folder` without following a symbolic link in its
    /// place (`openat(2)` with `O_NOFOLLOW`): a folder swapped for a link cannot lead out of the tree.
    /// - Throws: `POSIXError` (`ELOOP` for a link, `ENOENT`, `ENOTDIR`, …).
    public static func open(_ name: String, in folder: FileDescriptor, _ mode: Mode) throws -> FileDescriptor {
        let (flags, permissions) = mode.flags
        let descriptor = openat(folder.rawValue, name, flags | O_NOFOLLOW, permissions)
        guard descriptor >= 0 else { throw lastError }
        return FileDescriptor(rawValue: descriptor)
    }

    /// `open(_:in:_:)` for a name given as a C string (a component cut out of a longer path in place).
    public static func open(
        _ name: UnsafePointer<CChar>,
        in folder: FileDescriptor,
        _ mode: Mode
    ) throws -> FileDescriptor {
        let (flags, permissions) = mode.flags
        let descriptor = openat(folder.rawValue, name, flags | O_NOFOLLOW, permissions)
        guard descriptor >= 0 else { throw lastError }
        return FileDescriptor(rawValue: descriptor)
    }

    /// `read(2)`: at most `count` bytes into `buffer`.
    /// - Returns: The bytes read (0 at the end), or -1 with `errno` set.
    @inline(__always)
    public func read(into buffer: UnsafeMutableRawPointer, count: Int) -> Int {
        Foundation.read(rawValue, buffer, count)
    }

    /// `pread(2)`: at most `count` bytes from byte `offset` of the file, without moving its position.
    /// - Returns: The bytes read (0 at the end), or -1 with `errno` set.
    @inline(__always)
    public func read(into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int64) -> Int {
        pread(rawValue, buffer, count, off_t(offset))
    }

    /// Reads until `buffer` is full or the file ends, retrying after `EINTR`.
    /// - Returns: The bytes read (fewer than `buffer.count` only at the end of the file).
    /// - Throws: `POSIXError` of a failed `read(2)`.
    public func readFully(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        try fill(buffer) { start, count, _ in read(into: start, count: count) }
    }

    /// `readFully(into:)` from byte `offset` of the file (`pread(2)`), without moving its position.
    /// - Returns: The bytes read (fewer than `buffer.count` only at the end of the file).
    /// - Throws: `POSIXError` of a failed `pread(2)`.
    public func readFully(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        try fill(buffer) { start, count, filled in read(into: start, count: count, at: offset + Int64(filled)) }
    }

    /// Calls `readSome(start, count, filled)` (a `read(2)`-like call) until `buffer` is full or it returns 0.
    private func fill(
        _ buffer: UnsafeMutableRawBufferPointer,
        _ readSome: (UnsafeMutableRawPointer, Int, Int) -> Int
    ) throws -> Int {
        var filled = 0
        while filled < buffer.count {
            let count = readSome(buffer.baseAddress! + filled, buffer.count - filled, filled)
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw Self.lastError
            }
            filled += count
        }
        return filled
    }

    /// `write(2)`: at most `count` bytes of `bytes`.
    /// - Returns: The bytes written, or -1 with `errno` set.
    @inline(__always)
    public func write(_ bytes: UnsafeRawPointer, count: Int) -> Int {
        Foundation.write(rawValue, bytes, count)
    }

    /// Writes all of `bytes`, retrying after `EINTR` and continuing after a short write.
    /// - Throws: `POSIXError` of the failed `write(2)`; `ENOSPC` when the system writes 0 bytes (no room).
    public func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
        var written = 0
        while written < bytes.count {
            let count = write(bytes.baseAddress! + written, count: bytes.count - written)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw count < 0 ? Self.lastError : POSIXError(.ENOSPC) }
            written += count
        }
    }

    /// Writes all of `data` (`writeAll(_:)`).
    /// - Throws: As `writeAll(_:)`.
    public func writeAll(_ data: Data) throws {
        try data.withUnsafeBytes { try writeAll($0) }
    }

    /// Puts the file's written bytes on disk (`fsync(2)`).
    /// - Returns: 0, or the `errno` of the failure (`EINVAL` for a file that cannot be synced, such as a pipe).
    @discardableResult
    public func sync() -> Int32 {
        fsync(rawValue) == 0 ? 0 : errno
    }

    /// Cuts (or extends) the file to `size` bytes (`ftruncate(2)`).
    /// - Returns: Whether it worked.
    @discardableResult
    public func truncate(to size: Int64) -> Bool {
        ftruncate(rawValue, off_t(size)) == 0
    }

    /// The size in bytes of the open file when it is a regular file (`fstat(2)`), else `nil` (a folder, a device, a
    /// pipe, or a failed call).
    public func regularFileSize() -> Int? {
        var info = stat()
        guard fstat(rawValue, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int(info.st_size)
    }

    /// What an open path is (`fstat(2)`), for naming a path that is not a file in an error.
    public enum Kind: Sendable, Equatable {
        /// A regular file of `size` bytes.
        case regular(size: Int)
        case folder
        /// A pipe or FIFO (`/dev/stdin` of `cat x | mockd …`, `<(gunzip -c x.gz)`): read to its end.
        case pipe
        /// A terminal or other character device (`/dev/stdin` at a prompt, `/dev/null`): read to its end.
        case characterDevice
        /// A socket, block device or anything else: never read as a file.
        case other
    }

    /// What the open descriptor is; `nil` when `fstat(2)` fails.
    public func kind() -> Kind? {
        var info = stat()
        guard fstat(rawValue, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .regular(size: Int(info.st_size))
        case S_IFDIR: return .folder
        case S_IFIFO: return .pipe
        case S_IFCHR: return .characterDevice
        default: return .other
        }
    }

    /// Makes reads and writes on the descriptor return `EAGAIN` rather than wait (`fcntl(2)` `O_NONBLOCK`).
    public func setNonBlocking() {
        let flags = fcntl(rawValue, F_GETFL)
        _ = fcntl(rawValue, F_SETFL, flags | O_NONBLOCK)
    }

    /// `close(2)`. Called once, by whoever opened the descriptor.
    public func close() {
        _ = Foundation.close(rawValue)
    }
}

extension FileSystem {
    /// Writes `data` to `path`, creating it (mode `permissions`) or emptying it first, without `fsync`: callers that
    /// need it on disk flush a whole folder at once (`flush(folder:)`) or sync the file (`FileDescriptor.sync()`).
    /// - Throws: `POSIXError` when the file cannot be opened or the disk refuses the bytes (`ENOSPC`, `EDQUOT`, `EIO`).
    public static func write(_ data: Data, to path: String, permissions: UInt16 = 0o644) throws {
        let file = try FileDescriptor.open(path, .replace(permissions: permissions))
        defer { file.close() }
        try file.writeAll(data)
    }

    /// Moves `from` to `to` in one atomic step, replacing a file at `to` (`rename(2)`).
    /// - Throws: `POSIXError` (`EXDEV` across file systems, `ENOENT`, `EACCES`, …); `to` is then unchanged.
    public static func rename(_ from: String, to: String) throws {
        guard Foundation.rename(from, to) == 0 else { throw FileDescriptor.lastError }
    }
}
