import Foundation
import MockdFormat

/// The control API under `/__mockd/`: one route table, JSON in and out, session from `X-Mockd-Session`
/// or `?session=`. Answers every mistake with a JSON error (`{"error": code, "message": …}`, 4xx) and never
/// throws.
struct ControlAPI {
    static let prefix = "/__mockd/"

    let engine: MockEngine

    private struct Route: Sendable {
        let method: String
        /// Path after the prefix; a trailing `*` segment captures one segment.
        let path: String
        let handler: @Sendable (ControlAPI, Call) -> MockResponse
    }

    /// One control request, parsed.
    struct Call {
        let request: HTTPRequest
        let query: [(name: String, value: String)]
        let session: Session
        /// The segment captured by a `*` route.
        var captured: String = ""

        func query(_ name: String) -> String? { query.first { $0.name == name }?.value }
    }

    private static let routes: [Route] = [
        Route(method: "GET", path: "health") { api, call in api.health(call) },
        Route(method: "GET", path: "scenarios") { api, call in api.scenarios(call) },
        Route(method: "GET", path: "scenario") { api, call in api.currentScenario(call) },
        Route(method: "PUT", path: "scenario") { api, call in api.useScenario(call) },
        Route(method: "GET", path: "scenario/answers/*") { api, call in api.answer(call) },
        Route(method: "GET", path: "stubs") { api, call in api.listStubs(call) },
        Route(method: "POST", path: "stubs") { api, call in api.addStub(call) },
        Route(method: "DELETE", path: "stubs") { api, call in api.removeStubs(call) },
        Route(method: "GET", path: "stubs/*") { api, call in api.getStub(call) },
        Route(method: "DELETE", path: "stubs/*") { api, call in api.removeStub(call) },
        Route(method: "GET", path: "groups") { api, call in api.listGroups(call) },
        Route(method: "PUT", path: "groups/*") { api, call in api.putGroup(call, replacing: true) },
        Route(method: "POST", path: "groups/*") { api, call in api.putGroup(call, replacing: false) },
        Route(method: "DELETE", path: "groups/*") { api, call in api.removeGroup(call) },
        Route(method: "DELETE", path: "session") { api, call in api.dropSession(call) },
        Route(method: "POST", path: "reset") { api, call in api.reset(call) },
        Route(method: "GET", path: "clock") { api, call in api.readClock(call) },
        Route(method: "POST", path: "clock") { api, call in api.moveClock(call) },
        Route(method: "GET", path: "switches") { api, call in api.readSwitches(call) },
        Route(method: "POST", path: "switches") { api, call in api.setSwitches(call) },
        Route(method: "GET", path: "resources") { api, call in api.listResources(call) },
        Route(method: "GET", path: "resources/*") { api, call in api.getResource(call) },
        Route(method: "GET", path: "journal") { api, call in api.journal(call) },
        Route(method: "GET", path: "journal.har") { api, call in api.journalHAR(call) },
        Route(method: "GET", path: "journal/stream") { api, call in api.journalStream(call) },
        Route(method: "GET", path: "journal/entries/*") { api, call in api.journalEntry(call) },
        Route(method: "GET", path: "unmatched") { api, call in api.unmatched(call) },
        Route(method: "GET", path: "coverage") { api, call in
            ControlAPI.json(
                200,
                [
                    "session": CoverageReport.session(call.session),
                    "overall": CoverageReport.overall(api.engine),
                ]
            )
        },
        Route(method: "POST", path: "verify") { api, call in api.verify(call) },
        Route(method: "GET", path: "contract") { api, call in api.contractViolations(call) },
        Route(method: "GET", path: "sessions") { api, call in api.listSessions(call) },
        Route(method: "POST", path: "reload") { api, call in api.reload(call) },
        Route(method: "GET", path: "ws") { api, call in api.listWebSockets(call) },
        Route(method: "POST", path: "ws/send") { api, call in api.sendWebSocket(call) },
        Route(method: "POST", path: "ws/close") { api, call in api.closeWebSockets(call) },
        Route(method: "POST", path: "release") { api, call in api.release(call) },
        Route(method: "POST", path: "emit") { api, call in api.emit(call) },
        Route(method: "GET", path: "record") { api, call in api.recordStatus(call) },
        Route(method: "POST", path: "record/flush") { api, call in api.flushRecording(call) },
    ]

    func handle(_ request: HTTPRequest) -> MockResponse {
        if let refusal = ControlGuard.refusal(for: request, boundToLoopback: engine.options.boundToLoopback) {
            return refusal
        }
        // The dashboard's page, script and style hold no data: a browser loads them without the token, which the
        // page then sends on every call (see `Dashboard`).
        if let asset = Dashboard.asset(request) { return asset }
        if let token = engine.options.controlToken, !ControlAPI.carriesToken(token, request.headers["authorization"]) {
            return ControlAPI.error(
                401,
                "unauthorized",
                "the control API needs the header Authorization: Bearer <token> (--control-token)"
            )
        }
        let path = String(request.path.dropFirst(min(request.path.count, ControlAPI.prefix.count)))
        let query = URLEncoding.decodedQuery(request.query)
        let sessionID = request.headers[SessionRouting.header] ?? query.first { $0.name == "session" }?.value
        if let sessionID, !SessionRouting.isValidID(sessionID) {
            return ControlAPI.error(
                400,
                "invalid_session",
                "session id '\(sessionID)' must be 1–128 letters, digits, '-', '.', '_' or '~'"
            )
        }
        // A session evicted by --max-sessions is refused (410) until the test starts it again with a reset.
        if let eviction = engine.sessions.eviction(of: sessionID) {
            guard request.method == "POST", path == "reset" else { return eviction.response }
            engine.sessions.evictions.forget(eviction.id)
        }
        // Only calls that change a session create it; reading an unknown session sees an empty one, so a typo
        // in a test never evicts a live session (--max-sessions).
        let changes =
            ["PUT", "POST", "DELETE"].contains(request.method)
            && !["verify", "release", "ws/send", "ws/close", "reload", "session"].contains(path)
        let session: Session
        if changes {
            session = engine.sessions.session(sessionID) { engine.catalog.startup }
        } else {
            session =
                engine.sessions.existing(sessionID)
                ?? engine.sessions.transient(sessionID, scenario: engine.catalog.startup)
        }
        if sessionID != nil { engine.sessions.touch(session) }
        var call = Call(request: request, query: query, session: session)
        var allowed: [String] = []
        for route in ControlAPI.routes {
            guard let captured = ControlAPI.match(route.path, path) else { continue }
            allowed.append(route.method)
            guard route.method == request.method else { continue }
            call.captured = captured
            return route.handler(self, call)
        }
        if allowed.isEmpty {
            return ControlAPI.error(
                404,
                "not_found",
                "no control route \(request.method) /__mockd/\(path); docs/03-steering-from-tests.md lists the routes"
            )
        }
        var response = ControlAPI.error(
            405,
            "method_not_allowed",
            "/__mockd/\(path) accepts \(allowed.joined(separator: ", "))"
        )
        response.headers.add(name: "Allow", value: allowed.joined(separator: ", "))
        return response
    }

    /// The captured segment ("" for none) when `path` fits `pattern`.
    private static func match(_ pattern: String, _ path: String) -> String? {
        if pattern == path { return "" }
        guard pattern.hasSuffix("/*") else { return nil }
        let base = pattern.dropLast(1)
        guard path.hasPrefix(base) else { return nil }
        let rest = path.dropFirst(base.count)
        guard !rest.isEmpty, !rest.contains("/") else { return nil }
        return String(decoding: URLEncoding.decode(rest.utf8, plusIsSpace: false), as: UTF8.self)
    }

    // MARK: - Routes

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

    private func health(_ call: Call) -> MockResponse {
        let uptime = Double(DispatchTime.now().uptimeNanoseconds - engine.startedAt) / 1_000_000_000
        var answer: [String: Any] = [
            "status": "ok", "version": MockdVersion.current, "uptimeSeconds": (uptime * 1000).rounded() / 1000,
            "scenario": engine.catalog.startup.name, "sessions": engine.sessions.all.count,
            "sessionsEvicted": engine.sessions.evictions.count,
        ]
        // A mock set served alone (`--set NAME`): named as what it is; `scenario` keeps the same name for old readers.
        if engine.catalog.startup.isSingleSet { answer["set"] = engine.catalog.startup.name }
        // Recording: exchanges its crash spool could not keep (a full disk), as `GET /__mockd/record` counts them.
        if let recorder = engine.recorder { answer["recordSpoolFailed"] = recorder.spoolFailures.count }
        // Requests being answered besides this one: a test waits for a request to be in flight by reading this.
        // Open live journals (a dashboard tab) are requests in flight for the server, not for a test waiting on it.
        if let status = engine.serverStatus {
            answer["inFlight"] = max(0, status.requestsInFlight - 1 - JournalFeed.openCount)
        }
        answer["logLinesDropped"] = StderrLogSink.droppedLines
        // Open live journals (`JournalFeed`): a closed dashboard tab shows here as one fewer.
        answer["liveJournals"] = JournalFeed.openCount
        return ControlAPI.json(200, answer)
    }

    private func scenarios(_ call: Call) -> MockResponse {
        let active = call.session.scenario.name
        let list: [[String: Any]] = engine.catalog.list().map { entry in
            var item: [String: Any] = ["name": entry.name, "active": entry.name == active]
            if let description = entry.description { item["description"] = description }
            if let problem = entry.problem { item["problem"] = problem }
            return item
        }
        return ControlAPI.json(200, ["session": call.session.id, "active": active, "scenarios": list])
    }

    private func currentScenario(_ call: Call) -> MockResponse {
        let scenario = call.session.scenario
        return ControlAPI.json(
            200,
            [
                "session": call.session.id, "name": scenario.name, "sets": scenario.sets,
                "description": scenario.description ?? NSNull(),
                "states": call.session.stateMachines,
            ]
        )
    }

    private func useScenario(_ call: Call) -> MockResponse {
        guard let body = ControlAPI.object(call.request.body), let name = body["name"] as? String else {
            return ControlAPI.error(400, "bad_request", #"send {"name": "<scenario>"}"#)
        }
        do {
            let scenario = try engine.catalog.scenario(named: name)
            call.session.use(scenario)
            return ControlAPI.json(200, ["session": call.session.id, "name": scenario.name, "sets": scenario.sets])
        } catch {
            let problems = (error as? ConfigErrors)?.errors ?? [error as? ConfigError].compactMap { $0 }
            if problems.count == 1, problems[0].code == .fileNotFound,
                problems[0].file.hasSuffix("configs/\(name).json") || problems[0].file == name
            {
                return ControlAPI.error(
                    404,
                    "unknown_scenario",
                    "no scenario '\(name)' (GET /__mockd/scenarios lists them)"
                )
            }
            return ControlAPI.error(422, "invalid_scenario", String(describing: error))
        }
    }

    private func listStubs(_ call: Call) -> MockResponse {
        let stubs = call.session.runtimeStubs.map { stub -> [String: Any] in
            var item: [String: Any] = [
                "id": stub.override.id, "definition": ControlAPI.foundationValue(stub.definition),
            ]
            if let group = stub.group { item["group"] = group }
            return item
        }
        return ControlAPI.json(200, ["session": call.session.id, "stubs": stubs])
    }

    private func getStub(_ call: Call) -> MockResponse {
        guard let stub = call.session.runtimeStubs.first(where: { $0.override.id == call.captured }) else {
            return ControlAPI.error(
                404,
                "unknown_stub",
                "session '\(call.session.id)' has no runtime stub '\(call.captured)'"
            )
        }
        return ControlAPI.json(
            200,
            ["id": stub.override.id, "definition": ControlAPI.foundationValue(stub.definition)]
        )
    }

    private func addStub(_ call: Call) -> MockResponse {
        switch compileStub(call.request.body, file: "stub") {
        case .failure(let problem):
            return ControlAPI.error(400, "invalid_stub", problem.message)
        case .success(let member):
            let id = call.session.addRuntimeStub(
                member.override,
                definition: member.definition,
                requestedID: member.requestedID
            )
            return ControlAPI.json(201, ["id": id, "session": call.session.id])
        }
    }

    /// Why a posted stub was refused: every problem, one per line, each starting with `file`.
    struct StubProblem: Error {
        let message: String
    }

    /// One runtime stub (`POST /__mockd/stubs`, an element of a group) decoded, checked and compiled; `file`
    /// (`stub`, `stubs[2]`) starts each line of the problems.
    func compileStub(_ data: Data, file: String) -> Result<Session.GroupMember, StubProblem> {
        // JSON is UTF-8 (RFC 8259 §8.1): said so, with the offset, before a decoder reports a misleading path.
        if let offset = ControlAPI.firstInvalidUTF8Offset(data) {
            return .failure(
                StubProblem(
                    message:
                        "\(file): the body is not valid UTF-8 (byte \(offset)); send the stub as JSON in UTF-8 (RFC 8259 §8.1)"
                )
            )
        }
        let definition: JSONValue
        let entry: ScenarioFile.OverrideEntry
        do {
            definition = try JSONDecoder().decode(JSONValue.self, from: data)
            entry = try JSONDecoder().decode(ScenarioFile.OverrideEntry.self, from: data)
        } catch let error as DecodingError {
            return .failure(StubProblem(message: ConfigError.decoding(error, file: file).description))
        } catch {
            return .failure(
                StubProblem(
                    message: "\(file == "stub" ? "the body" : file) must be a JSON stub in the scenario override format"
                )
            )
        }
        var problems = KnownFields.check(data, shape: KnownFields.overrideShape, file: file)
        // Compiled under a provisional id; the session picks the id and places the stub in one locked step, so
        // parallel adds never share an id or lose a stub.
        var named = entry
        named.id = entry.id ?? "runtime"
        let root = engine.catalog.root ?? MockdRoot(url: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
        let override = RecipeCompiler(root: root).compileOverride(
            named,
            file: file,
            path: "",
            position: 0,
            problems: &problems
        )
        guard let override, problems.isEmpty else {
            let message = problems.map { $0.description.replacingOccurrences(of: "\(file): .", with: "\(file): ") }
                .joined(separator: "\n")
            return .failure(StubProblem(message: message))
        }
        return .success(Session.GroupMember(override: override, definition: definition, requestedID: entry.id))
    }

    /// The offset of the first byte that is not part of a valid UTF-8 sequence, or `nil` when `data` is UTF-8.
    static func firstInvalidUTF8Offset(_ data: Data) -> Int? {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = data.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar): offset += scalar.count
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }

    private func removeStub(_ call: Call) -> MockResponse {
        guard call.session.removeRuntimeStub(id: call.captured) else {
            return ControlAPI.error(
                404,
                "unknown_stub",
                "session '\(call.session.id)' has no runtime stub '\(call.captured)'"
            )
        }
        return MockResponse(status: 204)
    }

    private func removeStubs(_ call: Call) -> MockResponse {
        call.session.removeAllRuntimeStubs()
        return MockResponse(status: 204)
    }

    private func reset(_ call: Call) -> MockResponse {
        if call.query("all") == "true" {
            engine.sessions.defaultSession.reset()
            engine.sessions.removeAll()
            return ControlAPI.json(200, ["reset": "all"])
        }
        call.session.reset()
        return ControlAPI.json(200, ["reset": call.session.id])
    }

    /// Journal entries filtered by `method`, `path` (raw path, no query) and `unmatched=true`.
    private func filteredJournal(_ call: Call) -> (entries: [JournalEntry], dropped: Int) {
        let (entries, dropped) = call.session.journal.snapshot()
        let method = call.query("method")
        let path = call.query("path").map(RequestKey.normalizePath)
        let onlyUnmatched = call.query("unmatched") == "true"
        let filtered = entries.filter { entry in
            (method == nil || entry.method == method)
                && (path == nil
                    || RequestKey.normalizePath(HTTPRequest(method: entry.method, target: entry.target).path) == path)
                && (!onlyUnmatched || !entry.matched)
        }
        return (filtered, dropped)
    }

    /// Entries per journal page unless `limit` says otherwise, and the most a page holds.
    static let journalPageDefault = 1000
    static let journalPageMaximum = 10_000

    /// One page of the journal (`limit`, default 1,000; `after`, the `next` cursor of the previous page), filtered
    /// by `method`, `path` and `unmatched=true`; `next` is `null` on the last page.
    private func journal(_ call: Call) -> MockResponse {
        let limit: Int
        if let text = call.query("limit") {
            guard let value = Int(text), (1...ControlAPI.journalPageMaximum).contains(value) else {
                return ControlAPI.error(
                    400,
                    "bad_request",
                    "limit must be a whole number in 1–\(ControlAPI.journalPageMaximum), got '\(text)'"
                )
            }
            limit = value
        } else {
            limit = ControlAPI.journalPageDefault
        }
        var after = 0
        if let text = call.query("after") {
            guard let value = Int(text), value >= 0 else {
                return ControlAPI.error(
                    400,
                    "bad_request",
                    "after must be the next cursor of a previous page (a whole number ≥ 0), got '\(text)'"
                )
            }
            after = value
        }
        let method = call.query("method")
        let path = call.query("path").map(RequestKey.normalizePath)
        let onlyUnmatched = call.query("unmatched") == "true"
        let (entries, more, dropped) = call.session.journal.page(after: after, limit: limit) { entry in
            (method == nil || entry.method == method)
                && (path == nil
                    || RequestKey.normalizePath(HTTPRequest(method: entry.method, target: entry.target).path) == path)
                && (!onlyUnmatched || !entry.matched)
        }
        return ControlAPI.json(
            200,
            [
                "session": call.session.id, "count": entries.count, "dropped": dropped,
                "next": more ? String(entries.last?.sequence ?? after) : NSNull(),
            ],
            arrayAt: ["entries"],
            count: entries.count
        ) { [self] in journalItem(entries[$0]) }
    }

    private func journalHAR(_ call: Call) -> MockResponse {
        let (entries, _) = filteredJournal(call)
        // Exported through import's hygiene unless the caller asks for the values as sent.
        let export = JournalJSON.HARExport(entries, redacting: call.query("keepSecrets") != "true")
        var response = ControlAPI.json(
            200,
            ["log": export.log],
            arrayAt: ["log", "entries"],
            count: export.count,
            element: export.entry,
            trailer: export.trailer
        )
        response.headers.add(
            name: "Content-Disposition",
            value: "attachment; filename=\"mockd-\(call.session.id).har\""
        )
        return response
    }

    private func unmatched(_ call: Call) -> MockResponse {
        let entries = call.session.journal.snapshot().entries.filter { !$0.matched && $0.fault == nil }
        return ControlAPI.json(
            200,
            ["session": call.session.id, "count": entries.count],
            arrayAt: ["requests"],
            count: entries.count
        ) { index in
            var item = JournalJSON.entry(entries[index])
            item["nearMisses"] = entries[index].nearMisses.map(\.jsonObject)
            return item
        }
    }

    private func verify(_ call: Call) -> MockResponse {
        if let body = ControlAPI.object(call.request.body), body["contract"] != nil {
            return verifyContract(call, body)
        }
        guard let body = ControlAPI.object(call.request.body) else {
            return ControlAPI.error(400, "bad_request", #"send {"method": "POST", "path": "/v1/x", "count": 1}"#)
        }
        let method = body["method"] as? String
        guard let path = body["path"] as? String, path.hasPrefix("/") else {
            return ControlAPI.error(400, "bad_request", #""path" is required and must start with '/'"#)
        }
        let expected = ControlAPI.count(body["count"])
        let atLeast = ControlAPI.count(body["atLeast"])
        guard (expected != nil) != (atLeast != nil), (body["count"] == nil) == (expected == nil),
            (body["atLeast"] == nil) == (atLeast == nil)
        else {
            return ControlAPI.error(
                400,
                "bad_request",
                #"give "count" (exactly) or "atLeast", a whole number from 0 to 1000000000"#
            )
        }
        if body["host"] != nil,
            (body["host"] as? String).map({ !$0.isEmpty && OriginRewrite.isAuthority(Substring($0)) }) != true
        {
            return ControlAPI.error(
                400,
                "bad_request",
                #""host" must be a host[:port] such as "api.example.com" (no scheme or path)"#
            )
        }
        let host = (body["host"] as? String).map(HostName.normalized)
        let normalized = RequestKey.normalizePath(path)
        let entries = call.session.journal.snapshot().entries
        // What the app sent, not what mockd did for it (pushed events, webhooks, state changes).
        let matching = entries.filter {
            !$0.isEffect && (method == nil || $0.method == method) && (host == nil || $0.host == host)
                && RequestKey.normalizePath(HTTPRequest(method: $0.method, target: $0.target).path) == normalized
        }
        let ok = expected.map { matching.count == $0 } ?? (matching.count >= atLeast!)
        let what = "\(method ?? "any method") \(host.map { "//\($0)" } ?? "")\(path)"
        if ok { return ControlAPI.json(200, ["ok": true, "count": matching.count]) }
        let wanted = expected.map { "exactly \($0)" } ?? "at least \(atLeast!)"
        let dropped = call.session.journal.snapshot().dropped
        var note = dropped > 0 ? " (\(dropped) older entries were dropped by --journal-limit)" : ""
        let unanswered = matching.filter { !$0.matched && $0.fault == nil }.count
        if unanswered > 0 { note += "; \(unanswered) of them no stub answered (GET /__mockd/unmatched says why)" }
        // The near misses of the request key: journaled requests that differ in method, host or path.
        let nearest = VerifyExplanation.candidates(in: entries, method: method, host: host, path: normalized) {
            RequestKey.normalizePath(HTTPRequest(method: $0.method, target: $0.target).path)
        }
        if !nearest.isEmpty { note += "; closest: " + nearest.map(\.summary).joined(separator: ", ") }
        return ControlAPI.json(
            409,
            [
                "error": "verification_failed",
                "message": "expected \(wanted) \(what), journal has \(matching.count)\(note)",
                "expected": expected ?? atLeast!, "actual": matching.count,
                "nearest": nearest.map(\.jsonObject),
                "journalCount": entries.count,
            ],
            arrayAt: ["requests"],
            count: matching.count
        ) { [self] in journalItem(matching[$0]) }
    }

    private func listWebSockets(_ call: Call) -> MockResponse {
        let all = call.query("all") == "true"
        let connections = engine.webSocketHub?.connections(session: all ? nil : call.session.id) ?? []
        return ControlAPI.json(
            200,
            [
                "session": call.session.id,
                "connections": connections.map { info -> [String: Any] in
                    [
                        "id": info.id, "session": info.session, "path": info.path, "connection": info.connectionNumber,
                        "openedAt": DateFormats.rfc3339Milliseconds(info.openedAt), "framesIn": info.framesIn,
                        "framesOut": info.framesOut,
                    ]
                },
            ]
        )
    }

    /// `{"path"?: "/chat", "text": "…"}` | `{"json": …}` | `{"binary": "<base64>"}` to every open WebSocket of
    /// the session.
    private func sendWebSocket(_ call: Call) -> MockResponse {
        guard let body = ControlAPI.object(call.request.body) else {
            return ControlAPI.error(
                400,
                "bad_request",
                #"send {"text": "…"}, {"json": …} or {"binary": "<base64>"}, optionally with "path""#
            )
        }
        let message: WebSocketMessage
        if let text = body["text"] as? String {
            message = .text(text)
        } else if let base64 = body["binary"] as? String, let data = Data(base64Encoded: base64) {
            message = .binary(data)
        } else if let json = body["json"],
            let data = try? JSONSerialization.data(
                withJSONObject: json,
                options: [.fragmentsAllowed, .sortedKeys, .withoutEscapingSlashes]
            )
        {
            message = .text(String(decoding: data, as: UTF8.self))
        } else {
            return ControlAPI.error(400, "bad_request", #"give one of "text", "json" or "binary" (base64)"#)
        }
        if body["path"] != nil && !(body["path"] is String) {
            return ControlAPI.error(400, "bad_request", #""path" must be a string"#)
        }
        let delivered = engine.webSocketHub?.send(message, session: call.session.id, path: body["path"] as? String) ?? 0
        return ControlAPI.json(200, ["session": call.session.id, "delivered": delivered])
    }

    /// `{"code": 1001, "reason": "…", "path"?: "/chat"}` closes the session's open WebSockets.
    private func closeWebSockets(_ call: Call) -> MockResponse {
        guard let body = call.request.body.isEmpty ? [:] : ControlAPI.object(call.request.body),
            body["code"] == nil || ControlAPI.count(body["code"]) != nil, body["path"] == nil || body["path"] is String,
            body["reason"] == nil || body["reason"] is String
        else {
            return ControlAPI.error(
                400,
                "bad_request",
                #"send {"code": 1000, "reason": "…", "path": "…"} (all optional)"#
            )
        }
        let code = ControlAPI.count(body["code"]) ?? 1000
        guard (1000...4999).contains(code), ![1004, 1005, 1006, 1015].contains(code) else {
            return ControlAPI.error(
                400,
                "bad_request",
                "close code \(code) cannot be sent in a close frame (RFC 6455 §7.4)"
            )
        }
        let closed =
            engine.webSocketHub?.close(
                code: code,
                reason: body["reason"] as? String ?? "",
                session: call.session.id,
                path: body["path"] as? String
            ) ?? 0
        return ControlAPI.json(200, ["session": call.session.id, "closed": closed])
    }

    /// `{"path"?: "/v1/updates"}`: answers the session's held long-poll requests now.
    private func release(_ call: Call) -> MockResponse {
        guard let body = call.request.body.isEmpty ? [:] : ControlAPI.object(call.request.body),
            body["path"] == nil || body["path"] is String
        else {
            return ControlAPI.error(400, "bad_request", #"send {} or {"path": "/v1/updates"}"#)
        }
        let released = engine.heldRequests?.release(session: call.session.id, path: body["path"] as? String) ?? 0
        return ControlAPI.json(200, ["session": call.session.id, "released": released])
    }

    /// Reloads configs and sets from disk atomically, as SIGHUP does; a broken file keeps the old version.
    private func reload(_ call: Call) -> MockResponse {
        guard let loader = engine.loader else {
            return ControlAPI.error(501, "reload_unavailable", "this daemon was started without files to reload")
        }
        do {
            let scenario = try loader()
            engine.reload(scenario)
            return ControlAPI.json(
                200,
                ["reloaded": scenario.name, "stubs": scenario.index.stubs.count, "overrides": scenario.overrides.count]
            )
        } catch {
            return ControlAPI.error(
                422,
                "invalid_scenario",
                "reload failed, still serving the previous version:\n\(error)"
            )
        }
    }

    private func listSessions(_ call: Call) -> MockResponse {
        let sessions = engine.sessions.all.map { session -> [String: Any] in
            // Counted, not copied: the dashboard reads this every 2 s.
            let journal = session.journal.summary
            return [
                "id": session.id, "scenario": session.scenario.name, "journalCount": journal.count,
                "runtimeStubs": session.runtimeStubs.count,
                "lastActivity": journal.newestTime.map(DateFormats.rfc3339Milliseconds) ?? NSNull(),
            ]
        }
        return ControlAPI.json(200, ["sessions": sessions])
    }

    // MARK: - JSON helpers

    static func json(_ status: Int, _ object: [String: Any]) -> MockResponse {
        MockResponse(status: status, headers: jsonHeaders, body: serialized(object) + Data("\n".utf8))
    }

    /// Elements past which an answer's array is streamed (`StreamedJSON`) rather than built whole.
    static let streamingThreshold = 100

    /// `json(status, object)` with the array at `path` made of `count` elements, `element(index)` each: built whole
    /// up to `streamingThreshold` elements, else written while it is sent (`StreamedJSON`), so a large answer never
    /// holds the worker that other sessions' requests need. Elements are made in index order; `trailer`, made after
    /// the last, gives members of the array's object that depend on them all (a count).
    static func json(
        _ status: Int,
        _ object: [String: Any],
        arrayAt path: [String],
        count: Int,
        element: @escaping @Sendable (Int) -> Any,
        trailer: @escaping @Sendable () -> [String: Any] = { [:] }
    ) -> MockResponse {
        guard count > streamingThreshold else {
            var whole = StreamedJSON.setting((0..<count).map(element), at: path[...], in: object)
            for (key, value) in trailer() {
                whole = StreamedJSON.setting(value, at: path.dropLast() + [key], in: whole)
            }
            return json(status, whole)
        }
        var response = MockResponse(status: status, headers: jsonHeaders)
        response.liveFeed = StreamedJSON(object, arrayAt: path, count: count, element: element, trailer: trailer)
        return response
    }

    private static var jsonHeaders: HTTPHeaders {
        HTTPHeaders([("Content-Type", "application/json; charset=utf-8"), ("Cache-Control", "no-store")])
    }

    /// `value` as the control API writes JSON: keys sorted, pretty-printed, slashes unescaped.
    static func serialized(_ value: Any) -> Data {
        (try? JSONSerialization.data(
            withJSONObject: value,
            options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes, .fragmentsAllowed]
        )) ?? Data("{}".utf8)
    }

    /// `MockResponse.jsonError`, not to be cached (as every control answer).
    static func error(_ status: Int, _ code: String, _ message: String) -> MockResponse {
        var response = MockResponse.jsonError(status: status, code: code, message: message)
        response.headers.add(name: "Cache-Control", value: "no-store")
        return response
    }

    /// A non-negative whole JSON number (not a boolean), at most 10⁹.
    static func count(_ value: Any?) -> Int? {
        // JSON booleans arrive as NSNumber too, with the C type "c" (char).
        guard let number = value as? NSNumber, number.objCType.pointee != CChar(UInt8(ascii: "c")) else { return nil }
        let double = number.doubleValue
        guard double.rounded() == double, (0...1_000_000_000).contains(double) else { return nil }
        return Int(double)
    }

    static func object(_ data: Data) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }

    static func foundationValue(_ value: JSONValue) -> Any {
        switch value {
        case .null: return NSNull()
        case .bool(let flag): return flag
        case .int(let number): return number
        case .double(let number): return number
        case .string(let text): return text
        case .array(let items): return items.map(foundationValue)
        case .object(let members): return members.mapValues(foundationValue)
        }
    }
}
