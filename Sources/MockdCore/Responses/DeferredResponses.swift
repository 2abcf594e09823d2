import Foundation
import MockdFormat
import MockdPlatform

/// The responses of the stubs one loading thread built whose body files are read when a stub first answers, not when
/// the set loads: a start with 100,000 imported stubs (one body file each) then makes no system call per body file,
/// and an idle daemon holds no body it has not served.
///
/// What the loader built from the index (status, headers, fault, `miss`, recorded time, the stub id) is kept as a
/// placeholder response per step in the stub; the placeholders are completed here in the order the eager loader uses
/// (body, its `{{placeholders}}`, the step's `templated` mode, recorded origins' URLs), so a deferred stub answers
/// with the same bytes an eagerly loaded one would. The body file was not looked at during the load (only its path as
/// written, `BodyFileReader.mayDefer`): it is opened here, relative to the set folder as loaded
/// (`BodyFileReader.readOnFirstUse`); a file of 1 MiB or more is then served from disk, as at load.
///
/// Laid out for idle memory: one row per deferred stub, in columns (the first step's path in one byte arena, its
/// `templated` mode, its entry), shared by the stubs of one loading thread; a stub keeps its row and its completed
/// responses (`CompletedCell`). An object and a path string per stub were 144 of a 100,000-stub set's ~380 bytes per
/// stub; a row is the path's bytes and 9 more. Later steps' body files (sequences, rare) are kept per row as they are.
///
/// The completed responses are published once per stub (a compare-and-exchange of one address); two threads completing
/// at once both read the file and the first result is kept. A file that cannot be read (missing, unreadable, outside
/// the set folder, or gone since the start) answers 500 with the one-line error `mockd validate` gives for it
/// (`mocks/web/index.json: stubs[2].responses[0].bodyFile: body file 'bodies/c.json' not found`), and is tried again
/// on the next request; the daemon keeps answering every other stub.
///
/// Rows are added only by the loading thread that made the object (`append`, then `finish`), before any of its stubs
/// is handed to another thread; from then on the columns are only read, which is why it may be shared
/// (`@unchecked Sendable`).
final class DeferredResponses: @unchecked Sendable {
    /// A response step's place in its index: the entry and the step, for error messages.
    struct StepLocation: Sendable {
        fileprivate let entryIndex: Int32
        fileprivate let stepIndex: Int32

        init(entry: Int, step: Int) {
            self.entryIndex = Int32(clamping: entry)
            self.stepIndex = Int32(clamping: step)
        }

        /// `stubs[3].responses[0]`.
        var stepPath: String { "stubs[\(entryIndex)].responses[\(stepIndex)]" }
    }

    /// A step's body file, read on first use.
    struct PendingBody: Sendable {
        /// The path inside the set folder, as the index gives it (`bodies/GET_users.json`).
        let relativePath: String
        let templated: TemplateMode
        /// Where the index names it: `stubs[3].responses[0].bodyFile` in an error.
        let location: StepLocation
    }

    /// What every deferred stub of one set shares.
    final class Context: Sendable {
        /// Reads a body file on first use: its path in the set folder, the step's `templated` mode and the JSON path
        /// naming it in an error; its bytes and placeholders, or a `FileBody` served from disk
        /// (`BodyFileReader.readOnFirstUse`).
        /// - Throws: `ConfigError` naming the index, the JSON path and the file.
        typealias Read =
            @Sendable (String, TemplateMode, () -> String) throws -> (
                data: Data, template: Template?, file: FileBody?
            )

        let read: Read
        let origins: OriginRewrite?
        let indexName: String

        init(read: @escaping Read, origins: OriginRewrite?, indexName: String) {
            self.read = read
            self.origins = origins
            self.indexName = indexName
        }
    }

    /// The completed responses of a stub.
    final class Completed: Sendable {
        let first: MockResponse
        let later: [MockResponse]

        init(first: MockResponse, later: [MockResponse]) {
            self.first = first
            self.later = later
        }
    }

    /// Where a stub keeps its completed responses: the address of a retained `Completed`, set once; 0 before. Not
    /// `AtomicLazyReference`: its unspecialised `load()` looked up generic metadata on every request, a sixth of a
    /// matched request's own instructions (and it needs macOS 15, where `Atomic` is MockdPlatform's below that).
    ///
    /// The address's lowest bit (free: objects are aligned to 16 bytes) says whether the first completed response is
    /// plain (`MockResponse.isPlain`), so the question every request asks first is answered without reading the
    /// `Completed` object (at 100,000 stubs asked at random, a cache miss a request).
    struct CompletedCell: ~Copyable, Sendable {
        private let address = Atomic<UInt>(0)
        private static let firstIsPlain: UInt = 1

        init() {}

        /// The completed responses once published (a body that could not be read is never published), else `nil`.
        @inline(__always)
        func load() -> Completed? {
            let word = address.load(ordering: .acquiring) & ~CompletedCell.firstIsPlain
            guard let pointer = UnsafeRawPointer(bitPattern: word) else { return nil }
            return Unmanaged<Completed>.fromOpaque(pointer).takeUnretainedValue()
        }

        /// Whether responses are published and the first of them is plain.
        @inline(__always)
        var isPublishedWithPlainFirst: Bool {
            address.load(ordering: .acquiring) & CompletedCell.firstIsPlain != 0
        }

        /// Publishes `result` unless another thread did first; the responses every caller then shares.
        fileprivate func publish(_ result: Completed) -> Completed {
            let pointer = UInt(bitPattern: Unmanaged.passRetained(result).toOpaque())
            precondition(pointer & CompletedCell.firstIsPlain == 0, "an object address with its lowest bit set")
            let retained = pointer | (result.first.isPlain ? CompletedCell.firstIsPlain : 0)
            let (stored, earlier) = address.compareExchange(
                expected: 0,
                desired: retained,
                ordering: .acquiringAndReleasing
            )
            if stored { return result }
            Unmanaged<Completed>.fromOpaque(UnsafeRawPointer(bitPattern: pointer)!).release()
            let published = earlier & ~CompletedCell.firstIsPlain
            return Unmanaged<Completed>.fromOpaque(UnsafeRawPointer(bitPattern: published)!).takeUnretainedValue()
        }

        /// Releases the published responses; called once, by the owner's `deinit`.
        func releaseStored() {
            let word = address.load(ordering: .acquiring) & ~CompletedCell.firstIsPlain
            if let pointer = UnsafeRawPointer(bitPattern: word) {
                Unmanaged<Completed>.fromOpaque(pointer).release()
            }
        }
    }

    let context: Context
    // The columns are written only by the loading thread, before any other sees them (see above), and only read after:
    // not checked for exclusive access at run time (the checks were a third of `append`, ~470 instructions a stub).
    /// The first steps' paths, one after another (UTF-8); row `r`'s ends at `pathEnds[r]`, starts where `r - 1`'s ends.
    /// Empty for a path named after its stub (`affixes`).
    @exclusivity(unchecked) private var pathBytes: [UInt8] = []
    @exclusivity(unchecked) private var pathEnds: [UInt32] = []
    /// Per row: the first step's `templated` mode (`modeCodes`), or `noFirstBody` when its body was built at load.
    @exclusivity(unchecked) private var modes: [UInt8] = []
    /// Per row: for a path that is a folder, the stub's id and an ending (`bodies/GET_users.json`: how `import-har`
    /// and `record` name body files), that folder and ending in `affixPairs`; `notAffixed` for a path kept whole.
    @exclusivity(unchecked) private var affixes: [UInt8] = []
    @exclusivity(unchecked) private var affixPairs: [(folder: [UInt8], ending: [UInt8])] = []
    /// Per row: the stub's entry in the index, for error messages.
    @exclusivity(unchecked) private var entries: [Int32] = []
    /// The later steps' body files of the rows that have later steps; absent for the one-response stubs most sets
    /// are made of.
    @exclusivity(unchecked) private var laterPending: [UInt32: [PendingBody?]] = [:]

    private static let noFirstBody: UInt8 = .max
    private static let notAffixed: UInt8 = .max
    private static let modeCodes: [TemplateMode] = [.on, .off, .redactedOnly]

    private static func modeCode(_ mode: TemplateMode) -> UInt8 {
        switch mode {
        case .on: 0
        case .off: 1
        case .redactedOnly: 2
        }
    }

    /// - Parameter expectedRows: Rows the loading thread will add, to reserve the columns at once.
    init(context: Context, expectedRows: Int = 0) {
        self.context = context
        pathEnds.reserveCapacity(expectedRows)
        modes.reserveCapacity(expectedRows)
        affixes.reserveCapacity(expectedRows)
        entries.reserveCapacity(expectedRows)
    }

    /// Adds the row of a stub's steps and returns it.
    /// - Parameters:
    ///   - pending: One per step: the body file to read, or `nil` for a step built completely at load; at least one is
    ///     not `nil`.
    ///   - stubID: The stub's id, which every response of the stub carries (`MockResponse.stubID`).
    func append(_ pending: [PendingBody?], stubID: String) -> UInt32 {
        let row = UInt32(pathEnds.count)
        if let first = pending[0] {
            let affix = affix(of: first.relativePath, stubID: stubID)
            if affix == Self.notAffixed { pathBytes.append(contentsOf: first.relativePath.utf8) }
            affixes.append(affix)
            modes.append(Self.modeCode(first.templated))
        } else {
            affixes.append(Self.notAffixed)
            modes.append(Self.noFirstBody)
        }
        precondition(pathBytes.count < UInt32.max, "body file paths of one loading thread over 4 GiB")
        pathEnds.append(UInt32(pathBytes.count))
        var entry: Int32 = 0
        for step in pending {
            if let step {
                entry = step.location.entryIndex
                break
            }
        }
        entries.append(entry)
        if pending.count > 1 {
            // Kept as they are: in storage of their own, not the decoded index's (`String.detached`).
            laterPending[row] = pending.dropFirst().map { step in
                step.map {
                    PendingBody(relativePath: $0.relativePath.detached, templated: $0.templated, location: $0.location)
                }
            }
        }
        return row
    }

    /// The `affixPairs` index of `path` as folder, `stubID` and ending (`bodies/` + `GET_users` + `.json`), or
    /// `notAffixed`. Compared as bytes: a path the index spells differently from the id is kept whole.
    private func affix(of path: String, stubID: String) -> UInt8 {
        var path = path
        var stubID = stubID
        // On the bytes in place: the generic UTF-8 view algorithms cost ~5,000 instructions per stub at start.
        return path.withUTF8 { bytes in stubID.withUTF8 { id in affix(of: bytes, id: id) } }
    }

    private func affix(of bytes: UnsafeBufferPointer<UInt8>, id: UnsafeBufferPointer<UInt8>) -> UInt8 {
        var nameStart = bytes.count
        while nameStart > 0, bytes[nameStart - 1] != UInt8(ascii: "/") { nameStart -= 1 }
        let endingStart = nameStart + id.count
        guard !id.isEmpty, let base = bytes.baseAddress, let idBase = id.baseAddress, endingStart < bytes.count,
            memcmp(base + nameStart, idBase, id.count) == 0
        else { return Self.notAffixed }
        // Compared with `memcmp`: the generic `elementsEqual` of slices was most of this function's cost at start.
        let folder = UnsafeBufferPointer(rebasing: bytes[..<nameStart])
        let ending = UnsafeBufferPointer(rebasing: bytes[endingStart...])
        for (index, pair) in affixPairs.enumerated()
        where Self.sameBytes(pair.folder, folder) && Self.sameBytes(pair.ending, ending) {
            return UInt8(index)
        }
        guard affixPairs.count < Int(Self.notAffixed) else { return Self.notAffixed }
        affixPairs.append((Array(folder), Array(ending)))
        return UInt8(affixPairs.count - 1)
    }

    private static func sameBytes(_ kept: [UInt8], _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard kept.count == bytes.count else { return false }
        guard !bytes.isEmpty, let base = bytes.baseAddress else { return true }
        return kept.withUnsafeBufferPointer { memcmp($0.baseAddress!, base, bytes.count) == 0 }
    }

    /// Trims the columns to what the rows take (they grew by doubling); called once the loading thread added its last.
    func finish() {
        pathBytes = Self.trimmed(pathBytes)
        pathEnds = Self.trimmed(pathEnds)
        modes = Self.trimmed(modes)
        affixes = Self.trimmed(affixes)
        entries = Self.trimmed(entries)
    }

    private static func trimmed<Element>(_ column: [Element]) -> [Element] {
        guard column.capacity > column.count else { return column }
        return [Element](unsafeUninitializedCapacity: column.count) { buffer, count in
            _ = buffer.initialize(from: column)
            count = column.count
        }
    }

    /// Row `row`'s first step body file, or `nil` when it was built at load.
    /// - Parameter stubID: The stub's id, as given to `append`.
    func firstPending(_ row: UInt32, stubID: String) -> PendingBody? {
        let index = Int(row)
        guard modes[index] != Self.noFirstBody else { return nil }
        let path: String
        if affixes[index] != Self.notAffixed {
            let pair = affixPairs[Int(affixes[index])]
            path = String(decoding: pair.folder + Array(stubID.utf8) + pair.ending, as: UTF8.self)
        } else {
            let start = index == 0 ? 0 : Int(pathEnds[index - 1])
            path = String(decoding: pathBytes[start..<Int(pathEnds[index])], as: UTF8.self)
        }
        return PendingBody(
            relativePath: path,
            templated: Self.modeCodes[Int(modes[index])],
            location: StepLocation(entry: Int(entries[index]), step: 0)
        )
    }

    /// Row `row`'s later steps' body files (`nil` for a step built at load); empty for a one-response stub.
    func laterPending(_ row: UInt32) -> [PendingBody?] { laterPending[row] ?? [] }

    /// Completes row `row`'s responses, publishing them in `cell` unless a body file could not be read.
    /// - Parameter placeholders: The stub's responses as loaded (every step, the first one first).
    func complete(
        row: UInt32,
        _ placeholders: [MockResponse],
        into cell: borrowing CompletedCell
    ) -> Completed {
        let pending = [firstPending(row, stubID: placeholders[0].stubID ?? "")] + laterPending(row)
        var responses: [MockResponse] = []
        responses.reserveCapacity(placeholders.count)
        var failed = false
        for (step, placeholder) in placeholders.enumerated() {
            guard let body = pending[step] else {
                responses.append(placeholder)
                continue
            }
            do {
                responses.append(try completing(placeholder, with: body))
            } catch {
                failed = true
                let message =
                    (error as? ConfigError)?.description
                    ?? "\(context.indexName): \(body.location.stepPath).bodyFile: cannot read '\(body.relativePath)' (\(error))"
                var answer = MockResponse.jsonError(status: 500, code: "body_file_unavailable", message: message)
                answer.stubID = placeholder.stubID
                responses.append(answer)
            }
        }
        let result = Completed(first: responses[0], later: Array(responses.dropFirst()))
        // A failed read is not kept: the next request tries the file again.
        return failed ? result : cell.publish(result)
    }

    /// `placeholder` with the body of `body` and everything that depends on it, as `StubBuilder` does for a body
    /// read at load.
    /// - Throws: `ConfigError` naming the index, the step's `bodyFile` and the file, as `mockd validate` does.
    private func completing(_ placeholder: MockResponse, with body: PendingBody) throws -> MockResponse {
        let (data, template, fileBody) = try context.read(
            body.relativePath,
            body.templated,
            // Named only in an error: built only then (it was a sixth of a first use).
            { "\(body.location.stepPath).bodyFile" }
        )
        var response = placeholder
        response.body = data
        let headersHavePlaceholders = placeholder.template?.hasHeaderPlaceholders ?? false
        response.template =
            template != nil || headersHavePlaceholders
            ? ResponseTemplate(body: template, hasHeaderPlaceholders: headersHavePlaceholders) : nil
        response.applyTemplateMode(body.templated)
        // A placeholder problem in the file is the load's error, in its words (`StubBuilder`), and the file is tried
        // again next time, as one that cannot be read.
        if let problem = response.templateProblems.first(where: { $0.part == "body" })?.problem {
            throw ConfigError(
                .invalidValue,
                file: context.indexName,
                jsonPath: "\(body.location.stepPath).bodyFile",
                message: problem.loadMessage(in: body.relativePath)
            )
        }
        if let fileBody { response.fileBody = fileBody }
        if let origins = context.origins { response.rewriteURLs(of: origins) }
        return response
    }
}
