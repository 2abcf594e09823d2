import Foundation  // POSIX: mmap, munmap

/// Scratch bytes in pages of their own (an anonymous `mmap`, the same on Linux and Darwin), handed back to the
/// system whole when released.
///
/// For a buffer of several MiB used once, such as the pieces a start hashes `index.json` through: taken from the
/// allocator, freeing it raises glibc's mmap threshold, and later blocks of that size then stay in an arena's memory
/// after they are freed. What `FileSnapshot` reads a file into.
public final class PageBuffer: @unchecked Sendable {
    // @unchecked: the owner decides who writes the bytes; the object itself only maps and unmaps them.
    /// The first byte; valid for `count` bytes while the object lives.
    public let base: UnsafeMutableRawPointer
    /// The size in bytes.
    public let count: Int

    /// Maps `count` bytes (zero-filled pages, touched only when first written).
    /// - Returns: `nil` when `count` is not positive or the system refuses the mapping.
    public init?(count: Int) {
        guard count > 0 else { return nil }
        let address = mmap(nil, count, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let address, address != MAP_FAILED else { return nil }
        self.base = address
        self.count = count
    }

    deinit {
        munmap(base, count)
    }
}
