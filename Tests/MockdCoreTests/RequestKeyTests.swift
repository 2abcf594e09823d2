import Foundation
import Testing

@testable import MockdCore

struct RequestKeyTests {
    @Test(arguments: [
        ("b=2&a=1", "a=1&b=2"),
        ("a=2&a=1&a=2", "a=2&a=1&a=2"), ("ids=20&b=1&ids=10", "b=1&ids=20&ids=10"),
        ("q=a+b", "q=a%20b"),
        ("q=a%20b", "q=a%20b"),
        ("q=%7e%41", "q=~A"),
        ("x", "x"),
        ("x=", "x"),
        ("&&a=1&", "a=1"),
        ("name=J%C3%BCrgen", "name=J%C3%BCrgen"),
        ("name=Jürgen", "name=J%C3%BCrgen"),
        ("v=%2F%2f", "v=%2F%2F"),
        ("bad=%zz", "bad=%25zz"),
    ])
    func normalizesQuery(_ raw: String, _ expected: String) {
        #expect(RequestKey.normalizeQuery(raw) == expected)
    }

    @Test(arguments: [
        ("/v1/messages", "/v1/messages"),
        ("/a%2Fb", "/a%2Fb"),
        ("/a%2fb", "/a%2Fb"),
        ("/%41bc", "/Abc"),
        ("/a b", "/a%20b"),
        ("/caf\u{E9}", "/caf%C3%A9"),
        ("/{id}", "/%7Bid%7D"),
        ("", "/"),
        ("/a;b=c/@x:y", "/a;b=c/@x:y"),
    ])
    func normalizesPath(_ raw: String, _ expected: String) {
        #expect(RequestKey.normalizePath(raw) == expected)
    }

    @Test func encodedSlashStaysDistinctFromSlash() {
        let encoded = RequestKey(method: "GET", rawPath: "/files/a%2Fb", rawQuery: "")
        let plain = RequestKey(method: "GET", rawPath: "/files/a/b", rawQuery: "")
        #expect(encoded != plain)
    }

    @Test func requestTargetSplitsAtFirstQuestionMark() {
        let request = HTTPRequest(method: "GET", target: "/search?q=a?b&x=1")
        #expect(request.path == "/search")
        #expect(request.query == "q=a?b&x=1")
        #expect(RequestKey(request).description == "GET /search?q=a%3Fb&x=1")
    }

    @Test func headerNamesCompareCaseInsensitively() {
        let headers = HTTPHeaders([("CONTENT-type", "Application/JSON; charset=utf-8"), ("accept", "*/*")])
        #expect(headers["Content-Type"] == "Application/JSON; charset=utf-8")
        #expect(HeaderConstraint(name: "Content-Type", value: "application/json").isSatisfied(by: headers))
        #expect(HeaderConstraint(name: "ACCEPT", value: " */* ").isSatisfied(by: headers))
        #expect(!HeaderConstraint(name: "accept", value: "application/json").isSatisfied(by: headers))
    }

    @Test func multipartBoundaryDoesNotBreakBodyMatch() {
        let first = BodyCanonicalizer.canonicalize(
            Data("--AAA\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--AAA--\r\n".utf8),
            contentType: "multipart/form-data; boundary=AAA"
        )
        let second = BodyCanonicalizer.canonicalize(
            Data("--BBB\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--BBB--\r\n".utf8),
            contentType: "multipart/form-data; boundary=\"BBB\""
        )
        #expect(first == second)
    }

    @Test func multipartBoundaryIsReadFromTheBodyWhenTheHeaderLostIt() {
        let recorded = BodyCanonicalizer.canonicalize(
            Data("--AAA111\r\nContent-Disposition: form-data; name=\"f\"\r\n\r\nx\r\n--AAA111--\r\n".utf8),
            contentType: "multipart/form-data"
        )
        let live = BodyCanonicalizer.canonicalize(
            Data("--ZZ9\r\nContent-Disposition: form-data; name=\"f\"\r\n\r\nx\r\n--ZZ9--\r\n".utf8),
            contentType: "multipart/form-data; boundary=ZZ9"
        )
        #expect(recorded == live)
    }

    @Test func jsonBodiesCompareIgnoringKeyOrderAndWhitespace() {
        let first = BodyCanonicalizer.canonicalize(
            Data(#"{"b": [1, 2], "a": {"y": 1, "x": "/"}}"#.utf8),
            contentType: "application/json"
        )
        let second = BodyCanonicalizer.canonicalize(
            Data(#"{"a":{"x":"/","y":1},"b":[1,2]}"#.utf8),
            contentType: "application/vnd.api+json"
        )
        #expect(first == second)
        #expect(String(decoding: first, as: UTF8.self) == #"{"a":{"x":"/","y":1},"b":[1,2]}"#)
    }

    @Test func formBodiesCompareAsSortedPairs() {
        let first = BodyCanonicalizer.canonicalize(
            Data("b=2&a=x+y".utf8),
            contentType: "application/x-www-form-urlencoded"
        )
        let second = BodyCanonicalizer.canonicalize(
            Data("a=x%20y&b=2".utf8),
            contentType: "application/x-www-form-urlencoded; charset=UTF-8"
        )
        #expect(first == second)
    }
}

/// The canonical-query shortcut gives what the full normalisation gives.
struct CanonicalQueryShortcutTests {
    static let queries = [
        "a", "a=1", "a=1&b=2", "b=2&a=1", "a=1&a=0", "a=", "=1", "a&&b", "&a", "a&", "a=1=2", "a+b=1", "a%20b=1",
        "page=5", "limit=20&page=2", "A=1&a=2", "a=1&A=2", "x~y=1.2-3_4", "a=%7E", "é=1", "a=b&a", "a&a=b", "q=a b",
    ]

    @Test(arguments: queries) func shortcutAgreesWithTheFullForm(_ query: String) {
        let pairs = RequestKey.queryPairs(query)
        let full = pairs.map { $0.value.isEmpty ? $0.name : "\($0.name)=\($0.value)" }.joined(separator: "&")
        #expect(RequestKey.normalizeQuery(query) == full)
        if RequestKey.isCanonical(query.utf8) { #expect(full == query) }
    }
}
