/// A runtime stub for `MockdClient.addStub(_:)`: the scenario override format as a typed builder.
///
/// Only the fields that are set are sent. A stub is tried before the scenario's mock sets; the one with
/// the highest `priority` wins, among equals the one added last.
///
/// ```swift
/// let id = try await client.addStub(StubDefinition(method: "GET", path: "/v1/me", status: 200, json: ["name": "Anna"]))
/// try await client.addStub(StubDefinition(method: "POST", path: "/v1/orders/{id}/cancel", responses: [
///     .init(serverUnavailable: .init(retryAfter: 5)), .init(),
/// ]))
/// ```
public struct StubDefinition: Encodable, Sendable, Equatable {
    /// The stub's id (the daemon assigns `runtime-N` when `nil`).
    public var id: String?
    /// Higher wins; the daemon's default is 0.
    public var priority: Int?
    /// Which requests this stub answers.
    public var match: Match
    /// The single step used when `responses` is `nil`.
    public var response: Response
    /// An explicit sequence of steps, one per call.
    public var responses: [Response]?
    /// What happens after the last step of `responses`.
    public var afterLast: AfterLast?
    /// Answer 429 after `limit` calls within `windowMs`.
    public var rateLimit: RateLimit?

    /// A stub from its parts.
    public init(
        id: String? = nil, priority: Int? = nil, match: Match, response: Response = Response(),
        responses: [Response]? = nil, afterLast: AfterLast? = nil, rateLimit: RateLimit? = nil
    ) {
        self.id = id
        self.priority = priority
        self.match = match
        self.response = response
        self.responses = responses
        self.afterLast = afterLast
        self.rateLimit = rateLimit
    }

    /// A stub matching `method` and `path` (exact or a template, `/v1/orders/{id}`), answering with the
    /// given step fields. `json` is sent as `application/json`, `text` as `text/plain` (give one of them).
    /// - Parameters:
    ///   - query: decoded query parameters that must be present with these values.
    ///   - requestHeaders: request headers that must be present (names case-insensitive).
    ///   - requestBody: what the request body must contain.
    ///   - headers: response headers to set; a `nil` value removes that header.
    ///   - latencyMs: milliseconds before the answer.
    public init(
        id: String? = nil, priority: Int? = nil,
        method: String? = nil, path: String? = nil, query: [String: String]? = nil,
        requestHeaders: [String: String]? = nil, requestBody: BodyMatch? = nil,
        status: Int? = nil, headers: [String: String?]? = nil, json: JSONValue? = nil, text: String? = nil,
        latencyMs: Double? = nil, fault: Fault? = nil, serverUnavailable: ServerUnavailable? = nil,
        responses: [Response]? = nil, afterLast: AfterLast? = nil
    ) {
        self.init(
            id: id, priority: priority,
            match: Match(method: method, path: path, query: query, headers: requestHeaders, body: requestBody),
            response: Response(
                status: status, headers: headers, json: json, text: text,
                latency: latencyMs.map { .fixed($0) }, fault: fault, serverUnavailable: serverUnavailable
            ),
            responses: responses, afterLast: afterLast
        )
    }

    /// The request side (`match`).
    public struct Match: Encodable, Sendable, Equatable {
        /// Exact method, `GET`.
        public var method: String?
        /// Exact raw path or a template: `/v1/orders/{id}` matches any one segment.
        public var path: String?
        /// Decoded query parameters that must be present with these values (others may be present).
        public var query: [String: String]?
        /// Request headers that must be present with these values (names case-insensitive).
        public var headers: [String: String]?
        /// What the request body must be or contain.
        public var body: BodyMatch?

        public init(
            method: String? = nil, path: String? = nil, query: [String: String]? = nil,
            headers: [String: String]? = nil, body: BodyMatch? = nil
        ) {
            self.method = method
            self.path = path
            self.query = query
            self.headers = headers
            self.body = body
        }
    }

    /// `match.body`.
    public enum BodyMatch: Encodable, Sendable, Equatable {
        /// The JSON body contains these fields (objects compared as subsets): `{"json": …}`.
        case json(JSONValue)
        /// The body is exactly this text: `{"text": …}`.
        case text(String)
        /// The body contains this text: `{"contains": …}`.
        case contains(String)

        private enum CodingKeys: String, CodingKey { case json, text, contains }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            switch self {
            case .json(let value): try container.encode(value, forKey: .json)
            case .text(let value): try container.encode(value, forKey: .text)
            case .contains(let value): try container.encode(value, forKey: .contains)
            }
        }
    }

    /// One step: the response fields (at the top level of the stub, or an element of `responses`).
    /// An empty step passes the mock set's response through; one with only edits (`status`, `headers`,
    /// `bodyPatch`…) changes it; one with `body`, `bodyFile` or `serverUnavailable` replaces it.
    public struct Response: Encodable, Sendable, Equatable {
        /// The status code (100–999).
        public var status: Int?
        /// Headers to set (replacing those of the same name); a `nil` value removes one.
        public var headers: [String: String?]?
        /// Headers to add without replacing, `"Name: value"`.
        public var addHeaders: [String]?
        /// The body: a `.string` is sent as `text/plain`, anything else as compact `application/json`.
        public var body: JSONValue?
        /// A file under the daemon's `mocks/` folder, `chat/bodies/x.json`.
        public var bodyFile: String?
        /// An RFC 7386 JSON merge patch applied to the mock set's JSON body.
        public var bodyPatch: JSONValue?
        /// Delay before the answer.
        public var latency: Latency?
        /// Body rate limit.
        public var throttle: Throttle?
        /// A transport failure instead of (part of) the response.
        public var fault: Fault?
        /// Answer 503 with `Retry-After`.
        public var serverUnavailable: ServerUnavailable?

        /// A step; `json` and `text` both set `body` (`text` wins when both are given).
        public init(
            status: Int? = nil, headers: [String: String?]? = nil, addHeaders: [String]? = nil,
            json: JSONValue? = nil, text: String? = nil, bodyFile: String? = nil, bodyPatch: JSONValue? = nil,
            latency: Latency? = nil, throttle: Throttle? = nil, fault: Fault? = nil,
            serverUnavailable: ServerUnavailable? = nil
        ) {
            self.status = status
            self.headers = headers
            self.addHeaders = addHeaders
            self.body = text.map { .string($0) } ?? json
            self.bodyFile = bodyFile
            self.bodyPatch = bodyPatch
            self.latency = latency
            self.throttle = throttle
            self.fault = fault
            self.serverUnavailable = serverUnavailable
        }

        fileprivate func encodeFields(into container: inout KeyedEncodingContainer<StubDefinition.CodingKeys>) throws {
            try container.encodeIfPresent(status, forKey: .status)
            try container.encodeIfPresent(headers, forKey: .headers)
            try container.encodeIfPresent(addHeaders, forKey: .addHeaders)
            try container.encodeIfPresent(body, forKey: .body)
            try container.encodeIfPresent(bodyFile, forKey: .bodyFile)
            try container.encodeIfPresent(bodyPatch, forKey: .bodyPatch)
            try container.encodeIfPresent(latency, forKey: .latency)
            try container.encodeIfPresent(throttle, forKey: .throttle)
            try container.encodeIfPresent(fault, forKey: .fault)
            try container.encodeIfPresent(serverUnavailable, forKey: .serverUnavailable)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: StubDefinition.CodingKeys.self)
            try encodeFields(into: &container)
        }
    }

    /// `latency`, in milliseconds.
    public enum Latency: Encodable, Sendable, Equatable {
        /// Always this many ms: `300`.
        case fixed(Double)
        /// Uniform between `min` and `max` ms: `{"min": 100, "max": 400}`.
        case uniform(min: Double, max: Double)
        /// Log-normal around `median` ms; with a seed the n-th call always gets the same delay.
        case logNormal(median: Double, sigma: Double, seed: Int?)
        /// Any other form the daemon accepts, as raw JSON.
        case raw(JSONValue)

        public func encode(to encoder: any Encoder) throws {
            switch self {
            case .fixed(let ms): try JSONValue.number(ms).encode(to: encoder)
            case .uniform(let min, let max): try JSONValue.object(["min": .number(min), "max": .number(max)]).encode(to: encoder)
            case .logNormal(let median, let sigma, let seed):
                var object: [String: JSONValue] = ["median": .number(median), "sigma": .number(sigma)]
                if let seed { object["seed"] = .int(seed) }
                try JSONValue.object(object).encode(to: encoder)
            case .raw(let value): try value.encode(to: encoder)
            }
        }
    }

    /// `throttle`: the body's rate.
    public enum Throttle: Encodable, Sendable, Equatable {
        /// Bytes per second.
        case bytesPerSecond(Int)
        /// A Network Link Conditioner profile: `edge`, `3g`, `lte`.
        case profile(String)

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .bytesPerSecond(let rate): try container.encode(rate)
            case .profile(let name): try container.encode(name)
            }
        }
    }

    /// `fault`: how the connection fails.
    public enum Fault: String, Encodable, Sendable, Equatable, CaseIterable {
        /// TCP RST, no response.
        case connectionReset
        /// Closed with nothing sent.
        case emptyResponse
        /// Full `Content-Length`, half the body, closed.
        case truncatedBody
        /// `Transfer-Encoding: chunked` with an invalid chunk-size line.
        case malformedChunk
        /// Never answered (held until the client gives up or mockd stops).
        case noResponse
    }

    /// `serverUnavailable`: 503 with `Retry-After` and a JSON error body.
    public struct ServerUnavailable: Encodable, Sendable, Equatable {
        /// Seconds for `Retry-After`; the daemon's default is 30.
        public var retryAfter: Int?

        public init(retryAfter: Int? = nil) { self.retryAfter = retryAfter }

        public func encode(to encoder: any Encoder) throws {
            if let retryAfter {
                try JSONValue.object(["retryAfter": .int(retryAfter)]).encode(to: encoder)
            } else {
                var container = encoder.singleValueContainer()
                try container.encode(true)
            }
        }
    }

    /// `afterLast`: what follows the last step of `responses`.
    public enum AfterLast: String, Encodable, Sendable, Equatable {
        case repeatLast, cycle, notFound
    }

    /// `rateLimit`: after `limit` calls within `windowMs` answer 429 with `Retry-After`.
    public struct RateLimit: Encodable, Sendable, Equatable {
        public var limit: Int
        /// Window length in ms (daemon default 60000).
        public var windowMs: Int?
        /// Seconds for `Retry-After` (default: the rest of the window).
        public var retryAfter: Int?

        public init(limit: Int, windowMs: Int? = nil, retryAfter: Int? = nil) {
            self.limit = limit
            self.windowMs = windowMs
            self.retryAfter = retryAfter
        }
    }

    fileprivate enum CodingKeys: String, CodingKey {
        case id, priority, match, responses, afterLast, rateLimit
        case status, headers, addHeaders, body, bodyFile, bodyPatch, latency, throttle, fault, serverUnavailable
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(id, forKey: .id)
        try container.encodeIfPresent(priority, forKey: .priority)
        try container.encode(match, forKey: .match)
        try response.encodeFields(into: &container)
        try container.encodeIfPresent(responses, forKey: .responses)
        try container.encodeIfPresent(afterLast, forKey: .afterLast)
        try container.encodeIfPresent(rateLimit, forKey: .rateLimit)
    }
}

extension JSONValue {
    /// `.int` when `value` is whole, else `.double`.
    static func number(_ value: Double) -> JSONValue {
        if value.rounded() == value, let int = Int(exactly: value) { return .int(int) }
        return .double(value)
    }
}
