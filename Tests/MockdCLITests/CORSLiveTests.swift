import Foundation
import MockdTestSupport
import Testing

/// `"cors": true`: every answer (stub, recorded preflight, miss) allows the request's origin, not only the unmatched
/// preflights; the real daemon, curl as the browser.
@Suite(.serialized)
struct CORSLiveTests {
    static let origin = "http://localhost:3000"

    static func set(cors: Bool) throws -> HandWrittenSet {
        try HandWrittenSet(
            index: [
                "version": 1,
                "cors": cors,
                "stubs": [
                    [
                        "id": "GET_v1_me",
                        "request": ["method": "GET", "path": "/v1/me"],
                        "responses": [
                            [
                                "status": 200,
                                "headers": [
                                    "Content-Type: application/json", "X-Request-Id: req-1", "Vary: Accept-Encoding",
                                    "Access-Control-Allow-Origin: https://app.example.com",
                                    "Access-Control-Expose-Headers: X-Trace",
                                ],
                                "body": "{\"id\":\"u_anna\"}",
                            ]
                        ],
                    ],
                    [
                        "id": "OPTIONS_v1_me",
                        "request": ["method": "OPTIONS", "path": "/v1/me"],
                        "responses": [
                            [
                                "status": 204,
                                "headers": [
                                    "Access-Control-Allow-Origin: https://app.example.com",
                                    "Access-Control-Allow-Methods: GET", "Access-Control-Allow-Headers: authorization",
                                ],
                            ]
                        ],
                    ],
                ],
            ]
        )
    }

    @Test func everyAnswerAllowsTheRequestsOrigin() throws {
        let set = try Self.set(cors: true)
        let daemon = try set.start()
        defer { daemon.stop() }
        let base = daemon.baseURL
        let origin = ("Origin", Self.origin)
        let responses = try Curl.batch([
            CurlRequest(url: base + "/v1/me", headers: [origin]),
            CurlRequest(url: base + "/v1/missing", headers: [origin]),
            CurlRequest(
                method: "OPTIONS",
                url: base + "/v1/me",
                headers: [
                    origin, ("Access-Control-Request-Method", "PATCH"),
                    ("Access-Control-Request-Headers", "content-type, x-mockd-session"),
                ]
            ),
            CurlRequest(url: base + "/v1/me", headers: [origin, ("X-Mockd-Session", "s1")]),
            CurlRequest(url: base + "/v1/me"),
            CurlRequest(method: "HEAD", url: base + "/v1/me", headers: [("Origin", "null")]),
        ])
        #expect(responses.map(\.status) == [200, 404, 204, 200, 200, 200])
        let stub = responses[0]
        #expect(stub.text == "{\"id\":\"u_anna\"}")
        #expect(stub.headers(named: "Access-Control-Allow-Origin") == [Self.origin])
        #expect(stub.header("Access-Control-Allow-Credentials") == "true")
        #expect(stub.header("Access-Control-Expose-Headers") == "X-Request-Id, Vary")
        #expect(stub.headers(named: "Vary") == ["Accept-Encoding, Origin"])
        let miss = responses[1]
        #expect(miss.header("Access-Control-Allow-Origin") == Self.origin)
        #expect(miss.header("Content-Type") == "application/json; charset=utf-8")
        let preflight = responses[2]
        #expect(preflight.headers(named: "Access-Control-Allow-Origin") == [Self.origin])
        #expect(preflight.header("Access-Control-Allow-Methods") == "PATCH")
        #expect(preflight.header("Access-Control-Allow-Headers") == "content-type, x-mockd-session")
        #expect(preflight.header("Access-Control-Expose-Headers") == nil)
        #expect(responses[3].header("Access-Control-Allow-Origin") == Self.origin)
        // No `Origin`: not a CORS request, the recorded headers as they are.
        #expect(responses[4].header("Access-Control-Allow-Origin") == "https://app.example.com")
        #expect(responses[4].header("Access-Control-Expose-Headers") == "X-Trace")
        #expect(responses[5].header("Access-Control-Allow-Origin") == "null")
    }

    @Test func withoutCORSTheRecordedHeadersAreServed() throws {
        let set = try Self.set(cors: false)
        let daemon = try set.start()
        defer { daemon.stop() }
        let response = try Curl.send(CurlRequest(url: daemon.baseURL + "/v1/me", headers: [("Origin", Self.origin)]))
        #expect(response.status == 200)
        #expect(response.headers(named: "Access-Control-Allow-Origin") == ["https://app.example.com"])
        #expect(response.header("Access-Control-Allow-Credentials") == nil)
    }
}
