import Foundation  // POSIX: mmap, munmap

/// A regular file mapped read-only into memory (POSIX `mmap`, the same call on Linux and Darwin): its pages come
/// from the page cache when first touched, without a copy into the process, so checking a 61 MiB `index.json`
/// against its compact index costs a pass over memory, not a read into a fresh buffer. The mapping lives as long
/// as the object.
///
/// The mapping is private: a file replaced on disk (written beside and renamed over, as mockd writes its files)
/// leaves the mapped pages as they were. A file truncated in place while mapped kills the reader (SIGBUS) on access
/// past its new end: mockd maps only files it writes itself by rename (a set's compact index, the `index.json` it
/// has just written), never one a user edits in place.
public final class MappedFile: @unchecked Sendable {
    // @unchecked: the pages are read-only and never remapped.
    /// The first byte; valid for `count` bytes while the object lives.
    public let base: UnsafeRawPointer
    /// The file's size in bytes.
    public let count: Int

    /// Maps `path`.
    /// - Returns: `nil` when the file cannot be opened or mapped (missing, unreadable, not a regular file) or is
    ///   empty.
    public init?(path: String) {
        guard let file = try? FileDescriptor.open(path, .readWithoutWaiting) else { return nil }
        defer { file.close() }
        guard let size = file.regularFileSize(), size > 0 else { return nil }
        let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, file.rawValue, 0)
        guard let address, address != MAP_FAILED else { return nil }
        self.base = UnsafeRawPointer(address)
        self.count = size
    }

    /// The mapped bytes; valid while the object lives.
    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    deinit {
        munmap(UnsafeMutableRawPointer(mutating: base), count)
    }
}
