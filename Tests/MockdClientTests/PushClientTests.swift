import Foundation
import MockdClient
import MockdTestSupport
import Testing

/// `MockdClient.emit` and `pushEvent` against the real daemon: a test pushes to the app's open event stream (read by
/// curl, as a client reads it), learns what each push reaches, and finds the pushes in the journal.
@Suite("Pushes from a test")
struct PushClientTests {
    @Test func aTestPushesAnEventIntoTheAppsOpenStream() async throws {
        try await withDaemon { harness in
            let stream = try Curl.start([
                "--no-buffer", "--header", "X-Mockd-Session: \(harness.client.session)",
                harness.daemon.baseURL + "/v1/conversations/c_1001/events",
            ])
            defer { stream.killAndWait() }
            try waitUntil(timeout: 10, "the stream's first event") { stream.standardOutput.contains("event: presence") }
            // chat_happy_path's stream says typing 1 s after presence: the pushed event comes before it.
            let reached = try await harness.client.pushEvent(
                event: "order",
                data: ["id": 4521, "status": "shipped"],
                id: "p1"
            )
            #expect(reached == 1)
            try waitUntil(timeout: 10, "the pushed event") { stream.standardOutput.contains("id: p1\n") }
            let output = stream.standardOutput
            let pushed = try #require(
                output.range(of: "event: order\nid: p1\ndata: {\"id\":4521,\"status\":\"shipped\"}\n\n")
            )
            // Between the scripted ones: a stream waiting for its next event sends a pushed one at once.
            if let typing = output.range(of: "event: typing") { #expect(pushed.lowerBound < typing.lowerBound) }
            let receipts = try await harness.client.emit([
                EmitEntry(websocket: WebSocketEmit(path: "/v1/conversations/{id}/socket", send: .text("hi"))),
                EmitEntry(after: 250, events: EventEmit(pathPattern: "/v1/conversations/.*/events", data: "bye")),
            ])
            #expect(
                receipts == [
                    EmitReceipt(
                        channel: "websocket",
                        target: "/v1/conversations/{id}/socket",
                        dueInMs: 0,
                        openConnections: 0
                    ),
                    EmitReceipt(
                        channel: "events",
                        target: "~/v1/conversations/.*/events",
                        dueInMs: 250,
                        openConnections: 1
                    ),
                ]
            )
            try waitUntil(timeout: 10, "the second push") { stream.standardOutput.contains("data: bye\n\n") }
            let pushes = try await harness.client.journal().filter { $0.method != "GET" }
            #expect(pushes.map(\.method) == ["SSE-OUT", "WS-OUT", "SSE-OUT"])
            #expect(
                pushes.map(\.target) == [
                    "/v1/conversations/c_1001/events", "/v1/conversations/{id}/socket",
                    "/v1/conversations/c_1001/events",
                ]
            )
            #expect(pushes.map(\.causedBy) == [nil, nil, nil])
            #expect(
                pushes.map(\.note) == [
                    "sent by POST /__mockd/emit",
                    "sent by POST /__mockd/emit; reached no connection: the session 'client-tests' has no open WebSocket on /v1/conversations/{id}/socket",
                    "sent by POST /__mockd/emit",
                ]
            )
            #expect(pushes.map(\.stub) == ["chat-events", "emit", "chat-events"])
        }
    }

    @Test func anEntryThatIsNotValidIsRefusedNamingItsField() async throws {
        try await withDaemon { harness in
            let error = await caught {
                try await harness.client.emit([
                    EmitEntry(events: EventEmit(path: "v1/events", data: "x")),
                    EmitEntry(websocket: WebSocketEmit(close: WebSocketClose(code: 1005))),
                ])
            }
            #expect(
                error
                    == .server(
                        status: 400,
                        code: "bad_request",
                        message: """
                            body: emit[0].events.path: must start with '/' (got 'v1/events')
                            body: emit[1].websocket.close.code: 1005 cannot be sent in a close frame (RFC 6455 §7.4)
                            """
                    )
            )
        }
    }
}
