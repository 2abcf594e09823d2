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
/// Every method throws `MockdClientError.server` for an error answer of the daemon (`error`/`message` body),
/// `MockdClientError.invalidResponse` for an answer it cannot read, and `URLError` when the daemon is not
/// reachable.
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

    // MARK: Daemon and scenarios

    /// The daemon's status (`GET /__mockd/health`).
    public func health() async throws -> Health {
        try await decode(Health.self, from: send("GET", "health"))
    }

    /// The scenarios under the daemon's `configs/`, sorted by name, `active` marking this session's.
    public func scenarios() async throws -> [ScenarioInfo] {
        struct Answer: Decodable { let scenarios: [ScenarioInfo] }
        return try await decode(Answer.self, from: send("GET", "scenarios")).scenarios
    }

    /// Switches this session to the scenario `name` (`configs/NAME.json`); sequences start over.
    /// - Throws: `.server(404, "unknown_scenario", …)` when there is no such file,
    ///   `.server(422, "invalid_scenario", …)` when it does not load.
    @discardableResult
    public func useScenario(_ name: String) async throws -> ActiveScenario {
        let body = try JSONEncoder().encode(["name": name])
        return try await decode(ActiveScenario.self, from: send("PUT", "scenario", body: body))
    }

    // MARK: Runtime stubs

    /// Adds a runtime stub to this session; it wins over the scenario's overrides and mock sets of lower
    /// priority. Returns its id (`stub.id`, or `runtime-N` assigned by the daemon).
    /// - Throws: `.server(400, "invalid_stub", message)` naming the bad field.
    @discardableResult
    public func addStub(_ stub: StubDefinition) async throws -> String {
        struct Answer: Decodable { let id: String }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let body = try encoder.encode(stub)
        return try await decode(Answer.self, from: send("POST", "stubs", body: body)).id
    }

    /// The ids of this session's runtime stubs, in the order they were added.
    public func stubs() async throws -> [String] {
        try await stubDefinitions().map(\.id)
    }

    /// This session's runtime stubs with the JSON the daemon holds for each.
    public func stubDefinitions() async throws -> [RuntimeStub] {
        struct Answer: Decodable { let stubs: [RuntimeStub] }
        return try await decode(Answer.self, from: send("GET", "stubs")).stubs
    }

    /// Removes one runtime stub.
    /// - Throws: `.server(404, "unknown_stub", …)` when this session has no stub `id`.
    public func removeStub(id: String) async throws {
        _ = try await send("DELETE", "stubs/" + Self.pathSegment(id))
    }

    /// Removes all of this session's runtime stubs.
    public func removeStubs() async throws {
        _ = try await send("DELETE", "stubs")
    }

    /// Resets this session: journal cleared, runtime stubs removed, sequences, state machines and rate limits
    /// restarted, the virtual clock back to real time. The session keeps its scenario.
    public func reset() async throws {
        _ = try await send("POST", "reset")
    }

    // MARK: Journal

    /// The requests this session's app sent, oldest first (the journal keeps the most recent ones).
    /// - Parameters:
    ///   - method: only this method.
    ///   - path: only this exact path (compared without the query).
    ///   - unmatchedOnly: only requests no stub answered.
    public func journal(
        method: String? = nil,
        path: String? = nil,
        unmatchedOnly: Bool = false
    ) async throws
        -> [JournalEntry]
    {
        struct Answer: Decodable {
            let entries: [JournalEntry]
            let next: String?
        }
        var query: [URLQueryItem] = []
        if let method { query.append(URLQueryItem(name: "method", value: method)) }
        if let path { query.append(URLQueryItem(name: "path", value: path)) }
        if unmatchedOnly { query.append(URLQueryItem(name: "unmatched", value: "true")) }
        // Page by page (the daemon answers at most 1,000 entries at a time by default), following `next`.
        var entries: [JournalEntry] = []
        var after: String?
        repeat {
            let page = query + (after.map { [URLQueryItem(name: "after", value: $0)] } ?? [])
            let answer = try await decode(Answer.self, from: send("GET", "journal", query: page))
            entries += answer.entries
            after = answer.next
        } while after != nil
        return entries
    }

    /// The requests no stub answered, each with its near misses (closest stubs and what differed).
    public func unmatched() async throws -> [UnmatchedRequest] {
        struct Answer: Decodable { let requests: [UnmatchedRequest] }
        return try await decode(Answer.self, from: send("GET", "unmatched")).requests
    }

    /// Checks that the journal holds exactly `count` requests for `path` (the exact path, compared without
    /// the query), `method` (any when `nil`) and `host` (the recorded host the request was for, any when `nil`).
    /// Returns the count.
    /// - Throws: `.verificationFailed(message:expected:actual:)` when the count differs.
    @discardableResult
    public func verify(method: String? = nil, path: String, host: String? = nil, count: Int) async throws -> Int {
        try await verify([
            "method": method.map { .string($0) }, "path": .string(path), "host": host.map { .string($0) },
            "count": .int(count),
        ])
    }

    /// Checks that the journal holds at least `atLeast` requests for `path` and `method`. Returns the count.
    /// - Throws: `.verificationFailed(message:expected:actual:)` when there are fewer.
    @discardableResult
    public func verify(method: String? = nil, path: String, host: String? = nil, atLeast: Int) async throws -> Int {
        try await verify([
            "method": method.map { .string($0) }, "path": .string(path), "host": host.map { .string($0) },
            "atLeast": .int(atLeast),
        ])
    }

    /// This session's journal as a HAR 1.2 document (JSON bytes), for attaching to a failed test.
    ///
    /// - Parameter keepSecrets: `false` (the default): passwords, tokens, cookies, e-mail addresses and the like the
    ///   app sent or received are replaced by placeholders, as `mockd import-har` does; `true` keeps every value as
    ///   sent (`?keepSecrets=true`).
    public func journalHAR(keepSecrets: Bool = false) async throws -> Data {
        try await send(
            "GET",
            "journal.har",
            query: keepSecrets ? [URLQueryItem(name: "keepSecrets", value: "true")] : []
        )
    }

    // MARK: Plumbing

    private func verify(_ fields: [String: JSONValue?]) async throws -> Int {
        let body = try JSONEncoder().encode(fields.compactMapValues { $0 })
        return try await decode(VerifyResult.self, from: send("POST", "verify", body: body)).count
    }

    /// Sends one control request and returns the body of a 2xx answer (used by the extensions in other files).
    func send(
        _ method: String,
        _ route: String,
        query: [URLQueryItem] = [],
        body: Data? = nil
    )
        async throws -> Data
    {
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) else {
            throw MockdClientError.invalidResponse("base URL \(baseURL) is not usable")
        }
        let basePath =
            components.percentEncodedPath.hasSuffix("/")
            ? String(components.percentEncodedPath.dropLast()) : components.percentEncodedPath
        components.percentEncodedPath = basePath + "/__mockd/" + route
        components.queryItems = query.isEmpty ? nil : query
        guard let url = components.url else {
            throw MockdClientError.invalidResponse("cannot build a URL for /__mockd/\(route)")
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.timeoutInterval = 30
        request.setValue(session, forHTTPHeaderField: Self.sessionHeader)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let controlToken { request.setValue("Bearer \(controlToken)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await urlSession.data(for: request)
        guard let http = response as? HTTPURLResponse else {
            throw MockdClientError.invalidResponse("\(method) /__mockd/\(route): not an HTTP response")
        }
        if (200..<300).contains(http.statusCode) { return data }
        guard let error = try? JSONDecoder().decode(ServerError.self, from: data) else {
            throw MockdClientError.invalidResponse(
                "\(method) /__mockd/\(route): HTTP \(http.statusCode) \(String(decoding: data.prefix(500), as: UTF8.self))"
            )
        }
        if http.statusCode == 409, error.error == "verification_failed", let expected = error.expected,
            let actual = error.actual
        {
            throw MockdClientError.verificationFailed(message: error.message, expected: expected, actual: actual)
        }
        throw MockdClientError.server(status: http.statusCode, code: error.error, message: error.message)
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
