/// A runtime stub for `MockdClient.addStub(_:)`: one scenario override, `ScenarioFile.OverrideEntry`, the format
/// the daemon reads from `configs/*.json` and from `POST /__mockd/stubs` (docs/FORMAT.md). Everything an override
/// in a scenario file can say, a stub can say: match operators, state machines, rate limits, sequences,
/// latency, throttling, faults, holds, WebSocket scripts and event streams.
///
/// Only the fields that are set are sent. A stub is tried before the scenario's overrides and mock sets; among
/// runtime stubs the one with the highest `priority` wins, among equals the one added last.
///
/// ```swift
/// let id = try await client.addStub(StubDefinition(method: "GET", path: "/v1/me", status: 200, body: ["name": "Anna"]))
/// try await client.addStub(StubDefinition(method: "GET", path: "/v1/me", bodyPatch: ["unread": 0]))
/// try await client.addStub(StubDefinition(method: "POST", path: "/v1/orders/{id}/cancel", responses: [
///     .init(serverUnavailable: .init(retryAfter: 5)), .init(),
/// ]))
/// ```
public struct StubDefinition: Encodable, Sendable, Equatable {
    /// The override the daemon receives.
    public var entry: ScenarioFile.OverrideEntry

    /// Which requests a stub answers: `ScenarioFile.MatchEntry`.
    public typealias Match = ScenarioFile.MatchEntry
    /// A request-body condition: `ScenarioFile.BodyMatchEntry`.
    public typealias BodyMatch = ScenarioFile.BodyMatchEntry
    /// One response step: `ResponseStepEntry`. An empty step passes the mock set's response through; one with only
    /// edits (`status`, `headers`, `bodyPatch`…) changes it; one with `body`, `bodyFile` or `serverUnavailable`
    /// replaces it.
    public typealias Response = ResponseStepEntry
    /// `latency`, in ms: `LatencyEntry`.
    public typealias Latency = LatencyEntry
    /// `throttle`, in bytes per second: `ThrottleEntry`.
    public typealias Throttle = ThrottleEntry
    /// `serverUnavailable`: `ServerUnavailableEntry`.
    public typealias ServerUnavailable = ServerUnavailableEntry
    /// `afterLast`: `ExhaustionPolicy`.
    public typealias AfterLast = ExhaustionPolicy
    /// `rateLimit`: `ScenarioFile.RateLimitEntry`.
    public typealias RateLimit = ScenarioFile.RateLimitEntry
    /// `state`: `ScenarioFile.StateEntry`.
    public typealias State = ScenarioFile.StateEntry

    /// A stub that sends `entry` as it is.
    public init(_ entry: ScenarioFile.OverrideEntry) {
        self.entry = entry
    }

    /// A stub from its parts.
    /// - Parameters:
    ///   - id: The stub's id; the daemon assigns `runtime-N` when `nil`.
    ///   - priority: Higher wins; the daemon's default is 0.
    ///   - match: Which requests the stub answers.
    ///   - response: The single step used when `responses` is `nil`.
    ///   - responses: An explicit sequence of steps, one per call.
    ///   - afterLast: What follows the last step of `responses` (default `repeatLast`).
    ///   - rateLimit: Answer 429 after `limit` calls within `windowMs`.
    ///   - state: A per-session state machine condition and transition.
    public init(
        id: String? = nil,
        priority: Int? = nil,
        match: Match,
        response: Response = Response(),
        responses: [Response]? = nil,
        afterLast: AfterLast? = nil,
        rateLimit: RateLimit? = nil,
        state: State? = nil
    ) {
        self.init(
            ScenarioFile.OverrideEntry(
                id: id,
                priority: priority,
                match: match,
                responses: responses,
                afterLast: afterLast,
                rateLimit: rateLimit,
                step: response,
                state: state
            )
        )
    }

    /// A stub matching `method` and `path` (exact or a template, `/v1/orders/{id}`), answering with the given
    /// step fields.
    /// - Parameters:
    ///   - id: The stub's id; the daemon assigns `runtime-N` when `nil`.
    ///   - priority: Higher wins; the daemon's default is 0.
    ///   - method: The request method; any method when `nil`.
    ///   - path: The path, exact or a template (`/v1/orders/{id}`); any path when `nil`.
    ///   - query: Decoded query parameters that must be present with these values, or operators
    ///     (`["q": .init(matches: "^a.*")]`); others may be present too.
    ///   - requestHeaders: Request headers that must be present (names case-insensitive), values as for `query`.
    ///   - requestBody: What the request body must be or contain.
    ///   - status: The status to send (the mock set's, or 200, when `nil`).
    ///   - headers: Response headers to set; a `nil` value removes that header.
    ///   - body: The whole body: a string is sent as text, anything else as compact JSON.
    ///   - bodyPatch: An RFC 7386 merge patch on the JSON body the mock set (or another runtime stub) would give,
    ///     to change one field without copying the file.
    ///   - latencyMs: Milliseconds before the answer.
    ///   - fault: A fault at the socket instead of an answer (`connectionReset`, `emptyResponse`…).
    ///   - serverUnavailable: A 503 with `Retry-After`.
    ///   - responses: An explicit sequence of steps, one per call, instead of the fields above.
    ///   - afterLast: What follows the last step of `responses` (default `repeatLast`).
    ///   - host: The recorded host the request must be for (`api.example.com`), in sets recorded from several hosts.
    public init(
        id: String? = nil,
        priority: Int? = nil,
        method: String? = nil,
        path: String? = nil,
        query: [String: ValueMatchEntry]? = nil,
        requestHeaders: [String: ValueMatchEntry]? = nil,
        requestBody: BodyMatch? = nil,
        status: Int? = nil,
        headers: [String: String?]? = nil,
        body: JSONValue? = nil,
        bodyPatch: JSONValue? = nil,
        latencyMs: Double? = nil,
        fault: Fault? = nil,
        serverUnavailable: ServerUnavailable? = nil,
        responses: [Response]? = nil,
        afterLast: AfterLast? = nil,
        host: String? = nil
    ) {
        self.init(
            id: id,
            priority: priority,
            match: Match(
                method: method,
                path: path,
                query: query,
                headers: requestHeaders,
                body: requestBody,
                host: host
            ),
            response: Response(
                status: status,
                headers: headers,
                body: body,
                bodyPatch: bodyPatch,
                latency: latencyMs.map { .fixed($0) },
                fault: fault,
                serverUnavailable: serverUnavailable
            ),
            responses: responses,
            afterLast: afterLast
        )
    }

    /// The stub's id, when the test gives one.
    public var id: String? { entry.id }

    public func encode(to encoder: any Encoder) throws {
        try entry.encode(to: encoder)
    }
}
