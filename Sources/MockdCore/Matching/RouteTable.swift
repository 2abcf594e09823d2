import MockdPlatform

/// The hash table behind `StubIndex`: request key → route value, open addressing with linear probing.
///
/// Each slot is two words: the key's hash in the high 32 bits and the value + 1 in the low 32 (0 = empty), and a hint
/// the owner may set per value (`setHints`), the stub's own address, so that a lookup reaches the stub to compare keys
/// straight from the slot, not through the array of stubs: at 100,000 stubs asked at random that array was one more
/// wait on memory on every request's way to the stub. 100,000 keys take 2 MiB where a `Dictionary<RequestKey, …>`
/// took 23 MiB (88-byte buckets at a load factor under 0.4). Keys are not stored: the caller compares the candidate
/// values' keys, which it keeps anyway. Probe sequences depend only on the stored keys (the user's own stubs), so a
/// request cannot make them longer; the hash needs no seed.
///
/// A table of 2 MiB or more (52,429 keys and up) lies in huge pages where the system gives them (`PageBuffer`): every
/// request reads one slot at random, and in 4 KiB pages that was a TLB miss, in a virtual machine a nested page walk.
/// A class, as its slots are memory it owns: filled by one thread, then only read.
final class RouteTable: @unchecked Sendable {
    // @unchecked: `insert`, `replace` and `setHints` run only while the owner builds the table, before any other
    // thread sees it.
    private struct Slot {
        var word: UInt64
        var hint: UnsafeRawPointer?
    }

    private let slots: UnsafeMutablePointer<Slot>
    /// The huge-page mapping the slots are in, or `nil` when they were allocated (a small table).
    private let mapping: PageBuffer?
    private let mask: Int
    private(set) var count = 0

    /// - Parameters:
    ///   - capacity: Keys expected; the table is sized for a load factor of at most 0.8. At that load a hit reads ~3
    ///     slots on average (nearly always in its cache line or the next), a miss ~13 (four slots to a line).
    ///   - hugePages: Whether a table of 2 MiB or more asks for huge pages: for a long-lived table, not a scratch one
    ///     (the first write to a huge page may wait for the kernel to compact memory).
    init(capacity: Int, hugePages: Bool = true) {
        var size = 8
        while size * 4 < capacity * 5 { size <<= 1 }
        let bytes = size * MemoryLayout<Slot>.stride
        // Sizes are powers of two, so a table this large is a whole number of huge pages.
        if hugePages, bytes >= PageBuffer.hugePageBytes, let mapping = PageBuffer(count: bytes, hugePages: true) {
            self.mapping = mapping
            slots = mapping.base.bindMemory(to: Slot.self, capacity: size)  // zero-filled pages
        } else {
            mapping = nil
            slots = .allocate(capacity: size)
            slots.initialize(repeating: Slot(word: 0, hint: nil), count: size)
        }
        mask = size - 1
    }

    deinit {
        if mapping == nil { slots.deallocate() }
    }

    /// The value stored under a key with `hash` for which `isKey` holds, if any; `isKey` gets each candidate value and
    /// its hint.
    @inline(__always)
    func find(hash: UInt64, isKey: (UInt32, UnsafeRawPointer?) -> Bool) -> UInt32? {
        let tag = UInt64(truncatingIfNeeded: hash >> 32) << 32
        var index = Int(truncatingIfNeeded: hash) & mask
        while true {
            let slot = slots[index]
            if slot.word == 0 { return nil }
            if slot.word & 0xFFFF_FFFF_0000_0000 == tag {
                let value = UInt32(truncatingIfNeeded: slot.word) &- 1
                if isKey(value, slot.hint) { return value }
            }
            index = (index &+ 1) & mask
        }
    }

    /// `find(hash:isKey:)` for a caller that sets no hints.
    @inline(__always)
    func find(hash: UInt64, isKey: (UInt32) -> Bool) -> UInt32? {
        find(hash: hash) { value, _ in isKey(value) }
    }

    /// Stores `value` for a key with `hash` that is not in the table yet, without a hint.
    /// - Precondition: fewer keys than the `capacity` the table was made for (it never grows: the stored words
    ///   keep only part of each hash, so growing would need every key again).
    func insert(hash: UInt64, value: UInt32) {
        precondition(
            value < UInt32.max && (count + 1) * 5 <= (mask + 1) * 4,
            "RouteTable sized for fewer keys than inserted"
        )
        var index = Int(truncatingIfNeeded: hash) & mask
        while slots[index].word != 0 { index = (index &+ 1) & mask }
        slots[index] = Slot(word: (UInt64(truncatingIfNeeded: hash >> 32) << 32) | UInt64(value + 1), hint: nil)
        count += 1
    }

    /// Replaces the value `old` stored under `hash` with `new`, without a hint.
    func replace(hash: UInt64, old: UInt32, new: UInt32) {
        let tag = UInt64(truncatingIfNeeded: hash >> 32) << 32
        var index = Int(truncatingIfNeeded: hash) & mask
        while slots[index].word != 0 {
            if slots[index].word == tag | UInt64(old + 1) {
                slots[index] = Slot(word: tag | UInt64(new + 1), hint: nil)
                return
            }
            index = (index &+ 1) & mask
        }
        preconditionFailure("replaced a route value that is not in the table")
    }

    /// Whether the slots are in a huge-page mapping (see `init`); for tests.
    var asksForHugePages: Bool { mapping != nil }

    /// How many stored values have a hint; for tests.
    var hintedCount: Int { (0...mask).reduce(0) { $0 + (slots[$1].hint == nil ? 0 : 1) } }

    /// Sets every stored value's hint to `hint(value)`: one pass over the slots, once the values are final.
    func setHints(_ hint: (UInt32) -> UnsafeRawPointer?) {
        for index in 0...mask where slots[index].word != 0 {
            slots[index].hint = hint(UInt32(truncatingIfNeeded: slots[index].word) &- 1)
        }
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

    /// `routeHash` of the key with these UTF-8 bytes.
    @inline(__always)
    static func routeHash(
        method: UnsafeRawBufferPointer,
        path: UnsafeRawBufferPointer,
        query: UnsafeRawBufferPointer,
        host: UnsafeRawBufferPointer
    ) -> UInt64 {
        var hash: UInt64 = 0x9E37_79B9_7F4A_7C15
        hash = mix(method, into: hash)
        hash = mix(path, into: hash)
        hash = mix(query, into: hash)
        hash = mix(host, into: hash)
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
