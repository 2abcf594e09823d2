import Foundation  // POSIX: mmap, munmap

/// A regular file's bytes as they were when read, in memory of their own: what a start reads a set's compact index
/// (`index.cache`) from.
///
/// Read, not mapped: a file mapped into a process kills it (SIGBUS) when someone truncates the file in place while
/// it is read — `cp -r` of a set over another, an editor without atomic saves — and mockd never crashes over a
/// user's file. The copy costs ~1 ms per 5 MiB (a 100,000-stub set's cache is ~19 MiB). A file cut short or grown
/// during the read gives the bytes read: callers check them (the cache carries its own hash).
///
/// The buffer is an anonymous mapping (POSIX `mmap`, the same on Linux and Darwin), not the allocator's: a one-off
/// buffer of many MiB would otherwise raise glibc's mmap threshold for every later allocation and could be split
/// between the set's long-lived stubs; unmapped, it is returned to the system whole.
public final class FileSnapshot: @unchecked Sendable {
    // @unchecked: the bytes are written once, in init, and only read afterwards.
    /// The first byte; valid for `count` bytes while the object lives.
    public let base: UnsafeRawPointer
    /// The bytes read.
    public let count: Int
    /// The mapping's length (`count` may be shorter when the file shrank during the read).
    private let capacity: Int

    /// Reads `path`.
    /// - Returns: `nil` when the file cannot be opened or read (missing, unreadable, not a regular file — a FIFO is
    ///   opened without waiting for a writer) or is empty.
    public init?(path: String) {
        guard let file = try? FileDescriptor.open(path, .readWithoutWaiting) else { return nil }
        defer { file.close() }
        guard let size = file.regularFileSize(), size > 0 else { return nil }
        let address = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let address, address != MAP_FAILED else { return nil }
        guard let read = try? file.readFully(into: UnsafeMutableRawBufferPointer(start: address, count: size)),
            read > 0
        else {
            munmap(address, size)
            return nil
        }
        self.base = UnsafeRawPointer(address)
        self.count = read
        self.capacity = size
    }

    /// The bytes read; valid while the object lives.
    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    deinit {
        munmap(UnsafeMutableRawPointer(mutating: base), capacity)
    }
}
