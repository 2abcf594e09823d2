/// The on-disk index of a mock set, `mocks/<set>/index.json` (format version 1, see docs/FORMAT.md).
///
/// Every field but the stubs' `request.method`, `request.path` and `responses` is optional; defaults
/// are applied when the file is turned into `Stub`s.
public struct MockSetFile: Codable, Sendable, Equatable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case version, matchHeaders, acceptMatching, normalize, cors, conditionalRequests, origins, rewriteURLs
        case rebaseDates, stubs
    }

    /// The newest format version this mockd reads and writes.
    public static let currentVersion = 1
    /// Headers that take part in matching when a set does not say: RFC 9110 `Accept` and `Content-Type`.
    public static let defaultMatchHeaders = ["accept", "content-type"]

    public var version: Int
    /// Lower-case names of the request headers a stub may constrain.
    public var matchHeaders: [String]?
    /// How a stub's `Accept` constraint is compared: `negotiate` (default; the request must accept the stub's
    /// media type, RFC 9110 §12.5.1, so `*/*` and `image/*` match) or `exact` (the recorded value, trimmed).
    public var acceptMatching: String?
    /// Rules that make volatile query parameters and body fields irrelevant to matching.
    public var normalize: RequestNormalization?
    /// Answer CORS preflight requests (`OPTIONS` with `Access-Control-Request-Method`) that no stub matches
    /// with 204 and permissive `Access-Control-Allow-*` headers, and give every answer to a request with an `Origin`
    /// that origin in `Access-Control-Allow-Origin`, with credentials (Fetch standard §3.2.3, CORS protocol).
    public var cors: Bool?
    /// Answer conditional requests (`If-None-Match`, `If-Modified-Since`) whose validators match with 304;
    /// written by the importer when a recording holds both a 304 and a full response for one request.
    public var conditionalRequests: Bool?
    /// The origins the set was recorded from (`https://api.example.com`, `http://10.0.0.5:8080`; RFC 6454, default
    /// ports left out), written by `mockd import-har` and `mockd record`. Absolute URLs of these origins in response
    /// bodies and `Location`, `Content-Location` and `Link` headers are rewritten at serve time to the address the
    /// client reached mockd at (see `rewriteURLs`); `import-har --merge` uses them to line up host layouts.
    public var origins: [String]?
    /// Rewrite absolute URLs of `origins` at serve time (default true), so an app that follows an image link or a
    /// redirect stays on the mock; `false` serves recorded URLs as recorded.
    public var rewriteURLs: Bool?
    /// Serve the recorded dates of responses that list them (`ResponseEntry.dates`) moved by the session clock's now
    /// minus the recording's time, in the recorded format and zone (default false: as recorded). A scenario's
    /// `rebaseDates` overrides it for every set it serves.
    public var rebaseDates: Bool?
    public var stubs: [StubEntry]

    public init(
        version: Int = MockSetFile.currentVersion,
        matchHeaders: [String]? = nil,
        normalize: RequestNormalization? = nil,
        cors: Bool? = nil,
        conditionalRequests: Bool? = nil,
        origins: [String]? = nil,
        rewriteURLs: Bool? = nil,
        rebaseDates: Bool? = nil,
        stubs: [StubEntry]
    ) {
        self.version = version
        self.matchHeaders = matchHeaders
        self.normalize = normalize
        self.cors = cors
        self.conditionalRequests = conditionalRequests
        self.origins = origins
        self.rewriteURLs = rewriteURLs
        self.rebaseDates = rebaseDates
        self.stubs = stubs
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decodeVersion(upTo: MockSetFile.currentVersion, forKey: .version)
        matchHeaders = try container.decodeIfPresent([String].self, forKey: .matchHeaders)
        acceptMatching = try container.decodeIfPresent(String.self, forKey: .acceptMatching)
        normalize = try container.decodeIfPresent(RequestNormalization.self, forKey: .normalize)
        cors = try container.decodeIfPresent(Bool.self, forKey: .cors)
        conditionalRequests = try container.decodeIfPresent(Bool.self, forKey: .conditionalRequests)
        origins = try container.decodeIfPresent([String].self, forKey: .origins)
        rewriteURLs = try container.decodeIfPresent(Bool.self, forKey: .rewriteURLs)
        rebaseDates = try container.decodeIfPresent(Bool.self, forKey: .rebaseDates)
        stubs = try container.decodeIfPresent([StubEntry].self, forKey: .stubs) ?? []
    }

    /// One stub: a request matcher and its response sequence.
    public struct StubEntry: Codable, Sendable, Equatable {
        enum CodingKeys: String, CodingKey, CaseIterable { case id, request, responses, afterLast }

        public var id: String?
        public var request: RequestEntry
        public var responses: [ResponseEntry]
        public var afterLast: ExhaustionPolicy?

        public init(id: String?, request: RequestEntry, responses: [ResponseEntry], afterLast: ExhaustionPolicy? = nil)
        {
            self.id = id
            self.request = request
            self.responses = responses
            self.afterLast = afterLast
        }
    }

    /// What a request must look like.
    public struct RequestEntry: Codable, Sendable, Equatable {
        enum CodingKeys: String, CodingKey, CaseIterable {
            case host, method, path, query, headers, body, recordedBody, graphql
        }

        /// The recorded upstream host (`host[:port]`) in sets that keep several hosts apart; absent: any host.
        public var host: String?
        public var method: String
        /// Raw path, percent-encoding kept.
        public var path: String
        /// Query string without `?`; order does not matter.
        public var query: String?
        /// `Name: value` constraints on headers listed in `matchHeaders`.
        public var headers: [String]?
        /// When present, the body is part of the key.
        public var body: BodyEntry?
        /// The body the recording sent when it is not part of the key (`body` absent): never matched, only sent again
        /// by `mockd refresh` (as `import-har` redacted it). Absent when the request had no body.
        public var recordedBody: BodyEntry?
        /// A GraphQL operation: the stub answers it by operation name and variables (sent by `POST` or `GET`),
        /// whatever the body's text; `query` then holds only the parameters GraphQL does not define, and `body` is
        /// not given.
        public var graphql: GraphQLEntry?

        public init(
            method: String,
            path: String,
            query: String? = nil,
            headers: [String]? = nil,
            body: BodyEntry? = nil,
            host: String? = nil,
            recordedBody: BodyEntry? = nil,
            graphql: GraphQLEntry? = nil
        ) {
            self.graphql = graphql
            self.host = host
            self.method = method
            self.path = path
            self.query = query
            self.headers = headers
            self.body = body
            self.recordedBody = recordedBody
        }
    }

    /// A request body to match: exactly one of `file`, `text`, `json`.
    public struct BodyEntry: Codable, Sendable, Equatable {
        enum CodingKeys: String, CodingKey, CaseIterable { case file, text, json, contentType }

        public var file: String?
        public var text: String?
        public var json: JSONValue?
        /// How to compare the body (`application/json`, `application/x-www-form-urlencoded`…); defaults to
        /// the stub's `Content-Type` constraint, else JSON for `json` bodies and `.json` files.
        public var contentType: String?

        public init(file: String? = nil, text: String? = nil, json: JSONValue? = nil, contentType: String? = nil) {
            self.file = file
            self.text = text
            self.json = json
            self.contentType = contentType
        }
    }

    /// `dates` of a response: `{"recordedAt": "2026-11-29T20:00:00.123Z", "body": ["/code/expiresAt",
    /// "/messages/*/sentAt"], "headers": ["Expires"]}`.
    public struct DatesEntry: Codable, Sendable, Equatable {
        enum CodingKeys: String, CodingKey, CaseIterable { case recordedAt, body, headers }

        /// When the answer was recorded (the HAR entry's `startedDateTime`), RFC 3339 with a zone.
        public var recordedAt: String
        /// RFC 6901 JSON pointers to the dates in the JSON body; `*` stands for every element of an array.
        public var body: [String]?
        /// Response headers holding a date (`Expires`, `Last-Modified`; `Set-Cookie`: its `Expires` attribute).
        public var headers: [String]?

        public init(recordedAt: String, body: [String]? = nil, headers: [String]? = nil) {
            self.recordedAt = recordedAt
            self.body = body
            self.headers = headers
        }
    }

    /// One step of a response sequence.
    public struct ResponseEntry: Codable, Sendable, Equatable {
        enum CodingKeys: String, CodingKey, CaseIterable {
            case status, headers, bodyFile, body, json, recordedTimeMs, templated, websocket, events, fault, miss
            case conditionalOnly, validators, rangeOnly, cachedCopy, emit, dates
        }

        /// HTTP status, default 200.
        public var status: Int?
        /// `Name: value` header lines, in order.
        public var headers: [String]?
        /// Body file relative to the set folder.
        public var bodyFile: String?
        /// Inline text body.
        public var body: String?
        /// Inline JSON body.
        public var json: JSONValue?
        /// The recorded HAR entry's total time in ms.
        public var recordedTimeMs: Double?
        /// `false` sends `{{…}}` in the body and headers literally; default `true` (placeholders render);
        /// `"redacted"` renders only the fixed fake values of redacted secrets (`{{token}}`, `{{email}}`…).
        /// The importer writes `false` (or `"redacted"`) for recorded bodies that happen to contain `{{`.
        public var templated: TemplateMode?
        /// A WebSocket endpoint: the script run after the handshake (status 101).
        public var websocket: WebSocketScript?
        /// A Server-Sent Events stream sent instead of a body.
        public var events: EventStream?
        /// A recorded failed attempt replayed as a socket fault instead of a response (`--failed keep`).
        public var fault: Fault?
        /// The recording cannot justify an answer here (e.g. `body not recorded: HAR entry 12 has a size of 5120
        /// bytes and no text`): a request this step would answer gets a 404 miss giving this reason instead.
        public var miss: String?
        /// A recorded `304 Not Modified`: the step answers a conditional request (`If-None-Match`,
        /// `If-Modified-Since`) whose validator is one of `validators`, the step's own `ETag`/`Last-Modified` or those
        /// of the stub's whole representation; any other request gets that representation (the stub's nearest 2xx
        /// step, an earlier one first), or without one a miss with `miss` as the reason.
        public var conditionalOnly: Bool?
        /// With `conditionalOnly`: the recorded conditional request's `If-None-Match` / `If-Modified-Since` header
        /// lines, for a 304 that carries no validator of its own.
        public var validators: [String]?
        /// With `conditionalOnly`, for a stub with no whole representation of its own: the step's body is the
        /// client's cached copy of the representation the 304 confirmed (Chrome and Firefox write it into a 304's
        /// `content`), and this is its media type (HAR 1.2 `content.mimeType`). A request the 304 does not answer
        /// gets that copy as `200` with the step's headers (RFC 9111 §4.3.4: the cache serves its stored response,
        /// freshened by the 304) instead of a miss.
        public var cachedCopy: String?
        /// A recorded `206 Partial Content` of part of a representation (its `Content-Range`): the step answers a
        /// `GET` whose `Range` lies inside the recorded bytes; any other request gets the stub's whole
        /// representation, or a miss with `miss` as the reason. Never a 206 to a request without `Range`.
        public var rangeOnly: Bool?
        /// Pushes the answer causes, after it is sent (`EmitEntry`): WebSocket messages, Server-Sent Events, webhooks.
        public var emit: [EmitEntry]?
        /// The recorded dates of this answer and when it was recorded, written by `mockd import-har`: served moved to
        /// the session's clock when the set or scenario says `rebaseDates: true`.
        public var dates: DatesEntry?

        public init(
            status: Int? = nil,
            headers: [String]? = nil,
            bodyFile: String? = nil,
            body: String? = nil,
            json: JSONValue? = nil,
            recordedTimeMs: Double? = nil,
            templated: TemplateMode? = nil,
            websocket: WebSocketScript? = nil
        ) {
            self.status = status
            self.headers = headers
            self.bodyFile = bodyFile
            self.body = body
            self.json = json
            self.recordedTimeMs = recordedTimeMs
            self.templated = templated
            self.websocket = websocket
        }
    }
}
