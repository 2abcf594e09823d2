import Foundation  // POSIX: mmap, munmap

/// Scratch bytes in pages of their own (an anonymous `mmap`, the same on Linux and Darwin), handed back to the
/// system whole when released.
///
/// For a buffer of several MiB used once, such as the pieces a start hashes `index.json` through: taken from the
/// allocator, freeing it raises glibc's mmap threshold, and later blocks of that size then stay in an arena's memory
/// after they are freed. What `FileSnapshot` reads a file into.
///
/// With `hugePages`, for a large table read at random (`RouteTable`): each random page is a TLB miss, and in a virtual
/// machine a page walk on nested page tables; one 2 MiB page covers 512 of them.
public final class PageBuffer: @unchecked Sendable {
    // @unchecked: the owner decides who writes the bytes; the object itself only maps and unmaps them.
    /// The first byte; valid for `count` bytes while the object lives.
    public let base: UnsafeMutableRawPointer
    /// The size in bytes.
    public let count: Int

    /// The size of a huge page this type asks for: 2 MiB (x86-64 and arm64 Linux with 4 KiB base pages).
    public static let hugePageBytes = 2 << 20

    /// Whether this system takes a request for huge pages (Linux's transparent huge pages); Darwin has none.
    public static var takesHugePageRequests: Bool {
        #if os(Linux)
        true
        #else
        false
        #endif
    }

    /// Maps `count` bytes (zero-filled pages, touched only when first written).
    /// - Parameter hugePages: Start at a `hugePageBytes` boundary and, on Linux, ask for transparent huge pages
    ///   (`madvise(MADV_HUGEPAGE)`; the system may still give small ones: THP set to `never`, memory fragmented).
    ///   With THP's default `defrag` setting the first write to each huge page may wait for the kernel to compact
    ///   memory: for long-lived tables read at random, not for scratch space. Darwin has no such request: there the
    ///   mapping is only aligned.
    /// - Precondition: with `hugePages`, `count` is a multiple of `hugePageBytes` (no huge page holds memory past the
    ///   buffer, and the end stays page-aligned for `munmap`).
    /// - Returns: `nil` when `count` is not positive or the system refuses the mapping.
    public init?(count: Int, hugePages: Bool = false) {
        guard count > 0 else { return nil }
        precondition(!hugePages || count % Self.hugePageBytes == 0, "a huge-page buffer of \(count) bytes")
        // An aligned start: map a huge page more than needed, then give back what lies before and after it.
        let slack = hugePages ? Self.hugePageBytes : 0
        let mapped = count + slack
        let address = mmap(nil, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let address, address != MAP_FAILED else { return nil }
        guard hugePages else {
            self.base = address
            self.count = count
            return
        }
        let boundary = UInt(Self.hugePageBytes)
        let start = (UInt(bitPattern: address) + boundary - 1) & ~(boundary - 1)
        let head = Int(start - UInt(bitPattern: address))
        let base = address + head
        if head > 0 { munmap(address, head) }
        if slack - head > 0 { munmap(base + count, slack - head) }
        #if os(Linux)
        madvise(base, count, MADV_HUGEPAGE)
        #endif
        self.base = base
        self.count = count
    }

    deinit {
        munmap(base, count)
    }

    /// Whether the system holds these bytes' request for huge pages (`hugePages`): on Linux, the `hg` flag of the
    /// mapping that holds them in `/proc/self/smaps` (`false` when no mapping there holds them whole); `nil` where
    /// nothing can be asked (Darwin) or the file cannot be read. For tests and diagnostics: it reads the process's
    /// whole map.
    public var asksForHugePages: Bool? {
        #if os(Linux)
        // Read to its end: a procfs file has no size to go by.
        guard let handle = FileHandle(forReadingAtPath: "/proc/self/smaps"),
            let bytes = try? handle.readToEnd()
        else { return nil }
        let start = UInt(bitPattern: base)
        var inMapping = false
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard let first = fields.first else { continue }
            if first == "VmFlags:" {
                if inMapping { return fields.contains("hg") }
            } else if !first.hasSuffix(":") {
                // A mapping's first line: "start-end perms offset device inode [path]", in hexadecimal.
                let bounds = first.split(separator: "-").compactMap { UInt($0, radix: 16) }
                inMapping = bounds.count == 2 && bounds[0] <= start && start + UInt(count) <= bounds[1]
            }
        }
        return false
        #else
        return nil
        #endif
    }
}
