import Foundation
import Testing

@testable import MockdCore

/// `IdentifierURLs`: which recorded URLs in a body are identifiers compared as constants (kept as recorded) and which
/// are links a client fetches (rewritten to the mock), per format.
struct IdentifierURLTests {
    /// The URLs starting at the offsets found, in body order.
    static func identifiers(_ body: String, _ mimeType: String? = nil) -> [String] {
        let data = Data(body.utf8)
        return IdentifierURLs.offsets(in: data, mimeType: mimeType).sorted().map { offset in
            let rest = data[offset...]
            let end =
                rest.firstIndex { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: " ") }
                ?? rest.endIndex
            return String(decoding: data[offset..<end], as: UTF8.self)
        }
    }

    @Test func problemDetailsKeepTypeAndInstanceNotTheirLinks() {
        #expect(
            Self.identifiers(
                #"{"type":"https://a.test/p/1","title":"T","instance":"https://a.test/i/1","help":"https://a.test/h"}"#
            ) == ["https://a.test/p/1", "https://a.test/i/1"]
        )
        // Without a problem member, `type` is data like any other (a link here).
        #expect(Self.identifiers(#"{"type":"https://a.test/kinds/1","name":"x"}"#) == [])
        // An application/problem+json body needs no other member.
        #expect(
            Self.identifiers(#"{"type":"https://a.test/p/2"}"#, "application/problem+json") == ["https://a.test/p/2"]
        )
    }

    @Test func jsonSchemaAndJSONLD() {
        #expect(
            Self.identifiers(
                #"{"$schema":"https://a.test/s","$id":"https://a.test/id","$ref":"https://a.test/defs","items":[{"@context":["https://a.test/c1",{"x":{"@id":"https://a.test/c2"}}],"@id":"https://a.test/o","@type":"https://a.test/T","url":"https://a.test/page"}]}"#
            ) == [
                "https://a.test/s", "https://a.test/id", "https://a.test/c1", "https://a.test/c2", "https://a.test/o",
                "https://a.test/T",
            ]
        )
        // A draft-04 schema's `id`, beside `$schema`; an `id` elsewhere is data.
        #expect(
            Self.identifiers(#"{"id":"https://a.test/d4","$schema":"http://json-schema.org/draft-04/schema#"}"#) == [
                "https://a.test/d4", "http://json-schema.org/draft-04/schema#",
            ]
        )
        #expect(Self.identifiers(#"{"id":"https://a.test/users/1"}"#) == [])
    }

    @Test func xmlNamespacesAtomIdsAndHTMLJSONLD() {
        #expect(
            Self.identifiers(
                #"<f xmlns="https://a.test/ns" xmlns:x="https://a.test/x" xsi:schemaLocation="https://a.test/ns https://a.test/ns.xsd"><link href="https://a.test/l"/></f>"#
            ) == ["https://a.test/ns", "https://a.test/x", "https://a.test/ns"]
        )
        #expect(
            Self.identifiers(
                #"<feed xmlns="http://www.w3.org/2005/Atom"><id>https://a.test/feed</id><entry><id>https://a.test/e/1</id></entry></feed>"#
            ) == ["http://www.w3.org/2005/Atom", "https://a.test/feed", "https://a.test/e/1"]
        )
        #expect(
            Self.identifiers(
                #"<rss><guid isPermaLink="false">https://a.test/g/1</guid><guid>https://a.test/g/2</guid></rss>"#
            ) == ["https://a.test/g/1"]
        )
        #expect(
            Self.identifiers(
                #"<div itemscope itemtype="https://schema.org/Product"><a href="https://a.test/p">p</a></div><script type="application/ld+json">{"@id":"https://a.test/#org","logo":"https://a.test/l.png"}</script>"#
            ) == ["https://schema.org/Product", "https://a.test/#org"]
        )
    }

    @Test func malformedJSONKeepsWhatWasFoundAndNeverCrashes() {
        #expect(Self.identifiers(#"{"$schema":"https://a.test/s","x":[1,2"#) == ["https://a.test/s"])
        #expect(Self.identifiers(String(repeating: "[", count: 10_000)) == [])
        #expect(Self.identifiers(#"{"@context":"#) == [])
    }
}
