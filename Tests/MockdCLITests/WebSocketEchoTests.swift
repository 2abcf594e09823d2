import Foundation
import MockdTestSupport
import Testing

/// `{"echo": true}` in a reply sends the client's message back as it came (issue 34): text as text, binary as binary,
/// a fragmented message whole, empty ones too — what Autobahn's echo cases need (scripts/autobahn runs them). A
/// step outside a reply has no message to echo and is refused when the scenario loads.
@Suite(.serialized)
struct WebSocketEchoTests {
    static let scenario = #"""
        {"sets": ["chat"], "overrides": [
          {"id": "echo", "match": {"path": "/echo"}, "websocket": {
            "replies": [{"when": {"any": true}, "then": [{"echo": true}]}]}},
          {"id": "echo-late", "match": {"path": "/echo-late"}, "websocket": {
            "replies": [{"when": {"text": "ping"}, "then": [{"send": "pong"}, {"after": 10, "echo": true}]}]}}
        ]}
        """#

    @Test func repliesEchoTheClientsMessage() throws {
        let root = try ScenarioFileErrorTests.root(Self.scenario)
        defer { try? FileManager.default.removeItem(at: root) }
        let daemon = try RunningDaemon(["--config", "s", "--root", root.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        let result = try TimingWebSocketTests.python(
            daemon,
            """
            out = {}
            async with websockets.connect(URL + "/echo", max_size=None) as ws:
                await ws.send("héllo"); out["text"] = await ws.recv()
                await ws.send(bytes(range(256))); reply = await ws.recv()
                out["binary"] = [type(reply).__name__, base64.b64encode(reply).decode()]
                await ws.send(["frag-", "ment", "ed"]); out["fragmented"] = await ws.recv()
                await ws.send(""); out["empty"] = await ws.recv()
                big = "x" * 70000
                await ws.send(big); out["big"] = (await ws.recv()) == big
            async with websockets.connect(URL + "/echo-late") as ws:
                await ws.send("ping"); out["late"] = [await ws.recv(), await ws.recv()]
            return out
            """
        )
        #expect(result["text"] as? String == "héllo")
        #expect(result["binary"] as? [String] == ["bytes", Data((0...255).map { UInt8($0) }).base64EncodedString()])
        #expect(result["fragmented"] as? String == "frag-mented")
        #expect(result["empty"] as? String == "")
        #expect(result["big"] as? Bool == true)
        #expect(result["late"] as? [String] == ["pong", "ping"])
    }

    @Test func echoOutsideAReplyIsRefused() throws {
        let root = try ScenarioFileErrorTests.root(
            #"{"sets": ["chat"], "overrides": [{"id": "bad", "match": {"path": "/ws"}, "websocket": {"steps": [{"echo": true}]}}]}"#
        )
        defer { try? FileManager.default.removeItem(at: root) }
        let result = try ProcessRunner.mockd(["validate", "--config", "s", "--root", root.path])
        #expect(result.status == 1)
        #expect(
            result.stderr.contains(
                "configs/s.json: overrides[0].websocket: steps[0].echo: echo sends back the client's message, so it belongs in a reply's then, not in steps"
            ),
            "\(result.stderr)"
        )
    }
}
