public import Foundation

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// Steers a running `mockd` daemon through its control API (`/__mockd/…`) from a UI test.
///
/// Every client owns one **session**: its scenario, runtime stubs, sequences and journal are separate from
/// those of other sessions, so parallel tests don't disturb each other. The app under test must send the
/// same id in the `X-Mockd-Session` header on every request; pass it through the launch environment:
///
/// ```swift
/// let mockd = MockdClient(baseURL: URL(string: "http://127.0.0.1:8080")!)
/// try await mockd.useScenario("chat_send_fails")
/// let app = XCUIApplication()
/// app.launchEnvironment.merge(mockd.launchEnvironment) { _, new in new }
/// // The app reads MOCKD_BASE_URL and MOCKD_SESSION and adds "X-Mockd-Session: <session>" to its requests.
/// app.launch()
/// …
/// try await mockd.verify(method: "POST", path: "/v1/conversations/{id}/messages", count: 2)
/// ```
///
/// Every route of the control API (`ControlRoutes`) has a method here, and every method goes through
/// `call(_:path:query:body:)`, which sends the route's request type and reads its answer type: the types the daemon
/// encodes (MockdControl, re-exported). Every method throws `MockdClientError.server` for an error answer of the
/// daemon (`error`/`message` body), `MockdClientError.invalidResponse` for an answer it cannot read, and `URLError`
/// when the daemon is not reachable.
public struct MockdClient: Sendable {
    /// The header carrying the session id: `X-Mockd-Session`.
    public static let sessionHeader = "X-Mockd-Session"
    /// Launch-environment key for the session id: `MOCKD_SESSION`.
    public static let sessionEnvironmentKey = "MOCKD_SESSION"
    /// Launch-environment key for the daemon's base URL: `MOCKD_BASE_URL`.
    public static let baseURLEnvironmentKey = "MOCKD_BASE_URL"

    /// The daemon, `http://127.0.0.1:PORT` (the URL the app talks to as well).
    public let baseURL: URL
    /// The session id the app must send in `X-Mockd-Session`.
    public let session: String
    /// Sent as `Authorization: Bearer <token>` when the daemon runs with `--control-token`.
    public let controlToken: String?
    public let urlSession: URLSession
    /// Told of every route this client calls and of each answer body (`nil` for a stream): how the tests check that
    /// every route has a method here and that every field of its answer reaches it.
    var observer: (@Sendable (ControlRouteID, Data?) -> Void)?

    /// - Parameters:
    ///   - baseURL: where the daemon listens (`listening on …`).
    ///   - session: 1–128 letters, digits, `-`, `.`, `_` or `~`; a fresh `ui-<uuid>` by default.
    ///   - controlToken: the daemon's `--control-token`, if it has one.
    ///   - urlSession: the session the control calls go through (`URLSession.shared` by default).
    public init(
        baseURL: URL,
        session: String = "ui-\(UUID().uuidString.lowercased())",
        controlToken: String? = nil,
        urlSession: URLSession = .shared
    ) {
        self.baseURL = baseURL
        self.session = session
        self.controlToken = controlToken
        self.urlSession = urlSession
    }

    /// `MOCKD_BASE_URL` and `MOCKD_SESSION` for `XCUIApplication.launchEnvironment`. The keys are a
    /// convention: the app decides what it reads, but it must send `session` in `X-Mockd-Session`.
    public var launchEnvironment: [String: String] {
        [Self.baseURLEnvironmentKey: baseURL.absoluteString, Self.sessionEnvironmentKey: session]
    }

    // MARK: The daemon

    /// The daemon's status (`GET /__mockd/health`): version, uptime, its scenario, sessions (and how many were
    /// evicted), requests in flight, dropped log lines, live journals.
    public func health() async throws -> Health {
        try await call(ControlRoutes.health)
    }

    /// The sessions the daemon keeps (`GET /__mockd/sessions`).
    public func sessions() async throws -> [SessionInfo] {
        try await call(ControlRoutes.sessions).sessions
    }

    /// Reloads the daemon's configs and mock sets from disk, as SIGHUP does (`POST /__mockd/reload`).
    /// - Throws: `.server(422, "invalid_scenario", …)` with every problem when a file is broken (the old version
    ///   keeps serving), `.server(501, "reload_unavailable", …)` for a daemon started without files.
    @discardableResult
    public func reload() async throws -> ReloadResult {
        try await call(ControlRoutes.reload)
    }

    /// The control API as an OpenAPI 3.1 document (`GET /__mockd/openapi.json`): what Kotlin and TypeScript clients
    /// are generated from.
    public func openAPIDocument() async throws -> JSONValue {
        try await call(ControlRoutes.openAPI)
    }

    // MARK: Scenarios

    /// The scenarios under the daemon's `configs/`, sorted by name, `active` marking this session's.
    public func scenarios() async throws -> [ScenarioInfo] {
        try await call(ControlRoutes.scenarios).scenarios
    }

    /// This session's scenario, its mock sets and where its state machines stand (`GET /__mockd/scenario`).
    public func scenario() async throws -> ScenarioState {
        try await call(ControlRoutes.currentScenario)
    }

    /// Switches this session to the scenario `name` (`configs/NAME.json`); sequences start over.
    /// - Throws: `.server(404, "unknown_scenario", …)` when there is no such file,
    ///   `.server(422, "invalid_scenario", …)` when it does not load.
    @discardableResult
    public func useScenario(_ name: String) async throws -> ActiveScenario {
        try await call(ControlRoutes.useScenario, body: UseScenario(name: name))
    }

    /// What answers as `id` in this session (a journal entry's `stub`): a runtime stub, an override of its scenario
    /// or a mock set's stub (`GET /__mockd/scenario/answers/ID`).
    /// - Throws: `.server(404, "unknown_answer", …)` when nothing does.
    public func answerSource(id: String) async throws -> AnswerSource {
        try await call(ControlRoutes.answerSource, path: [id])
    }

    /// Resets this session: journal cleared, runtime stubs removed, sequences, state machines and rate limits
    /// restarted, the virtual clock back to real time. The session keeps its scenario.
    /// - Parameter allSessions: `true` resets every session of the daemon (`?all=true`).
    public func reset(allSessions: Bool = false) async throws {
        _ = try await call(
            ControlRoutes.reset,
            query: allSessions ? [URLQueryItem(name: "all", value: "true")] : []
        )
    }

    // MARK: Plumbing

    /// Calls `route` of the control API in this client's session and reads its answer: the one way every method of
    /// the client goes, open for a route a test wants to call directly.
    /// - Parameters:
    ///   - route: A row of `ControlRoutes`.
    ///   - path: The values of the route's path parameters, in order (`["s1"]` for `stubs/{id}`), each sent as one
    ///     percent-encoded segment.
    ///   - query: Query parameters.
    ///   - body: The request body (`nil` for none).
    /// - Returns: The answer, decoded (`NoBody` for a `204`).
    /// - Throws: `MockdClientError` for an error answer or one it cannot read; `URLError` when the daemon is not
    ///   reachable.
    public func call<Request, Answer>(
        _ route: ControlRoute<Request, Answer>,
        path: [String] = [],
        query: [URLQueryItem] = [],
        body: Request? = nil
    ) async throws -> Answer {
        let data = try await send(route.erased, path: path, query: query, body: body)
        if let none = NoBody() as? Answer { return none }
        return try decode(Answer.self, from: data)
    }

    /// Sends one control request and returns the body of a 2xx answer.
    func send<Body: Encodable>(
        _ route: AnyControlRoute,
        path values: [String],
        query: [URLQueryItem],
        body: Body?
    ) async throws -> Data {
        let request = try urlRequest(route, path: values, query: query, body: body)
        let (data, response) = try await urlSession.data(for: request)
        observer?(route.id, data)
        guard let http = response as? HTTPURLResponse else {
            throw MockdClientError.invalidResponse("\(route.method) /__mockd/\(route.path): not an HTTP response")
        }
        if (200..<300).contains(http.statusCode) { return data }
        throw Self.failure(status: http.statusCode, body: data, route: route)
    }

    /// The request for `route`: its path with `values` for its parameters, the session, the token, the JSON body.
    func urlRequest<Body: Encodable>(
        _ route: AnyControlRoute,
        path values: [String],
        query: [URLQueryItem],
        body: Body?
    ) throws -> URLRequest {
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) else {
            throw MockdClientError.invalidResponse("base URL \(baseURL) is not usable")
        }
        var remaining = values[...]
        let segments = route.segments.map { segment -> String in
            switch segment {
            case .literal(let text): return text
            case .parameter: return Self.pathSegment(remaining.popFirst() ?? "")
            }
        }
        let basePath =
            components.percentEncodedPath.hasSuffix("/")
            ? String(components.percentEncodedPath.dropLast()) : components.percentEncodedPath
        components.percentEncodedPath = basePath + "/__mockd/" + segments.joined(separator: "/")
        components.queryItems = query.isEmpty ? nil : query
        guard let url = components.url else {
            throw MockdClientError.invalidResponse("cannot build a URL for /__mockd/\(route.path)")
        }
        var request = URLRequest(url: url)
        request.httpMethod = route.method
        request.timeoutInterval = 30
        request.setValue(session, forHTTPHeaderField: Self.sessionHeader)
        request.setValue(
            route.kind == .eventStream ? "text/event-stream" : "application/json",
            forHTTPHeaderField: "Accept"
        )
        if let controlToken { request.setValue("Bearer \(controlToken)", forHTTPHeaderField: "Authorization") }
        if let body {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            request.httpBody = try encoder.encode(body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        return request
    }

    /// The error an answer with `status` and `body` is: the daemon's code and message (`ControlError`), with the
    /// evidence of a failed verify.
    static func failure(status: Int, body: Data, route: AnyControlRoute) -> MockdClientError {
        guard let error = try? JSONDecoder().decode(ControlError.self, from: body) else {
            return .invalidResponse(
                "\(route.method) /__mockd/\(route.path): HTTP \(status) \(String(decoding: body.prefix(500), as: UTF8.self))"
            )
        }
        if error.code == .verificationFailed,
            let evidence = try? JSONDecoder().decode(VerificationFailure.self, from: body)
        {
            return .verificationFailed(message: evidence.message, expected: evidence.expected, actual: evidence.actual)
        }
        return .server(status: status, code: error.error, message: error.message)
    }

    func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw MockdClientError.invalidResponse(
                "cannot read \(T.self): \(error); body: \(String(decoding: data.prefix(500), as: UTF8.self))"
            )
        }
    }

    /// `id` percent-encoded as one path segment.
    static func pathSegment(_ id: String) -> String {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return id.addingPercentEncoding(withAllowedCharacters: allowed) ?? id
    }
}
