import Foundation
import MockdControl
import MockdFormat
import Testing

@testable import MockdCore

/// `normalize` rules: the same on recorded keys and live requests.
struct NormalizationTests {
    let rules = RequestNormalization(
        ignoreQuery: ["_", "utm_*"],
        queryValues: [
            .init(name: "ts", pattern: "^[0-9]{10,13}$", placeholder: "timestamp"),
            .init(pattern: "^[0-9a-f]{8}-[0-9a-f]{4}-", placeholder: "uuid"),
        ],
        ignoreBodyFields: ["requestId", "meta.sentAt", "items[].nonce"],
        bodyValues: [.init(name: "password", placeholder: "password")]
    )

    @Test func queryIgnoreListsAndValueRules() {
        let normalizer = RequestNormalizer(rules)
        let key = RequestKey(
            method: "GET",
            rawPath: "/feed",
            rawQuery:
                "utm_source=x&_=1700000000000&ts=1700000000&id=6f1c2a3b-0000-4000-8000-000000000000&page=2&ts=soon",
            normalizer: normalizer
        )
        #expect(key.query == "id=%7B%7Buuid%7D%7D&page=2&ts=%7B%7Btimestamp%7D%7D&ts=soon")
        #expect(key.readableQuery == "id={{uuid}}&page=2&ts={{timestamp}}&ts=soon")
        #expect(
            RequestKey(method: "GET", rawPath: "/feed", rawQuery: "utm_source=x&_=1", normalizer: .none).query
                == "_=1&utm_source=x"
        )
    }

    @Test func bodyFieldsIgnoredByNameAnywhereOrByPath() throws {
        let normalizer = RequestNormalizer(rules)
        let body = Data(
            #"{"requestId":"r1","meta":{"sentAt":5,"requestId":"r2","kept":1},"items":[{"nonce":"n","id":1}],"sentAt":9,"password":"pw"}"#
                .utf8
        )
        let canonical = BodyCanonicalizer.canonicalize(body, contentType: "application/json", normalizer: normalizer)
        #expect(
            String(decoding: canonical, as: UTF8.self)
                == #"{"items":[{"id":1}],"meta":{"kept":1},"password":"{{password}}","sentAt":9}"#
        )
        let form = BodyCanonicalizer.canonicalize(
            Data("b=2&requestId=9&password=x&a=1".utf8),
            contentType: "application/x-www-form-urlencoded",
            normalizer: normalizer
        )
        #expect(String(decoding: form, as: UTF8.self) == "a=1&b=2&password=%7B%7Bpassword%7D%7D")
    }

    @Test func stubIndexMatchesUnderTheRules() throws {
        let response = MockResponse(status: 200, body: Data("ok".utf8))
        let stub = Stub(
            id: "feed",
            setName: "s",
            key: RequestKey(method: "POST", rawPath: "/feed", rawQuery: "page=2&_=1"),
            body: BodyCanonicalizer.canonicalize(
                Data(#"{"q":"a","requestId":"old"}"#.utf8),
                contentType: "application/json"
            ),
            bodyContentType: "application/json",
            responses: [response]
        )
        let index = StubIndex(layers: [[stub]], normalizer: RequestNormalizer(rules))
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        let live = HTTPRequest(
            method: "POST",
            target: "/feed?_=999&page=2&utm_medium=ad",
            headers: headers,
            body: Data(#"{"requestId":"new","q":"a"}"#.utf8)
        )
        #expect(index.match(live, key: index.key(for: live)) == 0)
        let other = HTTPRequest(
            method: "POST",
            target: "/feed?page=2",
            headers: headers,
            body: Data(#"{"q":"b"}"#.utf8)
        )
        #expect(index.match(other, key: index.key(for: other)) == nil)
    }

    @Test func hostKeyedStubsNeedTheRequestsHost() throws {
        let api = Stub(
            id: "api",
            setName: "s",
            key: RequestKey(method: "GET", rawPath: "/v1", rawQuery: "", host: "api.example.com"),
            responses: [MockResponse(status: 200)]
        )
        let cdn = Stub(
            id: "cdn",
            setName: "s",
            key: RequestKey(method: "GET", rawPath: "/v1", rawQuery: "", host: "cdn.example.com"),
            responses: [MockResponse(status: 201)]
        )
        let index = StubIndex(layers: [[api, cdn]])
        func match(_ target: String, _ headers: [(String, String)] = []) -> String? {
            var request = HTTPRequest(method: "GET", target: target, headers: HTTPHeaders(headers))
            HostRouting.strip(&request)
            return index.match(request, key: index.key(for: request)).map { index.stubs[$0].id }
        }
        #expect(match("/__host/cdn.example.com/v1") == "cdn")
        #expect(match("/__host/API.example.com/v1?x") == nil)  // query differs
        #expect(match("/v1", [("X-Forwarded-Host", "api.example.com")]) == "api")
        #expect(match("/v1", [("Host", "cdn.example.com")]) == "cdn")
        #expect(match("/v1", [("Host", "127.0.0.1:8080")]) == nil)  // both hosts recorded GET /v1
        // Default ports (RFC 9110 §4.2) and case are normalised on both sides.
        #expect(match("/__host/api.example.com:443/v1") == "api")
        #expect(match("/v1", [("Host", "CDN.example.com:80")]) == "cdn")
        #expect(match("/v1", [("X-Forwarded-Host", "api.example.com.:443")]) == "api")
        let misses = NearMissCalculator.nearest(
            to: HTTPRequest(method: "GET", target: "/v1", headers: HTTPHeaders([("Host", "localhost:8080")])),
            in: index
        )
        #expect(misses.first?.differs.first?.part == "host")
        #expect(
            misses.first?.differs.first?.actual
                == "(none; GET /v1 was recorded on api.example.com, cdn.example.com: choose one with /__host/NAME/ or X-Forwarded-Host)"
        )
    }

    @Test func invalidRulesAreReportedWithTheirPath() {
        let bad = RequestNormalization(
            ignoreQuery: [""],
            queryValues: [.init(pattern: "([", placeholder: "x"), .init(placeholder: "y")],
            ignoreBodyFields: ["a..b"],
            bodyValues: [.init(name: "p", placeholder: "has space")]
        )
        #expect(
            bad.problems().map(\.path) == [
                "ignoreQuery[0]", "ignoreBodyFields[0]", "queryValues[0].pattern", "queryValues[1]",
                "bodyValues[0].placeholder",
            ]
        )
        #expect(RequestNormalization().problems().isEmpty)
        #expect(rules.problems().isEmpty)
    }
}
