import Foundation
import MockdTestSupport
import Testing

/// `Sec-WebSocket-Protocol` negotiation (RFC 6455 §4.2.2) on the real daemon with Python's `websockets` as the
/// client: the recorded subprotocol of an imported HAR, a configured list, and a script with none.
@Suite(.serialized)
struct WebSocketSubprotocolTests {
    /// Connects to `path` offering `offers` and reports what the handshake chose and the first message.
    static func connect(_ daemon: RunningDaemon, _ path: String, offering offers: [String]) throws -> [String: Any] {
        let list = offers.map { "\"\($0)\"" }.joined(separator: ", ")
        return try TimingWebSocketTests.python(
            daemon,
            """
            async with websockets.connect(URL + "\(path)", subprotocols=[\(list)] or None) as ws:
                return {"subprotocol": ws.subprotocol, "first": await ws.recv()}
            """
        )
    }

    @Test func theRecordedSubprotocolIsNegotiatedAfterImport() throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let har = root.appendingPathComponent("graphql.har")
        let entry = HARFixture.webSocketEntry(
            url: "wss://api.web.test/graphql",
            subprotocol: "graphql-transport-ws",
            startedDateTime: "2026-11-29T10:00:00.000Z",
            messages: [
                ["type": "receive", "time": 1_764_410_400.01, "opcode": 1, "data": #"{"type":"connection_ack"}"#]
            ]
        )
        let log = HARFixture.log([entry])
        try JSONSerialization.data(withJSONObject: log).write(to: har)
        let imported = try ProcessRunner.mockd(["import-har", har.path, "--set", "gql", "--root", root.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        let index = try String(contentsOf: root.appendingPathComponent("mocks/gql/index.json"), encoding: .utf8)
        #expect(index.contains(#""subprotocols" : ["#) || index.contains(#""subprotocols": ["#), "\(index)")
        let daemon = try RunningDaemon(["--set", "gql", "--root", root.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        // The recorded connection speaks graphql-transport-ws: the endpoint acknowledges the client's init.
        let chosen = try TimingWebSocketTests.python(
            daemon,
            """
            async with websockets.connect(URL + "/graphql", subprotocols=["graphql-transport-ws"]) as ws:
                await ws.send(json.dumps({"type": "connection_init"}))
                return {"subprotocol": ws.subprotocol, "first": await ws.recv()}
            """
        )
        #expect(chosen["subprotocol"] as? String == "graphql-transport-ws")
        #expect(chosen["first"] as? String == #"{"type":"connection_ack"}"#)
    }

    @Test func aConfiguredListPicksTheClientsFirstSupportedOffer() throws {
        let set = try HandWrittenSet(
            index: [
                "version": 1,
                "stubs": [
                    [
                        "id": "configured", "request": ["method": "GET", "path": "/configured"],
                        "responses": [
                            [
                                "websocket": [
                                    "subprotocols": ["graphql-ws", "graphql-transport-ws"],
                                    "steps": [["send": "hi"]],
                                ]
                            ]
                        ],
                    ],
                    [
                        "id": "open", "request": ["method": "GET", "path": "/open"],
                        "responses": [["websocket": ["steps": [["send": "hi"]]]]],
                    ],
                ],
            ]
        )
        let daemon = try set.start()
        defer { daemon.stop() }
        let picked = try Self.connect(daemon, "/configured", offering: ["mqtt", "graphql-transport-ws", "graphql-ws"])
        #expect(picked["subprotocol"] as? String == "graphql-transport-ws")
        #expect(picked["first"] as? String == "hi")
        // None of the client's offers is supported: no header (RFC 6455 §4.2.2), the client decides.
        let unsupported = try Self.connect(daemon, "/configured", offering: ["mqtt"])
        #expect(unsupported["subprotocol"] is NSNull)
        // No list: the client's first offer is accepted.
        let echoed = try Self.connect(daemon, "/open", offering: ["chat.v2", "chat.v1"])
        #expect(echoed["subprotocol"] as? String == "chat.v2")
        // The client offers nothing: no header.
        let none = try Self.connect(daemon, "/open", offering: [])
        #expect(none["subprotocol"] is NSNull)
    }
}
