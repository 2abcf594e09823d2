import Foundation
import MockdCore
import MockdFormat
import MockdPlatform
import MockdServer
import MockdTestSupport
import Testing

/// The libmicrohttpd bridge on a real loopback port, exercised with curl.
@Suite
struct LiveServerTests {
    /// A running server over the given stubs; stopped by `stop()`.
    final class Harness {
        let server: MicroHTTPDServer
        let baseURL: String
        let logs = InMemoryLogSink()

        init(_ stubs: [Stub], maxBodyBytes: Int = 1024 * 1024, port: Int = 0) throws {
            let scenario = Scenario(name: "test", sets: ["test"], index: StubIndex(layers: [stubs]))
            server = MicroHTTPDServer(
                configuration: .init(port: port, maxBodyBytes: maxBodyBytes),
                engine: MockEngine(scenario: scenario),
                logger: Logger(level: .info, sink: logs)
            )
            baseURL = try server.start()
        }

        func url(_ target: String) -> String { baseURL + target }

        deinit { server.stop() }
    }

    static func stub(
        _ id: String,
        _ target: String,
        method: String = "GET",
        headers: [HeaderConstraint] = [],
        body: Data? = nil,
        responses: [MockResponse],
        afterLast: ExhaustionPolicy = .repeatLast
    ) -> Stub {
        let request = HTTPRequest(method: method, target: target)
        return Stub(
            id: id,
            setName: "test",
            key: RequestKey(request),
            headerConstraints: headers,
            body: body,
            responses: responses,
            afterLast: afterLast
        )
    }

    static let binary = Data((0...255).map { UInt8($0) } + [0, 0, 13, 10])

    @Test func servesExactBytesStatusAndRepeatedHeaders() throws {
        let harness = try Harness([
            Self.stub(
                "avatar",
                "/avatar.png",
                responses: [
                    MockResponse(
                        status: 203,
                        headers: HTTPHeaders([
                            ("Content-Type", "image/png"), ("Set-Cookie", "a=1; Path=/"), ("Set-Cookie", "b=2; Path=/"),
                            ("X-Custom", "kept"),
                        ]),
                        body: Self.binary
                    )
                ]
            )
        ])
        let response = try Curl.send(CurlRequest(url: harness.url("/avatar.png")))
        #expect(response.status == 203)
        #expect(response.body == Self.binary)
        #expect(response.headers(named: "Set-Cookie") == ["a=1; Path=/", "b=2; Path=/"])
        #expect(response.header("Content-Length") == "260")
        #expect(response.header("X-Custom") == "kept")
        #expect(response.header("Content-Encoding") == nil)
        #expect(harness.logs.entries.last?.message.hasPrefix("GET /avatar.png 203 avatar ") == true)
        #expect(harness.logs.entries.last?.message.hasSuffix("ms") == true)
    }

    @Test func headIsAnsweredFromTheGetStubWithoutBody() throws {
        let harness = try Harness([
            Self.stub(
                "page",
                "/page",
                responses: [
                    MockResponse(status: 200, headers: HTTPHeaders([("ETag", "\"v1\"")]), body: Data("hello".utf8))
                ]
            )
        ])
        let responses = try Curl.batch([
            CurlRequest(method: "HEAD", url: harness.url("/page")), CurlRequest(url: harness.url("/page")),
        ])
        #expect(responses[0].status == 200)
        #expect(responses[0].header("ETag") == "\"v1\"")
        #expect(responses[0].header("Content-Length") == "5")
        // The GET on the same connection proves no stray body bytes followed the HEAD answer.
        #expect(responses[1].text == "hello")
    }

    @Test func encodedSlashAndQueryOrderFollowTheRequestKey() throws {
        let harness = try Harness([
            Self.stub(
                "encoded",
                "/files/a%2Fb?y=2&x=1",
                responses: [MockResponse(status: 200, body: Data("encoded".utf8))]
            ),
            Self.stub("plain", "/files/a/b", responses: [MockResponse(status: 200, body: Data("plain".utf8))]),
        ])
        let responses = try Curl.batch([
            CurlRequest(url: harness.url("/files/a%2fb?x=1&y=2")), CurlRequest(url: harness.url("/files/a/b")),
            CurlRequest(url: harness.url("/files/a%2Fb")),
        ])
        #expect(responses.map(\.text).prefix(2) == ["encoded", "plain"])
        #expect(responses[2].status == 404)
    }

    @Test func unmatchedRequestGets404NamingTheNearestStubsAndTheDifferingPart() throws {
        let harness = try Harness([
            Self.stub(
                "messages",
                "/v1/messages?limit=20",
                headers: [HeaderConstraint(name: "Accept", value: "application/json")],
                responses: [MockResponse(status: 200)]
            ),
            Self.stub("profile", "/v1/profile", responses: [MockResponse(status: 200)]),
        ])
        let response = try Curl.send(
            CurlRequest(url: harness.url("/v1/messages?limit=50"), headers: [("Accept", "text/html")])
        )
        #expect(response.status == 404)
        #expect(response.header("Content-Type") == "application/json; charset=utf-8")
        let json = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        #expect(json["error"] as? String == "unmatched")
        #expect(json["message"] as? String == "No stub matches GET /v1/messages?limit=50")
        let misses = try #require(json["nearMisses"] as? [[String: Any]])
        #expect(misses.map { $0["stub"] as? String } == ["messages", "profile"])
        let differs = try #require(misses[0]["differs"] as? [[String: String]])
        #expect(
            differs == [
                ["part": "query", "expected": "limit=20", "actual": "limit=50"],
                ["part": "header", "expected": "accept: application/json", "actual": "accept: text/html"],
            ]
        )
        #expect(harness.logs.entries.last?.message.contains(" 404 unmatched ") == true)
    }

    @Test func postBodiesSelectTheirStub() throws {
        let harness = try Harness([
            Self.stub(
                "login-ok",
                "/login",
                method: "POST",
                body: Data(#"{"code":"1234"}"#.utf8),
                responses: [MockResponse(status: 200, body: Data("token".utf8))]
            ),
            Self.stub(
                "login-wrong",
                "/login",
                method: "POST",
                body: Data(#"{"code":"0000"}"#.utf8),
                responses: [MockResponse(status: 422)]
            ),
        ])
        let json = [("Content-Type", "application/json")]
        let responses = try Curl.batch([
            CurlRequest(
                method: "POST",
                url: harness.url("/login"),
                headers: json,
                body: Data(#"{ "code": "1234" }"#.utf8)
            ),
            CurlRequest(
                method: "POST",
                url: harness.url("/login"),
                headers: json,
                body: Data(#"{"code":"0000"}"#.utf8)
            ),
            CurlRequest(method: "POST", url: harness.url("/login"), headers: json, body: Data(#"{"code":"9"}"#.utf8)),
        ])
        #expect(responses.map(\.status) == [200, 422, 404])
        #expect(responses[0].text == "token")
        let json404 = try JSONSerialization.jsonObject(with: responses[2].body) as? [String: Any]
        let differs = ((json404?["nearMisses"] as? [[String: Any]])?.first?["differs"] as? [[String: String]])?.first
        #expect(differs?["part"] == "body")
        #expect(differs?["actual"] == #"{"code":"9"}"#)
    }

    @Test func sixtyFourParallelClientsGetEachSequenceStepExactlyOnce() throws {
        let steps = (1...64).map { MockResponse(status: 200, body: Data("step-\($0)".utf8)) }
        let harness = try Harness([Self.stub("poll", "/poll", responses: steps, afterLast: .notFound)])
        let responses = try Curl.parallel(Array(repeating: CurlRequest(url: harness.url("/poll")), count: 64))
        #expect(responses.map(\.status) == Array(repeating: 200, count: 64))
        #expect(Set(responses.map(\.text)) == Set((1...64).map { "step-\($0)" }))
        #expect(try Curl.send(CurlRequest(url: harness.url("/poll"))).status == 404)
    }

    /// Request headers beyond the bridge's 1 KB stack buffer are packed on the heap: the session header
    /// after 40 large fields still routes the request, and the journal lists every field exactly.
    @Test func largeRequestHeadersAreReadWholeAndRouteTheSession() throws {
        let harness = try Harness([
            Self.stub("hello", "/hello", responses: [MockResponse(status: 200, body: Data("hi".utf8))])
        ])
        let large = (0..<40).map { ("X-Field-\($0)", String(repeating: "v\($0 % 10)", count: 50)) }
        let response = try Curl.send(
            CurlRequest(url: harness.url("/hello"), headers: large + [("X-Mockd-Session", "deep-one")])
        )
        #expect(response.status == 200)
        #expect(response.body == Data("hi".utf8))
        let journal = try Curl.send(
            CurlRequest(url: harness.url("/__mockd/journal"), headers: [("X-Mockd-Session", "deep-one")])
        )
        let object = try JSONSerialization.jsonObject(with: journal.body) as? [String: Any]
        let entries = object?["entries"] as? [[String: Any]] ?? []
        #expect(entries.count == 1)
        let headers = entries.first?["headers"] as? [String] ?? []
        for (name, value) in large { #expect(headers.contains("\(name): \(value)")) }
        #expect(headers.contains("X-Mockd-Session: deep-one"))
        // The default session saw nothing.
        let defaultJournal = try Curl.send(CurlRequest(url: harness.url("/__mockd/journal")))
        let defaultEntries =
            (try JSONSerialization.jsonObject(with: defaultJournal.body) as? [String: Any])?["entries"]
            as? [[String: Any]]
        #expect(defaultEntries?.count == 0)
    }

    @Test func oversizedBodyGets413AndTheServerKeepsServing() throws {
        let harness = try Harness(
            [Self.stub("upload", "/upload", method: "POST", responses: [MockResponse(status: 204)])],
            maxBodyBytes: 1024
        )
        let responses = try Curl.batch([
            CurlRequest(method: "POST", url: harness.url("/upload"), body: Data(repeating: 65, count: 4096)),
            CurlRequest(method: "POST", url: harness.url("/upload"), body: Data(repeating: 65, count: 100)),
        ])
        #expect(responses.map(\.status) == [413, 204])
        #expect(
            responses[0].text == "{\"error\":\"payload_too_large\",\"message\":\"request body exceeds 1024 bytes\"}\n"
        )
    }

    @Test func portInUseIsAClearError() throws {
        let first = try Harness([])
        let port = Int(first.baseURL.split(separator: ":").last!)!
        #expect {
            _ = try Harness([], port: port)
        } throws: { error in
            let error = error as! ServerError
            return error.code == .portInUse
                && error.message
                    == "port \(port) on 127.0.0.1 is already in use (another mockd?); pick another --port or --port 0 for a free one"
        }
    }

    @Test func malformedRequestsNeverStopTheServer() throws {
        let harness = try Harness([
            Self.stub("ok", "/ok", responses: [MockResponse(status: 200, body: Data("ok".utf8))])
        ])
        let port = UInt16(harness.baseURL.split(separator: ":").last!)!
        for garbage in [
            "GARBAGE\r\n\r\n", "GET /ok HTTP/9.9\r\n\r\n", "GET /ok HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
            "\u{0}\u{1}\u{2}\r\n\r\n",
        ] {
            _ = RawSocket.exchange(port: port, Data(garbage.utf8))
        }
        #expect(try Curl.send(CurlRequest(url: harness.url("/ok"))).text == "ok")
    }
}

/// Sends raw bytes to a loopback port and reads what comes back until the peer closes (or 2 s pass).
enum RawSocket {
    static func exchange(port: UInt16, _ bytes: Data) -> Data {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return Data() }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return Data() }
        _ = bytes.withUnsafeBytes { PlatformSocket.send(descriptor, $0.baseAddress!, $0.count) }
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received.append(contentsOf: buffer[0..<count])
        }
        return received
    }
}
