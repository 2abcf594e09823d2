/// A scenario file, `configs/<name>.json` (format version 1, see docs/FORMAT.md and docs/schema/).
///
/// A scenario layers mock sets (base first) and then **overrides**: request patterns with a priority that
/// replace or modify what the sets answer.
public struct ScenarioFile: Codable, Sendable, Equatable {
    public static let currentVersion = 1

    public var version: Int
    public var description: String?
    /// Scenarios this one extends; their sets, defaults and overrides come first.
    public var include: [String]?
    /// Mock sets under `mocks/`, base first; later sets win.
    public var sets: [String]?
    /// Behaviour applied to every response unless an override says otherwise.
    public var defaults: ResponseStepEntry?
    /// Answer `If-None-Match` with 304 for responses that carry an `ETag` (RFC 9110 §13.1.2).
    public var conditionalRequests: Bool?
    public var overrides: [OverrideEntry]?
    /// Matching rules added to those of every set (see `RequestNormalization`).
    public var normalize: RequestNormalization?
    /// Answer unmatched CORS preflights with 204 (see `MockSetFile.cors`).
    public var cors: Bool?

    public init(
        version: Int = ScenarioFile.currentVersion, description: String? = nil, include: [String]? = nil,
        sets: [String]? = nil, defaults: ResponseStepEntry? = nil, conditionalRequests: Bool? = nil,
        overrides: [OverrideEntry]? = nil
    ) {
        self.version = version
        self.description = description
        self.include = include
        self.sets = sets
        self.defaults = defaults
        self.conditionalRequests = conditionalRequests
        self.overrides = overrides
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decodeIfPresent(Int.self, forKey: .version) ?? 1
        if version > ScenarioFile.currentVersion {
            throw DecodingError.dataCorruptedError(
                forKey: .version, in: container,
                debugDescription: "version \(version) is newer than this mockd supports (up to \(ScenarioFile.currentVersion))"
            )
        }
        description = try container.decodeIfPresent(String.self, forKey: .description)
        include = try container.decodeIfPresent([String].self, forKey: .include)
        sets = try container.decodeIfPresent([String].self, forKey: .sets)
        defaults = try container.decodeIfPresent(ResponseStepEntry.self, forKey: .defaults)
        conditionalRequests = try container.decodeIfPresent(Bool.self, forKey: .conditionalRequests)
        overrides = try container.decodeIfPresent([OverrideEntry].self, forKey: .overrides)
        normalize = try container.decodeIfPresent(RequestNormalization.self, forKey: .normalize)
        cors = try container.decodeIfPresent(Bool.self, forKey: .cors)
    }

    /// One override: which requests it catches, its priority, and what it answers.
    public struct OverrideEntry: Codable, Sendable, Equatable {
        public var id: String?
        /// Higher wins; ties go to the override listed later. Default 0.
        public var priority: Int?
        public var match: MatchEntry
        /// An explicit response sequence; without it the override modifies the matching stub's response.
        public var responses: [ResponseStepEntry]?
        public var afterLast: ExhaustionPolicy?
        /// After `limit` calls within `windowMs`, answer 429 with `Retry-After`.
        public var rateLimit: RateLimitEntry?
        /// The single-step form: the same fields as one entry of `responses`.
        public var step: ResponseStepEntry
        /// A state machine condition and transition: match only in a state, move to another after answering.
        public var state: StateEntry?

        enum CodingKeys: String, CodingKey { case id, priority, match, responses, afterLast, rateLimit, state }

        public init(
            id: String? = nil, priority: Int? = nil, match: MatchEntry, responses: [ResponseStepEntry]? = nil,
            afterLast: ExhaustionPolicy? = nil, rateLimit: RateLimitEntry? = nil, step: ResponseStepEntry = ResponseStepEntry(),
            state: StateEntry? = nil
        ) {
            self.id = id
            self.priority = priority
            self.match = match
            self.responses = responses
            self.afterLast = afterLast
            self.rateLimit = rateLimit
            self.step = step
            self.state = state
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decodeIfPresent(String.self, forKey: .id)
            priority = try container.decodeIfPresent(Int.self, forKey: .priority)
            match = try container.decode(MatchEntry.self, forKey: .match)
            responses = try container.decodeIfPresent([ResponseStepEntry].self, forKey: .responses)
            afterLast = try container.decodeIfPresent(ExhaustionPolicy.self, forKey: .afterLast)
            rateLimit = try container.decodeIfPresent(RateLimitEntry.self, forKey: .rateLimit)
            state = try container.decodeIfPresent(StateEntry.self, forKey: .state)
            step = try ResponseStepEntry(from: decoder)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(id, forKey: .id)
            try container.encodeIfPresent(priority, forKey: .priority)
            try container.encode(match, forKey: .match)
            try container.encodeIfPresent(responses, forKey: .responses)
            try container.encodeIfPresent(afterLast, forKey: .afterLast)
            try container.encodeIfPresent(rateLimit, forKey: .rateLimit)
            try container.encodeIfPresent(state, forKey: .state)
            try step.encode(to: encoder)
        }
    }

    /// Which requests an override catches. Every given part must hold; absent parts match anything.
    public struct MatchEntry: Codable, Sendable, Equatable {
        /// Exact method; absent = any.
        public var method: String?
        /// Exact raw path, or a template whose `{name}` segments match any one segment (`/v1/orders/{id}`).
        public var path: String?
        /// A regular expression the whole (normalised) path must match.
        public var pathPattern: String?
        /// Exact path and query (`/todo/items?status=open`): no other parameter may be present; order does not matter.
        public var url: String?
        /// A regular expression the whole path plus `?query` (as sent) must match.
        public var urlPattern: String?
        /// Query parameters that must be present with these (decoded) values, or operator objects
        /// (`{"matches": "…"}`, `{"absent": true}`…); others may be present too.
        public var query: [String: ValueMatchEntry]?
        /// Headers that must be present with these values, or operator objects (names case-insensitive).
        public var headers: [String: ValueMatchEntry]?
        /// One body condition, or an array of them that must all hold.
        public var body: BodyMatchList?

        public init(
            method: String? = nil, path: String? = nil, query: [String: ValueMatchEntry]? = nil, headers: [String: ValueMatchEntry]? = nil,
            body: BodyMatchEntry? = nil, pathPattern: String? = nil, url: String? = nil, urlPattern: String? = nil, bodies: [BodyMatchEntry]? = nil
        ) {
            self.method = method
            self.path = path
            self.query = query
            self.headers = headers
            self.body = bodies.map { BodyMatchList(conditions: $0, isList: true) } ?? body.map { BodyMatchList(conditions: [$0], isList: false) }
            self.pathPattern = pathPattern
            self.url = url
            self.urlPattern = urlPattern
        }
    }

    /// A request-body condition: exactly one of the fields.
    public struct BodyMatchEntry: Codable, Sendable, Equatable {
        /// The body parses as JSON and contains these fields (objects compared as subsets, arrays and
        /// scalars exactly).
        public var json: JSONValue?
        /// The body equals this text.
        public var text: String?
        /// The body contains this text.
        public var contains: String?
        /// The body parses as JSON equal to this (same members in any order, arrays in order, numbers by value).
        public var jsonEquals: JSONValue?
        /// The body, as UTF-8 text, matches this regular expression as a whole.
        public var matches: String?
        /// The body, as UTF-8 text, does not match this regular expression as a whole.
        public var doesNotMatch: String?
        /// The body parses as JSON and this simple JSONPath (`$.user.id`, `$.items[0]`) leads to a value that is
        /// not null and not an empty array or object.
        public var jsonPath: String?
        /// `true`: the body is empty.
        public var absent: Bool?

        public init(
            json: JSONValue? = nil, text: String? = nil, contains: String? = nil, jsonEquals: JSONValue? = nil, matches: String? = nil,
            doesNotMatch: String? = nil, jsonPath: String? = nil, absent: Bool? = nil
        ) {
            self.json = json
            self.text = text
            self.contains = contains
            self.jsonEquals = jsonEquals
            self.matches = matches
            self.doesNotMatch = doesNotMatch
            self.jsonPath = jsonPath
            self.absent = absent
        }
    }

    /// `match.body`: one condition object, or an array of them that must all hold.
    public struct BodyMatchList: Codable, Sendable, Equatable {
        public var conditions: [BodyMatchEntry]
        /// Whether it was written as an array (and is written back as one).
        public var isList: Bool

        public init(conditions: [BodyMatchEntry], isList: Bool) {
            self.conditions = conditions
            self.isList = isList
        }

        private struct AnyKey: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init?(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        public init(from decoder: any Decoder) throws {
            if (try? decoder.container(keyedBy: AnyKey.self)) != nil {
                conditions = [try BodyMatchEntry(from: decoder)]
                isList = false
            } else {
                conditions = try decoder.singleValueContainer().decode([BodyMatchEntry].self)
                isList = true
            }
        }

        public func encode(to encoder: any Encoder) throws {
            if isList || conditions.count != 1 {
                var container = encoder.singleValueContainer()
                try container.encode(conditions)
            } else {
                try conditions[0].encode(to: encoder)
            }
        }
    }

    /// `state`: `{"name": "checkout", "requires": "Started", "next": "Paid"}`. Every state machine starts in
    /// `Started`, per session; `POST /__mockd/reset` puts it back there.
    public struct StateEntry: Codable, Sendable, Equatable {
        /// The state machine; every override naming it shares its state.
        public var name: String
        /// The override matches only while the machine is in this state; absent = in any state.
        public var requires: String?
        /// The state the machine moves to when this override answers; absent = no change.
        public var next: String?

        public init(name: String, requires: String? = nil, next: String? = nil) {
            self.name = name
            self.requires = requires
            self.next = next
        }
    }

    /// `rateLimit`: after `limit` calls in `windowMs`, answer 429.
    public struct RateLimitEntry: Codable, Sendable, Equatable {
        public var limit: Int
        /// Window length in ms, counted from the first call of the window. Default 60,000.
        public var windowMs: Int?
        /// `Retry-After` seconds. Default: the rest of the window, rounded up.
        public var retryAfter: Int?
    }
}

/// One response step of an override (or the scenario `defaults`): every field optional, applied on top
/// of the response the mock sets would give.
public struct ResponseStepEntry: Codable, Sendable, Equatable {
    public var status: Int?
    /// Headers to set (replacing any of that name); `null` removes the header.
    public var headers: [String: String?]?
    /// `Name: value` lines added without replacing (a second `Set-Cookie`).
    public var addHeaders: [String]?
    /// Inline body: a string is sent as text, anything else as JSON.
    public var body: JSONValue?
    /// A body file under `mocks/` (e.g. `chat/bodies/x.json`); must stay inside `mocks/`.
    public var bodyFile: String?
    /// RFC 7386 JSON merge patch applied to the JSON body.
    public var bodyPatch: JSONValue?
    public var latency: LatencyEntry?
    public var throttle: ThrottleEntry?
    public var fault: Fault?
    /// 503 with `Retry-After` (seconds, default 30): `true` or `{"retryAfter": 120}`.
    public var serverUnavailable: ServerUnavailableEntry?
    /// A WebSocket endpoint: the script to run after the handshake.
    public var websocket: WebSocketScript?
    /// A Server-Sent Events stream.
    public var events: EventStream?
    /// Long-poll: hold the request until `timeoutMs` pass or `POST /__mockd/release`, then answer.
    public var hold: HoldEntry?
    /// `false` sends `{{…}}` in the step's body and headers literally (no placeholders rendered); default `true`.
    public var templated: Bool?

    public init(
        status: Int? = nil, headers: [String: String?]? = nil, addHeaders: [String]? = nil, body: JSONValue? = nil,
        bodyFile: String? = nil, bodyPatch: JSONValue? = nil, latency: LatencyEntry? = nil,
        throttle: ThrottleEntry? = nil, fault: Fault? = nil, serverUnavailable: ServerUnavailableEntry? = nil,
        websocket: WebSocketScript? = nil, events: EventStream? = nil, hold: HoldEntry? = nil, templated: Bool? = nil
    ) {
        self.status = status
        self.headers = headers
        self.addHeaders = addHeaders
        self.body = body
        self.bodyFile = bodyFile
        self.bodyPatch = bodyPatch
        self.latency = latency
        self.throttle = throttle
        self.fault = fault
        self.serverUnavailable = serverUnavailable
        self.websocket = websocket
        self.events = events
        self.hold = hold
        self.templated = templated
    }

    /// Whether the step replaces the response outright rather than editing the stub's.
    var definesResponse: Bool { body != nil || bodyFile != nil || serverUnavailable != nil }
}

/// `latency`: a number (fixed ms) or one of `{"fixed": ms}`, `{"min": ms, "max": ms}`,
/// `{"median": ms, "sigma": s, "seed": n}` (log-normal), `{"recorded": factor}` or `"recorded"`.
public enum LatencyEntry: Codable, Sendable, Equatable {
    case fixed(Double)
    case uniform(min: Double, max: Double, seed: UInt64?)
    case logNormal(median: Double, sigma: Double, seed: UInt64?)
    case recorded(factor: Double)

    private enum CodingKeys: String, CodingKey { case fixed, min, max, median, sigma, seed, recorded }

    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer() {
            if let milliseconds = try? single.decode(Double.self) {
                self = .fixed(milliseconds)
                return
            }
            if let word = try? single.decode(String.self) {
                guard word == "recorded" else {
                    throw DecodingError.dataCorruptedError(
                        in: single, debugDescription: "expected a number of ms, \"recorded\" or an object, got \"\(word)\""
                    )
                }
                self = .recorded(factor: 1)
                return
            }
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let fixed = try container.decodeIfPresent(Double.self, forKey: .fixed) {
            self = .fixed(fixed)
        } else if let factor = try container.decodeIfPresent(Double.self, forKey: .recorded) {
            self = .recorded(factor: factor)
        } else if let median = try container.decodeIfPresent(Double.self, forKey: .median) {
            self = .logNormal(
                median: median, sigma: try container.decodeIfPresent(Double.self, forKey: .sigma) ?? 0.5,
                seed: try container.decodeIfPresent(UInt64.self, forKey: .seed)
            )
        } else if let min = try container.decodeIfPresent(Double.self, forKey: .min) {
            self = .uniform(
                min: min, max: try container.decode(Double.self, forKey: .max),
                seed: try container.decodeIfPresent(UInt64.self, forKey: .seed)
            )
        } else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "give fixed, min/max, median/sigma or recorded")
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .fixed(let value): try container.encode(value, forKey: .fixed)
        case .uniform(let min, let max, let seed):
            try container.encode(min, forKey: .min)
            try container.encode(max, forKey: .max)
            try container.encodeIfPresent(seed, forKey: .seed)
        case .logNormal(let median, let sigma, let seed):
            try container.encode(median, forKey: .median)
            try container.encode(sigma, forKey: .sigma)
            try container.encodeIfPresent(seed, forKey: .seed)
        case .recorded(let factor): try container.encode(factor, forKey: .recorded)
        }
    }
}

/// `throttle`: bytes per second as a number or `{"bytesPerSecond": n}`, or a named profile.
public struct ThrottleEntry: Codable, Sendable, Equatable {
    /// Body delivery rate in bytes per second.
    public let bytesPerSecond: Int

    /// Named profiles, download rates of Apple's Network Link Conditioner presets.
    public static let profiles: [String: Int] = [
        "edge": 30_000,  // 240 kbit/s
        "3g": 97_500,  // 780 kbit/s
        "lte": 6_250_000,  // 50 Mbit/s
    ]

    public init(bytesPerSecond: Int) {
        self.bytesPerSecond = bytesPerSecond
    }

    private enum CodingKeys: String, CodingKey { case bytesPerSecond }

    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer() {
            if let rate = try? single.decode(Int.self) {
                guard rate > 0 else { throw DecodingError.dataCorruptedError(in: single, debugDescription: "must be > 0 bytes per second") }
                bytesPerSecond = rate
                return
            }
            if let name = try? single.decode(String.self) {
                guard let rate = ThrottleEntry.profiles[name.lowercased()] else {
                    throw DecodingError.dataCorruptedError(
                        in: single,
                        debugDescription: "unknown throttle profile \"\(name)\" (known: \(ThrottleEntry.profiles.keys.sorted().joined(separator: ", ")))"
                    )
                }
                bytesPerSecond = rate
                return
            }
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        bytesPerSecond = try container.decode(Int.self, forKey: .bytesPerSecond)
        guard bytesPerSecond > 0 else {
            throw DecodingError.dataCorruptedError(forKey: .bytesPerSecond, in: container, debugDescription: "must be > 0")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(bytesPerSecond, forKey: .bytesPerSecond)
    }
}

/// `hold`: `{"timeoutMs": 30000}`.
public struct HoldEntry: Codable, Sendable, Equatable {
    /// How long to hold at most, in ms (default 30,000).
    public var timeoutMs: Double?
}

/// A failure injected at the socket.
public enum Fault: String, Codable, Sendable, CaseIterable {
    /// The connection is reset (TCP RST) without a response.
    case connectionReset
    /// The connection is closed without a response (the client sees an empty reply).
    case emptyResponse
    /// Headers with the full `Content-Length`, then half the body, then the connection closes.
    case truncatedBody
    /// `Transfer-Encoding: chunked` with an invalid chunk-size line, then the connection closes.
    case malformedChunk
    /// The request is never answered; the connection stays open until the client gives up.
    case noResponse
}

/// `serverUnavailable`: `true` or `{"retryAfter": seconds}`.
public struct ServerUnavailableEntry: Codable, Sendable, Equatable {
    public var retryAfter: Int

    public init(retryAfter: Int = 30) {
        self.retryAfter = retryAfter
    }

    private enum CodingKeys: String, CodingKey { case retryAfter }

    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), let flag = try? single.decode(Bool.self) {
            guard flag else { throw DecodingError.dataCorruptedError(in: single, debugDescription: "use true or leave it out") }
            retryAfter = 30
            return
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        retryAfter = try container.decodeIfPresent(Int.self, forKey: .retryAfter) ?? 30
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(retryAfter, forKey: .retryAfter)
    }
}

/// A query or header condition in an override's `match`: a plain string (the value, compared as before) or an
/// operator object with exactly one of `equalTo` (whole value; `caseInsensitive: true` to ignore case),
/// `matches` / `doesNotMatch` (regex on the whole value), `contains`, `absent` (`true`: must be absent,
/// `false`: must be present).
public struct ValueMatchEntry: Codable, Sendable, Equatable, ExpressibleByStringLiteral {
    /// The plain-string form.
    public var plain: String?
    public var equalTo: String?
    public var caseInsensitive: Bool?
    public var matches: String?
    public var doesNotMatch: String?
    public var contains: String?
    public var absent: Bool?

    public init(
        plain: String? = nil, equalTo: String? = nil, caseInsensitive: Bool? = nil, matches: String? = nil, doesNotMatch: String? = nil,
        contains: String? = nil, absent: Bool? = nil
    ) {
        self.plain = plain
        self.equalTo = equalTo
        self.caseInsensitive = caseInsensitive
        self.matches = matches
        self.doesNotMatch = doesNotMatch
        self.contains = contains
        self.absent = absent
    }

    public init(stringLiteral value: String) {
        self.init(plain: value)
    }

    private enum CodingKeys: String, CodingKey { case equalTo, caseInsensitive, matches, doesNotMatch, contains, absent }

    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), let text = try? single.decode(String.self) {
            self.init(plain: text)
            return
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            equalTo: try container.decodeIfPresent(String.self, forKey: .equalTo),
            caseInsensitive: try container.decodeIfPresent(Bool.self, forKey: .caseInsensitive),
            matches: try container.decodeIfPresent(String.self, forKey: .matches),
            doesNotMatch: try container.decodeIfPresent(String.self, forKey: .doesNotMatch),
            contains: try container.decodeIfPresent(String.self, forKey: .contains),
            absent: try container.decodeIfPresent(Bool.self, forKey: .absent)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        if let plain {
            var single = encoder.singleValueContainer()
            try single.encode(plain)
            return
        }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(equalTo, forKey: .equalTo)
        try container.encodeIfPresent(caseInsensitive, forKey: .caseInsensitive)
        try container.encodeIfPresent(matches, forKey: .matches)
        try container.encodeIfPresent(doesNotMatch, forKey: .doesNotMatch)
        try container.encodeIfPresent(contains, forKey: .contains)
        try container.encodeIfPresent(absent, forKey: .absent)
    }
}
