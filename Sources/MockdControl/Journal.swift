public import Foundation
public import MockdFormat

/// One request the app sent to the mocked API, as the journal keeps it (`GET /__mockd/journal`), oldest first.
public struct JournalEntry: Codable, Sendable, Equatable {
    /// 1-based, increasing within the session.
    public var sequence: Int
    /// When the request arrived: RFC 3339 UTC with milliseconds, `2026-11-29T20:42:46.369Z`.
    public var time: String
    public var method: String
    /// The raw request target: path plus `?query` when present.
    public var target: String
    /// The recorded host the request was for (`api.example.com`): the one it named, else the answering stub's;
    /// `nil` when neither says (sets recorded from one host).
    @ExplicitNull public var host: String?
    /// Request header fields in order, `"Name: value"`.
    public var headers: [String]
    /// Body length in bytes.
    public var bodySize: Int
    /// The body (the first 64 KiB the journal keeps) when it is UTF-8 text.
    public var body: String?
    /// The body, Base64, when it is not UTF-8.
    public var bodyBase64: String?
    /// Whether a stub or override answered.
    public var matched: Bool
    /// Whether the upstream answered (`--on-miss proxy`, `mockd record`) instead of a stub; `nil` from an
    /// older mockd that did not report it.
    public var proxied: Bool?
    /// The id of the stub or override that answered; `nil` when unmatched.
    @ExplicitNull public var stub: String?
    /// What that answer edited, nearest first, when it only edited (a pass-through `{}`, a `bodyPatch`, a latency): a
    /// scenario override under a runtime stub, then the mock set's stub (`GET_v1_me`) or resource (`resource:orders`).
    /// `nil` when the answer was the stub's own.
    public var edited: [String]?
    /// The status sent; `nil` when a fault meant none was sent.
    @ExplicitNull public var status: Int?
    /// The fault injected (`connectionReset`, …), if any.
    public var fault: String?
    /// Time from arrival to the answer, in milliseconds (latency and throttling included).
    public var durationMs: Double
    /// With `mockd --openapi`: how the request, and the answer it got, break the document (empty when they honour
    /// it); `nil` without a contract.
    public var contractViolations: [String]?
    /// For a push (`WS-OUT`, `SSE-OUT`, `WEBHOOK`) or a `STATE` change: the sequence number of the request (or the app's
    /// WebSocket message) that caused it; `nil` otherwise.
    public var causedBy: Int?
    /// What the fields alone do not say: how a client fault reached the app (raised by `MockdAppRedirect` or its wire
    /// fallback), why a push reached no connection, why a webhook got no answer.
    public var note: String?

    public init(
        sequence: Int,
        time: String,
        method: String,
        target: String,
        host: String?,
        headers: [String],
        bodySize: Int,
        body: String? = nil,
        bodyBase64: String? = nil,
        matched: Bool,
        proxied: Bool?,
        stub: String?,
        edited: [String]? = nil,
        status: Int?,
        fault: String? = nil,
        durationMs: Double,
        contractViolations: [String]? = nil,
        causedBy: Int? = nil,
        note: String? = nil
    ) {
        self.sequence = sequence
        self.time = time
        self.method = method
        self.target = target
        self.host = host
        self.headers = headers
        self.bodySize = bodySize
        self.body = body
        self.bodyBase64 = bodyBase64
        self.matched = matched
        self.proxied = proxied
        self.stub = stub
        self.edited = edited
        self.status = status
        self.fault = fault
        self.durationMs = durationMs
        self.contractViolations = contractViolations
        self.causedBy = causedBy
        self.note = note
    }

    /// `time` as a `Date` (`nil` if it does not parse).
    public var date: Date? {
        try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(time)
    }

    /// `target` without its query.
    public var path: String {
        target.firstIndex(of: "?").map { String(target[..<$0]) } ?? target
    }

    /// The body bytes (empty when there was none).
    public var bodyData: Data {
        if let body { return Data(body.utf8) }
        if let bodyBase64, let data = Data(base64Encoded: bodyBase64) { return data }
        return Data()
    }

    /// The value of the first header named `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        for line in headers {
            guard let colon = line.firstIndex(of: ":") else { continue }
            if line[..<colon].lowercased() == name.lowercased() {
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }
}

extension JournalEntry: ControlSchemaNotes {
    public static var propertyNotes: [String: JSONValue] {
        [
            "sequence": ["minimum": 1], "causedBy": ["minimum": 1], "time": ["format": "date-time"],
            "bodySize": ["minimum": 0],
            "durationMs": ["description": "from arrival to the answer, in ms", "minimum": 0],
        ]
    }
}

/// `GET /__mockd/journal`: one page of the session's journal.
public struct JournalPage: Codable, Sendable, Equatable {
    public var session: String
    /// Entries on this page.
    public var count: Int
    /// Entries the journal dropped (`--journal-limit`).
    public var dropped: Int
    public var entries: [JournalEntry]
    /// The cursor of the next page (`?after=`), `nil` on the last page.
    @ExplicitNull public var next: String?

    public init(session: String, count: Int, dropped: Int, entries: [JournalEntry], next: String?) {
        self.session = session
        self.count = count
        self.dropped = dropped
        self.entries = entries
        self.next = next
    }
}

/// A stub that almost matched a request no stub answered, and how it differed.
///
/// Follows WireMock's idea of matching as a distance: each part of the request key contributes a share in 0…1, and
/// the stubs with the smallest total are reported.
public struct NearMiss: Codable, Sendable, Equatable {
    /// One part of a request that differed from a stub (or, for a failed verify, from what was asked).
    public struct Difference: Codable, Sendable, Equatable {
        /// `method`, `host`, `path`, `url`, `query`, `header`, `body` or `state` (an override waiting for another
        /// state).
        public var part: String
        /// What the stub wants (for `header`, `Name: value`; for `body`, a description).
        public var expected: String?
        /// What the request had.
        public var actual: String?
        /// A regular expression ran out of its matching budget on this part: whether it matches is unknown, so the
        /// request was answered as a miss that says so. Sent only when `true`.
        public var undecided: Bool

        public init(part: String, expected: String?, actual: String?, undecided: Bool = false) {
            self.part = part
            self.expected = expected
            self.actual = actual
            self.undecided = undecided
        }

        private enum CodingKeys: String, CodingKey { case part, expected, actual, undecided }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            part = try container.decode(String.self, forKey: .part)
            expected = try container.decodeIfPresent(String.self, forKey: .expected)
            actual = try container.decodeIfPresent(String.self, forKey: .actual)
            undecided = try container.decodeIfPresent(Bool.self, forKey: .undecided) ?? false
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(part, forKey: .part)
            try container.encodeIfPresent(expected, forKey: .expected)
            try container.encodeIfPresent(actual, forKey: .actual)
            if undecided { try container.encode(true, forKey: .undecided) }
        }
    }

    /// The stub's or override's id.
    public var stub: String
    /// The stub's mock set, or `override` for a scenario override.
    public var set: String?
    /// 0 means identical; larger is further away (sent to three decimals).
    public var distance: Double
    /// What differed.
    public var differs: [Difference]
    /// An override's priority (overrides are tried first, highest priority first, ties to the later one).
    public var priority: Int?

    public init(stub: String, set: String?, distance: Double, differs: [Difference], priority: Int? = nil) {
        self.stub = stub
        self.set = set
        self.distance = distance
        self.differs = differs
        self.priority = priority
    }

    private enum CodingKeys: String, CodingKey { case stub, set, distance, differs, priority }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(stub, forKey: .stub)
        try container.encodeIfPresent(set, forKey: .set)
        try container.encode((distance * 1000).rounded() / 1000, forKey: .distance)
        try container.encode(differs, forKey: .differs)
        try container.encodeIfPresent(priority, forKey: .priority)
    }
}

extension NearMiss: ControlSchemaNotes {
    public static var propertyNotes: [String: JSONValue] { ["distance": ["minimum": 0]] }
}

/// A request no stub answered (`GET /__mockd/unmatched`) with the stubs that came closest.
///
/// The journal fields are reachable directly: `request.method`, `request.target` (dynamic member lookup).
@dynamicMemberLookup
public struct UnmatchedRequest: Codable, Sendable, Equatable {
    /// The journal entry of the request.
    public var entry: JournalEntry
    /// The closest stubs, best first.
    public var nearMisses: [NearMiss]

    public init(entry: JournalEntry, nearMisses: [NearMiss]) {
        self.entry = entry
        self.nearMisses = nearMisses
    }

    public subscript<Value>(dynamicMember keyPath: KeyPath<JournalEntry, Value>) -> Value {
        entry[keyPath: keyPath]
    }

    private enum CodingKeys: String, CodingKey { case nearMisses }

    public init(from decoder: any Decoder) throws {
        entry = try JournalEntry(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        nearMisses = try container.decodeIfPresent([NearMiss].self, forKey: .nearMisses) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        try entry.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(nearMisses, forKey: .nearMisses)
    }
}

/// `GET /__mockd/unmatched`: the session's requests no stub answered.
public struct UnmatchedList: Codable, Sendable, Equatable {
    public var session: String
    public var count: Int
    public var requests: [UnmatchedRequest]

    public init(session: String, count: Int, requests: [UnmatchedRequest]) {
        self.session = session
        self.count = count
        self.requests = requests
    }
}

/// The response one journal entry got, as `GET /__mockd/journal/entries/SEQ` shows it.
public struct SentResponse: Codable, Sendable, Equatable {
    /// `nil` when a fault meant none was sent.
    @ExplicitNull public var status: Int?
    /// `Name: value` each.
    public var headers: [String]
    /// The body's size in bytes.
    public var size: Int
    /// Whether `body` stops at 256 KiB.
    public var truncated: Bool
    /// Whether the body was served from a body file.
    public var fromFile: Bool
    /// The body (up to 256 KiB) when it is UTF-8.
    public var body: String?
    /// The body (up to 256 KiB), Base64, when it is not UTF-8.
    public var bodyBase64: String?

    public init(
        status: Int?,
        headers: [String],
        size: Int,
        truncated: Bool,
        fromFile: Bool,
        body: String? = nil,
        bodyBase64: String? = nil
    ) {
        self.status = status
        self.headers = headers
        self.size = size
        self.truncated = truncated
        self.fromFile = fromFile
        self.body = body
        self.bodyBase64 = bodyBase64
    }
}

/// `GET /__mockd/journal/entries/SEQ`: one exchange in full: the journal entry (`entry`'s fields are at the top
/// level), its near misses and the response sent.
@dynamicMemberLookup
public struct JournalEntryDetail: Codable, Sendable, Equatable {
    public var entry: JournalEntry
    public var session: String
    /// The closest stubs, for a request no stub answered.
    public var nearMisses: [NearMiss]?
    public var response: SentResponse

    public init(entry: JournalEntry, session: String, nearMisses: [NearMiss]?, response: SentResponse) {
        self.entry = entry
        self.session = session
        self.nearMisses = nearMisses
        self.response = response
    }

    public subscript<Value>(dynamicMember keyPath: KeyPath<JournalEntry, Value>) -> Value {
        entry[keyPath: keyPath]
    }

    private enum CodingKeys: String, CodingKey { case session, nearMisses, response }

    public init(from decoder: any Decoder) throws {
        entry = try JournalEntry(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        session = try container.decode(String.self, forKey: .session)
        nearMisses = try container.decodeIfPresent([NearMiss].self, forKey: .nearMisses)
        response = try container.decode(SentResponse.self, forKey: .response)
    }

    public func encode(to encoder: any Encoder) throws {
        try entry.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(session, forKey: .session)
        try container.encodeIfPresent(nearMisses, forKey: .nearMisses)
        try container.encode(response, forKey: .response)
    }
}

/// One `event: entry` of `GET /__mockd/journal/stream`: the journal entry without its body, a preview of a text
/// body, the near misses of a miss, and for a WebSocket frame (`WS-IN`/`WS-OUT`) its opcode and connection number.
@dynamicMemberLookup
public struct JournalRow: Codable, Sendable, Equatable {
    /// The entry, without `body` and `bodyBase64`.
    public var entry: JournalEntry
    /// The first 512 characters of a text body (`…` when cut).
    public var preview: String?
    public var nearMisses: [NearMiss]?
    /// A WebSocket frame's opcode (`text`, `binary`, `close`…).
    public var opcode: String?
    /// A WebSocket frame's or a pushed event's (`SSE-OUT`) connection number.
    public var connection: Int?
    /// A pushed event's (`SSE-OUT`) `event:` name.
    public var event: String?

    public init(
        entry: JournalEntry,
        preview: String? = nil,
        nearMisses: [NearMiss]? = nil,
        opcode: String? = nil,
        connection: Int? = nil,
        event: String? = nil
    ) {
        self.entry = entry
        self.preview = preview
        self.nearMisses = nearMisses
        self.opcode = opcode
        self.connection = connection
        self.event = event
    }

    public subscript<Value>(dynamicMember keyPath: KeyPath<JournalEntry, Value>) -> Value {
        entry[keyPath: keyPath]
    }

    private enum CodingKeys: String, CodingKey { case preview, nearMisses, opcode, connection, event }

    public init(from decoder: any Decoder) throws {
        entry = try JournalEntry(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        preview = try container.decodeIfPresent(String.self, forKey: .preview)
        nearMisses = try container.decodeIfPresent([NearMiss].self, forKey: .nearMisses)
        opcode = try container.decodeIfPresent(String.self, forKey: .opcode)
        connection = try container.decodeIfPresent(Int.self, forKey: .connection)
        event = try container.decodeIfPresent(String.self, forKey: .event)
    }

    public func encode(to encoder: any Encoder) throws {
        try entry.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(preview, forKey: .preview)
        try container.encodeIfPresent(nearMisses, forKey: .nearMisses)
        try container.encodeIfPresent(opcode, forKey: .opcode)
        try container.encodeIfPresent(connection, forKey: .connection)
        try container.encodeIfPresent(event, forKey: .event)
    }
}

/// An event of `GET /__mockd/journal/stream` (Server-Sent Events).
public enum JournalEvent: Sendable, Equatable {
    /// `event: hello`: the stream is open, for this session.
    case hello(session: String)
    /// `event: entry`: one journal entry, in arrival order; `id:` is its sequence number.
    case entry(JournalRow)
    /// `event: reset`: the session's journal was cleared or the session replaced; numbering starts over.
    case reset
}
