import Foundation
import MockdControl
import MockdFormat

/// The control API under `/__mockd/`: the routes of `ControlRoutes` (MockdControl), each bound here to its handler,
/// JSON in and out, session from `X-Mockd-Session` or `?session=`.
///
/// A handler takes the route's request type and gives its answer type (`answer(_:_:_:)` decodes the one and encodes
/// the other), so an answer cannot drift from what the client and the OpenAPI document say. Every mistake is answered
/// with `{"error": code, "message": …}` (`failure(_:)`, the one place it is built) and the code's status; nothing
/// throws out of `handle`.
struct ControlAPI {
    static let prefix = ControlOpenAPI.prefix

    let engine: MockEngine

    /// One control request, parsed.
    struct Call {
        let request: HTTPRequest
        let query: [(name: String, value: String)]
        let session: Session
        /// The path parameters, percent-decoded, by name (`id` of `stubs/{id}`).
        var parameters: [String: String] = [:]

        func query(_ name: String) -> String? { query.first { $0.name == name }?.value }

        /// A declared boolean query parameter (checked to be `true` or `false`).
        func flag(_ name: String) -> Bool { query(name) == "true" }

        func parameter(_ name: String) -> String { parameters[name] ?? "" }
    }

    /// Why a call fails: its code and the body to send (`ControlError`, or the evidence of a failed verify).
    struct Failure: Error {
        let code: ControlErrorCode
        let body: any Encodable & Sendable

        init(_ code: ControlErrorCode, _ message: String) {
            self.code = code
            body = ControlError(code, message)
        }

        /// A failure whose body carries evidence (`VerificationFailure`, `ContractFailure`).
        init(_ code: ControlErrorCode, evidence: some Encodable & Sendable) {
            self.code = code
            body = evidence
        }

        /// A failure whose evidence is large enough to be streamed: `response`, made by `ControlAPI.json(_:_:arrayAt:…)`
        /// from the evidence with its array left empty.
        init(_ code: ControlErrorCode, evidence: some Encodable & Sendable, sent response: MockResponse) {
            self.code = code
            body = evidence
            self.response = response
        }

        /// The response to send instead of encoding `body`.
        private(set) var response: MockResponse?
    }

    func handle(_ request: HTTPRequest) -> MockResponse {
        if let refusal = ControlGuard.refusal(for: request, boundToLoopback: engine.options.boundToLoopback) {
            return refusal
        }
        // The dashboard's page, script and style hold no data: a browser loads them without the token, which the
        // page then sends on every call (see `Dashboard`).
        if let asset = Dashboard.asset(request) { return asset }
        if let token = engine.options.controlToken, !ControlAPI.carriesToken(token, request.headers["authorization"]) {
            return ControlAPI.failure(
                .unauthorized,
                "the control API needs the header Authorization: Bearer <token> (--control-token)"
            )
        }
        let path = String(request.path.dropFirst(min(request.path.count, ControlAPI.prefix.count)))
        let query = URLEncoding.decodedQuery(request.query)
        let sessionID = request.headers[SessionRouting.header] ?? query.first { $0.name == "session" }?.value
        if let sessionID, !SessionRouting.isValidID(sessionID) {
            return ControlAPI.failure(
                .invalidSession,
                "session id '\(sessionID)' must be 1–128 letters, digits, '-', '.', '_' or '~'"
            )
        }
        // A session evicted by --max-sessions is refused (410) until the test starts it again with a reset.
        if let eviction = engine.sessions.eviction(of: sessionID) {
            guard request.method == "POST", path == "reset" else {
                return ControlAPI.failure(.sessionEvicted, eviction.message)
            }
            engine.sessions.evictions.forget(eviction.id)
        }
        var allowed: [String] = []
        var found: (route: AnyControlRoute, parameters: [String: String])?
        for route in ControlRoutes.all {
            guard let parameters = ControlAPI.match(route, path) else { continue }
            if !allowed.contains(route.method) { allowed.append(route.method) }
            if route.method == request.method, found == nil { found = (route, parameters) }
        }
        guard let (route, parameters) = found else {
            if allowed.isEmpty {
                return ControlAPI.failure(
                    .notFound,
                    "no control route \(request.method) /__mockd/\(path); docs/03-steering-from-tests.md lists the routes"
                )
            }
            var response = ControlAPI.failure(
                .methodNotAllowed,
                "/__mockd/\(path) accepts \(allowed.joined(separator: ", "))"
            )
            response.headers.add(name: "Allow", value: allowed.joined(separator: ", "))
            return response
        }
        if let problem = ControlAPI.parameterProblem(route, parameters: parameters, query: query, request: request) {
            return ControlAPI.failure(.badRequest, problem)
        }
        // Only calls that change a session create it (`createsSession`); reading an unknown session sees an empty
        // one, so a typo in a test never evicts a live session (--max-sessions).
        let session: Session
        if route.createsSession {
            session = engine.sessions.session(sessionID) { engine.catalog.startup }
        } else {
            session =
                engine.sessions.existing(sessionID)
                ?? engine.sessions.transient(sessionID, scenario: engine.catalog.startup)
        }
        if sessionID != nil { engine.sessions.touch(session) }
        return dispatch(route.id, Call(request: request, query: query, session: session, parameters: parameters))
    }

    /// Each route's handler: the `switch` is exhaustive, so a route added to the table without one does not build.
    private func dispatch(_ id: ControlRouteID, _ call: Call) -> MockResponse {
        switch id {
        case .health: return answer(ControlRoutes.health, call, health)
        case .scenarios: return answer(ControlRoutes.scenarios, call, scenarios)
        case .currentScenario: return answer(ControlRoutes.currentScenario, call, currentScenario)
        case .useScenario: return answer(ControlRoutes.useScenario, call, useScenario)
        case .answerSource: return answer(ControlRoutes.answerSource, call, answerSource)
        case .listStubs: return answer(ControlRoutes.listStubs, call, listStubs)
        case .addStub: return answerChecking(ControlRoutes.addStub, call, addStub)
        case .removeStubs: return answer(ControlRoutes.removeStubs, call, removeStubs)
        case .getStub: return answer(ControlRoutes.getStub, call, getStub)
        case .removeStub: return answer(ControlRoutes.removeStub, call, removeStub)
        case .listGroups: return answer(ControlRoutes.listGroups, call, listGroups)
        case .replaceGroup:
            return answerChecking(ControlRoutes.replaceGroup, call) { try putGroup($0, replacing: true) }
        case .addToGroup: return answerChecking(ControlRoutes.addToGroup, call) { try putGroup($0, replacing: false) }
        case .removeGroup: return answer(ControlRoutes.removeGroup, call, removeGroup)
        case .dropSession: return answer(ControlRoutes.dropSession, call, dropSession)
        case .reset: return answer(ControlRoutes.reset, call, reset)
        case .readClock: return answer(ControlRoutes.readClock, call, readClock)
        case .moveClock: return answer(ControlRoutes.moveClock, call, moveClock)
        case .readSwitches: return answer(ControlRoutes.readSwitches, call, readSwitches)
        case .setSwitches: return answer(ControlRoutes.setSwitches, call, setSwitches)
        case .listResources: return answer(ControlRoutes.listResources, call, listResources)
        case .getResource: return answer(ControlRoutes.getResource, call, getResource)
        case .journal: return respond(ControlRoutes.journal, call, journal)
        case .journalHAR: return respond(ControlRoutes.journalHAR, call, journalHAR)
        case .journalStream: return respond(ControlRoutes.journalStream, call, journalStream)
        case .journalEntry: return answer(ControlRoutes.journalEntry, call, journalEntry)
        case .unmatched: return respond(ControlRoutes.unmatched, call, unmatched)
        case .coverage: return answer(ControlRoutes.coverage, call, coverage)
        case .verify: return answer(ControlRoutes.verify, call, verify)
        case .contract: return answer(ControlRoutes.contract, call, contractReport)
        case .sessions: return answer(ControlRoutes.sessions, call, listSessions)
        case .reload: return answer(ControlRoutes.reload, call, reload)
        case .listWebSockets: return answer(ControlRoutes.listWebSockets, call, listWebSockets)
        case .sendWebSocket: return answer(ControlRoutes.sendWebSocket, call, sendWebSocket)
        case .closeWebSockets: return answer(ControlRoutes.closeWebSockets, call, closeWebSockets)
        case .release: return answer(ControlRoutes.release, call, release)
        case .emit: return answerChecking(ControlRoutes.emit, call, emit)
        case .recordStatus: return answer(ControlRoutes.recordStatus, call, recordStatus)
        case .flushRecording: return answer(ControlRoutes.flushRecording, call, flushRecording)
        case .openAPI: return respond(ControlRoutes.openAPI, call, openAPIDocument)
        }
    }

    // MARK: - Requests and answers

    /// Decodes the body as `Request`, runs `handler`, and sends its answer with the route's status (`204` without a
    /// body); a `Failure` becomes its error.
    private func answer<Request, Answer>(
        _ route: ControlRoute<Request, Answer>,
        _ call: Call,
        _ handler: (Call, Request) throws -> Answer
    ) -> MockResponse {
        respond(route, call) { call, body in
            let value = try handler(call, body)
            if route.erased.kind == .noContent { return MockResponse(status: 204) }
            return ControlAPI.json(route.erased.status, value)
        }
    }

    /// As `answer`, for a route whose body the handler reads itself: a stub, which the scenario compiler checks field
    /// by field, naming each it refuses (`stub: latancy: unknown field (did you mean "latency"?)`, `stubs[2].status`);
    /// the route's type is what such a body decodes to.
    private func answerChecking<Request, Answer>(
        _ route: ControlRoute<Request, Answer>,
        _ call: Call,
        _ handler: (Call) throws -> Answer
    ) -> MockResponse {
        do {
            return ControlAPI.json(route.erased.status, try handler(call))
        } catch let failure as Failure {
            return ControlAPI.failure(failure)
        } catch {
            return ControlAPI.failure(.internalError, "\(error)")
        }
    }

    /// As `answer`, for a handler that makes the response itself (a stream, a download).
    private func respond<Request, Answer>(
        _ route: ControlRoute<Request, Answer>,
        _ call: Call,
        _ handler: (Call, Request) throws -> MockResponse
    ) -> MockResponse {
        do {
            return try handler(call, try ControlAPI.body(Request.self, of: call.request, route: route.erased))
        } catch let failure as Failure {
            return ControlAPI.failure(failure)
        } catch {
            return ControlAPI.failure(.internalError, "\(error)")
        }
    }

    /// The request body as `Request` (`NoBody` for a route without one; `{}` for an empty optional body).
    /// - Throws: `Failure` with the route's `invalidBody` code: the field the type's `problem(at:)` names, else its
    ///   usage line.
    static func body<Request: Decodable>(
        _ type: Request.Type,
        of request: HTTPRequest,
        route: AnyControlRoute
    ) throws -> Request {
        if let none = NoBody() as? Request { return none }
        var data = request.body
        if data.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }), route.requestOptional { data = Data("{}".utf8) }
        do {
            return try JSONDecoder().decode(Request.self, from: data)
        } catch let error as DecodingError {
            let usage = (Request.self as? any ControlRequestBody.Type)
            let path: [any CodingKey]
            switch error {
            case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
                path = context.codingPath
            case .keyNotFound(let key, let context): path = context.codingPath + [key]
            @unknown default: path = []
            }
            var names = path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            // A number that does not fit its type (1.5 or -1 for a UInt64) is reported without a path: found by
            // decoding the members one at a time.
            if names.isEmpty, case .object(let members)? = try? JSONValue(parsing: data) {
                for (key, value) in members.sorted(by: { $0.key < $1.key }) {
                    guard let single = try? JSONEncoder().encode([key: value]) else { continue }
                    do {
                        _ = try JSONDecoder().decode(Request.self, from: single)
                    } catch DecodingError.keyNotFound {
                        continue
                    } catch {
                        names = [key]
                        break
                    }
                }
            }
            let message = usage?.problem(at: names) ?? usage?.usage ?? "the body must be JSON: \(error)"
            throw Failure(route.invalidBody, message)
        }
    }

    /// Each declared path and query parameter checked against its schema (`ControlParameter`): a whole number in
    /// range, `true` or `false`; the first that is not, said in one line.
    static func parameterProblem(
        _ route: AnyControlRoute,
        parameters: [String: String],
        query: [(name: String, value: String)],
        request: HTTPRequest
    ) -> String? {
        for parameter in route.parameters {
            let value: String?
            switch parameter.location {
            case .path: value = parameters[parameter.name]
            case .query: value = query.first { $0.name == parameter.name }?.value
            case .header: value = request.headers[parameter.name]
            }
            guard let value else { continue }
            if let problem = parameter.problem(with: value) { return problem }
        }
        return nil
    }

    /// The path parameters when `path` (after `/__mockd/`) is one of `route`'s.
    static func match(_ route: AnyControlRoute, _ path: String) -> [String: String]? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        let pattern = route.segments
        guard segments.count == pattern.count else { return nil }
        var parameters: [String: String] = [:]
        for (wanted, segment) in zip(pattern, segments) {
            switch wanted {
            case .literal(let literal): guard segment == literal else { return nil }
            case .parameter(let name):
                guard !segment.isEmpty else { return nil }
                parameters[name] = String(decoding: URLEncoding.decode(segment.utf8, plusIsSpace: false), as: UTF8.self)
            }
        }
        return parameters
    }

    /// Whether `authorization` is `Bearer <token>`: the scheme in any case (RFC 9110 §11.1), the token compared in
    /// time that does not depend on where it differs. An empty token on either side never passes (`Bearer ` with
    /// nothing after it, or a daemon given an empty token by a library caller that skipped the command line's check).
    static func carriesToken(_ token: String, _ authorization: String?) -> Bool {
        guard let authorization, let space = authorization.firstIndex(of: " "),
            authorization[..<space].lowercased() == "bearer"
        else { return false }
        let sent = Array(authorization[authorization.index(after: space)...].trimmingWhitespace.utf8)
        let expected = Array(token.trimmingWhitespace.utf8)
        guard !sent.isEmpty, !expected.isEmpty, sent.count == expected.count else { return false }
        return zip(sent, expected).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    // MARK: - JSON

    /// `value` as the control API's JSON answer: keys sorted, pretty-printed, not to be cached.
    static func json(_ status: Int, _ value: some Encodable) -> MockResponse {
        guard let body = try? ControlOpenAPI.encoded(value) else {
            return failure(.internalError, "the answer could not be encoded as JSON")
        }
        return MockResponse(status: status, headers: jsonHeaders, body: body)
    }

    /// Elements past which an answer's array is streamed (`StreamedJSON`) rather than built whole.
    static let streamingThreshold = 100

    /// `document` as the control API's JSON answer with the array at `path` made of `count` elements, `element(index)`
    /// each: built whole up to `streamingThreshold` elements, else written while it is sent (`StreamedJSON`), so a
    /// large answer never holds the worker that other sessions' requests need. `document` is the answer with that
    /// array empty; elements are made in index order; `trailer`, made after the last, gives members of the array's
    /// object that depend on them all (a count).
    static func json<Element: Encodable>(
        _ status: Int,
        _ document: some Encodable,
        arrayAt path: [String],
        count: Int,
        element: @escaping @Sendable (Int) -> Element,
        trailer: @escaping @Sendable () -> [String: JSONValue] = { [:] }
    ) -> MockResponse {
        guard
            let feed = try? StreamedJSON(document, arrayAt: path, count: count, element: element, trailer: trailer)
        else {
            return failure(.internalError, "the answer could not be encoded as JSON")
        }
        guard count > streamingThreshold else {
            return MockResponse(status: status, headers: jsonHeaders, body: feed.whole())
        }
        var response = MockResponse(status: status, headers: jsonHeaders)
        response.liveFeed = feed
        return response
    }

    static var jsonHeaders: HTTPHeaders {
        HTTPHeaders([("Content-Type", "application/json; charset=utf-8"), ("Cache-Control", "no-store")])
    }

    /// The one place a control API error is made: `{"error": code, "message": …}` (or the failure's evidence),
    /// compact JSON with sorted keys, with the code's status, not to be cached.
    static func failure(_ failure: Failure) -> MockResponse {
        if let response = failure.response { return response }
        let encoder = JSONEncoder()
        encoder.outputFormatting =
            failure.body is ControlError
            ? [.sortedKeys, .withoutEscapingSlashes]
            : [
                .sortedKeys, .prettyPrinted, .withoutEscapingSlashes,
            ]
        let body =
            (try? encoder.encode(failure.body))
            ?? Data(#"{"error":"internal_error","message":"the error could not be encoded"}"#.utf8)
        return MockResponse(status: failure.code.status, headers: jsonHeaders, body: body + [0x0A])
    }

    static func failure(_ code: ControlErrorCode, _ message: String) -> MockResponse {
        failure(Failure(code, message))
    }

    /// The keys of the body's JSON object (empty when it is not one).
    static func bodyKeys(_ data: Data) -> [String] {
        guard case .object(let members)? = try? JSONValue(parsing: data) else { return [] }
        return members.keys.sorted()
    }
}

extension ControlParameter {
    /// Why `value` does not fit the parameter's schema (a whole number in range; `true` or `false`), or `nil`.
    func problem(with value: String) -> String? {
        switch schema["type"]?.stringValue {
        case "integer":
            let minimum = schema["minimum"]?.intValue
            let maximum = schema["maximum"]?.intValue
            if let number = Int(value), number >= (minimum ?? .min), number <= (maximum ?? .max) { return nil }
        case "boolean":
            if value == "true" || value == "false" { return nil }
        default:
            return nil
        }
        return "\(invalidPrefix) '\(value)'"
    }

    /// The start of the message for a value that does not fit: `limit must be a whole number in 1–10000, got`.
    var invalidPrefix: String {
        if let invalid { return invalid }
        switch schema["type"]?.stringValue {
        case "integer":
            let minimum = schema["minimum"]?.intValue
            let maximum = schema["maximum"]?.intValue
            if let minimum, let maximum { return "\(name) must be a whole number in \(minimum)–\(maximum), got" }
            if let minimum { return "\(name) must be a whole number ≥ \(minimum), got" }
            return "\(name) must be a whole number, got"
        case "boolean": return "\(name) must be true or false, got"
        default: return "\(name) is not valid:"
        }
    }
}
