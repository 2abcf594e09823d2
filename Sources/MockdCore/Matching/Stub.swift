public import Foundation
public import MockdFormat
import MockdPlatform

/// A request matcher and the sequence of responses it answers with.
///
/// Immutable once built; the position in the sequence lives in `SequenceCursors`, so several
/// sessions can share one stub. Laid out for idle memory (a set can hold 100,000 stubs): the first response
/// is stored inline, everything most stubs leave empty sits behind one optional reference, what the stubs of one load
/// share (the set name, their keys and ids as bytes in one arena, the body files read on first use) sits in their
/// `StubSource`, and the stub itself is the native-response slot of its first response — 120 bytes per plain stub
/// (a 128-byte block of the allocator) and its key's and id's bytes, instead of 336 and four strings.
public final class Stub: NativeResponseSlot {
    // The order of the stored properties is the layout: the flags and the record's offset fill the 7 bytes after
    // `loadedFirst`'s 65, so a plain stub is 120 bytes; one byte more would take the next block size (144). What every
    // request reads (`completed`, `extras`, `firstNative`) comes first and together: at 100,000 stubs asked at random
    // each line of a stub a request reads is a cache miss (and the key's record in the arena one more, where its own
    // strings were before).
    /// The set name, keys, ids and body files read on first use, shared with the stubs loaded with this one.
    private let source: StubSource
    /// The responses completed from `source.deferred` on first use.
    private let completed = DeferredResponses.CompletedCell()
    /// Constraints, request body and later sequence steps; `nil` for a plain one-response stub.
    private let extras: Extras?
    /// The native response of the first step (see `NativeResponseSlot`).
    private let firstNative = NativeResponseStorage()
    /// The first response as loaded: complete, or for a deferred stub its placeholder (no body yet); without its
    /// `stubID` (the id is in the arena: `stamped` adds it to a copy).
    private let loadedFirst: MockResponse
    /// `isStatic` and `isDeferred`.
    private let flags: UInt8
    /// The offset of the stub's key, id and row of deferred bodies in `source.text`.
    private let textOffset: UInt32

    /// Whether the answer never depends on how often the stub was hit (no sequence, no `{{counter}}`); decided once
    /// (for a deferred stub when completed), as it is asked on every request.
    private static let isStaticFlag: UInt8 = 1
    /// Whether some response is completed from `source.deferred` on first use (its body file is read then).
    private static let isDeferredFlag: UInt8 = 2

    /// The mock set this stub came from.
    public var setName: String { source.setName }

    /// The fields a plain stub leaves empty.
    fileprivate final class Extras: Sendable {
        let headerConstraints: [HeaderConstraint]
        let body: Data?
        let bodyContentType: String?
        let laterResponses: [MockResponse]
        let laterSlots: [NativeResponseBox]
        let afterLast: ExhaustionPolicy
        let graphQL: GraphQLOperation?

        init(
            headerConstraints: [HeaderConstraint],
            body: Data?,
            bodyContentType: String?,
            laterResponses: [MockResponse],
            afterLast: ExhaustionPolicy,
            graphQL: GraphQLOperation? = nil
        ) {
            self.graphQL = graphQL
            self.headerConstraints = headerConstraints
            self.body = body
            self.bodyContentType = bodyContentType
            self.laterResponses = laterResponses
            self.laterSlots = laterResponses.map { _ in NativeResponseBox() }
            self.afterLast = afterLast
        }
    }

    /// - Precondition: `responses` is not empty (the loaders report an empty list as a file error).
    public convenience init(
        id: String,
        setName: String,
        key: RequestKey,
        headerConstraints: [HeaderConstraint] = [],
        body: Data? = nil,
        bodyContentType: String? = nil,
        responses: [MockResponse],
        afterLast: ExhaustionPolicy = .repeatLast
    ) {
        self.init(
            id: id,
            source: StubSource(setName: setName),
            key: key,
            headerConstraints: headerConstraints,
            body: body,
            bodyContentType: bodyContentType,
            responses: responses,
            afterLast: afterLast,
            deferredRow: nil
        )
    }

    /// A stub some of whose `responses` are placeholders completed from row `deferredRow` of `source.deferred` on
    /// first use (`nil`: every response is complete).
    init(
        id: String,
        source: StubSource,
        key: RequestKey,
        headerConstraints: [HeaderConstraint],
        body: Data?,
        bodyContentType: String?,
        responses: [MockResponse],
        afterLast: ExhaustionPolicy,
        deferredRow: UInt32?,
        sharing extrasCache: ConstraintExtrasCache? = nil,
        graphQL: GraphQLOperation? = nil
    ) {
        precondition(!responses.isEmpty, "a stub needs at least one response")
        precondition(deferredRow == nil || source.deferred != nil, "a deferred stub needs its source's body files")
        self.source = source
        self.textOffset = source.text.append(key: key, id: id, deferredRow: deferredRow)
        var stamped = responses
        for index in stamped.indices { stamped[index].stubID = id }
        var first = responses[0]
        first.stubID = nil
        self.loadedFirst = first
        // Sorted already when the loader shares one list among many stubs: kept as is, not copied.
        let isSorted = zip(headerConstraints, headerConstraints.dropFirst()).allSatisfy { $0.name <= $1.name }
        let constraints = isSorted ? headerConstraints : headerConstraints.sorted { $0.name < $1.name }
        let onlyConstraints =
            body == nil && bodyContentType == nil && responses.count == 1 && afterLast == .repeatLast && graphQL == nil
        if constraints.isEmpty, onlyConstraints {
            self.extras = nil
        } else if onlyConstraints, let extrasCache {
            self.extras = extrasCache.extras(for: constraints)
        } else {
            self.extras = Extras(
                headerConstraints: constraints,
                body: body,
                bodyContentType: bodyContentType,
                laterResponses: Array(stamped.dropFirst()),
                afterLast: afterLast,
                graphQL: graphQL
            )
        }
        self.flags =
            (Stub.isStatic(first: responses[0], count: responses.count, afterLast: afterLast) ? Stub.isStaticFlag : 0)
            | (deferredRow == nil ? 0 : Stub.isDeferredFlag)
    }

    private static func isStatic(first: MockResponse, count: Int, afterLast: ExhaustionPolicy) -> Bool {
        // Pushes are rendered per request (their templates read it), so a stub with `emit` is never answered as loaded.
        count == 1 && afterLast != .notFound && first.template == nil && first.unjustified == nil
            && first.emissions == nil
            && first.dateShift == nil
    }

    /// The first response of the sequence (for most stubs the only one).
    public var firstResponse: MockResponse {
        guard isDeferred else { return stamped(loadedFirst) }
        return completedResponses().first
    }

    /// Whether some response is completed on first use (its body file is read then).
    @inline(__always) private var isDeferred: Bool { flags & Stub.isDeferredFlag != 0 }

    @inline(__always) private var loadedIsStatic: Bool { flags & Stub.isStaticFlag != 0 }

    /// `response` with this stub's id.
    private func stamped(_ response: MockResponse) -> MockResponse {
        var response = response
        response.stubID = id
        return response
    }

    /// The stub's key, id and row of deferred bodies, read in place.
    @inline(__always)
    private var text: StubTextArena.Record { source.text.record(at: textOffset) }

    /// The completed responses of a deferred stub, completed now if this is the first use.
    @inline(__always)
    private func completedResponses() -> DeferredResponses.Completed {
        if let done = completed.load() { return done }
        return source.deferred!.complete(row: text.deferredRow, loadedResponses, into: completed)
    }

    /// The first response when the answer never depends on how often the stub was hit (no sequence, no
    /// `{{counter}}`), else `nil`. Asked on every request: one look at a deferred stub's completed responses.
    var staticFirstResponse: MockResponse? {
        guard isDeferred else { return loadedIsStatic ? stamped(loadedFirst) : nil }
        let first = completedResponses().first
        // A body file that could not be read answers 500 and is tried again next time: never served as loaded.
        guard completed.load() != nil else { return nil }
        return Stub.isStatic(first: first, count: responseCount, afterLast: afterLast) ? first : nil
    }

    /// Whether the stub answers with its first response exactly as loaded (static and plain: `MockEngine.asLoaded`
    /// gives `.stub`), and will for its whole life: `false` while a deferred body is unread or failed to read.
    ///
    /// Asked on every request before anything else of the response, so it reads flags in place and copies no
    /// response: a copy retained the headers and body of a stub not in cache (at 100,000 stubs asked at random,
    /// 4% of a request's time went to those retains).
    @inline(__always)
    var answersAsLoadedForGood: Bool {
        // Only a deferred stub publishes completed responses. A plain response has no template, pushes, date shift or
        // unjustified marker (`isStatic`'s other checks).
        if completed.isPublishedWithPlainFirst { return responseCount == 1 && afterLast != .notFound }
        return !isDeferred && loadedIsStatic && loadedFirst.isPlain
    }

    /// The responses as loaded (placeholders for deferred bodies).
    private var loadedResponses: [MockResponse] { [stamped(loadedFirst)] + (extras?.laterResponses ?? []) }

    /// Unique within its mock set; shown in logs and near misses. Made from the arena's bytes when asked (the log line
    /// writes them as they are: `withID`).
    public var id: String { text.withID { String(decoding: $0, as: UTF8.self) } }

    /// Calls `body` with the id's UTF-8 bytes, valid during the call: no string is made. Not generic, so that a
    /// caller in another module (the server's log line) calls code specialised here.
    public func withID(_ body: (UnsafeRawBufferPointer) -> Void) {
        text.withID(body)
    }

    /// The request key the stub answers: method, canonical path and query, and host (`""` for any). Made from the
    /// arena's bytes when asked; routing compares the bytes in place (`hasKey`).
    public var key: RequestKey {
        let text = self.text
        func string(_ bytes: UnsafeRawBufferPointer) -> String { String(decoding: bytes, as: UTF8.self) }
        return RequestKey(
            method: string(text.method),
            normalizedPath: string(text.path),
            normalizedQuery: string(text.query),
            host: string(text.host)
        )
    }

    /// Whether the stub's key is `key`, compared byte for byte in place.
    @inline(__always)
    func hasKey(_ key: RequestKey) -> Bool {
        let text = self.text
        return Stub.equal(text.path, key.path) && Stub.equal(text.method, key.method)
            && Stub.equal(text.query, key.query)
            && Stub.equal(text.host, key.host)
    }

    /// Whether `other` has the same key, compared in place.
    func hasSameKey(as other: Stub) -> Bool {
        let (mine, theirs) = (text, other.text)
        return ByteKey.sameBytes(mine.path, theirs.path) && ByteKey.sameBytes(mine.method, theirs.method)
            && ByteKey.sameBytes(mine.query, theirs.query) && ByteKey.sameBytes(mine.host, theirs.host)
    }

    /// `key.routeHash`, from the bytes in place.
    var routeHash: UInt64 {
        let text = self.text
        return RequestKey.routeHash(method: text.method, path: text.path, query: text.query, host: text.host)
    }

    /// The key's host (`""` for a stub answering any host).
    var host: String {
        let bytes = text.host
        return bytes.isEmpty ? "" : String(decoding: bytes, as: UTF8.self)
    }

    /// Whether the key's method is `method`.
    func hasMethod(_ method: String) -> Bool { Stub.equal(text.method, method) }

    @inline(__always)
    private static func equal(_ bytes: UnsafeRawBufferPointer, _ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { ByteKey.sameBytes(bytes, UnsafeRawBufferPointer($0)) }
            ?? bytes.elementsEqual(text.utf8)
    }
    /// Header requirements, sorted by name.
    public var headerConstraints: [HeaderConstraint] { extras?.headerConstraints ?? [] }
    /// Canonical request body (see `BodyCanonicalizer`) when the body is part of the key.
    public var body: Data? { extras?.body }
    /// The media type `body` was canonicalised as (`application/json`, a form…), for re-normalising it.
    public var bodyContentType: String? { extras?.bodyContentType }
    /// The GraphQL operation the stub answers (`request.graphql`): matched by operation and variables, not by key
    /// body; `nil` for other stubs.
    var graphQL: GraphQLOperation? { extras?.graphQL }
    /// What happens after the last response of the sequence.
    public var afterLast: ExhaustionPolicy { extras?.afterLast ?? .repeatLast }
    /// How many responses the sequence has (at least one).
    public var responseCount: Int { 1 + (extras?.laterResponses.count ?? 0) }
    /// The response of sequence step `step` (0-based, below `responseCount`).
    public func response(_ step: Int) -> MockResponse {
        guard isDeferred else { return step == 0 ? stamped(loadedFirst) : extras!.laterResponses[step - 1] }
        let completed = completedResponses()
        return step == 0 ? completed.first : completed.later[step - 1]
    }
    /// The response sequence; never empty.
    public var responses: [MockResponse] {
        guard isDeferred else { return loadedResponses }
        let completed = completedResponses()
        return [completed.first] + completed.later
    }

    /// The native-response slot of step `step`, for a step served unchanged.
    /// While a deferred body file cannot be read, a slot of the request's own: the 500 it answers is never kept for
    /// later requests (`loadedStatus` is the stub's own status, and the file may be back by then).
    func nativeSlot(_ step: Int) -> any NativeResponseSlot {
        if isDeferred, completed.load() == nil { return NativeResponseBox() }
        return step == 0 ? self : extras!.laterSlots[step - 1]
    }

    /// The first response's status as loaded: the status of the native response once one is stored (it is built
    /// only from a completed first response, whose status a deferred body never changes), without looking at the
    /// completed responses.
    public var loadedStatus: Int { loadedFirst.status }

    public func load() -> UnsafeMutableRawPointer? { firstNative.load() }

    /// Asks the cache for the first step's native response while the engine finishes the request: the server reads
    /// it and writes its reference count when it queues it, and at 100,000 stubs asked at random it is out of every
    /// cache by then. 512 bytes from its address, libmicrohttpd's response object and what was allocated right after
    /// it (a hint only: nothing depends on that layout; 192 bytes measured the same).
    @inline(__always)
    func prefetchNativeResponse() {
        if let response = firstNative.load() { Prefetch.forWrite(response, bytes: 512) }
    }

    public func store(_ pointer: UnsafeMutableRawPointer, release: NativeResponseRelease) -> UnsafeMutableRawPointer {
        firstNative.store(pointer, release: release)
    }

    deinit {
        firstNative.releaseStored()
        completed.releaseStored()
    }

    /// How many constraints beyond the key this stub imposes; more specific stubs win.
    var specificity: Int {
        guard let extras else { return 0 }
        return extras.headerConstraints.count + (extras.body == nil && extras.graphQL == nil ? 0 : 1)
    }

    /// Whether every header constraint holds for `headers`.
    @inline(__always)  // called on a stub every worker thread shares: a call retained it around the check
    func acceptsHeaders(_ headers: HTTPHeaders) -> Bool {
        guard let extras else { return true }
        return extras.headerConstraints.allSatisfy { $0.isSatisfied(by: headers) }
    }

    /// How well this stub's `Accept` constraint fits `headers` (`HeaderConstraint.preference(in:)`); -1 without one.
    func acceptPreference(_ headers: HTTPHeaders) -> Double {
        extras?.headerConstraints.first { $0.name == "accept" }?.preference(in: headers) ?? -1
    }

    /// Identity for layering: a later set's stub with the same identity replaces an earlier one.
    struct Identity: Hashable {
        let key: RequestKey
        let headerConstraints: [HeaderConstraint]
        let body: Data?
        let graphQL: String?
    }

    var identity: Identity {
        Identity(key: key, headerConstraints: headerConstraints, body: body, graphQL: graphQL?.key)
    }
}

/// Hands out one `Stub.Extras` per list of header constraints, for stubs that differ from a plain stub only by
/// their constraints: an imported set's stubs mostly carry the same `Accept: application/json`, and one such box
/// per stub was 10 MiB of a 100,000-stub set's idle memory. Used by one loading thread; the boxes it hands out
/// are immutable and shared freely.
final class ConstraintExtrasCache {
    private var byConstraints: [[HeaderConstraint]: Stub.Extras] = [:]
    /// The box handed out last: consecutive stubs nearly always share it, and hashing their list for each was 4% of a
    /// 100,000-stub start.
    private var last: Stub.Extras?

    init() {}

    fileprivate func extras(for constraints: [HeaderConstraint]) -> Stub.Extras {
        if let last, last.headerConstraints == constraints { return last }
        let found = sharedExtras(for: constraints)
        last = found
        return found
    }

    private func sharedExtras(for constraints: [HeaderConstraint]) -> Stub.Extras {
        if let shared = byConstraints[constraints] { return shared }
        let created = Stub.Extras(
            headerConstraints: constraints,
            body: nil,
            bodyContentType: nil,
            laterResponses: [],
            afterLast: .repeatLast
        )
        byConstraints[constraints] = created
        return created
    }
}
