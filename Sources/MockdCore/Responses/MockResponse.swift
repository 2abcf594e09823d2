public import Foundation
public import MockdFormat

/// What the engine decided to answer: status, headers and body, as data.
///
/// The server bridge writes it as is; `Content-Length` is computed by the bridge from `body`.
public struct MockResponse: Sendable {
    /// HTTP status code (RFC 9110 §15), 100–999.
    public var status: Int
    public var headers: HTTPHeaders
    public var body: Data
    /// The id of the stub or override that produced this response, or `nil` when the request matched nothing.
    public var stubID: String?
    /// Fields most responses leave empty, kept behind one reference: a response is copied several times per
    /// request and held once per stub, so its inline size and reference count matter.
    private var extras: Extras?
    /// The recorded HAR entry's total time in ms, for `"latency": "recorded"`; never sent. Declared last: an
    /// optional's tag byte after the 8-byte fields keeps the response at 65 bytes inline (73 otherwise).
    public var recordedTimeMs: Double?

    /// Whether the response is status, headers and body only: no placeholders, WebSocket, event stream, fault, pushes
    /// or body served from its file.
    var isPlain: Bool { extras == nil }

    /// Placeholders in the body or headers, parsed at load; `nil` for plain responses.
    var template: ResponseTemplate? {
        get { extras?.template }
        set { updateExtras { $0.template = newValue } }
    }
    /// Recorded dates served relative to the session's clock (`rebaseDates`), applied where placeholders render.
    var dateShift: DateShift? {
        get { extras?.dateShift }
        set { updateExtras { $0.dateShift = newValue } }
    }
    /// For a WebSocket endpoint: what to do after the handshake (the status is then 101).
    public var webSocket: WebSocketScript? {
        get { extras?.webSocket }
        set { updateExtras { $0.webSocket = newValue } }
    }
    /// For a Server-Sent Events endpoint: the events to stream instead of `body`.
    public var eventStream: EventStream? {
        get { extras?.eventStream }
        set { updateExtras { $0.eventStream = newValue } }
    }

    /// A recorded failure (`mockd import-har --failed keep`): the socket-level fault served instead of a response.
    public var fault: Fault? {
        get { extras?.fault }
        set { updateExtras { $0.fault = newValue } }
    }

    /// A step the recording cannot justify for every request (`miss`, `conditionalOnly`, `rangeOnly` in the set):
    /// which requests it still answers, and what the others get.
    public struct Unjustified: Sendable, Equatable {
        /// Which requests the step answers as it is.
        public enum Answers: Sendable, Equatable {
            /// None (a body not recorded).
            case nothing
            /// Conditional requests with a recorded validator: a recorded 304. `ifNoneMatch` and
            /// `ifModifiedSince` are the recorded request's own (`validators` in the set).
            case notModified(ifNoneMatch: String?, ifModifiedSince: String?)
            /// `GET` requests whose `Range` lies inside the recorded bytes: a recorded 206.
            case partialContent
        }

        public let answers: Answers
        /// Why a request the step does not answer misses, when there is no `representation`.
        public let reason: String
        /// The sequence step (0-based) holding the whole representation this step stands for: what a request the
        /// step does not answer gets instead of the miss.
        public let representation: Int?
        /// For a 304 whose body is the client's cached copy (`cachedCopy` in the set) and no `representation`: the
        /// copy's media type; a request the step does not answer gets the copy as `200`.
        public var cachedCopy: String? = nil
    }

    public var unjustified: Unjustified? {
        get { extras?.unjustified }
        set { updateExtras { $0.unjustified = newValue } }
    }

    /// A body file of `FileBody.threshold` bytes or more, served from disk instead of `body` (which is then empty).
    public var fileBody: FileBody? {
        get { extras?.fileBody }
        set { updateExtras { $0.fileBody = newValue } }
    }

    /// The pushes the answer causes once sent (`emit`): WebSocket messages, Server-Sent Events, webhooks.
    public var emissions: (any ResponsePushes)? {
        get { extras?.emissions }
        set { updateExtras { $0.emissions = newValue } }
    }

    /// For a live feed (the control API's `GET /__mockd/journal/stream`): what the bridge streams instead of `body`,
    /// for as long as the client stays.
    public var liveFeed: (any LiveFeed)? {
        get { extras?.liveFeed }
        set { updateExtras { $0.liveFeed = newValue } }
    }

    /// Immutable storage of the rare fields; every change makes a new one, so copies stay independent.
    private final class Extras: Sendable {
        let template: ResponseTemplate?
        let webSocket: WebSocketScript?
        let eventStream: EventStream?
        let fault: Fault?
        let fileBody: FileBody?
        let unjustified: Unjustified?
        let liveFeed: (any LiveFeed)?
        let emissions: (any ResponsePushes)?
        let dateShift: DateShift?

        init(fields: ExtraFields) {
            self.template = fields.template
            self.webSocket = fields.webSocket
            self.eventStream = fields.eventStream
            self.fault = fields.fault
            self.fileBody = fields.fileBody
            self.unjustified = fields.unjustified
            self.liveFeed = fields.liveFeed
            self.emissions = fields.emissions
            self.dateShift = fields.dateShift
        }

        var isEmpty: Bool {
            template == nil && webSocket == nil && eventStream == nil && fault == nil && fileBody == nil
                && unjustified == nil && liveFeed == nil && emissions == nil && dateShift == nil
        }
    }

    private struct ExtraFields {
        var template: ResponseTemplate?
        var webSocket: WebSocketScript?
        var eventStream: EventStream?
        var fault: Fault?
        var fileBody: FileBody?
        var unjustified: Unjustified?
        var liveFeed: (any LiveFeed)?
        var emissions: (any ResponsePushes)?
        var dateShift: DateShift?
    }

    private mutating func updateExtras(_ change: (inout ExtraFields) -> Void) {
        var fields = ExtraFields(
            template: extras?.template,
            webSocket: extras?.webSocket,
            eventStream: extras?.eventStream,
            fault: extras?.fault,
            fileBody: extras?.fileBody,
            unjustified: extras?.unjustified,
            liveFeed: extras?.liveFeed,
            emissions: extras?.emissions,
            dateShift: extras?.dateShift
        )
        change(&fields)
        let updated = Extras(fields: fields)
        extras = updated.isEmpty ? nil : updated
    }

    public init(
        status: Int,
        headers: HTTPHeaders = HTTPHeaders(),
        body: Data = Data(),
        stubID: String? = nil,
        recordedTimeMs: Double? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.stubID = stubID
        self.recordedTimeMs = recordedTimeMs
        self.template = ResponseTemplate(body: body, headers: headers)
    }

    /// A response whose placeholders were found already: `bodyTemplate` is `Template.parse(body)` and
    /// `headersHavePlaceholders` whether a header value holds `{{` (the loader parses each shared body file
    /// and header list once, not once per stub).
    init(
        status: Int,
        headers: HTTPHeaders,
        body: Data,
        recordedTimeMs: Double?,
        bodyTemplate: Template?,
        headersHavePlaceholders: Bool
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.recordedTimeMs = recordedTimeMs
        if bodyTemplate != nil || headersHavePlaceholders {
            self.template = ResponseTemplate(body: bodyTemplate, hasHeaderPlaceholders: headersHavePlaceholders)
        }
    }
}

extension String {
    /// Whether the text contains `{{`, compared as UTF-8 bytes (no Foundation string search: it runs for every
    /// header of every stub at load; docs/BENCHMARKS.md#why-the-hot-path-looks-as-it-does).
    var containsPlaceholderOpening: Bool {
        var previousWasBrace = false
        for byte in utf8 {
            if byte == UInt8(ascii: "{") {
                if previousWasBrace { return true }
                previousWasBrace = true
            } else {
                previousWasBrace = false
            }
        }
        return false
    }
}
