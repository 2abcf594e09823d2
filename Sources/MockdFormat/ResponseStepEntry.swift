/// One response step of an override (or the scenario `defaults`): every field optional, applied on top
/// of the response the mock sets would give.
public struct ResponseStepEntry: Codable, Sendable, Equatable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case status, headers, addHeaders, body, bodyFile, bodyPatch, latency, throttle, fault, serverUnavailable,
            websocket, events, hold, templated, emit, graphqlErrors
    }

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
    /// Pushes the answer causes, after it is sent: WebSocket messages, Server-Sent Events and webhooks (`EmitEntry`).
    /// A step with its own `emit` replaces the pushes of the response it edits; without one it keeps them.
    public var emit: [EmitEntry]?
    /// A GraphQL error answer (`GraphQLErrorsEntry`): `200` with `{"data": null, "errors": [...]}`; a string is one
    /// error's message, an object one error, an array several.
    public var graphqlErrors: GraphQLErrorsEntry?

    public init(
        status: Int? = nil,
        headers: [String: String?]? = nil,
        addHeaders: [String]? = nil,
        body: JSONValue? = nil,
        bodyFile: String? = nil,
        bodyPatch: JSONValue? = nil,
        latency: LatencyEntry? = nil,
        throttle: ThrottleEntry? = nil,
        fault: Fault? = nil,
        serverUnavailable: ServerUnavailableEntry? = nil,
        websocket: WebSocketScript? = nil,
        events: EventStream? = nil,
        hold: HoldEntry? = nil,
        templated: Bool? = nil,
        emit: [EmitEntry]? = nil,
        graphqlErrors: GraphQLErrorsEntry? = nil
    ) {
        self.graphqlErrors = graphqlErrors
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
        self.emit = emit
    }

    /// Whether the step replaces the response outright (`body`, `bodyFile`, `serverUnavailable`) rather than
    /// editing the stub's.
    public var definesResponse: Bool {
        body != nil || bodyFile != nil || serverUnavailable != nil || graphqlErrors != nil
    }
}

/// `latency`: a number (fixed ms) or one of `{"fixed": ms}`, `{"min": ms, "max": ms}`,
/// `{"median": ms, "sigma": s, "seed": n}` (log-normal), `{"recorded": factor}` or `"recorded"`.
public enum LatencyEntry: Codable, Sendable, Equatable {
    /// Always this many ms.
    case fixed(Double)
    /// Uniform between `min` and `max` ms; with a seed the n-th call always gets the same delay.
    case uniform(min: Double, max: Double, seed: UInt64? = nil)
    /// Log-normal around `median` ms with shape `sigma` (default 0.5); with a seed the n-th call always gets the
    /// same delay.
    case logNormal(median: Double, sigma: Double, seed: UInt64? = nil)
    /// The HAR entry's recorded time (`recordedTimeMs`) × `factor`.
    case recorded(factor: Double)

    enum CodingKeys: String, CodingKey, CaseIterable { case fixed, min, max, median, sigma, seed, recorded }

    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer() {
            if let milliseconds = try? single.decode(Double.self) {
                self = .fixed(milliseconds)
                return
            }
            if let word = try? single.decode(String.self) {
                guard word == "recorded" else {
                    throw DecodingError.dataCorruptedError(
                        in: single,
                        debugDescription: "expected a number of ms, \"recorded\" or an object, got \"\(word)\""
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
                median: median,
                sigma: try container.decodeIfPresent(Double.self, forKey: .sigma) ?? 0.5,
                seed: try container.decodeIfPresent(UInt64.self, forKey: .seed)
            )
        } else if let min = try container.decodeIfPresent(Double.self, forKey: .min) {
            self = .uniform(
                min: min,
                max: try container.decode(Double.self, forKey: .max),
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

    /// Apple Network Link Conditioner's Edge download rate, 30,000 bytes/s.
    public static let edge = ThrottleEntry(bytesPerSecond: 30_000)
    /// Its 3G rate, 97,500 bytes/s.
    public static let threeG = ThrottleEntry(bytesPerSecond: 97_500)
    /// Its LTE rate, 6,250,000 bytes/s.
    public static let lte = ThrottleEntry(bytesPerSecond: 6_250_000)

    /// A named profile (`edge`, `3g`, `lte`; case-insensitive), or `nil` for an unknown name.
    public static func profile(_ name: String) -> ThrottleEntry? {
        profiles[name.lowercased()].map(ThrottleEntry.init(bytesPerSecond:))
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case bytesPerSecond }

    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer() {
            if let rate = try? single.decode(Int.self) {
                guard rate > 0 else {
                    throw DecodingError.dataCorruptedError(in: single, debugDescription: "must be > 0 bytes per second")
                }
                bytesPerSecond = rate
                return
            }
            if let name = try? single.decode(String.self) {
                guard let rate = ThrottleEntry.profiles[name.lowercased()] else {
                    throw DecodingError.dataCorruptedError(
                        in: single,
                        debugDescription:
                            "unknown throttle profile \"\(name)\" (known: \(ThrottleEntry.profiles.keys.sorted().joined(separator: ", ")))"
                    )
                }
                bytesPerSecond = rate
                return
            }
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        bytesPerSecond = try container.decode(Int.self, forKey: .bytesPerSecond)
        guard bytesPerSecond > 0 else {
            throw DecodingError.dataCorruptedError(
                forKey: .bytesPerSecond,
                in: container,
                debugDescription: "must be > 0"
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(bytesPerSecond, forKey: .bytesPerSecond)
    }
}

/// `hold`: `{"timeoutMs": 30000}`.
public struct HoldEntry: Codable, Sendable, Equatable {
    enum CodingKeys: String, CodingKey, CaseIterable { case timeoutMs }

    /// How long to hold at most, in ms (default 30,000).
    public var timeoutMs: Double?

    public init(timeoutMs: Double? = nil) {
        self.timeoutMs = timeoutMs
    }
}

/// `serverUnavailable`: `true` or `{"retryAfter": seconds}`.
public struct ServerUnavailableEntry: Codable, Sendable, Equatable {
    public var retryAfter: Int

    public init(retryAfter: Int = 30) {
        self.retryAfter = retryAfter
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case retryAfter }

    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), let flag = try? single.decode(Bool.self) {
            guard flag else {
                throw DecodingError.dataCorruptedError(in: single, debugDescription: "use true or leave it out")
            }
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
