import Foundation

/// HAR 1.2 documents written by tests, shaped as Chrome writes them.
public enum HARFixture {
    /// A WebSocket entry: `GET url` (`wss://…`) offering `subprotocol`, answered 101 choosing it, with its frames
    /// (`_webSocketMessages`: `type` send/receive, `time` in s since 1970, `opcode`, `data`).
    public static func webSocketEntry(
        url: String,
        subprotocol: String,
        startedDateTime: String,
        messages: [[String: Any]]
    ) -> [String: Any] {
        [
            "startedDateTime": startedDateTime, "time": 5, "_resourceType": "websocket",
            "request": [
                "method": "GET", "url": url, "httpVersion": "HTTP/1.1",
                "headers": [["name": "Sec-WebSocket-Protocol", "value": subprotocol]],
            ],
            "response": [
                "status": 101, "statusText": "Switching Protocols", "httpVersion": "HTTP/1.1",
                "headers": [
                    ["name": "Upgrade", "value": "websocket"],
                    ["name": "Sec-WebSocket-Protocol", "value": subprotocol],
                ],
                "content": ["mimeType": "", "size": 0],
            ],
            "_webSocketMessages": messages,
        ]
    }

    /// A whole HAR document holding `entries`.
    public static func log(_ entries: [[String: Any]]) -> [String: Any] {
        ["log": ["version": "1.2", "creator": ["name": "test", "version": "1"], "entries": entries]]
    }
}
