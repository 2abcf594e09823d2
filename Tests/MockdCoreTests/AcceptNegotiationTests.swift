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
}
