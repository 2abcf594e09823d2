import Foundation
import MockdCore
import Testing

/// `HTTPHeaders.mayContain(anyOf:)` and `contains(_: StaticString)`: the one-test checks the engine makes on every
/// request for `Range` and `Origin`.
@Suite
struct HeaderNameSignatureTests {
    static let rangeOrOrigin = HTTPHeaders.NameSignature("range", "origin")

    @Test func absentNamesAreRuledOutAndPresentOnesAreFound() {
        let plain = PackedHeadersTests.packed([("Host", "127.0.0.1"), ("Accept-Encoding", "identity")])
        #expect(!plain.mayContain(anyOf: Self.rangeOrOrigin))
        #expect(!plain.contains("range"))
        let ranged = PackedHeadersTests.packed([("Host", "127.0.0.1"), ("RANGE", "bytes=0-1")])
        #expect(ranged.mayContain(anyOf: Self.rangeOrOrigin))
        #expect(ranged.contains("range"))
        #expect(!ranged.contains("origin"))
        let origin = PackedHeadersTests.packed([("Origin", "http://localhost:3000")])
        #expect(origin.mayContain(anyOf: Self.rangeOrOrigin))
        #expect(origin.contains("origin"))
        // Unpacked headers cannot rule anything out by signature; `contains` still answers exactly.
        let fields = HTTPHeaders([("Accept", "*/*")])
        #expect(fields.mayContain(anyOf: Self.rangeOrOrigin))
        #expect(!fields.contains("range"))
    }
}
