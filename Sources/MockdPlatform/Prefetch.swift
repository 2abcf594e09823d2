public import CPlatform

/// Cache hints for memory a thread will write soon but does not need yet: it goes on with its work while the lines
/// come in from memory, instead of stalling on each when it gets there.
///
/// A hint only: nothing reads or writes through the address, and a stale or freed one costs nothing (a prefetch never
/// faults), so what it points to may be gone by the time the lines arrive.
public enum Prefetch {
    /// The cache line size assumed (x86-64, most ARM cores; Apple's 128-byte lines take two hints each, harmlessly).
    public static let lineSize = 64

    /// Asks for the lines holding `bytes` bytes from `address`, and the 16 before it (where `malloc` keeps a block's
    /// size, which `free` reads), ahead of writes to them: a reference count, a `free`.
    @inlinable @inline(__always)
    public static func forWrite(_ address: UnsafeRawPointer, bytes: Int) {
        var line = address - 16
        let end = address + bytes
        while line < end {
            mockd_prefetch_for_write(line)
            line += lineSize
        }
        // A block ending in the first bytes of a further line.
        mockd_prefetch_for_write(end - 1)
    }
}
