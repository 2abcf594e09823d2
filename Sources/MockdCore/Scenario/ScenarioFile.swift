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

        enum CodingKeys: String, CodingKey { case id, priority, match, responses, afterLast, rateLimit }

        public init(
            id: String? = nil, priority: Int? = nil, match: MatchEntry, responses: [ResponseStepEntry]? = nil,
            afterLast: ExhaustionPolicy? = nil, rateLimit: RateLimitEntry? = nil, step: ResponseStepEntry = ResponseStepEntry()
        ) {
            self.id = id
            self.priority = priority
            self.match = match
            self.responses = responses
            self.afterLast = afterLast
            self.rateLimit = rateLimit
            self.step = step
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decodeIfPresent(String.self, forKey: .id)
            priority = try container.decodeIfPresent(Int.self, forKey: .priority)
            match = try container.decode(MatchEntry.self, forKey: .match)
            responses = try container.decodeIfPresent([ResponseStepEntry].self, forKey: .responses)
            afterLast = try container.decodeIfPresent(ExhaustionPolicy.self, forKey: .afterLast)
            rateLimit = try container.decodeIfPresent(RateLimitEntry.self, forKey: .rateLimit)
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
            try step.encode(to: encoder)
        }
    }

    /// Which requests an override catches. Every given part must hold; absent parts match anything.
    public struct MatchEntry: Codable, Sendable, Equatable {
        /// Exact method; absent = any.
        public var method: String?
        /// Exact raw path, or a template whose `{name}` segments match any one segment (`/v1/orders/{id}`).
        public var path: String?
        /// Query parameters that must be present with these (decoded) values; others may be present too.
        public var query: [String: String]?
        /// Headers that must be present with these values (names case-insensitive).
        public var headers: [String: String]?
        public var body: BodyMatchEntry?

        public init(method: String? = nil, path: String? = nil, query: [String: String]? = nil, headers: [String: String]? = nil, body: BodyMatchEntry? = nil) {
            self.method = method
            self.path = path
            self.query = query
            self.headers = headers
            self.body = body
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

    public init(
        status: Int? = nil, headers: [String: String?]? = nil, addHeaders: [String]? = nil, body: JSONValue? = nil,
        bodyFile: String? = nil, bodyPatch: JSONValue? = nil, latency: LatencyEntry? = nil,
        throttle: ThrottleEntry? = nil, fault: Fault? = nil, serverUnavailable: ServerUnavailableEntry? = nil,
        websocket: WebSocketScript? = nil, events: EventStream? = nil, hold: HoldEntry? = nil
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
