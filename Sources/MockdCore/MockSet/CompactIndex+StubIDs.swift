import MockdFormat

extension CompactIndex.StubReader {
    /// A hash of stub `index`'s id as `MockSetLoader.stubID` gives it (its own, or `METHOD_path`), taken over the
    /// record's bytes in the arena without making a string; `nil` when the record is malformed, is kept as JSON or
    /// has an id that is not ASCII (then only `stubID(at:)` compares it as `String` does, by canonical equivalence).
    mutating func asciiStubIDHash(at index: Int) -> UInt64? {
        moveToRecord(index)
        guard word() == 0 else { return nil }
        var hash = IDHash()
        let id = word()
        if id != CompactIndex.none {
            guard hash.add(stringBytes(id)) else { return nil }
        } else {
            _ = word()  // host
            let method = word()
            let path = word()
            guard method != CompactIndex.none, path != CompactIndex.none, hash.add(stringBytes(method)) else {
                return nil
            }
            hash.add(UInt8(ascii: "_"))
            guard hash.add(stringBytes(path)) else { return nil }
        }
        return failed ? nil : hash.value
    }

    /// The arena bytes of string `id`; empty (and `failed` set) for an id outside the table.
    private mutating func stringBytes(_ id: UInt32) -> UnsafeRawBufferPointer {
        guard Int(id) < table.layout.stringCount else {
            failed = true
            return UnsafeRawBufferPointer(start: nil, count: 0)
        }
        return table.stringBytes(Int(id))
    }

    /// FNV-1a over ASCII bytes, fed in parts, ended with `ContentHash.finish`.
    private struct IDHash {
        private var state: UInt64 = 0xcbf2_9ce4_8422_2325

        /// Adds `bytes`; `false` when one of them is not ASCII.
        mutating func add(_ bytes: UnsafeRawBufferPointer) -> Bool {
            for byte in bytes {
                guard byte < 0x80 else { return false }
                add(byte)
            }
            return true
        }

        /// Adds one ASCII byte.
        mutating func add(_ byte: UInt8) {
            state = (state ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }

        var value: UInt64 { ContentHash.finish(state) }
    }
}

extension CompactIndex.Table {
    /// The bytes of string `id` in the arena, valid while the table's bytes are.
    /// - Precondition: `id` is below `layout.stringCount`.
    func stringBytes(_ id: Int) -> UnsafeRawBufferPointer {
        let start = id == 0 ? 0 : Int(word(stringEnds + id - 1))
        let end = Int(word(stringEnds + id))
        return UnsafeRawBufferPointer(rebasing: arena[start..<end])
    }
}
