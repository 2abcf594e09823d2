import Dispatch

/// A 128-bit digest of a byte buffer, to tell whether a file changed (the compact index names the `index.json` it was
/// made from by size and this digest, and checks its own bytes with it).
///
/// Four independent lanes of xxHash64's round (add a 64-bit word times a prime, rotate, multiply), a word at a time,
/// so it runs near memory speed: a 61 MiB `index.json` in a few milliseconds, where SHA-1 would take over a hundred.
/// Not for anything an attacker chooses: it answers "is this still the file the cache was made from".
enum ContentHash {
    private static let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
    private static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    private static let prime3: UInt64 = 0x1656_67B1_9E37_79F9
    private static let prime4: UInt64 = 0x85EB_CA77_C2B2_AE63

    @inline(__always)
    private static func round(_ lane: UInt64, _ input: UInt64) -> UInt64 {
        let mixed = lane &+ input &* prime2
        return ((mixed << 31) | (mixed >> 33)) &* prime1
    }

    /// MurmurHash3's 64-bit finaliser: every input bit reaches every output bit. Also ends `RequestKey.routeHash`.
    @inline(__always)
    static func finish(_ value: UInt64) -> UInt64 {
        var hash = value
        hash ^= hash >> 33
        hash &*= 0xff51_afd7_ed55_8ccd
        hash ^= hash >> 33
        hash &*= 0xc4ce_b9fe_1a85_ec53
        hash ^= hash >> 33
        return hash
    }

    /// Buffers larger than this are hashed in pieces of this size on every core at once.
    static let pieceSize = 4 << 20

    /// The digest of `bytes`: two 64-bit words. Up to `pieceSize` bytes, `digest(of:)`; a larger buffer is cut into
    /// pieces of `pieceSize` (the last shorter) hashed at once on every core, and the digest is that of the pieces'
    /// digests: a start hashes a 100,000-stub set's 61 MiB `index.json` before it can use the cache (13 ms on one
    /// thread, measured over a mapped file), and two cores do it in about half the time.
    static func of(_ bytes: UnsafeRawBufferPointer) -> (UInt64, UInt64) {
        guard bytes.count > pieceSize, let base = bytes.baseAddress else { return digest(of: bytes) }
        let pieces = (bytes.count + pieceSize - 1) / pieceSize
        let digests = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: pieces * 2 + 1)
        defer { digests.deallocate() }
        let shared = SharedPieces(base: base, count: bytes.count, digests: digests)
        DispatchQueue.concurrentPerform(iterations: pieces) { piece in
            let start = piece * pieceSize
            let (first, second) = digest(
                of: UnsafeRawBufferPointer(start: shared.base + start, count: min(pieceSize, shared.count - start))
            )
            shared.digests[piece * 2] = first
            shared.digests[piece * 2 + 1] = second
        }
        digests[pieces * 2] = UInt64(bytes.count)
        return digest(of: UnsafeRawBufferPointer(digests))
    }

    /// The digest `of(_:)` gives for bytes that arrive in parts (a file as it is written), holding one piece
    /// (`pieceSize`) at most: `index.json` is hashed as it is written rather than mapped and read again, which put
    /// the whole file in an import's peak memory.
    struct Stream {
        /// The current piece; hashed only when more bytes follow it, so that the last one is still here at the end.
        private var piece: [UInt8] = []
        /// The digests of the pieces before it, two words each.
        private var digests: [UInt64] = []
        private var count = 0

        init() {}

        /// Adds `bytes` after those already added.
        mutating func update(_ bytes: UnsafeRawBufferPointer) {
            var offset = 0
            while offset < bytes.count {
                if piece.count == ContentHash.pieceSize {
                    let (first, second) = piece.withUnsafeBytes { ContentHash.digest(of: $0) }
                    digests += [first, second]
                    piece.removeAll(keepingCapacity: true)
                }
                let take = min(ContentHash.pieceSize - piece.count, bytes.count - offset)
                piece.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + take]))
                offset += take
            }
            count += bytes.count
        }

        /// The digest of everything added, as `ContentHash.of` gives it for the same bytes in one buffer.
        func finish() -> (UInt64, UInt64) {
            // Up to one piece: hashed whole, as `of` does.
            guard !digests.isEmpty else { return piece.withUnsafeBytes { ContentHash.digest(of: $0) } }
            let last = piece.withUnsafeBytes { ContentHash.digest(of: $0) }
            let all = digests + [last.0, last.1, UInt64(count)]
            return all.withUnsafeBytes { ContentHash.digest(of: $0) }
        }

        /// The bytes added so far.
        var byteCount: Int { count }
    }

    /// The buffer and the digests' slots, shared by the hashing threads (each writes its own two slots).
    private struct SharedPieces: @unchecked Sendable {
        let base: UnsafeRawPointer
        let count: Int
        let digests: UnsafeMutableBufferPointer<UInt64>
    }

    /// The digest of `bytes` in one pass: the lanes and the tail mixed in two different orders.
    static func digest(of bytes: UnsafeRawBufferPointer) -> (UInt64, UInt64) {
        var a = prime1 &+ prime2
        var b = prime2
        var c: UInt64 = 0
        var d: UInt64 = 0 &- prime1
        var tail: UInt64 = 0
        if let base = bytes.baseAddress {
            var offset = 0
            let blocks = bytes.count & ~31
            while offset < blocks {
                a = round(a, base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                b = round(b, base.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
                c = round(c, base.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self))
                d = round(d, base.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self))
                offset += 32
            }
            // The last 0 to 31 bytes, a word and then a byte at a time, each mixed in at its own position.
            while offset + 8 <= bytes.count {
                tail = round(tail ^ prime3, base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                offset += 8
            }
            while offset < bytes.count {
                tail = round(tail ^ prime4, UInt64(base.load(fromByteOffset: offset, as: UInt8.self)))
                offset += 1
            }
        }
        let length = UInt64(bytes.count)
        let first = finish(round(round(a, b), round(c, d)) ^ tail ^ length)
        let second = finish(round(round(d ^ length, c), round(b, a ^ tail)))
        return (first, second)
    }
}
