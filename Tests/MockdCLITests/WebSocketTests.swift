import Foundation
import MockdPlatform
import MockdTestSupport
import Testing

/// WebSocket stubs on the real daemon, driven by a real client: Python's `websockets` library (Debian's
/// python3-websockets, installed by scripts/install-deps), plus raw sockets for protocol violations. Steps and
/// replies are timed to ±50 ms.
/// In the timing pass (suite names starting with `Timing` run one at a time after the others: see scripts/test).
@Suite(.serialized)
struct TimingWebSocketTests {
    static let scenario = #"""
        {"sets": ["chat"], "overrides": [
          {"id": "chat-socket", "match": {"path": "/v1/chat/socket"}, "websocket": {
            "steps": [{"send": {"type": "greeting"}}, {"after": 200, "send": {"type": "typing"}}],
            "replies": [
              {"when": {"json": {"type": "message"}}, "then": [{"after": 500, "send": {"type": "message", "author": "Olga"}}]},
              {"when": {"regex": "^close-(1000|1001|1011)$"}, "then": [{"send": "closing"}]},
              {"when": {"text": "close-1000"}, "then": [{"close": {"code": 1000, "reason": "done"}}]},
              {"when": {"text": "close-1001"}, "then": [{"close": {"code": 1001, "reason": "going away"}}]},
              {"when": {"text": "close-1011"}, "then": [{"close": {"code": 1011, "reason": "server error"}}]},
              {"when": {"text": "drop"}, "then": [{"drop": true}]},
              {"when": {"text": "frag-onefrag-two"}, "then": [{"send": "got fragments"}]},
              {"when": {"any": true}, "once": true, "then": [{"send": "first message seen"}]}
            ]}},
          {"id": "reconnect", "match": {"path": "/v1/chat/flaky"}, "websocket": {"connections": [
            {"steps": [{"send": "hello"}, {"after": 100, "drop": true}]},
            {"steps": [{"send": "welcome back"}]}
          ]}}
        ]}
        """#

    /// The daemon on `loop`: each WebSocket test runs on every event loop this system has (on Linux the default
    /// `epoll` one and the portable `poll` one a Mac runs; `MOCKD_EVENT_LOOP`).
    static func withDaemon(loop: EventPoller.Loop = .selected, _ body: (RunningDaemon) throws -> Void) throws {
        let root = try ScenarioFileErrorTests.root(scenario)
        defer { try? FileManager.default.removeItem(at: root) }
        var environment = ProcessInfo.processInfo.environment
        environment["MOCKD_EVENT_LOOP"] = loop.rawValue
        let daemon = try RunningDaemon(
            ["--config", "s", "--root", root.path, "--port", "0", "--quiet"],
            environment: environment
        )
        defer { daemon.stop() }
        try body(daemon)
    }

    /// Runs an asyncio Python script with `URL` (ws://…) and `BASE` (http://…) defined; returns its JSON output.
    static func python(_ daemon: RunningDaemon, _ script: String) throws -> [String: Any] {
        let program = """
            import asyncio, base64, json, os, socket, sys, time, urllib.request, websockets
            BASE = sys.argv[1]
            URL = BASE.replace("http://", "ws://")
            def control(method, path, session=None, body=None):
                request = urllib.request.Request(BASE + "/__mockd/" + path, method=method, data=json.dumps(body).encode() if body is not None else None)
                if session: request.add_header("X-Mockd-Session", session)
                with urllib.request.urlopen(request) as response:
                    return json.loads(response.read())
            async def main():
            \(script.split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }.joined(separator: "\n"))
            print(json.dumps(asyncio.run(main())))
            """
        let result = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", program, daemon.baseURL])
        try #require(result.status == 0, "python failed: \(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    @Test(arguments: EventPoller.Loop.available)
    func scriptedStepsAndRepliesArriveOnTime(_ loop: EventPoller.Loop) throws {
        try Self.withDaemon(loop: loop) { daemon in
            let result = try Self.python(
                daemon,
                """
                out = {}
                async with websockets.connect(URL + "/v1/chat/socket") as ws:
                    start = time.monotonic()
                    greeting = await ws.recv(); out["greeting"] = [greeting, time.monotonic() - start]
                    typing = await ws.recv(); out["typing"] = [typing, time.monotonic() - start]
                    await ws.send(json.dumps({"type": "message", "text": "where is my order?"}))
                    sent = time.monotonic()
                    first = await ws.recv()
                    reply = await ws.recv(); out["reply"] = [reply, time.monotonic() - sent]
                    out["first"] = first
                    await ws.send(["frag-one", "frag-two"])
                    out["fragments"] = await ws.recv()
                return out
                """
            )
            let greeting = try #require(result["greeting"] as? [Any])
            #expect(greeting[0] as? String == #"{"type":"greeting"}"#)
            #expect((greeting[1] as? Double ?? 9) < 0.05)
            let typing = try #require(result["typing"] as? [Any])
            #expect(typing[0] as? String == #"{"type":"typing"}"#)
            #expect(abs((typing[1] as? Double ?? 9) - 0.2) <= 0.05, "typing after \(typing[1])")
            #expect(result["first"] as? String == "first message seen")
            let reply = try #require(result["reply"] as? [Any])
            #expect(reply[0] as? String == #"{"author":"Olga","type":"message"}"#)
            #expect(abs((reply[1] as? Double ?? 9) - 0.5) <= 0.05, "reply after \(reply[1])")
            #expect(result["fragments"] as? String == "got fragments")
        }
    }

    @Test(arguments: [1000, 1001, 1011])
    func scriptedCloseCodesReachTheClient(_ code: Int) throws {
        try Self.withDaemon { daemon in
            let result = try Self.python(
                daemon,
                """
                async with websockets.connect(URL + "/v1/chat/socket") as ws:
                    await ws.recv(); await ws.recv()
                    await ws.send("close-\(code)")
                    messages = []
                    try:
                        while True: messages.append(await ws.recv())
                    except websockets.ConnectionClosed as closed:
                        return {"code": closed.code, "reason": closed.reason, "messages": messages}
                """
            )
            #expect(result["code"] as? Int == code)
            #expect(
                result["reason"] as? String
                    == ["1000": "done", "1001": "going away", "1011": "server error"]["\(code)"]
            )
            // Replies due at the same moment run in rule order: "closing", then the close; the catch-all
            // reply listed after the close rule is never sent.
            #expect(result["messages"] as? [String] == ["closing"])
        }
    }

    @Test(arguments: EventPoller.Loop.available)
    func dropIs1006AndTheSecondConnectionGetsItsOwnScript(_ loop: EventPoller.Loop) throws {
        try Self.withDaemon(loop: loop) { daemon in
            let result = try Self.python(
                daemon,
                """
                out = {}
                async with websockets.connect(URL + "/v1/chat/flaky", extra_headers={"X-Mockd-Session": "r"}) as ws:
                    out["first"] = await ws.recv()
                    try:
                        await ws.recv()
                    except websockets.ConnectionClosed as closed:
                        out["code"] = closed.code
                async with websockets.connect(URL + "/v1/chat/flaky", extra_headers={"X-Mockd-Session": "r"}) as ws:
                    out["second"] = await ws.recv()
                async with websockets.connect(URL + "/v1/chat/flaky", extra_headers={"X-Mockd-Session": "other"}) as ws:
                    out["otherSession"] = await ws.recv()
                return out
                """
            )
            #expect(result["first"] as? String == "hello")
            #expect(result["code"] as? Int == 1006)
            #expect(result["second"] as? String == "welcome back")
            #expect(result["otherSession"] as? String == "hello")
        }
    }

    @Test(arguments: EventPoller.Loop.available)
    func oversizedMessageCloses1009AndUnmaskedFrameCloses1002(_ loop: EventPoller.Loop) throws {
        try Self.withDaemon(loop: loop) { daemon in
            let result = try Self.python(
                daemon,
                """
                out = {}
                async with websockets.connect(URL + "/v1/chat/socket") as ws:
                    await ws.recv(); await ws.recv()
                    try:
                        # mockd may close with 1009 before the 2 MiB have drained: send itself then raises.
                        await ws.send("x" * (2 * 1024 * 1024))
                        while True: await ws.recv()
                    except websockets.ConnectionClosed as closed:
                        out["oversized"] = closed.code
                host, port = BASE[len("http://"):].split(":")
                raw = socket.create_connection((host, int(port)))
                key = base64.b64encode(os.urandom(16)).decode()
                raw.sendall(("GET /v1/chat/socket HTTP/1.1\\r\\nHost: x\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\n"
                             "Sec-WebSocket-Key: " + key + "\\r\\nSec-WebSocket-Version: 13\\r\\n\\r\\n").encode())
                data = b""
                while b"\\r\\n\\r\\n" not in data: data += raw.recv(4096)
                out["status"] = data.split(b"\\r\\n")[0].decode()
                raw.sendall(bytes([0x81, 0x02]) + b"hi")
                raw.settimeout(3)
                frames = data.split(b"\\r\\n\\r\\n", 1)[1]
                while True:
                    chunk = raw.recv(4096)
                    if not chunk: break
                    frames += chunk
                index = 0
                while index < len(frames):
                    opcode, length = frames[index] & 0x0F, frames[index + 1] & 0x7F
                    payload = frames[index + 2:index + 2 + length]
                    if opcode == 8: out["unmasked"] = int.from_bytes(payload[:2], "big")
                    index += 2 + length
                return out
                """
            )
            #expect(result["oversized"] as? Int == 1009)
            #expect(result["status"] as? String == "HTTP/1.1 101 Switching Protocols")
            #expect(result["unmasked"] as? Int == 1002)
        }
    }

    @Test(arguments: EventPoller.Loop.available)
    func pushFromTheControlAPIReachesOnlyItsSession(_ loop: EventPoller.Loop) throws {
        try Self.withDaemon(loop: loop) { daemon in
            let result = try Self.python(
                daemon,
                """
                out = {}
                async with websockets.connect(URL + "/v1/chat/socket", extra_headers={"X-Mockd-Session": "a"}) as a, \\
                           websockets.connect(URL + "/v1/chat/socket", extra_headers={"X-Mockd-Session": "b"}) as b:
                    for ws in (a, b):
                        await ws.recv(); await ws.recv()
                    listed = await asyncio.to_thread(control, "GET", "ws", "a")
                    out["listed"] = [(c["session"], c["path"], c["connection"]) for c in listed["connections"]]
                    sent = await asyncio.to_thread(control, "POST", "ws/send", "a", {"json": {"type": "message", "text": "pushed"}})
                    out["delivered"] = sent["delivered"]
                    out["a"] = await a.recv()
                    try:
                        out["b"] = await asyncio.wait_for(b.recv(), 0.5)
                    except asyncio.TimeoutError:
                        out["b"] = None
                    await asyncio.to_thread(control, "POST", "ws/close", "b", {"code": 4000, "reason": "test over"})
                    try:
                        await b.recv()
                    except websockets.ConnectionClosed as closed:
                        out["bClosed"] = [closed.code, closed.reason]
                journal = await asyncio.to_thread(control, "GET", "journal", "a")
                out["journal"] = [(e["method"], e.get("body")) for e in journal["entries"]][:4]
                return out
                """
            )
            #expect(result["listed"] as? [[AnyHashable]] == [["a", "/v1/chat/socket", 1]])
            #expect(result["delivered"] as? Int == 1)
            #expect(result["a"] as? String == #"{"text":"pushed","type":"message"}"#)
            #expect(result["b"] is NSNull)
            #expect(result["bClosed"] as? [AnyHashable] == [4000, "test over"])
            let journal = try #require(result["journal"] as? [[Any]])
            #expect(journal.map { $0[0] as? String } == ["GET", "WS-OUT", "WS-OUT", "WS-OUT"])
            #expect(journal[3][1] as? String == #"{"text":"pushed","type":"message"}"#)
        }
    }

    @Test func plainRequestToAWebSocketEndpointGets426() throws {
        try Self.withDaemon { daemon in
            let response = try Curl.send(CurlRequest(url: daemon.baseURL + "/v1/chat/socket"))
            #expect(response.status == 426)
            #expect(response.header("Upgrade") == "websocket")
            #expect(response.text == "{\"error\":\"upgrade_required\",\"message\":\"missing Upgrade: websocket\"}\n")
        }
    }
}

/// The bundled chat scenarios' WebSocket and SSE endpoints, and long-poll, on the real daemon, timed.
/// In the timing pass (suite names starting with `Timing` run one at a time after the others: see scripts/test).
struct TimingStreamingScenarioTests {
    @Test func chatHappyPathSocketGreetsTypesAndAnswers500msAfterTheFirstMessage() throws {
        let daemon = try BundledScenarioTests.daemon("chat_happy_path")
        defer { daemon.stop() }
        let result = try TimingWebSocketTests.python(
            daemon,
            """
            async with websockets.connect(URL + "/v1/conversations/c_1001/socket") as ws:
                greeting = json.loads(await ws.recv())
                await ws.send(json.dumps({"type": "message", "text": "Hi, my order #4521 has not arrived yet"}))
                sent = time.monotonic()
                typing = json.loads(await ws.recv()); typed = time.monotonic() - sent
                reply = json.loads(await ws.recv()); replied = time.monotonic() - sent
                return {"greeting": greeting["type"], "typing": [typing["type"], typed], "reply": [reply["text"], replied]}
            """
        )
        #expect(result["greeting"] as? String == "greeting")
        let typing = try #require(result["typing"] as? [Any])
        #expect(typing[0] as? String == "typing")
        #expect(abs((typing[1] as? Double ?? 9) - 0.2) <= 0.05)
        let reply = try #require(result["reply"] as? [Any])
        #expect(reply[0] as? String == "Sorry about that! Order #4521 is with DHL and arrives tomorrow.")
        #expect(abs((reply[1] as? Double ?? 9) - 0.5) <= 0.05, "reply after \(reply[1])")
    }

    @Test func chatConnectionDropsThenReconnects() throws {
        let daemon = try BundledScenarioTests.daemon("chat_connection_drops")
        defer { daemon.stop() }
        let result = try TimingWebSocketTests.python(
            daemon,
            """
            out = {}
            headers = {"X-Mockd-Session": "drops"}
            async with websockets.connect(URL + "/v1/conversations/c_1001/socket", extra_headers=headers) as ws:
                out["first"] = json.loads(await ws.recv())["text"]
                try:
                    await ws.recv()
                except websockets.ConnectionClosed as closed:
                    out["code"] = closed.code
            async with websockets.connect(URL + "/v1/conversations/c_1001/socket", extra_headers=headers) as ws:
                out["second"] = json.loads(await ws.recv())["text"]
                await ws.send(json.dumps({"type": "message", "text": "still there?"}))
                out["reply"] = json.loads(await ws.recv())["text"]
            return out
            """
        )
        #expect(result["first"] as? String == "Hi Anna!")
        #expect(result["code"] as? Int == 1006)
        #expect(result["second"] as? String == "Welcome back, Anna.")
        #expect(result["reply"] as? String == "Got it, checking now.")
    }

    @Test func serverSentEventsStreamWithDelaysAndResumeAfterLastEventID() throws {
        let daemon = try BundledScenarioTests.daemon("chat_happy_path")
        defer { daemon.stop() }
        let url = daemon.baseURL + "/v1/conversations/c_1001/events"
        let full = try Curl.run([
            "--no-buffer", "--max-time", "3", "--dump-header", "-", "--write-out", "TIMINGS %{time_total}", url,
        ])
        #expect(full.status == 28)  // keepOpen: the stream stays open until the client gives up
        #expect(full.stdout.contains("Content-Type: text/event-stream; charset=utf-8\r\n"))
        #expect(full.stdout.contains("Transfer-Encoding: chunked\r\n"))
        let body = full.stdout.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n").components(
            separatedBy: "TIMINGS "
        )[0]
        #expect(
            body == """
                event: presence
                id: e1
                data: {"online":true,"operator":"Olga"}

                event: typing
                id: e2
                data: {"author":"Olga"}

                event: message
                id: e3
                data: {"author":"Olga","id":"m_1004","text":"Sorry about that! Order #4521 is with DHL and arrives tomorrow."}


                """
        )
        let resumed = try Curl.run(["--no-buffer", "--max-time", "1", "-H", "Last-Event-ID: e2", url])
        #expect(resumed.stdout.hasPrefix("event: message\nid: e3\n"))
        // The delays are real: e2 comes 1 s after e1 and e3 0.5 s after e2.
        let timed = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/python3"),
            [
                "-c",
                """
                import sys, time, urllib.request
                start = time.monotonic(); times = []
                with urllib.request.urlopen(sys.argv[1], timeout=5) as response:
                    for line in response:
                        if line.startswith(b"id: "):
                            times.append(round(time.monotonic() - start, 2))
                            if len(times) == 3: break
                print(times)
                """, url,
            ]
        )
        let times = timed.stdout.trimmingCharacters(in: .whitespacesAndNewlines).dropFirst().dropLast().split(
            separator: ","
        ).compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        try #require(times.count == 3, "\(timed.stdout) \(timed.stderr)")
        #expect(abs((times[1] - times[0]) - 1.0) <= 0.1, "\(times)")
        #expect(abs((times[2] - times[1]) - 0.5) <= 0.1, "\(times)")
    }

    @Test func longPollHoldsUntilTheTestReleasesItOrTheTimeout() throws {
        let root = try ScenarioFileErrorTests.root(
            #"{"sets": ["chat"], "overrides": [{"id": "poll", "match": {"path": "/v1/poll"}, "hold": {"timeoutMs": 1500}, "status": 200, "body": {"messages": []}}]}"#
        )
        defer { try? FileManager.default.removeItem(at: root) }
        let daemon = try RunningDaemon(["--config", "s", "--root", root.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        let pollURL = daemon.baseURL + "/v1/poll"
        let held = BackgroundJob.start {
            try? Curl.run(["--write-out", "TIMINGS %{time_total}", "-H", "X-Mockd-Session: lp", pollURL])
        }
        let otherJob = BackgroundJob.start {
            try? Curl.run(["--write-out", "TIMINGS %{time_total}", "-H", "X-Mockd-Session: other", pollURL])
        }
        try daemon.waitForRequestsInFlight(2)
        let release = try Curl.send(
            CurlRequest(
                method: "POST",
                url: daemon.baseURL + "/__mockd/release",
                headers: [("X-Mockd-Session", "lp")],
                body: Data("{}".utf8)
            )
        )
        #expect(BundledScenarioTests.json(release)["released"] as? Int == 1)
        let released = try #require(held.value())
        #expect(released.stdout.hasPrefix(#"{"messages":[]}"#))
        let releasedAfter = Double(released.stdout.components(separatedBy: "TIMINGS ").last ?? "") ?? 0
        #expect(releasedAfter < 1.4, "released after \(releasedAfter) s")
        // The other session was not released: it waited for its own timeout.
        let other = try #require(otherJob.value())
        let timedOutAfter = Double(other.stdout.components(separatedBy: "TIMINGS ").last ?? "") ?? 0
        #expect(abs(timedOutAfter - 1.5) <= 0.15, "timed out after \(timedOutAfter) s")
    }
}
