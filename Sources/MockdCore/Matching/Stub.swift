public import Foundation
public import MockdFormat
import MockdPlatform

/// A request matcher and the sequence of responses it answers with.
///
/// Immutable once built; the position in the sequence lives in `SequenceCursors`, so several
/// sessions can share one stub. Laid out for idle memory (a set can hold 100,000 stubs): the first response
/// is stored inline, everything most stubs leave empty sits behind one optional reference, and the stub
/// itself is the native-response slot of its first response — 192 bytes per plain stub instead of 336.
public final class Stub: NativeResponseSlot {
    /// The mock set this stub came from.
    public let setName: String
    public let key: RequestKey
    /// Constraints, request body and later sequence steps; `nil` for a plain one-response stub.
    private let extras: Extras?
    /// The native response of the first step (see `NativeResponseSlot`).
    private let firstNative = NativeResponseStorage()
    /// The first response of the sequence (for most stubs the only one).
    public let firstResponse: MockResponse
    /// Whether the answer never depends on how often the stub was hit (no sequence, no `{{counter}}`);
    /// decided once, as it is asked on every request.
    let isStatic: Bool

    /// The fields a plain stub leaves empty.
    private final class Extras: Sendable {
        let headerConstraints: [HeaderConstraint]
        let body: Data?
        let bodyContentType: String?
        let laterResponses: [MockResponse]
        let laterSlots: [NativeResponseBox]
        let afterLast: ExhaustionPolicy

        init(
            headerConstraints: [HeaderConstraint],
            body: Data?,
            bodyContentType: String?,
            laterResponses: [MockResponse],
            afterLast: ExhaustionPolicy
        ) {
            self.headerConstraints = headerConstraints
            self.body = body
            self.bodyContentType = bodyContentType
            self.laterResponses = laterResponses
            self.laterSlots = laterResponses.map { _ in NativeResponseBox() }
            self.afterLast = afterLast
        }
    }

    /// - Precondition: `responses` is not empty (the loaders report an empty list as a file error).
    public init(
        id: String,
        setName: String,
        key: RequestKey,
        headerConstraints: [HeaderConstraint] = [],
        body: Data? = nil,
        bodyContentType: String? = nil,
        responses: [MockResponse],
        afterLast: ExhaustionPolicy = .repeatLast
    ) {
        precondition(!responses.isEmpty, "a stub needs at least one response")
        self.setName = setName
        self.key = key
        var stamped = responses
        for index in stamped.indices { stamped[index].stubID = id }
        self.firstResponse = stamped[0]
        let constraints = headerConstraints.sorted { $0.name < $1.name }
        if constraints.isEmpty, body == nil, bodyContentType == nil, responses.count == 1, afterLast == .repeatLast {
            self.extras = nil
        } else {
            self.extras = Extras(
                headerConstraints: constraints,
                body: body,
                bodyContentType: bodyContentType,
                laterResponses: Array(stamped.dropFirst()),
                afterLast: afterLast
            )
        }
        self.isStatic =
            responses.count == 1 && afterLast != .notFound && responses[0].template == nil
            && responses[0].unjustified == nil
    }

    /// Unique within its mock set; shown in logs and near misses. Kept once, in the responses' `stubID`.
    public var id: String { firstResponse.stubID ?? "" }
    /// Header requirements, sorted by name.
    public var headerConstraints: [HeaderConstraint] { extras?.headerConstraints ?? [] }
    /// Canonical request body (see `BodyCanonicalizer`) when the body is part of the key.
    public var body: Data? { extras?.body }
    /// The media type `body` was canonicalised as (`application/json`, a form…), for re-normalising it.
    public var bodyContentType: String? { extras?.bodyContentType }
    /// What happens after the last response of the sequence.
    public var afterLast: ExhaustionPolicy { extras?.afterLast ?? .repeatLast }
    /// How many responses the sequence has (at least one).
    public var responseCount: Int { 1 + (extras?.laterResponses.count ?? 0) }
    /// The response of sequence step `step` (0-based, below `responseCount`).
    public func response(_ step: Int) -> MockResponse { step == 0 ? firstResponse : extras!.laterResponses[step - 1] }
    /// The response sequence; never empty.
    public var responses: [MockResponse] { [firstResponse] + (extras?.laterResponses ?? []) }

    /// The native-response slot of step `step`, for a step served unchanged.
    func nativeSlot(_ step: Int) -> any NativeResponseSlot { step == 0 ? self : extras!.laterSlots[step - 1] }

    public func load() -> UnsafeMutableRawPointer? { firstNative.load() }

    public func store(_ pointer: UnsafeMutableRawPointer, release: NativeResponseRelease) -> UnsafeMutableRawPointer {
        firstNative.store(pointer, release: release)
    }

    deinit { firstNative.releaseStored() }

    /// How many constraints beyond the key this stub imposes; more specific stubs win.
    var specificity: Int {
        guard let extras else { return 0 }
        return extras.headerConstraints.count + (extras.body == nil ? 0 : 1)
    }

    /// Whether every header constraint holds for `headers`.
    @inline(__always)  // called on a stub every worker thread shares: a call retained it around the check
    func acceptsHeaders(_ headers: HTTPHeaders) -> Bool {
        guard let extras else { return true }
        return extras.headerConstraints.allSatisfy { $0.isSatisfied(by: headers) }
    }

    /// Identity for layering: a later set's stub with the same identity replaces an earlier one.
    struct Identity: Hashable {
        let key: RequestKey
        let headerConstraints: [HeaderConstraint]
        let body: Data?
    }

    var identity: Identity { Identity(key: key, headerConstraints: headerConstraints, body: body) }
}
