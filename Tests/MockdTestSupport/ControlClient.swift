public import Foundation
public import MockdCore

/// One request to mockd, control route or app traffic: `target` is the path and query (`/__mockd/journal`,
/// `/v1/me?x=1`).
public struct ClientRequest: Sendable {
    public var method: String
    public var target: String
    public var headers: [(String, String)]
    public var body: Data?

    public init(_ method: String = "GET", _ target: String, headers: [(String, String)] = [], body: Data? = nil) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
    }
}

/// What mockd answered, whichever way the request went.
public struct ClientResponse: Sendable {
    public let status: Int
    /// Header fields in order.
    public let headers: [(name: String, value: String)]
    public let body: Data
    /// Why no answer came, live (`curl 52: Empty reply from server`); `nil` when one did, and always in process.
    public let failure: String?

    public init(status: Int, headers: [(name: String, value: String)], body: Data, failure: String? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.failure = failure
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The body as a JSON object; empty when it is not one.
    public var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: body) as? [String: Any]) ?? [:]
    }
}

/// The control API, and the app traffic whose effects it shows, at either distance: `InProcessClient` calls
/// `MockEngine.handle` (no socket, no process: the default for control-API semantics, which are a function of
/// the engine), `LiveClient` sends over curl to a `RunningDaemon` (for what needs the socket: the control token
/// on the wire, sessions across connections, held requests, WebSockets). The same test body runs at both
/// (Hummingbird's `RouterTestFramework` and `LiveTestFramework`).
public protocol ControlClient: Sendable {
    /// Sends one request and returns the answer.
    func send(_ request: ClientRequest) throws -> ClientResponse
    /// Sends all `requests` at once (each on its own connection when live) and returns the answers in order.
    func parallel(_ requests: [ClientRequest]) throws -> [ClientResponse]
}

extension ControlClient {
    /// Sends `requests` one after the other.
    public func batch(_ requests: [ClientRequest]) throws -> [ClientResponse] {
        try requests.map { try send($0) }
    }

    /// A control route, `/__mockd/PATH`: with `X-Mockd-Session` when `session` is given, and `body` as JSON.
    public func control(
        _ method: String,
        _ path: String,
        session: String? = nil,
        body: String? = nil
    ) throws -> ClientResponse {
        var headers: [(String, String)] = []
        if let session { headers.append(("X-Mockd-Session", session)) }
        if body != nil { headers.append(("Content-Type", "application/json")) }
        return try send(ClientRequest(method, "/__mockd/" + path, headers: headers, body: body.map { Data($0.utf8) }))
    }
}

/// The engine itself, called as the server bridge calls it: `handle`, then `record` (the journal entry); the
/// planned response is the answer, its latency, throttling and faults not carried out.
public struct InProcessClient: ControlClient {
    public let engine: MockEngine

    public init(_ engine: MockEngine) {
        self.engine = engine
    }

    public func send(_ request: ClientRequest) throws -> ClientResponse {
        let outcome = engine.handle(
            HTTPRequest(
                method: request.method,
                target: request.target,
                headers: HTTPHeaders(request.headers),
                body: request.body ?? Data()
            )
        )
        engine.journal(outcome, durationMs: 0)
        let response = outcome.plan.response
        // A body written while it is sent (a large control answer, `StreamedJSON`): read to its end, as a client would.
        var body = response.body
        if let feed = response.liveFeed, feed.hasEnd {
            while let piece = feed.next(now: 0) { body.append(piece) }
        }
        return ClientResponse(
            status: response.status,
            headers: response.headers.map { ($0.name, $0.value) },
            body: body
        )
    }

    /// On as many threads as there are cores, as libmicrohttpd's workers call the engine.
    public func parallel(_ requests: [ClientRequest]) throws -> [ClientResponse] {
        let answers = AnswerSlots(count: requests.count)
        DispatchQueue.concurrentPerform(iterations: requests.count) { index in
            answers.set(index, Result { try send(requests[index]) })
        }
        return try answers.values.map { try $0.get() }
    }
}

/// A running daemon over curl.
public struct LiveClient: ControlClient {
    /// `http://127.0.0.1:PORT`
    public let baseURL: String

    public init(_ daemon: RunningDaemon) {
        baseURL = daemon.baseURL
    }

    public func send(_ request: ClientRequest) throws -> ClientResponse {
        Self.answer(try Curl.send(curl(request)))
    }

    public func parallel(_ requests: [ClientRequest]) throws -> [ClientResponse] {
        try Curl.parallel(requests.map(curl)).map(Self.answer)
    }

    private func curl(_ request: ClientRequest) -> CurlRequest {
        CurlRequest(method: request.method, url: baseURL + request.target, headers: request.headers, body: request.body)
    }

    private static func answer(_ response: CurlResponse) -> ClientResponse {
        ClientResponse(
            status: response.status,
            headers: response.headers,
            body: response.body,
            failure: response.failure
        )
    }
}

extension [ClientResponse] {
    /// The transfers that failed, by index, with curl's reason (`#3 curl 52: Empty reply from server`): a comment for
    /// an expectation on their statuses, so a status 0 says why; empty when none failed.
    public var failures: String {
        let failed = enumerated().compactMap { index, response in response.failure.map { "#\(index) \($0)" } }
        return failed.joined(separator: "; ")
    }
}

/// Results written by concurrent threads, one slot each.
private final class AnswerSlots: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [Result<ClientResponse, any Error>?]

    init(count: Int) {
        slots = Array(repeating: nil, count: count)
    }

    func set(_ index: Int, _ result: Result<ClientResponse, any Error>) {
        lock.withLock { slots[index] = result }
    }

    var values: [Result<ClientResponse, any Error>] { lock.withLock { slots.map { $0! } } }
}
