import Foundation

extension MockResponse {
    /// Every error body mockd makes up itself: `{"error":"CODE","message":"…"}` plus a line feed, compact UTF-8 JSON
    /// with sorted keys, `Content-Type: application/json; charset=utf-8`. The control API, the engine (429, 503,
    /// override failures) and the server bridge (400, 413, 426, 503 while stopping) all answer through it, so the
    /// shape and the escaping have one owner.
    /// - Parameters:
    ///   - status: The HTTP status code (RFC 9110 §15).
    ///   - code: A stable snake_case name a client can test (`rate_limited`, `payload_too_large`).
    ///   - message: One line for a person: what went wrong and, where it helps, what to do.
    ///   - more: Further string members (`"upstream"` for 502/504 from the proxy).
    public static func jsonError(
        status: Int,
        code: String,
        message: String,
        more: [String: String] = [:]
    ) -> MockResponse {
        let object = more.merging(["error": code, "message": message]) { _, fixed in fixed }
        let body =
            (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
        // Literal, whatever the message quotes: `{{…}}` in an error (a body file's placeholder problem, an override's
        // failure) is never rendered, nor refused as a placeholder of its own.
        return MockResponse(
            status: status,
            headers: HTTPHeaders([("Content-Type", "application/json; charset=utf-8")]),
            body: (body ?? Data(#"{"error":"internal"}"#.utf8)) + [0x0A],
            recordedTimeMs: nil,
            bodyTemplate: nil,
            headersHavePlaceholders: false
        )
    }
}
