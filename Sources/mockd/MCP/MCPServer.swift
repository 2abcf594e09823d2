import Foundation
import MockdCore

/// The Model Context Protocol over stdio (MCP 2025-11-25, "Transports: stdio"; JSON-RPC 2.0): one JSON message per
/// line on stdin, one per line on stdout, nothing else on stdout. Answers `initialize` (negotiating the protocol
/// version), `ping`, `tools/list` and `tools/call`; notifications get no answer; anything else is JSON-RPC error
/// -32601. A tool that fails answers a tool result with `isError: true` and mockd's one-line message, never a crash.
struct MCPServer {
    /// Protocol revisions this server speaks through the initialize handshake, oldest first.
    static let versions = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]

    let tools: MCPTools

    /// Reads stdin until it closes.
    func run() {
        while let line = readLine(strippingNewline: true) {
            guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
            if let answer = handle(line) { write(answer) }
        }
    }

    /// The answer to one message (a JSON-RPC response object), or `nil` for a notification.
    func handle(_ line: String) -> [String: Any]? {
        guard let message = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            return Self.error(id: NSNull(), code: -32700, message: "parse error: not a JSON object")
        }
        let id = message["id"]
        guard let method = message["method"] as? String else {
            // A response to a request we never sent, or garbage with an id.
            return id == nil ? nil : Self.error(id: id!, code: -32600, message: "invalid request: no method")
        }
        guard let id else { return nil }  // notifications/initialized, notifications/cancelled…
        let params = message["params"] as? [String: Any] ?? [:]
        switch method {
        case "initialize":
            let asked = params["protocolVersion"] as? String ?? ""
            return Self.result(
                id: id,
                [
                    "protocolVersion": Self.versions.contains(asked) ? asked : Self.versions.last!,
                    "capabilities": ["tools": ["listChanged": false]],
                    "serverInfo": ["name": "mockd", "version": MockdVersion.current],
                    "instructions":
                        "mockd is a local mock HTTP server. Use list_scenarios / use_scenario to pick what the app under test gets, add_stub to answer a request differently, read_journal and explain_miss to see what the app sent and why a request missed. Pass session to keep a test's state apart.",
                ]
            )
        case "ping":
            return Self.result(id: id, [:])
        case "tools/list":
            return Self.result(id: id, ["tools": tools.definitions])
        case "tools/call":
            guard let name = params["name"] as? String, tools.has(name) else {
                return Self.error(id: id, code: -32602, message: "unknown tool '\(params["name"] ?? "")'")
            }
            let arguments = params["arguments"] as? [String: Any] ?? [:]
            let outcome = tools.call(name, arguments)
            var result: [String: Any] = [
                "content": [["type": "text", "text": outcome.text]], "isError": outcome.isError,
            ]
            if let structured = outcome.structured { result["structuredContent"] = structured }
            return Self.result(id: id, result)
        default:
            return Self.error(id: id, code: -32601, message: "method not found: \(method)")
        }
    }

    static func result(id: Any, _ result: [String: Any]) -> [String: Any] {
        ["jsonrpc": "2.0", "id": id, "result": result]
    }

    static func error(id: Any, code: Int, message: String) -> [String: Any] {
        ["jsonrpc": "2.0", "id": id, "error": ["code": code, "message": message]]
    }

    private func write(_ message: [String: Any]) {
        guard var data = try? JSONSerialization.data(withJSONObject: message, options: [.withoutEscapingSlashes])
        else { return }
        data.append(0x0A)
        FileHandle.standardOutput.write(data)
    }
}
