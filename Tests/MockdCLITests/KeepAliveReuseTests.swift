import Foundation
import MockdTestSupport
import Testing

/// What one keep-alive connection carries from request to request on the real daemon (one worker, one connection):
/// the request context its connection keeps for the next request, and the header bytes a repeat shares with the
/// request before it. Each step changes one thing the previous request left behind — a header value of the same length
/// (only the bytes differ), a body, a method, a target, a delayed answer kept while the connection waited — so a value
/// carried over shows as a wrong answer or journal entry.
@Suite(.serialized)
struct KeepAliveReuseTests {
    static var index: [String: Any] {
        [
            "version": 1,
            "matchHeaders": ["x-client"],
            "stubs": [
                ["id": "item", "request": ["method": "GET", "path": "/item"], "responses": [["body": "from set"]]],
                [
                    "id": "item-ios", "request": ["method": "GET", "path": "/item", "headers": ["X-Client: ios"]],
                    "responses": [["body": "ios"]],
                ],
                ["id": "submit", "request": ["method": "POST", "path": "/submit"], "responses": [["body": "posted"]]],
            ],
        ]
    }

    @Test func nothingOfAConnectionsPreviousRequestLeaksIntoTheNext() throws {
        let set = try HandWrittenSet(index: Self.index)
        let daemon = try set.start(["--threads", "1"])
        defer { daemon.stop() }
        let base = daemon.baseURL
        // Delayed: answered from the outcome its context keeps while the connection waits.
        let slow = try Curl.send(
            CurlRequest(
                method: "POST",
                url: base + "/__mockd/stubs",
                headers: [("Content-Type", "application/json")],
                body: Data(
                    #"{"id": "slow", "match": {"method": "GET", "path": "/slow"}, "body": "slow", "latency": 30}"#.utf8
                )
            )
        )
        #expect(slow.status == 201)
        let ios = [("X-Client", "ios")]
        let steps: [(request: CurlRequest, status: Int, body: String)] = [
            (CurlRequest(url: base + "/item", headers: ios), 200, "ios"),
            (CurlRequest(url: base + "/item", headers: ios), 200, "ios"),
            // Same name, same length, other bytes: shared header bytes would answer "ios".
            (CurlRequest(url: base + "/item", headers: [("X-Client", "abc")]), 200, "from set"),
            (CurlRequest(url: base + "/item", headers: ios), 200, "ios"),
            (CurlRequest(method: "POST", url: base + "/submit", body: Data("hello".utf8)), 200, "posted"),
            (CurlRequest(url: base + "/item"), 200, "from set"),
            (CurlRequest(method: "PURGE", url: base + "/item"), 404, ""),
            (CurlRequest(url: base + "/item", headers: ios), 200, "ios"),
            (CurlRequest(url: base + "/slow"), 200, "slow"),
            (CurlRequest(url: base + "/item"), 200, "from set"),
            // The target of the request before, one byte changed (a repeat shares the previous target string).
            (CurlRequest(url: base + "/iten"), 404, ""),
            (CurlRequest(url: base + "/item"), 200, "from set"),
            // A long target no stub has (the set records no query): a miss, then a short target again.
            (CurlRequest(url: base + "/item?pad=" + String(repeating: "x", count: 700)), 404, ""),
            (CurlRequest(url: base + "/item"), 200, "from set"),
        ]
        let answers = try Curl.batch(steps.map(\.request))
        for (index, (answer, step)) in zip(answers, steps).enumerated() {
            #expect(answer.status == step.status, "step \(index)")
            if step.status == 200 { #expect(answer.text == step.body, "step \(index)") }
        }

        let journal = try Curl.send(CurlRequest(url: base + "/__mockd/journal"))
        let entries =
            (try JSONSerialization.jsonObject(with: journal.body) as? [String: Any])?["entries"] as? [[String: Any]]
            ?? []
        try #require(entries.count == steps.count)
        #expect(entries.map { $0["method"] as? String } == steps.map { $0.request.method })
        #expect(
            entries.map { $0["stub"] as? String }
                == [
                    "item-ios", "item-ios", "item", "item-ios", "submit", "item", nil, "item-ios", "slow", "item", nil,
                    "item", nil, "item",
                ]
        )
        #expect(entries.map { $0["bodySize"] as? Int } == [0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        // Each entry's own headers, byte for byte: never the previous request's.
        let clients = entries.map { entry in
            (entry["headers"] as? [String] ?? []).filter { $0.lowercased().hasPrefix("x-client:") }
        }
        #expect(
            clients == [
                ["X-Client: ios"], ["X-Client: ios"], ["X-Client: abc"], ["X-Client: ios"], [], [], [],
                ["X-Client: ios"],
                [], [], [], [], [], [],
            ]
        )
        #expect(entries.map { $0["target"] as? String } == steps.map { String($0.request.url.dropFirst(base.count)) })
    }

    /// The fields of a request that repeats the previous one's only in part — a field more, a field less, the same
    /// fields and then a second Host — are packed and inspected as its own: one connection, raw requests in a row.
    @Test func fieldsThatRepeatTheRequestBeforeOnlyInPartAreReadAsTheirOwn() throws {
        let set = try HandWrittenSet(index: Self.index)
        let daemon = try set.start(["--threads", "1"])
        defer { daemon.stop() }
        let script = #"""
            import json, socket, sys
            s = socket.create_connection(("127.0.0.1", int(sys.argv[1]))); s.settimeout(5)
            buffered = b""
            def answer(request):
                global buffered
                s.sendall(request)
                while b"\r\n\r\n" not in buffered:
                    chunk = s.recv(65536)
                    if not chunk: return ["closed"]
                    buffered += chunk
                head, buffered = buffered.split(b"\r\n\r\n", 1)
                lines = head.decode().split("\r\n")
                length = next(int(l.split(":", 1)[1]) for l in lines if l.lower().startswith("content-length:"))
                while len(buffered) < length:
                    buffered += s.recv(65536)
                body, buffered = buffered[:length], buffered[length:]
                return [lines[0].split(" ")[1], body.decode()]
            H = b"GET /item HTTP/1.1\r\nHost: x\r\n"
            print(json.dumps([
                answer(H + b"X-Client: ios\r\n\r\n"),
                answer(H + b"X-Client: ios\r\n\r\n"),
                answer(H + b"X-Client: ios\r\nX-Extra: 1\r\n\r\n"),
                answer(H + b"X-Client: ios\r\n\r\n"),
                answer(H + b"\r\n"),
                answer(H + b"X-Client: ios\r\n\r\n"),
                answer(H + b"X-Client: ios\r\nHost: y\r\n\r\n"),
            ]))
            """#
        let result = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/python3"),
            ["-c", script, String(daemon.port)]
        )
        let answers = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String]]) ?? []
        try #require(answers.count == 7, "\(result.stdout) \(result.stderr)")
        #expect(answers[..<6].map { $0[0] } == ["200", "200", "200", "200", "200", "200"])
        #expect(answers[..<6].map { $0[1] } == ["ios", "ios", "ios", "ios", "from set", "ios"])
        // The fields so far repeat the request before; the second Host is refused all the same.
        #expect(answers[6].first == "400")
        #expect(answers[6].last?.contains("more than one Host field") == true, "\(answers[6])")

        let journal = try Curl.send(CurlRequest(url: daemon.baseURL + "/__mockd/journal"))
        let entries =
            (try JSONSerialization.jsonObject(with: journal.body) as? [String: Any])?["entries"] as? [[String: Any]]
            ?? []
        try #require(entries.count == 7)
        #expect(
            entries.map { $0["headers"] as? [String] ?? [] } == [
                ["Host: x", "X-Client: ios"], ["Host: x", "X-Client: ios"], ["Host: x", "X-Client: ios", "X-Extra: 1"],
                ["Host: x", "X-Client: ios"], ["Host: x"], ["Host: x", "X-Client: ios"],
                ["Host: x", "X-Client: ios", "Host: y"],
            ]
        )
    }

    /// The default log line, formatted on the stack and stamped under the writer's lock: every request's line whole and
    /// in order, also one longer than the stack buffer.
    @Test func everyRequestsLogLineIsWholeAndInOrder() throws {
        let set = try HandWrittenSet(index: Self.index)
        let daemon = try RunningDaemon(["--set", set.name, "--root", set.root.path, "--port", "0", "--threads", "1"])
        let long = "/item?pad=" + String(repeating: "y", count: 900)
        let targets = ["/item", "/item", long, "/missing", "/item"]
        let answers = try Curl.batch(targets.map { CurlRequest(url: daemon.baseURL + $0) })
        #expect(answers.map(\.status) == [200, 200, 404, 404, 200])
        let stderr = daemon.stop().stderr
        let lines = stderr.split(separator: "\n").filter { $0.contains(" info GET /") }
        try #require(lines.count == targets.count, "\(stderr)")
        for (line, (target, status)) in zip(lines, zip(targets, [200, 200, 404, 404, 200])) {
            let who = status == 200 ? "item" : "unmatched"
            let pattern = try Regex(
                #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z info GET "# + NSRegularExpression.escapedPattern(for: target)
                    + " \(status) \(who) " + #"\d+\.\d\dms$"#
            )
            #expect(String(line).wholeMatch(of: pattern) != nil, "\(line)")
        }
        let times = lines.map { String($0.prefix(24)) }
        #expect(times == times.sorted())
    }
}
