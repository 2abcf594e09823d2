import Foundation

/// A regular file's bytes as they were when read, in memory of their own: what a start reads a set's compact index
/// (`index.cache`) from.
///
/// Read, not mapped: a file mapped into a process kills it (SIGBUS) when someone truncates the file in place while
/// it is read — `cp -r` of a set over another, an editor without atomic saves — and mockd never crashes over a
/// user's file. The copy costs ~1 ms per 5 MiB (a 100,000-stub set's cache is ~19 MiB). A file cut short or grown
/// during the read gives the bytes read: callers check them (the cache carries its own hash).
///
/// The buffer is a `PageBuffer` (an anonymous mapping), not the allocator's: a one-off buffer of many MiB would
/// otherwise raise glibc's mmap threshold for every later allocation and could be split between the set's long-lived
/// stubs; unmapped, it is returned to the system whole.
public final class FileSnapshot: @unchecked Sendable {
    // @unchecked: the bytes are written once, in init, and only read afterwards.
    /// The mapping the file is read into (its length is the size `fstat` gave; `count` may be shorter when the file
    /// shrank during the read).
    private let pages: PageBuffer
    /// The first byte; valid for `count` bytes while the object lives.
    public var base: UnsafeRawPointer { UnsafeRawPointer(pages.base) }
    /// The bytes read.
    public let count: Int

    /// Reads `path`.
    /// - Returns: `nil` when the file cannot be opened or read (missing, unreadable, not a regular file — a FIFO is
    ///   opened without waiting for a writer) or is empty.
    public init?(path: String) {
        guard let file = try? FileDescriptor.open(path, .readWithoutWaiting) else { return nil }
        defer { file.close() }
        guard let size = file.regularFileSize(), size > 0, let pages = PageBuffer(count: size),
            let read = try? file.readFully(into: UnsafeMutableRawBufferPointer(start: pages.base, count: size)),
            read > 0
        else { return nil }
        self.pages = pages
        self.count = read
    }

    /// The bytes read; valid while the object lives.
    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }
}
