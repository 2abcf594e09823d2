import Foundation
import MockdTestSupport
import Testing

/// GraphQL subscriptions over WebSocket (issue 39) on the real daemon with Python's `websockets` as the client: a
/// recorded `graphql-transport-ws` connection imported by the real binary and replayed by operation (another id,
/// variables in another order, another document text), and a hand-written `graphql-ws` (subscriptions-transport-ws)
/// endpoint started and stopped.
@Suite(.serialized)
struct GraphQLWebSocketTests {
    static let started = 1_764_410_400.0

    static func message(_ type: String, at offset: Double, _ data: String) -> [String: Any] {
        ["type": type, "time": started + offset, "opcode": 1, "data": data]
    }

    static var recording: [String: Any] {
        let subscribe =
            #"{"id":"1","type":"subscribe","payload":{"operationName":"OnMessage","query":"subscription OnMessage($room: String!, $limit: Int) { message(room: $room, limit: $limit) { id text } }","variables":{"room":"general","limit":2}}}"#
        let entry = HARFixture.webSocketEntry(
            url: "wss://api.chat.test/graphql",
            subprotocol: "graphql-transport-ws",
            startedDateTime: "2025-11-29T10:00:00.000Z",
            messages: [
                message("send", at: 0.01, #"{"type":"connection_init","payload":{"token":"t"}}"#),
                message("receive", at: 0.02, #"{"type":"connection_ack"}"#),
                message("send", at: 0.03, subscribe),
                message(
                    "receive",
                    at: 0.33,
                    #"{"id":"1","type":"next","payload":{"data":{"message":{"id":"m1","text":"delivered"}}}}"#
                ),
                message("send", at: 0.4, #"{"type":"ping"}"#),
                message("receive", at: 0.4, #"{"type":"pong"}"#),
                message(
                    "receive",
                    at: 0.63,
                    #"{"id":"1","type":"next","payload":{"data":{"message":{"id":"m2","text":"Hello from Olga"}}}}"#
                ),
                message("receive", at: 0.64, #"{"id":"1","type":"complete"}"#),
            ]
        )
        return HARFixture.log([entry])
    }

    @Test func aRecordedSubscriptionReplaysByOperation() throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let har = root.appendingPathComponent("chat.har")
        try JSONSerialization.data(withJSONObject: Self.recording).write(to: har)
        let imported = try ProcessRunner.mockd(["import-har", har.path, "--set", "chat", "--root", root.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("subscription OnMessage"), "\(imported.stdout)")
        let index = try String(contentsOf: root.appendingPathComponent("mocks/chat/index.json"), encoding: .utf8)
        #expect(index.contains(#""operationName" : "OnMessage""#), "\(index)")
        let daemon = try RunningDaemon(["--set", "chat", "--root", root.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        let result = try TimingWebSocketTests.python(
            daemon,
            """
            out = {"messages": []}
            async with websockets.connect(URL + "/graphql", subprotocols=["graphql-transport-ws"]) as ws:
                out["subprotocol"] = ws.subprotocol
                await ws.send(json.dumps({"type": "connection_init", "payload": {}}))
                out["ack"] = await ws.recv()
                start = time.monotonic()
                await ws.send(json.dumps({"id": "x9", "type": "subscribe", "payload": {
                    "query": "subscription OnMessage($limit: Int, $room: String!) {\\n  message(room: $room, limit: $limit) { id text }\\n}",
                    "variables": {"limit": 2, "room": "general"}}}))
                for _ in range(3):
                    out["messages"].append([await ws.recv(), time.monotonic() - start])
                await ws.send(json.dumps({"type": "ping"}))
                out["pong"] = await ws.recv()
                await ws.send(json.dumps({"id": "y1", "type": "subscribe", "payload": {
                    "query": "subscription OnMessage($room: String!) { message(room: $room) { id } }",
                    "variables": {"room": "random"}}}))
                out["miss"] = json.loads(await ws.recv())
                again = json.dumps({"id": "y2", "type": "subscribe", "payload": {"operationName": "OnMessage",
                    "query": "subscription OnMessage($room: String!, $limit: Int) { message(room: $room, limit: $limit) { id } }",
                    "variables": {"room": "general", "limit": 2}}})
                await ws.send(again)
                await ws.send(again)
                try:
                    await ws.recv()
                except websockets.exceptions.ConnectionClosed as closed:
                    out["close"] = [closed.rcvd.code, closed.rcvd.reason]
            return out
            """
        )
        #expect(result["subprotocol"] as? String == "graphql-transport-ws")
        #expect(result["ack"] as? String == #"{"type":"connection_ack"}"#)
        let messages = try #require(result["messages"] as? [[Any]])
        try #require(messages.count == 3)
        #expect(
            messages[0][0] as? String
                == #"{"id":"x9","payload":{"data":{"message":{"id":"m1","text":"delivered"}}},"type":"next"}"#
        )
        #expect(
            messages[1][0] as? String
                == #"{"id":"x9","payload":{"data":{"message":{"id":"m2","text":"Hello from Olga"}}},"type":"next"}"#
        )
        #expect(messages[2][0] as? String == #"{"id":"x9","type":"complete"}"#)
        // Recorded 300 ms after the subscription, then 300 ms after that; timed from before the client's subscribe,
        // so only a busy machine's lateness widens them (upper bounds generous for that).
        let first = messages[0][1] as? Double ?? 0
        let second = messages[1][1] as? Double ?? 0
        #expect(first >= 0.29 && first < 2, "first result after \(first) s")
        #expect(second >= 0.59 && second < 3, "second result after \(second) s")
        #expect(result["pong"] as? String == #"{"type":"pong"}"#)
        let miss = try #require(result["miss"] as? [String: Any])
        #expect(miss["type"] as? String == "error")
        #expect(miss["id"] as? String == "y1")
        let errors = try #require(miss["payload"] as? [[String: Any]])
        #expect(
            errors.first?["message"] as? String
                == #"mockd: no recorded subscription answers subscription OnMessage with variables {"room":"random"} (the endpoint has: OnMessage {"limit":2,"room":"general"})"#
        )
        #expect(result["close"] as? [AnyHashable] == [4409, "Subscriber for y2 already exists"])
    }

    @Test func theOlderProtocolStartsAndStops() throws {
        let set = try HandWrittenSet(
            index: [
                "version": 1,
                "stubs": [
                    [
                        "id": "subscriptions", "request": ["method": "GET", "path": "/subscriptions"],
                        "responses": [
                            [
                                "websocket": [
                                    "subprotocols": ["graphql-ws"],
                                    "graphql": [
                                        "ackPayload": ["server": "mockd"],
                                        "subscriptions": [
                                            [
                                                "operationName": "OnTyping",
                                                "events": [
                                                    ["data": ["typing": true]],
                                                    ["after": 150, "data": ["typing": false]],
                                                ],
                                            ]
                                        ],
                                    ],
                                ]
                            ]
                        ],
                    ]
                ],
            ]
        )
        let daemon = try set.start()
        defer { daemon.stop() }
        let result = try TimingWebSocketTests.python(
            daemon,
            """
            out = {}
            async with websockets.connect(URL + "/subscriptions", subprotocols=["graphql-ws"]) as ws:
                await ws.send(json.dumps({"type": "connection_init"}))
                out["ack"] = await ws.recv()
                await ws.send(json.dumps({"id": "1", "type": "start", "payload": {"query": "subscription OnTyping { typing }"}}))
                out["data"] = await ws.recv()
                await ws.send(json.dumps({"id": "1", "type": "stop"}))
                out["stopped"] = await ws.recv()
                try:
                    out["after"] = await asyncio.wait_for(ws.recv(), 0.5)
                except asyncio.TimeoutError:
                    out["after"] = None
            return out
            """
        )
        #expect(result["ack"] as? String == #"{"payload":{"server":"mockd"},"type":"connection_ack"}"#)
        #expect(result["data"] as? String == #"{"id":"1","payload":{"data":{"typing":true}},"type":"data"}"#)
        #expect(result["stopped"] as? String == #"{"id":"1","type":"complete"}"#)
        #expect(result["after"] is NSNull)
    }
}
