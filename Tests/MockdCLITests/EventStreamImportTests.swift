import Foundation
import MockdTestSupport
import Testing

/// A recorded `text/event-stream` answer, imported with the real binary and served by the real daemon as a stream of
/// its events (chunked, no `Content-Length`, kept open), read by a Python client as an `EventSource` would.
@Suite(.serialized)
struct EventStreamImportTests {
    static let recordedBody =
        "retry: 3000\r\n\r\n: keep-alive\nid: 1\nevent: price\ndata: {\"p\":1}\n\nid: 2\ndata: line one\ndata:line two\n\ndata: cut off"

    /// A HAR with one SSE entry at `/v1/prices`, with this body and optional `_eventSourceMessages`.
    static func importedRoot(body: String, messages: [[String: Any]]? = nil) throws -> URL {
        let root = Paths.makeTemporaryDirectory()
        var entry: [String: Any] = [
            "startedDateTime": "2026-11-29T10:00:00.000Z", "time": 1200,
            "request": [
                "method": "GET", "url": "https://api.web.test/v1/prices", "httpVersion": "HTTP/1.1",
                "headers": [["name": "Accept", "value": "text/event-stream"]],
            ],
            "response": [
                "status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
                "headers": [
                    ["name": "Content-Type", "value": "text/event-stream; charset=utf-8"],
                    ["name": "Content-Length", "value": String(body.utf8.count)],
                ],
                "content": ["mimeType": "text/event-stream", "size": body.utf8.count, "text": body],
            ],
        ]
        if let messages { entry["_eventSourceMessages"] = messages }
        let log: [String: Any] = [
            "log": ["version": "1.2", "creator": ["name": "test", "version": "1"], "entries": [entry]]
        ]
        let har = root.appendingPathComponent("sse.har")
        try JSONSerialization.data(withJSONObject: log).write(to: har)
        let imported = try ProcessRunner.mockd(["import-har", har.path, "--set", "sse", "--root", root.path])
        try #require(imported.status == 0, "\(imported.stderr)")
        return root
    }

    /// Reads the stream at `/v1/prices` until `count` events arrived (and their arrival times in seconds), checks
    /// that the stream is still open (one more request in flight than `openBefore`), then closes it.
    static func read(
        _ daemon: RunningDaemon,
        events count: Int,
        lastEventID: String? = nil
    ) throws -> (headers: [String: String], text: String, times: [Double]) {
        let program = """
            import http.client, json, sys, time
            host, port = sys.argv[1].replace("http://", "").split(":")
            connection = http.client.HTTPConnection(host, int(port), timeout=10)
            headers = {"Accept": "text/event-stream"}
            if sys.argv[3]: headers["Last-Event-ID"] = sys.argv[3]
            start = time.monotonic()
            connection.request("GET", "/v1/prices", headers=headers)
            response = connection.getresponse()
            text, times = "", []
            while text.count("\\n\\n") < int(sys.argv[2]):
                chunk = response.read1(65536).decode()
                if not chunk: break
                text += chunk
                times += [time.monotonic() - start] * chunk.count("\\n\\n")
            print(json.dumps({"status": response.status, "headers": dict((k.lower(), v) for k, v in response.getheaders()), "text": text, "times": times}))
            sys.stdout.flush()
            time.sleep(60)  # connected until the test kills it (SIGKILL: a child may inherit SIGTERM blocked)
            """
        let child = try ChildProcess(
            URL(fileURLWithPath: "/usr/bin/python3"),
            ["-c", program, daemon.baseURL, String(count), lastEventID ?? ""]
        )
        try waitUntil(timeout: 10, "the client's report") { child.standardOutput.contains("\n") || !child.isRunning }
        // The stream is still open after its events: the daemon counts the request as in flight.
        try daemon.waitForRequestsInFlight(1)
        child.send(signal: SIGKILL)
        child.waitForExit()
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(child.standardOutput.utf8)) as? [String: Any],
            "\(child.standardError)"
        )
        #expect(report["status"] as? Int == 200)
        return (
            report["headers"] as? [String: String] ?? [:], report["text"] as? String ?? "",
            report["times"] as? [Double] ?? []
        )
    }

    @Test func aRecordedBodyIsServedAsAStreamOfItsEventsAndResumesAfterLastEventID() throws {
        let root = try Self.importedRoot(body: Self.recordedBody)
        defer { try? FileManager.default.removeItem(at: root) }
        let index = try String(contentsOf: root.appendingPathComponent("mocks/sse/index.json"), encoding: .utf8)
        #expect(!index.contains("bodyFile"), "\(index)")
        let daemon = try RunningDaemon(["--set", "sse", "--root", root.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        let all = try Self.read(daemon, events: 3)
        #expect(all.headers["content-type"] == "text/event-stream; charset=utf-8")
        #expect(all.headers["content-length"] == nil)
        #expect(all.headers["transfer-encoding"] == "chunked")
        #expect(
            all.text
                == "retry: 3000\n\nevent: price\nid: 1\ndata: {\"p\":1}\n\nid: 2\ndata: line one\ndata: line two\n\n"
        )
        // The client left the held stream: it ends within the departed-client check's second, not at the end of
        // its hold (libmicrohttpd does not report a client leaving a suspended connection; the stream asks).
        try daemon.waitForRequestsInFlight(0, timeout: 5)
        let resumed = try Self.read(daemon, events: 1, lastEventID: "1")
        #expect(resumed.text == "id: 2\ndata: line one\ndata: line two\n\n")
    }

    @Test func anEmptyRecordedStreamStaysAnOrdinaryResponse() throws {
        let root = try Self.importedRoot(body: "")
        defer { try? FileManager.default.removeItem(at: root) }
        let daemon = try RunningDaemon(["--set", "sse", "--root", root.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        let response = try Curl.send(
            CurlRequest(url: daemon.baseURL + "/v1/prices", headers: [("Accept", "text/event-stream")])
        )
        #expect(response.status == 200)
        #expect(response.header("Transfer-Encoding") == nil)
        #expect(response.body.isEmpty)
        #expect(try daemon.health()["status"] as? String == "ok")
    }
}

/// Recorded per-event times (`_eventSourceMessages`) are replayed: each event after its recorded gap (±50 ms).
@Suite(.serialized)
struct TimingEventStreamImportTests {
    @Test func recordedEventTimesAreReplayed() throws {
        let start = 1_795_946_400.0  // 2026-11-29T10:00:00Z
        let root = try EventStreamImportTests.importedRoot(
            body: "data: a\n\ndata: b\n\ndata: c\n\n",
            messages: [
                ["time": start + 0.1, "eventName": "message", "eventId": "", "data": "a"],
                ["time": start + 0.4, "eventName": "tick", "eventId": "7", "data": "b"],
                ["time": start + 0.6, "eventName": "message", "eventId": "8", "data": "{\"c\":3}"],
            ]
        )
        defer { try? FileManager.default.removeItem(at: root) }
        let daemon = try RunningDaemon(["--set", "sse", "--root", root.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        let stream = try EventStreamImportTests.read(daemon, events: 3)
        #expect(stream.text == "data: a\n\nevent: tick\nid: 7\ndata: b\n\nid: 8\ndata: {\"c\":3}\n\n")
        try #require(stream.times.count == 3)
        for (time, expected) in zip(stream.times, [0.1, 0.4, 0.6]) {
            #expect(abs(time - expected) <= 0.05, "event at \(time) s, expected \(expected) s")
        }
    }
}
