import Foundation
import MockdFormat

/// What the dashboard (`/__mockd/ui`) reads besides the other routes: the live journal and one exchange in full.
extension ControlAPI {
    /// `GET /__mockd/journal/stream?session=ID&after=N`: the session's journal as Server-Sent Events
    /// (`JournalFeed`), from the entry after sequence `after` (or the `Last-Event-ID` header; default 0, the whole
    /// journal), kept open until the client leaves. 400 for a bad `after`, 503 `too_many_streams` when
    /// `JournalFeed.maxOpen` feeds are open.
    func journalStream(_ call: Call) -> MockResponse {
        var after = 0
        if let text = call.query("after") ?? call.request.headers["last-event-id"] {
            guard let value = Int(text), value >= 0 else {
                return ControlAPI.error(
                    400,
                    "bad_request",
                    "after must be a journal sequence number (a whole number ≥ 0), got '\(text)'"
                )
            }
            after = value
        }
        guard let feed = JournalFeed.open(engine: engine, sessionID: call.session.id, after: after) else {
            return ControlAPI.error(
                503,
                "too_many_streams",
                "\(JournalFeed.maxOpen) live journals are open already; close a dashboard tab and try again"
            )
        }
        var response = MockResponse(
            status: 200,
            headers: HTTPHeaders([
                ("Content-Type", "text/event-stream; charset=utf-8"), ("Cache-Control", "no-store"),
                ("X-Accel-Buffering", "no"),
            ])
        )
        response.liveFeed = feed
        return response
    }

    /// `GET /__mockd/journal/entries/SEQ`: the exchange with sequence number `SEQ` in full (`JournalJSON.detail`);
    /// 404 `unknown_entry` when the journal no longer holds it (reset, or dropped by `--journal-limit`).
    func journalEntry(_ call: Call) -> MockResponse {
        guard let sequence = Int(call.captured), sequence >= 1 else {
            return ControlAPI.error(
                400,
                "bad_request",
                "journal entries are numbered from 1, got '\(call.captured)'"
            )
        }
        let page = call.session.journal.page(after: sequence - 1, limit: 1) { _ in true }
        guard let entry = page.entries.first, entry.sequence == sequence else {
            return ControlAPI.error(
                404,
                "unknown_entry",
                "session '\(call.session.id)' has no journal entry \(sequence) (reset, or dropped by --journal-limit)"
            )
        }
        var detail = JournalJSON.detail(entry)
        detail["session"] = call.session.id
        return ControlAPI.json(200, detail)
    }
}

extension ControlAPI {
    /// `GET /__mockd/scenario/answers/ID`: what answers with id `ID` in the session (what a journal entry's `stub`
    /// names; the dashboard's link from a journal row): a runtime stub (`"kind": "runtimeStub"`, its definition as
    /// posted), an override of the session's scenario (`"override"`: priority, what it matches, how many steps), or a
    /// stub of one of its mock sets (`"stub"`: set, the recorded request key and header constraints, each response's
    /// status, headers and body size, what happens after the last). 404 `unknown_answer` when none has that id.
    /// - Complexity: O(n) in the scenario's stubs and overrides.
    func answer(_ call: Call) -> MockResponse {
        let id = call.captured
        var answer: [String: Any] = ["session": call.session.id, "id": id]
        if let stub = call.session.runtimeStubs.first(where: { $0.override.id == id }) {
            answer["kind"] = "runtimeStub"
            answer["definition"] = ControlAPI.foundationValue(stub.definition)
            return ControlAPI.json(200, answer)
        }
        let scenario = call.session.scenario
        answer["scenario"] = scenario.name
        if let override = scenario.overrides.first(where: { $0.id == id }) {
            let pattern = override.pattern
            answer["kind"] = "override"
            answer["priority"] = override.priority
            var match: [String: Any] = [:]
            if let method = pattern.method { match["method"] = method }
            if let path = pattern.pathText { match["path"] = path }
            if let host = pattern.host { match["host"] = host }
            if !pattern.query.isEmpty { match["query"] = pattern.query.map { "\($0.name)=\($0.value)" } }
            if !pattern.headers.isEmpty { match["headers"] = pattern.headers.map { "\($0.name): \($0.value)" } }
            if !pattern.bodies.isEmpty { match["body"] = true }
            answer["match"] = match
            answer["steps"] = override.steps.count
            answer["afterLast"] = override.afterLast.rawValue
            if let state = override.state { answer["state"] = state.name }
            return ControlAPI.json(200, answer)
        }
        if let stub = scenario.index.stubs.first(where: { $0.id == id }) {
            answer["kind"] = "stub"
            answer["set"] = stub.setName
            var request: [String: Any] = [
                "method": stub.key.method, "path": stub.key.path, "query": stub.key.query,
                "headers": stub.headerConstraints.map { "\($0.name): \($0.value)" },
            ]
            if !stub.key.host.isEmpty { request["host"] = stub.key.host }
            if let body = stub.body {
                request["body"] = String(data: body.prefix(JournalJSON.rowPreviewLimit), encoding: .utf8) ?? NSNull()
            }
            answer["request"] = request
            answer["responses"] = stub.responses.map { response -> [String: Any] in
                [
                    "status": response.status, "headers": response.headers.map { "\($0.name): \($0.value)" },
                    "bodySize": response.fileBody?.count ?? response.body.count,
                ]
            }
            answer["afterLast"] = stub.afterLast.rawValue
            return ControlAPI.json(200, answer)
        }
        return ControlAPI.error(
            404,
            "unknown_answer",
            "nothing in session '\(call.session.id)' (\(scenario.isSingleSet ? "set" : "scenario") '\(scenario.name)') answers as '\(id)'"
        )
    }
}
