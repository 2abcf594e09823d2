import Testing

@testable import MockdCore

/// `AcceptNegotiation.accepts` on one media range (the shortcut) and on lists (the general path), RFC 9110 §12.5.1.
struct AcceptNegotiationTests {
    static let cases: [(accept: String?, accepted: Bool)] = [
        (nil, true), ("", true), ("  ", true), ("application/json", true), (" APPLICATION/JSON ", true),
        ("application/*", true), ("*/*", true), ("*", true), ("text/html", false), ("text/*", false),
        ("application/json;q=0", false), ("application/json; q=0.5", true), ("text/html, */*;q=0.1", true),
        ("text/html, application/*;q=0", false), ("image/webp,image/*;q=0.8", false), ("application/xml,", false),
    ]

    @Test(arguments: cases) func acceptsJSON(_ example: (accept: String?, accepted: Bool)) {
        #expect(AcceptNegotiation.accepts(example.accept, mediaType: "application/json") == example.accepted)
    }

    /// The `q` a request gives a type, for choosing between recorded variants (RFC 9110 §12.5.1).
    @Test(arguments: [
        (nil as String?, 1.0), ("text/csv", 0), ("application/json;q=0.4, */*;q=0.1", 0.4),
        ("*/*;q=0.2", 0.2), ("application/*;q=0.7, application/json;q=0.3", 0.3), ("text/*, */*;q=0", 0),
    ])
    func qualityOfJSON(_ accept: String?, _ q: Double) {
        #expect(AcceptNegotiation.quality(accept, mediaType: "application/json") == q)
    }

    /// The `Accept` a stub was recorded with satisfies it whatever the server answered with; preference ranks it
    /// above negotiated matches.
    @Test func theRecordedAcceptSatisfiesItsOwnConstraint() {
        let constraint = HeaderConstraint(
            name: "accept",
            value: "application/vnd.github+json",
            offeredType: "application/json"
        )
        let recorded = HTTPHeaders([("Accept", " application/vnd.github+json ")])
        #expect(constraint.isSatisfied(by: recorded))
        #expect(constraint.preference(in: recorded) == 2)
        #expect(constraint.isSatisfied(by: HTTPHeaders([("Accept", "*/*;q=0.5")])))
        #expect(constraint.preference(in: HTTPHeaders([("Accept", "*/*;q=0.5")])) == 0.5)
        #expect(!constraint.isSatisfied(by: HTTPHeaders([("Accept", "application/vnd.github.v3+json")])))
    }
}
