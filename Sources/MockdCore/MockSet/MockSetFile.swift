/// The on-disk index of a mock set, `mocks/<set>/index.json` (format version 1, see docs/FORMAT.md).
///
/// Every field but the stubs' `request.method`, `request.path` and `responses` is optional; defaults
/// are applied when the file is turned into `Stub`s.
public struct MockSetFile: Codable, Sendable, Equatable {
    /// The newest format version this mockd reads and writes.
    public static let currentVersion = 1
    /// Headers that take part in matching when a set does not say: RFC 9110 `Accept` and `Content-Type`.
    public static let defaultMatchHeaders = ["accept", "content-type"]

    public var version: Int
    /// Lower-case names of the request headers a stub may constrain.
    public var matchHeaders: [String]?
    public var stubs: [StubEntry]

    public init(version: Int = MockSetFile.currentVersion, matchHeaders: [String]? = nil, stubs: [StubEntry]) {
        self.version = version
        self.matchHeaders = matchHeaders
        self.stubs = stubs
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decodeIfPresent(Int.self, forKey: .version) ?? 1
        if version > MockSetFile.currentVersion {
            throw DecodingError.dataCorruptedError(
                forKey: .version, in: container,
                debugDescription: "version \(version) is newer than this mockd supports (up to \(MockSetFile.currentVersion))"
            )
        }
        matchHeaders = try container.decodeIfPresent([String].self, forKey: .matchHeaders)
        stubs = try container.decodeIfPresent([StubEntry].self, forKey: .stubs) ?? []
    }

    /// One stub: a request matcher and its response sequence.
    public struct StubEntry: Codable, Sendable, Equatable {
        public var id: String?
        public var request: RequestEntry
        public var responses: [ResponseEntry]
        public var afterLast: ExhaustionPolicy?

        public init(id: String?, request: RequestEntry, responses: [ResponseEntry], afterLast: ExhaustionPolicy? = nil) {
            self.id = id
            self.request = request
            self.responses = responses
            self.afterLast = afterLast
        }
    }

    /// What a request must look like.
    public struct RequestEntry: Codable, Sendable, Equatable {
        public var method: String
        /// Raw path, percent-encoding kept.
        public var path: String
        /// Query string without `?`; order does not matter.
        public var query: String?
        /// `Name: value` constraints on headers listed in `matchHeaders`.
        public var headers: [String]?
        /// When present, the body is part of the key.
        public var body: BodyEntry?

        public init(method: String, path: String, query: String? = nil, headers: [String]? = nil, body: BodyEntry? = nil) {
            self.method = method
            self.path = path
            self.query = query
            self.headers = headers
            self.body = body
        }
    }

    /// A request body to match: exactly one of `file`, `text`, `json`.
    public struct BodyEntry: Codable, Sendable, Equatable {
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

    /// One step of a response sequence.
    public struct ResponseEntry: Codable, Sendable, Equatable {
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
        /// `false` sends `{{…}}` in the body and headers literally; default `true` (placeholders render).
        /// The importer writes `false` for recorded bodies that happen to contain `{{`.
        public var templated: Bool?
        /// A WebSocket endpoint: the script run after the handshake (status 101).
        public var websocket: WebSocketScript?
        /// A Server-Sent Events stream sent instead of a body.
        public var events: EventStream?

        public init(
            status: Int? = nil,
            headers: [String]? = nil,
            bodyFile: String? = nil,
            body: String? = nil,
            json: JSONValue? = nil,
            recordedTimeMs: Double? = nil,
            templated: Bool? = nil,
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
