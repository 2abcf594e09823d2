import Foundation

/// What a gated step answers (a recorded 304, a recorded 206 of part of a representation, a body not recorded;
/// see `MockResponse.Unjustified`): itself, the stub's whole representation, or a miss that says why.
extension MockEngine {
    enum GatedAnswer: Equatable {
        /// The step as recorded (the 304; the 206, cut to the request's ranges on delivery).
        case asRecorded
        /// The stub's step holding the whole representation.
        case representation(Int)
        /// The step's body, the client's cached copy a recorded 304 confirmed, as `200` with this media type.
        case cachedCopy(String)
        case miss(String)
    }

    /// - A 304 answers a conditional request whose validator is the recorded request's (`validators`), the 304's own
    ///   `ETag`/`Last-Modified`, or the representation's (RFC 9110 §13.1.2, §13.1.3): the client's copy is the one
    ///   the server confirmed. A conditional request with another validator has some other copy, and a plain
    ///   request has none: both get the whole representation, else a miss.
    /// - A partial 206 answers a `GET` whose `Range` selects bytes the recording holds (§14.2); any other request
    ///   gets the whole representation, else a miss. A 206 never answers a request without `Range`.
    static func gatedStep(
        _ gate: MockResponse.Unjustified,
        _ response: MockResponse,
        _ request: HTTPRequest,
        stub: Stub
    ) -> GatedAnswer {
        let fallback: GatedAnswer =
            gate.representation.map { .representation($0) } ?? gate.cachedCopy.map { .cachedCopy($0) }
            ?? .miss(gate.reason)
        switch gate.answers {
        case .nothing:
            return .miss(gate.reason)
        case .notModified(let ifNoneMatch, let ifModifiedSince):
            guard ConditionalRequest.isConditional(request) else { return fallback }
            if ConditionalRequest.isNotModified(request, response)
                || ConditionalRequest.matchesRecorded(
                    request,
                    ifNoneMatch: ifNoneMatch,
                    ifModifiedSince: ifModifiedSince
                )
                || gate.representation.map({ ConditionalRequest.isNotModified(request, stub.response($0)) }) == true
            {
                return .asRecorded
            }
            if gate.representation == nil, gate.cachedCopy == nil {
                let recorded = [
                    ifNoneMatch.map { "If-None-Match: \($0)" }, ifModifiedSince.map { "If-Modified-Since: \($0)" },
                ]
                .compactMap { $0 }.joined(separator: ", ")
                return .miss(
                    gate.reason
                        + (recorded.isEmpty
                            ? "; this request's validator is not the response's"
                            : "; this request's validator is not the recorded one (\(recorded))")
                )
            }
            return fallback
        case .partialContent:
            guard request.method == "GET", request.headers.contains("range"),
                RangeResponse.answer(request, response)?.status == 206
            else { return fallback }
            return .asRecorded
        }
    }

    /// A recorded 304's step as the answer a cache gives from its stored copy (RFC 9111 §4.3.4): `200`, the 304's
    /// header fields, `Content-Type` from the recorded copy where the 304 has none, and the copy as the body.
    static func cachedCopy(_ notModified: MockResponse, mediaType: String) -> MockResponse {
        var response = notModified
        response.status = 200
        response.unjustified = nil
        if response.headers["content-type"] == nil, !mediaType.isEmpty {
            response.headers.add(name: "Content-Type", value: mediaType)
        }
        return response
    }
}
