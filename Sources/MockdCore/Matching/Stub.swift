public import Foundation

/// A request matcher and the sequence of responses it answers with.
///
/// Immutable once built; the position in the sequence lives in `SequenceCursors`, so several
/// sessions can share one stub.
public final class Stub: Sendable {
    /// Unique within its mock set; shown in logs and near misses.
    public let id: String
    /// The mock set this stub came from.
    public let setName: String
    public let key: RequestKey
    /// Header requirements, sorted by name.
    public let headerConstraints: [HeaderConstraint]
    /// Canonical request body (see `BodyCanonicalizer`) when the body is part of the key.
    public let body: Data?
    /// The media type `body` was canonicalised as (`application/json`, a form…), for re-normalising it.
    public let bodyContentType: String?
    /// The response sequence; never empty.
    public let responses: [MockResponse]
    /// The native-response slot of the first step, and of the others (none for a single response, the common
    /// case: a one-element array was 48 bytes per stub of idle memory). Read through `nativeSlot(_:)`.
    private let firstSlot = NativeResponseSlot()
    private let laterSlots: [NativeResponseSlot]

    /// The native-response slot of step `step`, for a step served unchanged.
    func nativeSlot(_ step: Int) -> NativeResponseSlot { step == 0 ? firstSlot : laterSlots[step - 1] }
    public let afterLast: ExhaustionPolicy

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
        self.id = id
        self.setName = setName
        self.key = key
        self.headerConstraints = headerConstraints.sorted { $0.name < $1.name }
        self.body = body
        self.bodyContentType = bodyContentType
        self.afterLast = afterLast
        self.responses = responses.map { response in
            var response = response
            response.stubID = id
            return response
        }
        self.laterSlots = responses.dropFirst().map { _ in NativeResponseSlot() }
        self.isStatic = responses.count == 1 && afterLast != .notFound && responses[0].template == nil
    }

    /// Whether the answer never depends on how often the stub was hit (no sequence, no `{{counter}}`);
    /// decided once, as it is asked on every request.
    let isStatic: Bool

    /// How many constraints beyond the key this stub imposes; more specific stubs win.
    var specificity: Int { headerConstraints.count + (body == nil ? 0 : 1) }

    /// Whether every header constraint holds for `headers`.
    func acceptsHeaders(_ headers: HTTPHeaders) -> Bool {
        headerConstraints.allSatisfy { $0.isSatisfied(by: headers) }
    }

    /// Identity for layering: a later set's stub with the same identity replaces an earlier one.
    struct Identity: Hashable {
        let key: RequestKey
        let headerConstraints: [HeaderConstraint]
        let body: Data?
    }

    var identity: Identity { Identity(key: key, headerConstraints: headerConstraints, body: body) }
}
