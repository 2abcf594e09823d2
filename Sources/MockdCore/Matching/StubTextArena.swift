/// The request keys and ids of the stubs one loading thread built, as bytes in one buffer, with each stub's row of
/// body files read on first use: a stub keeps the offset of its record (`Stub`), not four strings.
///
/// Laid out for idle memory. A path, query or id over 15 bytes is a heap string of its own in Swift (48 bytes of
/// header and allocator block around it); recorded URLs mostly are (the corpus's median path is 25 characters), and at
/// 100,000 stubs those strings were ~190 bytes a stub. A record here is the bytes and a few more: the row (4 bytes), a
/// flag byte, the five lengths (one byte each under 128), then method, path, query, host and id; an id that is
/// `StubIDSpelling`'s spelling of the key (every id `import-har` writes without a `-2` suffix) is not stored at all.
///
/// Records are appended only by the thread that made the arena, before any of its stubs is handed to another thread
/// (the buffer may move while it grows); from then on it is only read, which is why it may be shared
/// (`@unchecked Sendable`).
final class StubTextArena: @unchecked Sendable {
    private var storage: UnsafeMutableRawPointer
    private var capacity: Int
    private var count = 0

    /// One stub's record, read in place: its bytes are valid while the arena lives.
    struct Record {
        /// The row in `StubSource.deferred`, or `Record.notDeferred`.
        let deferredRow: UInt32
        let method: UnsafeRawBufferPointer
        let path: UnsafeRawBufferPointer
        let query: UnsafeRawBufferPointer
        let host: UnsafeRawBufferPointer
        /// The id's bytes, or empty when `idIsSpelt`.
        let id: UnsafeRawBufferPointer
        /// Whether the id is `StubIDSpelling`'s spelling of method, path and query (and so not stored).
        let idIsSpelt: Bool

        static let notDeferred = UInt32.max

        /// Calls `body` with the id's bytes: stored, or spelt on the stack.
        @inline(__always)
        func withID<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
            guard idIsSpelt else { return try body(id) }
            return try StubTextArena.spelling(method: method, path: path, query: query, body)
        }
    }

    private static let spelledID: UInt8 = 1

    /// - Parameter expectedBytes: Room reserved up front (the loader's estimate; the buffer grows as needed).
    init(expectedBytes: Int = 64) {
        capacity = max(expectedBytes, 16)
        storage = .allocate(byteCount: capacity, alignment: 8)
    }

    deinit { storage.deallocate() }

    /// Appends a stub's record and returns its offset.
    /// - Precondition: the arena stays under 4 GiB.
    func append(key: RequestKey, id: String, deferredRow: UInt32?) -> UInt32 {
        var id = id
        return key.withUTF8 { method, path, query, host in
            id.withUTF8 { idBytes in
                let idBytes = UnsafeRawBufferPointer(idBytes)
                let spelt = StubTextArena.spelling(method: method, path: path, query: query) {
                    ByteKey.sameBytes($0, idBytes)
                }
                let stored = spelt ? UnsafeRawBufferPointer(start: nil, count: 0) : idBytes
                func size(_ part: UnsafeRawBufferPointer) -> Int { StubTextArena.lengthBytes(part.count) + part.count }
                reserve(5 + size(method) + size(path) + size(query) + size(host) + size(stored))
                let offset = count
                precondition(offset <= UInt32.max, "a stub text arena over 4 GiB")
                storage.storeBytes(of: deferredRow ?? Record.notDeferred, toByteOffset: count, as: UInt32.self)
                storage.storeBytes(of: spelt ? StubTextArena.spelledID : 0, toByteOffset: count + 4, as: UInt8.self)
                count += 5
                for length in [method.count, path.count, query.count, host.count, stored.count] { writeLength(length) }
                for part in [method, path, query, host, stored] where !part.isEmpty {
                    (storage + count).copyMemory(from: part.baseAddress!, byteCount: part.count)
                    count += part.count
                }
                return UInt32(offset)
            }
        }
    }

    /// Gives back the room reserved but not used, once the last record is in.
    func finish() {
        guard capacity > count + 64 else { return }
        let fitted = UnsafeMutableRawPointer.allocate(byteCount: max(count, 16), alignment: 8)
        fitted.copyMemory(from: storage, byteCount: count)
        storage.deallocate()
        storage = fitted
        capacity = max(count, 16)
    }

    /// The record at `offset` (as `append` returned it).
    @inline(__always)
    func record(at offset: UInt32) -> Record {
        var position = Int(offset)
        let row = storage.loadUnaligned(fromByteOffset: position, as: UInt32.self)
        let flags = storage.load(fromByteOffset: position + 4, as: UInt8.self)
        position += 5
        let methodCount = readLength(&position)
        let pathCount = readLength(&position)
        let queryCount = readLength(&position)
        let hostCount = readLength(&position)
        let idCount = readLength(&position)
        func take(_ length: Int) -> UnsafeRawBufferPointer {
            defer { position += length }
            return UnsafeRawBufferPointer(start: storage + position, count: length)
        }
        return Record(
            deferredRow: row,
            method: take(methodCount),
            path: take(pathCount),
            query: take(queryCount),
            host: take(hostCount),
            id: take(idCount),
            idIsSpelt: flags & StubTextArena.spelledID != 0
        )
    }

    /// Calls `body` with `StubIDSpelling`'s id for the key, spelt on the stack (on the heap when longer than 256 bytes).
    private static func spelling<Result>(
        method: UnsafeRawBufferPointer,
        path: UnsafeRawBufferPointer,
        query: UnsafeRawBufferPointer,
        _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        func spell(_ writer: inout ByteWriter) {
            StubIDSpelling.write(method: method, path: path, query: query, to: &writer)
        }
        let fitted: Result? = try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 256) { scratch in
            var writer = ByteWriter(scratch)
            spell(&writer)
            guard writer.fits else { return nil }
            return try body(UnsafeRawBufferPointer(UnsafeMutableBufferPointer(rebasing: scratch[..<writer.count])))
        }
        if let fitted { return fitted }
        var bytes: [UInt8] = []
        bytes.appendWritten(spell)
        return try bytes.withUnsafeBytes(body)
    }

    // MARK: Lengths: 7 bits a byte, low bits first (LEB128), so one byte for anything under 128

    private static func lengthBytes(_ length: Int) -> Int {
        var bytes = 1
        var rest = length >> 7
        while rest > 0 {
            bytes += 1
            rest >>= 7
        }
        return bytes
    }

    private func writeLength(_ length: Int) {
        var rest = length
        while rest >= 0x80 {
            storage.storeBytes(of: UInt8(truncatingIfNeeded: rest) | 0x80, toByteOffset: count, as: UInt8.self)
            count += 1
            rest >>= 7
        }
        storage.storeBytes(of: UInt8(rest), toByteOffset: count, as: UInt8.self)
        count += 1
    }

    @inline(__always)
    private func readLength(_ position: inout Int) -> Int {
        var byte = storage.load(fromByteOffset: position, as: UInt8.self)
        position += 1
        guard byte >= 0x80 else { return Int(byte) }
        var length = Int(byte & 0x7F)
        var shift = 7
        repeat {
            byte = storage.load(fromByteOffset: position, as: UInt8.self)
            position += 1
            length |= Int(byte & 0x7F) << shift
            shift += 7
        } while byte >= 0x80
        return length
    }

    private func reserve(_ bytes: Int) {
        guard count + bytes > capacity else { return }
        var grown = capacity * 2
        while grown < count + bytes { grown *= 2 }
        let moved = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 8)
        moved.copyMemory(from: storage, byteCount: count)
        storage.deallocate()
        storage = moved
        capacity = grown
    }
}
