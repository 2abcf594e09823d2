public import Foundation

/// The subset of a HAR 1.2 log (W3C draft "HTTP Archive (HAR) format", version 1.2) that mockd replays.
///
/// Built by `HARReader`, which accepts the shapes real producers write (HAR 1.1, missing optional
/// fields, HTTP/2 pseudo-headers, numbers as strings) and keeps every entry with its index so that
/// skipped entries can be reported.
public struct HARArchive: Sendable {
    public var version: String?
    /// `log.creator.name` and version, e.g. `WebInspector 537.36`.
    public var creator: String?
    public var entries: [HAREntry]
}

/// One `log.entries[i]`: a request and, when the exchange completed, its response.
public struct HAREntry: Sendable {
    /// Position in `log.entries`, from 0 (as in a JSON path).
    public var index: Int
    /// The entry's number in reports and messages, from 1, as HAR viewers list entries: `index + 1`.
    public var number: Int { index + 1 }
    public var request: HARRequest
    /// `nil` when the entry has no `response` object.
    public var response: HARResponse?
    /// `time`: total elapsed time in ms, when recorded and non-negative.
    public var time: Double?
    /// Chrome's `_resourceType` (e.g. `websocket`).
    public var resourceType: String?
    /// Whether the entry carries Chrome's `_webSocketMessages`.
    public var hasWebSocketMessages: Bool
    /// Chrome's `_webSocketMessages`: the frames of a WebSocket entry.
    public var webSocketMessages: [HARWebSocketMessage] = []
    /// `startedDateTime`, when it parses (some producers write `NaN` dates).
    public var startedDateTime: Date?
    /// Why the request failed, when the producer says so although a status may be recorded: Playwright's and
    /// Chrome's `response._failureText` (`net::ERR_ABORTED`), Chrome's `response._error`.
    public var failureText: String?
    /// Whether the entry was written by Polly.js (its `_id` and `_order` fields), whose binary bodies are hex text.
    public var isPollyEntry = false
    /// `_eventSourceMessages`: the Server-Sent Events of a `text/event-stream` entry with their arrival times,
    /// as DevTools-based recorders write them.
    public var eventSourceMessages: [HAREventSourceMessage] = []
}

/// One event of an `_eventSourceMessages` array.
public struct HAREventSourceMessage: Sendable {
    /// Seconds since the Unix epoch (`time`, or `timestamp`).
    public var time: Double
    /// The event type (`eventName`, or `event`); `nil` or `message` for the default.
    public var event: String?
    /// The event id (`eventId`, or `id`).
    public var id: String?
    public var data: String
}

/// One frame of Chrome's `_webSocketMessages` extension.
public struct HARWebSocketMessage: Sendable {
    /// `send` (client to server) or `receive`.
    public var type: String
    /// Seconds since the Unix epoch.
    public var time: Double
    /// 1 text, 2 binary (data in base64).
    public var opcode: Int
    public var data: String
}

/// `request`: method, URL, headers and body.
public struct HARRequest: Sendable {
    public var method: String
    /// The absolute URL as recorded.
    public var url: String
    /// Headers in order; HTTP/2 pseudo-headers (`:authority`) kept so the importer can use them.
    public var headers: HTTPHeaders
    public var postData: HARPostData?
}

/// `request.postData`.
public struct HARPostData: Sendable {
    public var mimeType: String?
    public var text: String?
    /// `params` as (name, value) pairs, for producers that write only params.
    public var params: [(name: String, value: String)]
    /// `base64` when `text` holds the body's bytes in Base64: HAR 1.2 has no encoding for `postData`, so mockd's
    /// recorder writes a binary request body (protobuf, octet-stream) as `"_encoding": "base64"` (a custom field,
    /// HAR 1.2 §"Custom fields"); `encoding` is read too. Other producers keep text only.
    public var encoding: String? = nil
}

/// `response`: status, headers and content.
public struct HARResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var content: HARContent
    /// `redirectURL`: the target of the `Location` header, as the producer read it; `nil` when absent or empty.
    public var redirectURL: String? = nil
}

/// `response.content`.
public struct HARContent: Sendable {
    public var mimeType: String?
    public var text: String?
    /// `encoding`, e.g. `base64`.
    public var encoding: String?
    /// Playwright's `_file`: the body kept in a file next to the HAR.
    public var file: String?
    /// `size` in bytes as recorded (the decoded length), when given.
    public var size: Int?
}
