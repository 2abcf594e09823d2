import MockdPlatform

/// The hash table behind `StubIndex`: request key → route value, open addressing with linear probing.
///
/// Each slot is one 64-bit word (the key's hash in the high 32 bits, the value + 1 in the low 32; 0 = empty),
/// so 100,000 keys take 2 MiB where a `Dictionary<RequestKey, …>` took 23 MiB (88-byte buckets at a load
/// factor under 0.4). Keys are not stored: the caller compares the candidate values' keys, which it keeps
/// anyway. Probe sequences depend only on the stored keys (the user's own stubs), so a request cannot make
/// them longer; the hash needs no seed.
///
/// A table of 2 MiB or more (65,537 keys and up) lies in huge pages where the system gives them (`PageBuffer`): every
/// request reads one slot at random, and in 4 KiB pages that was a TLB miss, in a virtual machine a nested page walk.
/// A class, as its slots are memory it owns: filled by one thread, then only read.
final class RouteTable: @unchecked Sendable {
    // @unchecked: `insert` and `replace` run only while the owner builds the table, before any other thread sees it.
    private let slots: UnsafeMutablePointer<UInt64>
    /// The huge-page mapping the slots are in, or `nil` when they were allocated (a small table).
    private let mapping: PageBuffer?
    private let mask: Int
    private(set) var count = 0

    /// - Parameter capacity: Keys expected; the table is sized for a load factor of at most 1/2.
    init(capacity: Int) {
        var size = 8
        while size < capacity * 2 { size <<= 1 }
        let bytes = size * MemoryLayout<UInt64>.stride
        // Sizes are powers of two, so a table this large is a whole number of huge pages.
        if bytes >= PageBuffer.hugePageBytes, let mapping = PageBuffer(count: bytes, hugePages: true) {
            self.mapping = mapping
            slots = mapping.base.bindMemory(to: UInt64.self, capacity: size)  // zero-filled pages
        } else {
            mapping = nil
            slots = .allocate(capacity: size)
            slots.initialize(repeating: 0, count: size)
        }
        mask = size - 1
    }

    deinit {
        if mapping == nil { slots.deallocate() }
    }

    /// The value stored under a key with `hash` for which `isKey` holds, if any.
    @inline(__always)
    func find(hash: UInt64, isKey: (UInt32) -> Bool) -> UInt32? {
        let tag = UInt64(truncatingIfNeeded: hash >> 32) << 32
        var index = Int(truncatingIfNeeded: hash) & mask
        while true {
            let slot = slots[index]
            if slot == 0 { return nil }
            if slot & 0xFFFF_FFFF_0000_0000 == tag {
                let value = UInt32(truncatingIfNeeded: slot) &- 1
                if isKey(value) { return value }
            }
            index = (index &+ 1) & mask
        }
    }

    /// Stores `value` for a key with `hash` that is not in the table yet.
    /// - Precondition: fewer keys than the `capacity` the table was made for (it never grows: the stored words
    ///   keep only part of each hash, so growing would need every key again).
    func insert(hash: UInt64, value: UInt32) {
        precondition(
            value < UInt32.max && (count + 1) * 2 <= mask + 1,
            "RouteTable sized for fewer keys than inserted"
        )
        var index = Int(truncatingIfNeeded: hash) & mask
        while slots[index] != 0 { index = (index &+ 1) & mask }
        slots[index] = (UInt64(truncatingIfNeeded: hash >> 32) << 32) | UInt64(value + 1)
        count += 1
    }

    /// Replaces the value `old` stored under `hash` with `new`.
    func replace(hash: UInt64, old: UInt32, new: UInt32) {
        let tag = UInt64(truncatingIfNeeded: hash >> 32) << 32
        var index = Int(truncatingIfNeeded: hash) & mask
        while slots[index] != 0 {
            if slots[index] == tag | UInt64(old + 1) {
                slots[index] = tag | UInt64(new + 1)
                return
            }
            index = (index &+ 1) & mask
        }
        preconditionFailure("replaced a route value that is not in the table")
    }
}

extension RequestKey {
    /// A 64-bit hash of the key's bytes, eight at a time (multiply-xorshift per word, a MurmurHash3
    /// finaliser at the end so the low bits that pick the slot depend on every byte). Not seeded: see
    /// `RouteTable`.
    var routeHash: UInt64 {
        var hash: UInt64 = 0x9E37_79B9_7F4A_7C15
        RequestKey.mix(method, into: &hash)
        RequestKey.mix(path, into: &hash)
        RequestKey.mix(query, into: &hash)
        RequestKey.mix(host, into: &hash)
        return ContentHash.finish(hash)
    }

    @inline(__always)
    private static func mix(_ text: String, into hash: inout UInt64) {
        if let mixed = text.utf8.withContiguousStorageIfAvailable({ mix(UnsafeRawBufferPointer($0), into: hash) }) {
            hash = mixed
        } else {
            // Not contiguous (a bridged string): the same bytes, copied.
            hash = Array(text.utf8).withUnsafeBytes { mix($0, into: hash) }
        }
    }

    @inline(__always)
    private static func mix(_ raw: UnsafeRawBufferPointer, into start: UInt64) -> UInt64 {
        var hash = start
        var offset = 0
        while offset + 8 <= raw.count {
            hash = (hash ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0xff51_afd7_ed55_8ccd
            hash ^= hash >> 29
            offset += 8
        }
        var tail: UInt64 = 0
        while offset < raw.count {
            tail = tail << 8 | UInt64(raw[offset])
            offset += 1
        }
        hash = (hash ^ tail ^ UInt64(truncatingIfNeeded: raw.count) << 56) &* 0xc4ce_b9fe_1a85_ec53
        return hash ^ hash >> 31
    }
}
