import Foundation
import Testing

@testable import MockdCore

/// Request headers as the server bridge packs them (`HTTPHeaders.Packer`): lookups, listing, and the
/// spill to the heap when they outgrow the stack buffer.
@Suite
struct PackedHeadersTests {
    static func packed(_ pairs: [(String, String)], reusing previous: HTTPHeaders = HTTPHeaders()) -> HTTPHeaders {
        HTTPHeaders(
            packing: { packer in
                for (name, value) in pairs {
                    Array(name.utf8).withUnsafeBytes { nameBytes in
                        Array(value.utf8).withUnsafeBytes { valueBytes in
                            packer.append(name: nameBytes, value: valueBytes)
                        }
                    }
                }
            },
            reusing: previous
        )
    }

    /// A keep-alive request's fields are first only compared with the previous request's: a whole repeat shares its
    /// bytes; one that repeats them only in part (a field more or less, a value changed after fields that matched, a
    /// previous request over the stack buffer) has its own fields, every one of them.
    @Test func fieldsRepeatingThePreviousRequestShareItsBytesAndOnlyThen() {
        let base = [("Host", "127.0.0.1:8080"), ("Accept-Encoding", "identity"), ("Accept", "application/json")]
        let first = Self.packed(base)
        let repeated = Self.packed(base, reusing: first)
        #expect(repeated.sharesBytes(with: first))
        #expect(repeated.fields == first.fields)
        let cases: [[(String, String)]] = [
            base + [("X-More", "1")],
            Array(base.dropLast()),
            [base[0], base[1], ("Accept", "application/jsoN")],
            [base[0], ("Accept-Encoding", "identitY"), base[2]],
            [("Host", "127.0.0.1:8081")] + base.dropFirst(),
            [base[1], base[0], base[2]],
            [],
        ]
        for pairs in cases {
            let headers = Self.packed(pairs, reusing: first)
            #expect(!headers.sharesBytes(with: first), "\(pairs)")
            #expect(headers.fields == HTTPHeaders(pairs).fields, "\(pairs)")
            #expect(headers["x-more"] == pairs.first { $0.0 == "X-More" }?.1)
        }
        // Previous fields over the stack buffer, repeated, then one changed at the end.
        let large = (0..<30).map { ("X-Field-\($0)", String(repeating: "v", count: 60)) }
        let big = Self.packed(large)
        #expect(Self.packed(large, reusing: big).sharesBytes(with: big))
        let changed = Array(large.dropLast()) + [("X-Field-29", String(repeating: "w", count: 60))]
        let other = Self.packed(changed, reusing: big)
        #expect(!other.sharesBytes(with: big))
        #expect(other.fields == HTTPHeaders(changed).fields)
        #expect(other["x-field-29"] == String(repeating: "w", count: 60))
        #expect(Self.packed(changed + [("X-Last", "1")], reusing: big).fields.count == 31)
    }

    @Test func looksUpNamesCaseInsensitivelyAndListsFieldsInOrder() {
        let pairs = [
            ("Host", "127.0.0.1:8080"), ("Accept", "*/*"), ("X-Trace", "a"), ("x-trace", "b"),
            ("Cookie", "mockd_session=s1"),
        ]
        let headers = Self.packed(pairs)
        #expect(headers["host"] == "127.0.0.1:8080")
        #expect(headers["ACCEPT"] == "*/*")
        #expect(headers["x-trace"] == "a")
        #expect(headers.values(named: "X-TRACE") == ["a", "b"])
        #expect(headers["content-length"] == nil)
        #expect(headers.values(named: "content-length").isEmpty)
        #expect(headers["x-mockd-session"] == nil)
        #expect(headers.count == 5)
        #expect(headers.fields.map(\.name) == ["Host", "Accept", "X-Trace", "x-trace", "Cookie"])
        #expect(headers.fields.map(\.value) == ["127.0.0.1:8080", "*/*", "a", "b", "mockd_session=s1"])
        #expect(headers == HTTPHeaders(pairs))
    }

    @Test func emptyValuesAndNoHeaders() {
        let headers = Self.packed([("X-Empty", "")])
        #expect(headers["x-empty"] == "")
        #expect(headers.count == 1)
        let none = Self.packed([])
        #expect(none.isEmpty)
        #expect(none["host"] == nil)
        #expect(none.fields.isEmpty)
    }

    @Test func headersLargerThanTheStackBufferSpillToTheHeap() {
        // 40 fields of 100-byte values: well over the 1,024-byte stack buffer.
        let pairs =
            (0..<40).map {
                ("X-Field-\($0)", String(repeating: Character(UnicodeScalar(UInt8(65 + $0 % 26))), count: 100))
            }
            + [("X-Mockd-Session", "deep")]
        let headers = Self.packed(pairs)
        #expect(headers.count == 41)
        #expect(headers["x-field-0"] == String(repeating: "A", count: 100))
        #expect(headers["X-FIELD-39"] == String(repeating: "N", count: 100))
        #expect(headers["x-mockd-session"] == "deep")
        #expect(headers.fields.map(\.name) == pairs.map(\.0))
    }

    @Test func namesLongerThan65535BytesAreKeptWhole() {
        let name = "X-" + String(repeating: "n", count: 70_000)
        let headers = Self.packed([(name, "v"), ("Host", "h")])
        #expect(headers.fields.first?.name.utf8.count == 70_002)
        #expect(headers[name] == "v")
        #expect(headers["host"] == "h")
    }

    @Test func editsTurnPackedHeadersIntoFields() {
        var headers = Self.packed([("Host", "h"), ("Accept", "a")])
        headers.add(name: "Accept", value: "b")
        #expect(headers.values(named: "accept") == ["a", "b"])
        headers.remove(name: "ACCEPT")
        #expect(headers.fields == [HTTPHeaders.Field(name: "Host", value: "h")])
    }

    @Test func invalidUTF8IsRepairedAsStringsFromCDo() {
        let headers = HTTPHeaders { packer in
            let name = Array("X-Bytes".utf8)
            let value: [UInt8] = [0x61, 0xFF, 0x62]
            name.withUnsafeBytes { nameBytes in value.withUnsafeBytes { packer.append(name: nameBytes, value: $0) } }
        }
        #expect(headers["x-bytes"] == "a\u{FFFD}b")
    }

    /// `hasOnlyValue(named:equalTo:)`, the recorded `Accept`'s fast path: one field of that name (any case) with that
    /// very value, in packed and listed headers alike; a second field of the name, another value or none is `false`.
    @Test func onlyValueNeedsOneFieldWithThatVeryValue() {
        let cases: [([(String, String)], Bool)] = [
            ([("Host", "a"), ("Accept", "application/json")], true),
            ([("ACCEPT", "application/json"), ("Host", "a")], true),
            ([("Accept", "application/json"), ("Accept", "application/json")], false),
            ([("Accept", "application/json"), ("Accept", "text/plain")], false),
            ([("Accept", "application/jsoN")], false),
            ([("Accept", "application/json;q=1")], false),
            ([("Accept-Encoding", "application/json")], false),
            ([], false),
        ]
        for (pairs, expected) in cases {
            for headers in [Self.packed(pairs), HTTPHeaders(pairs)] {
                #expect(headers.hasOnlyValue(named: "accept", equalTo: "application/json") == expected, "\(pairs)")
            }
        }
    }
}
