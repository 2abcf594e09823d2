import Foundation
import MockdFormat

extension CompactIndex {
    /// The index held by `bytes` when it names `source` and this mockd, and is intact (its own hash matches and
    /// every number points inside it); else `nil`, never a partial or wrong index.
    static func decode(_ bytes: UnsafeRawBufferPointer, source: Source) -> MockSetFile? {
        guard let (decodedSettings, table) = readInPlace(bytes, source: source) else { return nil }
        var settings = decodedSettings
        let count = table.layout.stubCount
        let stubs: [MockSetFile.StubEntry]?
        if count >= MockSetLoader.parallelBuildThreshold, ParallelSlices.sliceCount > 1 {
            let slices = ParallelSlices.run(over: count) { range in table.stubs(range) }
            var all: [MockSetFile.StubEntry] = []
            all.reserveCapacity(count)
            for slice in slices {
                guard let slice else { return nil }
                all += slice
            }
            stubs = all
        } else {
            stubs = table.stubs(0..<count)
        }
        guard let stubs else { return nil }
        settings.stubs = stubs
        return settings
    }

    /// The set-wide settings (no stubs) and the stub records of the index held by `bytes`, read in place, when it
    /// names `source` and this mockd and is intact (see `decode`); else `nil`. The table reads `bytes`: keep them.
    static func readInPlace(_ bytes: UnsafeRawBufferPointer, source: Source) -> (settings: MockSetFile, table: Table)? {
        guard let layout = Layout(bytes), layout.source == source else { return nil }
        let payload = UnsafeRawBufferPointer(rebasing: bytes[(headerWords * 8)...])
        guard ContentHash.of(payload) == layout.payloadHash else { return nil }
        let table = Table(layout: layout, payload: payload)
        guard table.isConsistent, let settings = table.settings() else { return nil }
        return (settings, table)
    }

    /// A record that does not read back (only a writer's fault can make one: the payload's hash matched). A load
    /// that meets one reads `index.json` instead.
    struct MalformedRecord: Error {
        let stub: Int
    }

    /// The header's fields, checked for size and kind.
    struct Layout {
        let source: Source
        let payloadHash: (UInt64, UInt64)
        let payloadSize: Int
        let stringCount: Int
        let sharedStrings: Int
        let listCount: Int
        let sharedLists: Int
        let memberCount: Int
        let stubCount: Int
        let settings: Int
        let recordWords: Int

        /// The header at the start of `bytes`, checked against `fileSize` bytes in all (`nil`: `bytes` is the whole
        /// file).
        init?(_ bytes: UnsafeRawBufferPointer, fileSize: Int? = nil) {
            guard bytes.count >= CompactIndex.headerWords * 8 else { return nil }
            let total = fileSize ?? bytes.count
            func word(_ index: Int) -> UInt64 {
                UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self))
            }
            func count(_ index: Int) -> Int? {
                let value = word(index)
                return value <= UInt64(UInt32.max) ? Int(value) : nil
            }
            guard word(0) == CompactIndex.magic, word(1) == CompactIndex.revision,
                word(2) == CompactIndex.versionHash, total >= CompactIndex.headerWords * 8,
                word(8) == UInt64(total - CompactIndex.headerWords * 8),
                let stringCount = count(9), let sharedStrings = count(10), let listCount = count(11),
                let sharedLists = count(12), let memberCount = count(13), let stubCount = count(14),
                let settings = count(15), let recordWords = count(16), sharedStrings <= stringCount,
                sharedLists <= listCount,
                settings < stringCount
            else { return nil }
            source = Source(indexSize: word(3), indexHash: (word(4), word(5)))
            payloadHash = (word(6), word(7))
            payloadSize = Int(word(8))
            self.stringCount = stringCount
            self.sharedStrings = sharedStrings
            self.listCount = listCount
            self.sharedLists = sharedLists
            self.memberCount = memberCount
            self.stubCount = stubCount
            self.settings = settings
            self.recordWords = recordWords
        }
    }

    /// The payload's sections, read in place. `@unchecked Sendable`: read-only memory, read by the decoding threads
    /// while `decode` runs.
    struct Table: @unchecked Sendable {
        let layout: Layout
        let words: UnsafeRawBufferPointer
        let arena: UnsafeRawBufferPointer
        let stringEnds: Int
        let listEnds: Int
        let members: Int
        let stubOffsets: Int
        let records: Int

        init(layout: Layout, payload: UnsafeRawBufferPointer) {
            self.layout = layout
            stringEnds = 0
            listEnds = stringEnds + layout.stringCount
            members = listEnds + layout.listCount
            stubOffsets = members + layout.memberCount
            records = stubOffsets + layout.stubCount + 1
            let wordBytes = min(payload.count, (records + layout.recordWords) * 4)
            words = UnsafeRawBufferPointer(rebasing: payload[..<wordBytes])
            arena = UnsafeRawBufferPointer(rebasing: payload[wordBytes...])
        }

        @inline(__always)
        func word(_ index: Int) -> UInt32 {
            UInt32(littleEndian: words.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self))
        }

        /// Whether the sections fit the payload and their offsets never decrease nor point outside it (checked
        /// once, so reading a record needs only its own bounds).
        var isConsistent: Bool {
            guard words.count == (records + layout.recordWords) * 4 else { return false }
            var previous: UInt32 = 0
            for index in 0..<layout.stringCount {
                let end = word(stringEnds + index)
                guard end >= previous else { return false }
                previous = end
            }
            guard Int(previous) == arena.count else { return false }
            previous = 0
            for index in 0..<layout.listCount {
                let end = word(listEnds + index)
                guard end >= previous else { return false }
                previous = end
            }
            guard Int(previous) == layout.memberCount else { return false }
            for index in 0..<layout.memberCount where Int(word(members + index)) >= layout.stringCount {
                return false
            }
            previous = 0
            guard word(stubOffsets) == 0 else { return false }
            for index in 0...layout.stubCount {
                let end = word(stubOffsets + index)
                guard end >= previous else { return false }
                previous = end
            }
            return Int(previous) == layout.recordWords
        }

        func makeString(_ id: Int) -> String {
            String(decoding: stringBytes(id), as: UTF8.self)
        }

        func settings() -> MockSetFile? {
            try? JSONDecoder().decode(MockSetFile.self, from: Data(makeString(layout.settings).utf8))
        }

        /// The stubs `range`, or `nil` when a record is malformed.
        func stubs(_ range: Range<Int>) -> [MockSetFile.StubEntry]? {
            var reader = StubReader(table: self)
            var stubs: [MockSetFile.StubEntry] = []
            stubs.reserveCapacity(range.count)
            for index in range {
                guard let stub = reader.stub(at: index) else { return nil }
                stubs.append(stub)
            }
            return stubs
        }
    }

    /// Reads records back in `RecordVisitor`'s order; makes each shared string and list once per thread.
    struct StubReader {
        let table: Table
        var position = 0
        var end = 0
        var failed = false
        var sharedStrings: [String?]
        var sharedLists: [[String]?]
        /// Whether the entry `read(at:into:)` filled last came from JSON, and may hold fields a record does not set.
        private var entryHasOtherFields = false

        init(table: Table) {
            self.table = table
            sharedStrings = Array(repeating: nil, count: table.layout.sharedStrings)
            sharedLists = Array(repeating: nil, count: table.layout.sharedLists)
        }

        mutating func word() -> UInt32 {
            guard position < end else {
                failed = true
                return 0
            }
            defer { position += 1 }
            return table.word(position)
        }

        mutating func string() -> String? {
            let id = word()
            guard id != CompactIndex.none else { return nil }
            guard Int(id) < table.layout.stringCount else {
                failed = true
                return nil
            }
            guard Int(id) < sharedStrings.count else { return table.makeString(Int(id)) }
            if let known = sharedStrings[Int(id)] { return known }
            let made = table.makeString(Int(id))
            sharedStrings[Int(id)] = made
            return made
        }

        mutating func requiredString() -> String {
            guard let value = string() else {
                failed = true
                return ""
            }
            return value
        }

        mutating func list() -> [String]? {
            let id = word()
            guard id != CompactIndex.none else { return nil }
            guard Int(id) < table.layout.listCount else {
                failed = true
                return nil
            }
            if Int(id) < sharedLists.count, let known = sharedLists[Int(id)] { return known }
            let start = id == 0 ? 0 : Int(table.word(table.listEnds + Int(id) - 1))
            let end = Int(table.word(table.listEnds + Int(id)))
            var made: [String] = []
            made.reserveCapacity(end - start)
            for member in start..<end {
                let stringID = Int(table.word(table.members + member))
                if stringID < sharedStrings.count {
                    if let known = sharedStrings[stringID] {
                        made.append(known)
                    } else {
                        let string = table.makeString(stringID)
                        sharedStrings[stringID] = string
                        made.append(string)
                    }
                } else {
                    made.append(table.makeString(stringID))
                }
            }
            if Int(id) < sharedLists.count { sharedLists[Int(id)] = made }
            return made
        }

        /// Stub `index`'s record as an entry, or `nil` when it is malformed.
        mutating func stub(at index: Int) -> MockSetFile.StubEntry? {
            var entry = MockSetFile.StubEntry.empty
            return read(at: index, into: &entry) ? entry : nil
        }

        /// Reads stub `index`'s record into `entry`, reusing its storage: what a load does for every stub, where making
        /// a new entry and letting it go (a struct of some forty fields, most of them empty) was a sixth of a
        /// 100,000-stub start. `entry` must be the one the previous call filled, or a new one; `false` when the
        /// record is malformed.
        mutating func read(at index: Int, into entry: inout MockSetFile.StubEntry) -> Bool {
            moveToRecord(index)
            switch word() {
            case 0: break
            case 1:
                guard let json = string(), !failed,
                    let decoded = try? JSONDecoder().decode(MockSetFile.StubEntry.self, from: Data(json.utf8))
                else { return false }
                entry = decoded
                entryHasOtherFields = true
                return position == end
            default: return false
            }
            // A record sets only the fields of the shape `import-har` writes; any other an entry decoded from JSON
            // holds is cleared by starting over.
            if entryHasOtherFields {
                entry = .empty
                entryHasOtherFields = false
            }
            entry.id = string()
            entry.request.host = string()
            entry.request.method = requiredString()
            entry.request.path = requiredString()
            entry.request.query = string()
            entry.request.headers = list()
            entry.request.body = body()
            entry.request.recordedBody = body()
            let responseCount = Int(word())
            guard !failed, responseCount <= end - position else { return false }
            if entry.responses.count > responseCount {
                entry.responses.removeLast(entry.responses.count - responseCount)
            }
            for step in 0..<responseCount {
                if step == entry.responses.count { entry.responses.append(MockSetFile.ResponseEntry()) }
                readResponse(into: &entry.responses[step])
            }
            return !failed && position == end
        }

        /// Stub `index`'s id as `MockSetLoader.stubID` gives it (its own, or `METHOD_path`), read from the front of
        /// its record without making the rest; `nil` when the record is malformed.
        mutating func stubID(at index: Int) -> String? {
            moveToRecord(index)
            switch word() {
            case 0:
                // The rest of the record is read when the stub is built; an entry with its own id needs none of it.
                if let id = string() { return failed ? nil : id }
                _ = string()  // host
                let method = requiredString()
                let path = requiredString()
                return failed ? nil : MockSetLoader.stubID(id: nil, method: method, path: path)
            case 1:
                guard let json = string(), !failed,
                    let entry = try? JSONDecoder().decode(MockSetFile.StubEntry.self, from: Data(json.utf8))
                else { return nil }
                return MockSetLoader.stubID(of: entry)
            default: return nil
            }
        }

        mutating func moveToRecord(_ index: Int) {
            position = table.records + Int(table.word(table.stubOffsets + index))
            end = table.records + Int(table.word(table.stubOffsets + index + 1))
            failed = false
        }

        /// Sets every field a record holds (an absent one to `nil`); the others are left as they are.
        private mutating func readResponse(into response: inout MockSetFile.ResponseEntry) {
            let hasStatus = word() == 1
            let status = Int64(word()) | Int64(word()) << 32
            response.status = hasStatus ? Int(truncatingIfNeeded: status) : nil
            response.headers = list()
            response.bodyFile = string()
            response.body = string()
            let hasTime = word() == 1
            let time = UInt64(word()) | UInt64(word()) << 32
            response.recordedTimeMs = hasTime ? Double(bitPattern: time) : nil
            switch word() {
            case 0: response.templated = nil
            case 1: response.templated = .on
            case 2: response.templated = .off
            case 3: response.templated = .redactedOnly
            default: failed = true
            }
            response.dates =
                word() == 1
                ? MockSetFile.DatesEntry(recordedAt: requiredString(), body: list(), headers: list()) : nil
        }

        private mutating func body() -> MockSetFile.BodyEntry? {
            guard word() == 1 else { return nil }
            return MockSetFile.BodyEntry(file: string(), text: string(), contentType: string())
        }
    }
}

extension MockSetFile.StubEntry {
    /// An entry with nothing set, for `CompactIndex.StubReader.read(at:into:)` to fill.
    static var empty: MockSetFile.StubEntry {
        MockSetFile.StubEntry(id: nil, request: .init(method: "", path: ""), responses: [])
    }
}
