import Foundation
import MockdFormat

/// The bytes of a set's compact index (`CompactIndexFile`): a decoded `index.json` in fixed-width records that a
/// start reads without a JSON scan, and from which it makes each distinct string once.
///
/// Layout (revision `revision`; every number a little-endian word):
/// - a header of 18 64-bit words: magic, revision, mockd's version (hashed), the size and `ContentHash` of the
///   `index.json` it was made from, the `ContentHash` of the payload, then the payload's section sizes;
/// - the payload: 32-bit words (string end offsets, list offsets and members, stub offsets, stub records), then
///   one arena holding every distinct string's UTF-8 bytes.
///
/// A stub in the shape `import-har` writes (request key, header lists, body files, status, headers, dates…) is a
/// record of string and list numbers; any other (GraphQL, `json` bodies, streams, faults, gates…) is kept as its
/// JSON and decoded with `JSONDecoder`, as are the set-wide settings. Strings and lists used by more than one stub are
/// numbered first, so a decoding thread shares one copy of each (the builder then finds consecutive equal header
/// lists by identity) and makes the others once, with no table.
enum CompactIndex {
    /// Bumped whenever the layout or the meaning of a record changes, or caches already written may hold a writer's
    /// fault: a cache of another revision is never read. 2: revision 1's writer merged strings equal only under
    /// canonical equivalence (`ByteKey`).
    static let revision: UInt64 = 2
    static let magic: UInt64 = 0x5844_4E49_444B_434F  // "OCKDINDX" read as little-endian bytes
    static let headerWords = 18
    /// Marks an absent optional string or list.
    static let none = UInt32.max

    /// What a cache must name to be read: the index it was made from and the mockd that made it.
    struct Source: Equatable {
        let indexSize: UInt64
        let indexHash: (UInt64, UInt64)

        static func == (lhs: Source, rhs: Source) -> Bool {
            lhs.indexSize == rhs.indexSize && lhs.indexHash == rhs.indexHash
        }
    }

    /// This mockd's version, hashed: a cache written by another version is rebuilt, not trusted.
    static let versionHash: UInt64 = {
        let text = Array("mockd \(MockdVersion.current) compact index \(revision)".utf8)
        return text.withUnsafeBytes { ContentHash.of($0).0 }
    }()

    // MARK: Writing

    /// `file` as a compact index naming `source`.
    static func encode(_ file: MockSetFile, source: Source) throws -> [UInt8] {
        var bytes: [UInt8] = []
        try encode(file, source: source) { bytes.append(contentsOf: $0) }
        return bytes
    }

    /// `file` as a compact index naming `source`, handed to `output` in parts, in order (the bytes `encode(_:source:)`
    /// returns): the records are laid out once and streamed, never copied into one buffer.
    /// - Throws: The settings' encoding error, or what `output` throws.
    static func encode(
        _ file: MockSetFile,
        source: Source,
        output: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        var settings = file
        settings.stubs = []
        let settingsJSON = String(decoding: try RecordVisitor.sortedEncoder.encode(settings), as: UTF8.self)
        let visitor = RecordVisitor()
        // The use counts are only needed to number the shared strings and lists first: let go before the records grow.
        var writer = try RecordWriter(counts: UseCounter(counting: file, settings: settingsJSON, visitor))
        let settingsID = writer.stringID(settingsJSON)
        var stubOffsets: [UInt32] = [0]
        stubOffsets.reserveCapacity(file.stubs.count + 1)
        for stub in file.stubs {
            try visitor.visit(stub, into: &writer)
            stubOffsets.append(UInt32(writer.records.count))
        }
        try writer.write(stubOffsets: stubOffsets, settings: settingsID, source: source, to: output)
    }

    /// Receives a stub's parts in order; counting uses first, then writing records.
    protocol RecordSink {
        mutating func word(_ value: UInt32)
        mutating func string(_ value: String?)
        mutating func list(_ value: [String]?)
    }

    /// Counts how often each string and list is used.
    struct UseCounter: RecordSink {
        var strings: [ByteKey: Int] = [:]
        var lists: [[ByteKey]: Int] = [:]

        /// The uses in `file`, whose set-wide settings are the JSON `settings`.
        init(counting file: MockSetFile, settings: String, _ visitor: RecordVisitor) throws {
            string(settings)
            for stub in file.stubs { try visitor.visit(stub, into: &self) }
        }

        mutating func word(_ value: UInt32) {}
        mutating func string(_ value: String?) {
            if let value { strings[ByteKey(value), default: 0] += 1 }
        }
        mutating func list(_ value: [String]?) {
            guard let value else { return }
            lists[value.map(ByteKey.init), default: 0] += 1
            for member in value { string(member) }
        }
    }

    /// Numbers strings and lists (those used more than once first) and appends records.
    struct RecordWriter: RecordSink {
        var stringIDs: [ByteKey: UInt32] = [:]
        var arena: [UInt8] = []
        var stringEnds: [UInt32] = []
        var listIDs: [[ByteKey]: UInt32] = [:]
        var listMembers: [UInt32] = []
        var listEnds: [UInt32] = []
        var records: [UInt32] = []
        let sharedStrings: Int
        let sharedLists: Int
        /// Whether new strings and lists are remembered: only the shared ones, numbered first by `init`. Any string
        /// or list met later was used once (a shared one is found), so it needs no entry.
        private var numberingShared = true

        init(counts: UseCounter) {
            // Shared entries take the first numbers, in a fixed order (the same index gives the same bytes).
            let shared = counts.strings.filter { $0.value > 1 }.keys.sorted()
            sharedStrings = shared.count
            let sharedListValues = counts.lists.filter { $0.value > 1 }.keys.sorted { $0.lexicographicallyPrecedes($1) }
            sharedLists = sharedListValues.count
            for value in shared { _ = addString(value.value) }
            for value in sharedListValues { _ = addList(value.map(\.value)) }
            numberingShared = false
        }

        private mutating func addString(_ value: String) -> UInt32 {
            let key = ByteKey(value)
            if let id = stringIDs[key] { return id }
            let id = UInt32(stringEnds.count)
            arena.append(contentsOf: value.utf8)
            stringEnds.append(UInt32(arena.count))
            if numberingShared { stringIDs[key] = id }
            return id
        }

        private mutating func addList(_ value: [String]) -> UInt32 {
            let key = value.map(ByteKey.init)
            if let id = listIDs[key] { return id }
            let id = UInt32(listEnds.count)
            for member in value { listMembers.append(addString(member)) }
            listEnds.append(UInt32(listMembers.count))
            if numberingShared { listIDs[key] = id }
            return id
        }

        mutating func stringID(_ value: String?) -> UInt32 { value.map { addString($0) } ?? CompactIndex.none }
        mutating func word(_ value: UInt32) { records.append(value) }
        mutating func string(_ value: String?) { records.append(stringID(value)) }
        mutating func list(_ value: [String]?) { records.append(value.map { addList($0) } ?? CompactIndex.none) }

        /// Hands the header and then the payload to `output`: the payload's words little-endian, a few at a time,
        /// then the string arena. The payload is walked twice, once for the header's digest of it.
        func write(
            stubOffsets: [UInt32],
            settings: UInt32,
            source: Source,
            to output: (UnsafeRawBufferPointer) throws -> Void
        ) throws {
            var payloadHash = ContentHash.Stream()
            try payload(stubOffsets: stubOffsets) { payloadHash.update($0) }
            let digest = payloadHash.finish()
            let wordCount = stringEnds.count + listEnds.count + listMembers.count + stubOffsets.count + records.count
            let header: [UInt64] = [
                CompactIndex.magic, CompactIndex.revision, CompactIndex.versionHash, source.indexSize,
                source.indexHash.0, source.indexHash.1, digest.0, digest.1,
                UInt64(wordCount * 4 + arena.count), UInt64(stringEnds.count), UInt64(sharedStrings),
                UInt64(listEnds.count), UInt64(sharedLists), UInt64(listMembers.count), UInt64(stubOffsets.count - 1),
                UInt64(settings), UInt64(records.count), 0,
            ]
            try header.map(\.littleEndian).withUnsafeBytes { try output($0) }
            try payload(stubOffsets: stubOffsets, to: output)
        }

        /// The payload in parts: string ends, list ends, list members, stub offsets and records as little-endian
        /// 32-bit words, then the arena.
        private func payload(
            stubOffsets: [UInt32],
            to output: (UnsafeRawBufferPointer) throws -> Void
        ) throws {
            var chunk: [UInt32] = []
            chunk.reserveCapacity(1 << 16)
            for words in [stringEnds, listEnds, listMembers, stubOffsets, records] {
                var start = 0
                while start < words.count {
                    let end = min(start + (1 << 16), words.count)
                    chunk.removeAll(keepingCapacity: true)
                    for word in words[start..<end] { chunk.append(word.littleEndian) }
                    try chunk.withUnsafeBytes { try output($0) }
                    start = end
                }
            }
            try arena.withUnsafeBytes { try output($0) }
        }
    }

    /// Walks one stub in record order: the one place that says what a record holds (`StubReader` reads it back).
    struct RecordVisitor {
        /// Sorted keys: the same set always gives the same bytes.
        static var sortedEncoder: JSONEncoder {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return encoder
        }
        let encoder = sortedEncoder

        /// Whether a stub fits a record: no part kept only as JSON.
        static func fitsRecord(_ stub: MockSetFile.StubEntry) -> Bool {
            stub.afterLast == nil && stub.request.graphql == nil && stub.request.body?.json == nil
                && stub.request.recordedBody?.json == nil
                && stub.responses.allSatisfy { response in
                    response.json == nil && response.websocket == nil && response.events == nil
                        && response.fault == nil && response.miss == nil && response.conditionalOnly == nil
                        && response.validators == nil && response.cachedCopy == nil && response.rangeOnly == nil
                        && response.emit == nil
                }
        }

        func visit(_ stub: MockSetFile.StubEntry, into sink: inout some RecordSink) throws {
            guard Self.fitsRecord(stub) else {
                sink.word(1)
                sink.string(String(decoding: try encoder.encode(stub), as: UTF8.self))
                return
            }
            sink.word(0)
            let request = stub.request
            sink.string(stub.id)
            sink.string(request.host)
            sink.string(request.method)
            sink.string(request.path)
            sink.string(request.query)
            sink.list(request.headers)
            body(request.body, into: &sink)
            body(request.recordedBody, into: &sink)
            sink.word(UInt32(stub.responses.count))
            for response in stub.responses {
                let status = response.status.map { Int64($0) }
                sink.word(status == nil ? 0 : 1)
                sink.word(UInt32(truncatingIfNeeded: status ?? 0))
                sink.word(UInt32(truncatingIfNeeded: (status ?? 0) >> 32))
                sink.list(response.headers)
                sink.string(response.bodyFile)
                sink.string(response.body)
                let time = response.recordedTimeMs?.bitPattern
                sink.word(time == nil ? 0 : 1)
                sink.word(UInt32(truncatingIfNeeded: time ?? 0))
                sink.word(UInt32(truncatingIfNeeded: (time ?? 0) >> 32))
                switch response.templated {
                case nil: sink.word(0)
                case .on: sink.word(1)
                case .off: sink.word(2)
                case .redactedOnly: sink.word(3)
                }
                sink.word(response.dates == nil ? 0 : 1)
                if let dates = response.dates {
                    sink.string(dates.recordedAt)
                    sink.list(dates.body)
                    sink.list(dates.headers)
                }
            }
        }

        private func body(_ body: MockSetFile.BodyEntry?, into sink: inout some RecordSink) {
            sink.word(body == nil ? 0 : 1)
            if let body {
                sink.string(body.file)
                sink.string(body.text)
                sink.string(body.contentType)
            }
        }
    }
}
