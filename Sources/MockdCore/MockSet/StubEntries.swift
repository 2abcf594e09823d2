import MockdFormat
import MockdPlatform

/// The entries a load builds stubs from: an index decoded whole (`index.json`), or a compact index's records, each
/// made into an entry just before its stub is built and let go right after.
///
/// Why the records are not decoded whole first: at 100,000 stubs the decoded index is ~20 MiB of small objects made
/// on the building threads and freed after the build. Where they ended up at the top of a thread's malloc arena,
/// glibc kept them (`malloc_trim` gives back only the main arena's top) and the daemon's idle RSS was 20 MiB higher
/// in about half the starts. An entry at a time, the same few blocks are reused and nothing large is freed.
enum StubEntries: @unchecked Sendable {
    // @unchecked: the compact case reads bytes it keeps alive and nobody writes.
    case decoded([MockSetFile.StubEntry])
    /// A compact index's table and the snapshot of the file its bytes are in.
    case compact(CompactIndex.Table, FileSnapshot)

    var count: Int {
        switch self {
        case .decoded(let entries): entries.count
        case .compact(let table, _): table.layout.stubCount
        }
    }

    /// Calls `body` with each entry of `range` and its position, in order.
    /// - Throws: What `body` throws; `CompactIndex.MalformedRecord` for a compact record that does not read back.
    func forEach(in range: Range<Int>, _ body: (MockSetFile.StubEntry, Int) throws -> Void) throws {
        switch self {
        case .decoded(let entries):
            for index in range { try body(entries[index], index) }
        case .compact(let table, let snapshot):
            try withExtendedLifetime(snapshot) {
                var reader = CompactIndex.StubReader(table: table)
                // One entry, refilled for each record (see `StubReader.read(at:into:)`).
                var entry = MockSetFile.StubEntry.empty
                for index in range {
                    guard reader.read(at: index, into: &entry) else { throw CompactIndex.MalformedRecord(stub: index) }
                    try body(entry, index)
                }
            }
        }
    }

    /// The position of the first stub whose id (`MockSetLoader.stubID`) an earlier stub already has.
    /// - Throws: `CompactIndex.MalformedRecord` for a compact record that does not read back.
    func firstDuplicateID() throws -> Int? {
        switch self {
        case .decoded(let entries):
            return MockSetLoader.firstDuplicateID(in: entries)
        case .compact(let table, let snapshot):
            return try withExtendedLifetime(snapshot) {
                var reader = CompactIndex.StubReader(table: table)
                if let answer = try Self.firstDuplicateASCIIID(&reader) { return answer }
                return try Self.firstDuplicateID(&reader)
            }
        }
    }

    /// `firstDuplicateID` for records read in place, when every id is ASCII: each id hashed from the arena's bytes
    /// (no string made: 100,000 strings and their `Set` were 6% of a 100,000-stub start) into a `RouteTable` of
    /// ordinals, the ids themselves compared only when two hashes meet. `.some(nil)`: no duplicate; `nil`: an id is not ASCII, a record is kept as JSON or
    /// is malformed, or two different ids share a hash — then `firstDuplicateID(_:)` answers.
    private static func firstDuplicateASCIIID(_ reader: inout CompactIndex.StubReader) throws -> Int?? {
        let count = reader.table.layout.stubCount
        let seen = RouteTable(capacity: count, hugePages: false)  // scratch, for this check only
        var hashes = [UInt64](repeating: 0, count: count)
        for index in 0..<count {
            guard let hash = reader.asciiStubIDHash(at: index) else { return nil }
            hashes[index] = hash
            if let earlier = seen.find(hash: hash, isKey: { hashes[Int($0)] == hash }).map(Int.init) {
                // ASCII ids are equal as strings exactly when their bytes are.
                guard let first = reader.stubID(at: earlier), let second = reader.stubID(at: index) else {
                    throw CompactIndex.MalformedRecord(stub: index)
                }
                return first == second ? .some(index) : nil
            }
            seen.insert(hash: hash, value: UInt32(index))
        }
        return .some(nil)
    }

    /// `firstDuplicateID` for records read in place, each id made a `String` (compared by canonical equivalence).
    private static func firstDuplicateID(_ reader: inout CompactIndex.StubReader) throws -> Int? {
        let count = reader.table.layout.stubCount
        var seen: Set<String> = []
        seen.reserveCapacity(count)
        for index in 0..<count {
            guard let id = reader.stubID(at: index) else { throw CompactIndex.MalformedRecord(stub: index) }
            if !seen.insert(id).inserted { return index }
        }
        return nil
    }
}
