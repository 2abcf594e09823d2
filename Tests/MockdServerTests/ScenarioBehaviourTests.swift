import Foundation
import MockdCore
import MockdServer
import MockdTestSupport
import Testing

/// Scenario behaviour at the socket, against the live bridge with real clients: latency, throttling, faults.
/// In the timing pass (suite names starting with `Timing` run one at a time after the others: see scripts/test).
@Suite
struct TimingScenarioBehaviourTests {
    /// A server over `scenario` (a scenario file's JSON) with set `base` holding `/ok` and a 200 KB `/big`.
    final class Harness {
        let server: MicroHTTPDServer
        let baseURL: String
        let root: URL

        init(_ scenario: String) throws {
            root = Paths.makeTemporaryDirectory()
            let big = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            let files: [(String, Data)] = [
                (
                    "mocks/base/index.json",
                    Data(
                        #"""
                        {"stubs": [
                          {"id": "ok", "request": {"method": "GET", "path": "/ok"}, "responses": [{"headers": ["Content-Type: text/plain"], "body": "ok"}]},
                          {"id": "big", "request": {"method": "GET", "path": "/big"}, "responses": [{"headers": ["Content-Type: application/octet-stream"], "bodyFile": "bodies/big.bin"}]}
                        ]}
                        """#.utf8
                    )
                ),
                ("mocks/base/bodies/big.bin", big),
                ("configs/s.json", Data(scenario.utf8)),
            ]
            for (path, data) in files {
                let url = root.appendingPathComponent(path)
                try FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(),
                    withIntermediateDirectories: true
                )
                try data.write(to: url)
            }
            let loaded = try Scenario.load(named: "s", root: MockdRoot(url: root))
            var configuration = MicroHTTPDServer.Configuration()
            configuration.longestHoldMs = 3_000
            server = MicroHTTPDServer(
                configuration: configuration,
                engine: MockEngine(scenario: loaded),
                logger: Logger(level: .error, sink: InMemoryLogSink())
            )
            baseURL = try server.start()
        }

        deinit {
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }
    }

    @Test func latencyNeverBlocksAWorkerThread() throws {
        let harness = try Harness(
            #"{"sets": ["base"], "overrides": [{"match": {"path": "/slow"}, "status": 200, "body": "slow", "latency": 2000}]}"#
        )
        // 200 delayed requests at once on a server with one worker thread per core: if latency blocked a
        // worker, they would take 200 s; the fast requests sent after them are answered at once. (The daemon's
        // thread count is checked on the real process in BundledScenarioTests.) 2 s of latency leaves curl time to
        // open 150 of its connections on a loaded machine (1 s saw only 72 beside another test run).
        let started = Date()
        let slowURL = harness.baseURL + "/slow"
        let slow = BackgroundJob.start { try? Curl.parallel(Array(repeating: CurlRequest(url: slowURL), count: 200)) }
        var suspendedSeen = 0
        try? waitUntil(timeout: 2, "150 suspended connections") {
            suspendedSeen = max(suspendedSeen, harness.server.suspendedConnections)
            return suspendedSeen >= 150
        }
        let fast = try Curl.batch((0..<20).map { _ in CurlRequest(url: harness.baseURL + "/ok") })
        let fastDone = Date()
        let slowResponses = try #require(slow.value())
        let slowDone = Date()
        #expect(fast.map(\.text) == Array(repeating: "ok", count: 20))
        #expect(suspendedSeen >= 150, "suspended connections seen: \(suspendedSeen)")
        #expect(fastDone < slowDone)
        #expect(slowResponses.map(\.text) == Array(repeating: "slow", count: 200))
        #expect(slowDone.timeIntervalSince(started) >= 2.0)
        #expect(harness.server.suspendedConnections == 0)
    }

    @Test func overridesPriorityEditsConditionalAndPlaceholdersOverTheWire() throws {
        let harness = try Harness(
            #"""
            {"sets": ["base"], "conditionalRequests": true,
             "defaults": {"headers": {"X-Env": "test"}},
             "overrides": [
               {"id": "low", "match": {"path": "/ok"}, "status": 500},
               {"id": "high", "priority": 2, "match": {"method": "GET", "path": "/ok"},
                "headers": {"Content-Type": null, "ETag": "\"v1\""}, "addHeaders": ["Set-Cookie: a=1", "Set-Cookie: b=2"]},
               {"id": "echo", "match": {"path": "/items/{id}", "query": {"q": "a b"}},
                "body": {"path": "{{request.path}}", "n": "{{counter}}", "id": "{{request.json.id}}"}}
             ]}
            """#
        )
        let ok = try Curl.send(CurlRequest(url: harness.baseURL + "/ok"))
        #expect(ok.status == 200)
        #expect(ok.text == "ok")
        #expect(ok.header("Content-Type") == nil)
        #expect(ok.header("ETag") == "\"v1\"")
        #expect(ok.header("X-Env") == "test")
        #expect(ok.headers(named: "Set-Cookie") == ["a=1", "b=2"])
        let notModified = try Curl.send(
            CurlRequest(url: harness.baseURL + "/ok", headers: [("If-None-Match", "W/\"v1\"")])
        )
        #expect(notModified.status == 304)
        #expect(notModified.body.isEmpty)
        let echo = {
            try Curl.send(
                CurlRequest(
                    method: "POST",
                    url: harness.baseURL + "/items/7?q=a+b",
                    headers: [("Content-Type", "application/json")],
                    body: Data(#"{"id": 42}"#.utf8)
                )
            )
        }
        // Whole-value placeholders keep their JSON type: the request's number, the counter as a number.
        #expect(try echo().text == #"{"id":42,"n":1,"path":"/items/7"}"#)
        #expect(try echo().text == #"{"id":42,"n":2,"path":"/items/7"}"#)
        let miss = try Curl.send(CurlRequest(url: harness.baseURL + "/items/7?q=zzz"))
        #expect(miss.status == 404)
        #expect(miss.text.contains(#""priority" : 0"#))
        #expect(miss.text.contains(#""stub" : "echo""#))
    }

    @Test func throttled200KBAt100KBpsTakesTwoSeconds() throws {
        let harness = try Harness(
            #"{"sets": ["base"], "overrides": [{"match": {"path": "/big"}, "throttle": 100000}]}"#
        )
        let output = Paths.makeTemporaryDirectory().appendingPathComponent("big.bin")
        defer { try? FileManager.default.removeItem(at: output.deletingLastPathComponent()) }
        let result = try Curl.run([
            "--output", output.path, "--dump-header", "-",
            "--write-out", "TIMINGS %{time_starttransfer} %{time_total} %{size_download}", harness.baseURL + "/big",
        ])
        try #require(result.status == 0, "curl: \(result.stderr)")
        #expect(result.stdout.contains("Content-Length: 200000\r\n"))
        let timings =
            result.stdout.components(separatedBy: "TIMINGS ").last?.split(separator: " ").compactMap { Double($0) }
            ?? []
        try #require(timings.count == 3, "curl printed: \(result.stdout.debugDescription)")
        #expect(timings[2] == 200_000)
        #expect(timings[0] < 1.0, "first byte after \(timings[0]) s: the body must arrive in chunks, not at the end")
        #expect(abs(timings[1] - 2.0) <= 0.2, "200 KB at 100 KB/s took \(timings[1]) s")
        #expect(try Data(contentsOf: output) == Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }))
    }

    @Test func faultsAreRealAtTheSocketAndTheServerKeepsServing() throws {
        let harness = try Harness(
            #"""
            {"sets": ["base"], "overrides": [
              {"match": {"path": "/reset"}, "fault": "connectionReset"},
              {"match": {"path": "/empty"}, "fault": "emptyResponse"},
              {"match": {"path": "/truncated"}, "body": "0123456789abcdefghij", "fault": "truncatedBody"},
              {"match": {"path": "/chunk"}, "body": "0123456789abcdefghij", "fault": "malformedChunk"},
              {"match": {"path": "/chunk-empty"}, "status": 200, "fault": "malformedChunk"},
              {"match": {"path": "/hang"}, "fault": "noResponse"}
            ]}
            """#
        )
        let base = harness.baseURL
        let reset = try Curl.run([base + "/reset"])
        #expect(reset.status == 56)
        #expect(reset.stderr.contains("Connection reset by peer"))
        let empty = try Curl.run([base + "/empty"])
        #expect(empty.status == 52)
        #expect(empty.stderr.contains("Empty reply from server"))
        let truncated = try Curl.run(["--dump-header", "-", base + "/truncated"])
        #expect(truncated.status == 18)
        #expect(truncated.stdout.contains("Content-Length: 20\r\n"))
        #expect(truncated.stdout.hasSuffix("\r\n\r\n0123456789"))
        let chunk = try Curl.run([base + "/chunk"])
        #expect(chunk.status == 56)
        #expect(chunk.stderr.contains("chunk"))
        // An empty body must not turn the invalid chunk into a valid zero-size last chunk.
        let emptyChunk = try Curl.run(["--dump-header", "-", base + "/chunk-empty"])
        #expect(emptyChunk.status == 56)
        #expect(emptyChunk.stdout.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(emptyChunk.stderr.contains("chunk"))
        // While one request hangs, others are served.
        let hanging = BackgroundJob.start { try? Curl.run(["--max-time", "2", base + "/hang"]) }
        try waitUntil(timeout: 2, "the /hang request in flight") { harness.server.requestsInFlight == 1 }
        #expect(try Curl.send(CurlRequest(url: base + "/ok")).text == "ok")
        let hung = try #require(hanging.value())
        #expect(hung.status == 28)
        #expect(try Curl.send(CurlRequest(url: base + "/ok")).text == "ok")
    }
}
