import Foundation
import MockdTestSupport
import Testing

/// Pushes caused by requests (`emit`), on the real daemon with real clients: Python's `websockets` for the socket, a
/// raw HTTP/1.1 stream reader for Server-Sent Events, urllib for the app's requests, and a second mockd as the test
/// server a webhook calls.
struct PushTests {
    /// Runs `script` (the body of an asyncio function, `out` its JSON result) with helpers: `control`, `post`, `get`,
    /// `SSE` (an event stream reader), `URL`/`BASE`; see `TimingWebSocketTests.python`.
    static func python(_ daemon: RunningDaemon, _ script: String) throws -> [String: Any] {
        try TimingWebSocketTests.python(
            daemon,
            """
            def app(method, path, session, body=None, headers=None):
                request = urllib.request.Request(BASE + path, method=method, data=json.dumps(body).encode() if body is not None else None)
                request.add_header("X-Mockd-Session", session)
                if body is not None: request.add_header("Content-Type", "application/json")
                for name, value in (headers or {}).items(): request.add_header(name, value)
                with urllib.request.urlopen(request) as response:
                    return response.status, json.loads(response.read() or b"null")
            async def call(*arguments):
                return await asyncio.get_running_loop().run_in_executor(None, lambda: app(*arguments))
            class SSE:
                # An event stream read from a raw socket: each event as {"event", "id", "data", "at"}.
                async def open(self, path, session):
                    self.reader, self.writer = await asyncio.open_connection("127.0.0.1", int(BASE.rsplit(":", 1)[1]))
                    self.writer.write(("GET " + path + " HTTP/1.1\\r\\nHost: mockd\\r\\nAccept: text/event-stream\\r\\nX-Mockd-Session: " + session + "\\r\\n\\r\\n").encode())
                    await self.writer.drain()
                    head = await self.reader.readuntil(b"\\r\\n\\r\\n")
                    self.status = int(head.split(b" ")[1])
                    self.buffer = b""
                    return self
                async def next(self):
                    while b"\\n\\n" not in self.buffer:
                        size = int((await self.reader.readuntil(b"\\r\\n")).strip(), 16)
                        self.buffer += await self.reader.readexactly(size + 2)
                        self.buffer = self.buffer[:-2]
                    block, self.buffer = self.buffer.split(b"\\n\\n", 1)
                    event = {"at": time.monotonic()}
                    for line in block.decode().split("\\n"):
                        name, _, value = line.partition(": ")
                        event[name] = value
                    return event
                def close(self):
                    self.writer.close()
            \(script)
            """
        )
    }

    static func json(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? [:]
    }

    /// The chat flow of the bundled `chat_live_receipts`: the app sends a message over HTTP and its socket and event
    /// stream say delivered, then read, then the operator types and answers quoting it; telling the socket the
    /// conversation was read changes what `GET /v1/me` answers. The journal links each push to the request.
    @Test func aSentMessageIsDeliveredReadAndAnsweredOnTheSocketAndTheEventStream() throws {
        let daemon = try BundledScenarioTests.daemon("chat_live_receipts")
        defer { daemon.stop() }
        let result = try Self.python(
            daemon,
            """
            out = {"socket": [], "events": []}
            stream = await SSE().open("/v1/conversations/c_1001/events", "chat")
            out["presence"] = (await stream.next())["event"]
            async with websockets.connect(URL + "/v1/conversations/c_1001/socket", extra_headers={"X-Mockd-Session": "chat"}) as ws:
                out["greeting"] = json.loads(await ws.recv())["type"]
                status, created = await call("POST", "/v1/conversations/c_1001/messages", "chat", {"text": "Is \\"4521\\" on its way?", "clientMessageId": "cm-7"})
                answered = time.monotonic()
                out["post"] = [status, created["text"], created["clientMessageId"]]
                for _ in range(4):
                    message = await ws.recv()
                    out["socket"].append([message, time.monotonic() - answered])
                for _ in range(3):
                    event = await stream.next()
                    out["events"].append([event["event"], event["id"], event["data"], event["at"] - answered])
                out["unreadBefore"] = (await call("GET", "/v1/me", "chat"))[1]["unreadTotal"]
                await ws.send(json.dumps({"type": "read", "conversationId": "c_1001"}))
                for _ in range(100):
                    unread = (await call("GET", "/v1/me", "chat"))[1]["unreadTotal"]
                    if unread == 0: break
                    await asyncio.sleep(0.02)
                out["unreadAfter"] = unread
            stream.close()
            return out
            """
        )
        #expect(result["presence"] as? String == "presence")
        #expect(result["greeting"] as? String == "greeting")
        #expect(result["post"] as? [AnyHashable] == [201, #"Is "4521" on its way?"#, "cm-7"])
        let socket = try #require(result["socket"] as? [[Any]])
        #expect(
            socket.map { $0[0] as? String } == [
                #"{"clientMessageId":"cm-7","messageId":"m_1004","status":"delivered","type":"receipt"}"#,
                #"{"clientMessageId":"cm-7","messageId":"m_1004","status":"read","type":"receipt"}"#,
                #"{"author":"Olga","type":"typing"}"#,
                #"{"author":"Olga","id":"m_1005","inReplyTo":"Is \"4521\" on its way?","text":"Thanks Anna, I am checking order #4521 with DHL right now.","type":"message"}"#,
            ]
        )
        // Each push waits its own delay at least (100, +400, +300, +700 ms after the answer); a busy machine may add.
        let socketTimes = socket.compactMap { $0[1] as? Double }
        for (time, earliest) in zip(socketTimes, [0.1, 0.5, 0.8, 1.5]) { #expect(time >= earliest - 0.02) }
        let events = try #require(result["events"] as? [[Any]])
        #expect(events.map { $0[0] as? String } == ["receipt", "receipt", "message"])
        #expect(events.map { $0[1] as? String } == ["r1", "r2", "m_1005"])
        #expect(
            events.map { $0[2] as? String } == [
                #"{"messageId":"m_1004","status":"delivered"}"#, #"{"messageId":"m_1004","status":"read"}"#,
                #"{"author":"Olga","id":"m_1005","inReplyTo":"Is \"4521\" on its way?","text":"Thanks Anna, I am checking order #4521 with DHL right now."}"#,
            ]
        )
        for (time, earliest) in zip(events.compactMap { $0[3] as? Double }, [0.1, 0.5, 1.5]) {
            #expect(time >= earliest - 0.02)
        }
        #expect(result["unreadBefore"] as? Int == 3)
        #expect(result["unreadAfter"] as? Int == 0)

        // Cause and effect: every push names the POST's entry, the state change the socket message's.
        let journal = try LiveClient(daemon).control("GET", "journal", session: "chat").json
        let entries = try #require(journal["entries"] as? [[String: Any]])
        let post = try #require(entries.first { $0["method"] as? String == "POST" })
        let pushes = entries.filter { $0["causedBy"] as? Int == post["sequence"] as? Int }
        #expect(pushes.map { $0["method"] as? String }.filter { $0 == "WS-OUT" }.count == 4)
        #expect(pushes.map { $0["method"] as? String }.filter { $0 == "SSE-OUT" }.count == 3)
        #expect(pushes.allSatisfy { $0["note"] == nil })
        let read = try #require(entries.first { $0["method"] as? String == "WS-IN" })
        let state = try #require(entries.first { $0["method"] as? String == "STATE" })
        #expect(state["causedBy"] as? Int == read["sequence"] as? Int)
        #expect(state["target"] as? String == "inbox")
        #expect(state["body"] as? String == "Started -> Read")
        #expect(state["stub"] as? String == "live-socket")
        // What the app sent is what verify counts and the HAR holds: not the events pushed on its stream's path.
        let verified = try LiveClient(daemon).control(
            "POST",
            "verify",
            session: "chat",
            body: #"{"path": "/v1/conversations/c_1001/events", "count": 1}"#
        )
        #expect(verified.status == 200)
        let har = try LiveClient(daemon).control("GET", "journal.har", session: "chat").json
        let exported = ((har["log"] as? [String: Any])?["entries"] as? [[String: Any]]) ?? []
        let methods = exported.compactMap { ($0["request"] as? [String: Any])?["method"] as? String }
        #expect(methods.count == entries.count - 4)
        #expect(!methods.contains("SSE-OUT") && !methods.contains("STATE"))
    }

    static let pushScenario = #"""
        {"sets": ["chat"], "overrides": [
          {"id": "socket", "match": {"path": "/live"}, "websocket": {"replies": [
            {"when": {"json": {"type": "ping"}}, "emit": [{"events": {"path": "/feed", "event": "pong", "data": {"seen": "{{request.json.n}}"}}}]}
          ]}},
          {"id": "feed", "match": {"path": "/feed"}, "events": {"items": [], "keepOpen": true}},
          {"id": "later", "match": {"method": "POST", "path": "/later"}, "status": 202, "emit": [
            {"after": 600, "websocket": {"path": "/live", "send": "late {{request.json.n}}"}}
          ]},
          {"id": "nowhere", "match": {"method": "POST", "path": "/nowhere"}, "status": 202, "emit": [
            {"websocket": {"pathPattern": "/rooms/.*", "send": "hello"}},
            {"events": {"path": "/rooms/{id}/feed", "data": "hello"}}
          ]},
          {"id": "bye", "match": {"method": "POST", "path": "/sign-out"}, "status": 204, "emit": [
            {"websocket": {"close": {"code": 4001, "reason": "signed out"}}}
          ]}
        ]}
        """#

    /// A message from the app's socket pushes to its event stream; a push due after a reset never arrives; pushes that
    /// reach no connection say so in the journal; a push can close the socket.
    @Test func socketMessagesPushToStreamsAndResetsDropPendingPushes() throws {
        try RunningDaemon.serving(Self.pushScenario) { daemon in
            let result = try Self.python(
                daemon,
                """
                out = {}
                stream = await SSE().open("/feed", "p")
                async with websockets.connect(URL + "/live", extra_headers={"X-Mockd-Session": "p"}) as ws:
                    await ws.send(json.dumps({"type": "ping", "n": 7}))
                    out["pong"] = await stream.next()
                    await call("POST", "/later", "p", {"n": 1})
                    control("POST", "reset", "p")
                    try:
                        out["late"] = await asyncio.wait_for(ws.recv(), 1.2)
                    except asyncio.TimeoutError:
                        out["late"] = None
                    out["nowhere"] = (await call("POST", "/nowhere", "p", {}))[0]
                    await call("POST", "/sign-out", "p", {})
                    try:
                        await asyncio.wait_for(ws.recv(), 2)
                    except websockets.ConnectionClosed as closed:
                        out["closed"] = [closed.code, closed.reason]
                stream.close()
                return out
                """
            )
            let pong = try #require(result["pong"] as? [String: Any])
            #expect(pong["event"] as? String == "pong")
            #expect(pong["data"] as? String == #"{"seen":7}"#)
            #expect(result["late"] is NSNull)
            #expect(result["nowhere"] as? Int == 202)
            #expect(result["closed"] as? [AnyHashable] == [4001, "signed out"])
            let journal = try LiveClient(daemon).control("GET", "journal", session: "p").json
            let entries = try #require(journal["entries"] as? [[String: Any]])
            // After the reset: no trace of the dropped push; the undelivered ones and the close, linked to their POSTs.
            #expect(!entries.contains { ($0["body"] as? String)?.hasPrefix("late") == true })
            let nowhere = try #require(entries.first { $0["target"] as? String == "/nowhere" })
            let unreached = entries.filter { $0["causedBy"] as? Int == nowhere["sequence"] as? Int }
            #expect(unreached.map { $0["method"] as? String } == ["WS-OUT", "SSE-OUT"])
            #expect(
                unreached.map { $0["note"] as? String } == [
                    "reached no connection: the session 'p' has no open WebSocket on ~/rooms/.*",
                    "reached no connection: the session 'p' has no open event stream on /rooms/{id}/feed",
                ]
            )
            #expect(unreached.map { $0["stub"] as? String } == ["nowhere", "nowhere"])
            let signOut = try #require(entries.first { $0["target"] as? String == "/sign-out" })
            let close = try #require(entries.first { $0["causedBy"] as? Int == signOut["sequence"] as? Int })
            #expect(close["method"] as? String == "WS-OUT")
            #expect(close["body"] as? String == "4001 signed out")
        }
    }

    /// A webhook after the answer reaches a test server on loopback (here a second mockd, whose journal shows what it
    /// received); to any other host it is refused and journaled, until `--webhook-allow` names the host.
    @Test func aWebhookReachesALoopbackServerAndOtherHostsOnlyWhenAllowed() throws {
        let receiverRoot = try Paths.makeRoot(
            scenario: #"{"sets": ["chat"], "overrides": [{"match": {"path": "/hooks/{kind}"}, "status": 204}]}"#
        )
        defer { try? FileManager.default.removeItem(at: receiverRoot) }
        // On every address: the machine's name may resolve to a non-loopback one (a container's).
        let receiver = try RunningDaemon(
            ["--config", "s", "--root", receiverRoot.path, "--host", "0.0.0.0", "--insecure-control", "--port", "0"]
                + ["--quiet"]
        )
        defer { receiver.stop() }
        // The machine's own name: not a loopback address as written, whatever it resolves to.
        let hostName = ProcessInfo.processInfo.hostName
        let scenario = """
            {"sets": ["chat"], "overrides": [{"id": "pay", "match": {"method": "POST", "path": "/v1/pay"}, "status": 202,
              "emit": [
                {"after": 50, "webhook": {"url": "http://127.0.0.1:\(receiver.port)/hooks/paid", "headers": {"X-Order": "{{request.json.order}}"},
                  "body": {"order": "{{request.json.order}}", "status": "paid"}}},
                {"webhook": {"url": "http://\(hostName):\(receiver.port)/hooks/named", "method": "PUT", "body": "order {{request.json.order}}"}}
              ]}]}
            """
        let root = try Paths.makeRoot(scenario: scenario)
        defer { try? FileManager.default.removeItem(at: root) }
        for allowed in [false, true] {
            let daemon = try RunningDaemon(
                ["--config", "s", "--root", root.path, "--port", "0", "--quiet"]
                    + (allowed ? ["--webhook-allow", hostName] : [])
            )
            defer { daemon.stop() }
            let order = allowed ? "o-2" : "o-1"
            let answer = try Curl.send(
                CurlRequest(
                    method: "POST",
                    url: daemon.baseURL + "/v1/pay",
                    headers: [("X-Mockd-Session", "pay"), ("Content-Type", "application/json")],
                    body: Data(#"{"order": "\#(order)"}"#.utf8)
                )
            )
            #expect(answer.status == 202)
            let journal = LiveClient(daemon)
            var hooks: [[String: Any]] = []
            try waitUntil(timeout: 10, interval: 0.05, "both webhooks journaled") {
                let entries = try journal.control("GET", "journal", session: "pay").json["entries"] as? [[String: Any]]
                hooks = (entries ?? []).filter { $0["method"] as? String == "WEBHOOK" }
                return hooks.count == 2
            }
            let loopback = try #require(hooks.first { ($0["target"] as? String)?.contains("/hooks/paid") == true })
            #expect(loopback["target"] as? String == "POST http://127.0.0.1:\(receiver.port)/hooks/paid")
            #expect(loopback["status"] as? Int == 204)
            #expect(loopback["causedBy"] as? Int == 1)
            #expect(loopback["stub"] as? String == "pay")
            #expect(loopback["body"] as? String == #"{"order":"\#(order)","status":"paid"}"#)
            let named = try #require(hooks.first { ($0["target"] as? String)?.contains("/hooks/named") == true })
            #expect(named["target"] as? String == "PUT http://\(hostName):\(receiver.port)/hooks/named")
            if allowed {
                #expect(named["status"] as? Int == 204)
                #expect(named["note"] == nil)
            } else {
                #expect(named["status"] is NSNull)
                #expect(
                    named["note"] as? String
                        == "not sent: \(hostName.lowercased()) is not a loopback address; start mockd with --webhook-allow \(hostName.lowercased()) to send webhooks there"
                )
            }
        }
        // What the test server received: the loopback webhook twice, the named host's only once it was allowed (each
        // origin has its own connection, so the two webhooks of one answer may arrive in either order).
        let received = try #require(
            try LiveClient(receiver).control("GET", "journal").json["entries"] as? [[String: Any]]
        )
        #expect(
            received.map { "\($0["method"] ?? "") \($0["target"] ?? "") \($0["body"] ?? "")" }.sorted() == [
                #"POST /hooks/paid {"order":"o-1","status":"paid"}"#,
                #"POST /hooks/paid {"order":"o-2","status":"paid"}"#, "PUT /hooks/named order o-2",
            ]
        )
        let first = try #require(received.first?["headers"] as? [String])
        #expect(first.contains("X-Order: o-1"))
        #expect(first.contains("X-Mockd-Webhook-Depth: 1"))
        #expect(first.contains("Content-Type: application/json; charset=utf-8"))
        #expect(first.contains("User-Agent: mockd/0.1.0 webhook"))
    }

    /// A stub whose webhook calls the daemon itself, answered by the same stub: the chain is cut at its 8th link.
    @Test func aWebhookLoopIsCut() throws {
        // The port is known only once the daemon runs: the stub is added at runtime, pointing at it.
        try RunningDaemon.serving(#"{"sets": ["chat"]}"#) { daemon in
            let client = LiveClient(daemon)
            let stub = """
                {"match": {"method": "POST", "path": "/echo"}, "status": 204,
                 "emit": [{"webhook": {"url": "\(daemon.baseURL)/echo", "headers": {"X-Mockd-Session": "loop"}}}]}
                """
            #expect(try client.control("POST", "stubs", session: "loop", body: stub).status == 201)
            _ = try Curl.send(
                CurlRequest(method: "POST", url: daemon.baseURL + "/echo", headers: [("X-Mockd-Session", "loop")])
            )
            var entries: [[String: Any]] = []
            try waitUntil(timeout: 10, interval: 0.05, "the cut") {
                entries =
                    try client.control("GET", "journal", session: "loop").json["entries"] as? [[String: Any]] ?? []
                return entries.contains { ($0["note"] as? String)?.contains("was cut") == true }
            }
            #expect(entries.filter { $0["method"] as? String == "POST" }.count == 9)
            #expect(entries.filter { $0["method"] as? String == "WEBHOOK" }.count == 9)
            // The refusal comes first in the journal: the webhooks before it are journaled as their answers come back.
            #expect(
                entries.filter { $0["note"] != nil }.map { $0["note"] as? String } == [
                    "not sent: a chain of 8 webhooks answered by webhooks was cut (a stub calling itself?)"
                ]
            )
        }
    }
}
