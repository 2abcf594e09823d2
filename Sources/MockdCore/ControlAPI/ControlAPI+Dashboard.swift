import Foundation
import MockdControl
import MockdFormat

/// What the dashboard (`/__mockd/ui`) reads besides the other routes: the live journal, one exchange in full, and what
/// answers as an id.
extension ControlAPI {
    /// `GET /__mockd/journal/stream?session=ID&after=N`: the session's journal as Server-Sent Events
    /// (`JournalFeed`), from the entry after sequence `after` (or the `Last-Event-ID` header; default 0, the whole
    /// journal), kept open until the client leaves. 400 for a bad `after` (checked with the route's parameters), 503
    /// `too_many_streams` when `JournalFeed.maxOpen` feeds are open.
    func journalStream(_ call: Call, _: NoBody) throws -> MockResponse {
        let after = (call.query("after") ?? call.request.headers["last-event-id"]).flatMap { Int($0) } ?? 0
        guard let feed = JournalFeed.open(engine: engine, sessionID: call.session.id, after: after) else {
            throw Failure(
                .tooManyStreams,
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
    func journalEntry(_ call: Call, _: NoBody) throws -> JournalEntryDetail {
        let sequence = Int(call.parameter("sequence")) ?? 0
        let page = call.session.journal.page(after: sequence - 1, limit: 1) { _ in true }
        guard let entry = page.entries.first, entry.sequence == sequence else {
            throw Failure(
                .unknownEntry,
                "session '\(call.session.id)' has no journal entry \(sequence) (reset, or dropped by --journal-limit)"
            )
        }
        return JournalJSON.detail(entry, session: call.session.id)
    }

    /// `GET /__mockd/scenario/answers/ID`: what answers with id `ID` in the session (what a journal entry's `stub`
    /// names; the dashboard's link from a journal row): a runtime stub (`"kind": "runtimeStub"`, its definition as
    /// posted), an override of the session's scenario (`"override"`: priority, what it matches, how many steps), or a
    /// stub of one of its mock sets (`"stub"`: set, the recorded request key and header constraints, each response's
    /// status, headers and body size, what happens after the last). 404 `unknown_answer` when none has that id.
    /// - Complexity: O(n) in the scenario's stubs and overrides.
    func answerSource(_ call: Call, _: NoBody) throws -> AnswerSource {
        let id = call.parameter("id")
        let session = call.session.id
        if let stub = call.session.runtimeStubs.first(where: { $0.override.id == id }) {
            return AnswerSource(session: session, id: id, kind: .runtimeStub, definition: stub.definition)
        }
        let scenario = call.session.scenario
        if let override = scenario.overrides.first(where: { $0.id == id }) {
            let pattern = override.pattern
            return AnswerSource(
                session: session,
                id: id,
                kind: .override,
                scenario: scenario.name,
                priority: override.priority,
                match: AnswerSource.Match(
                    method: pattern.method,
                    path: pattern.pathText,
                    host: pattern.host,
                    query: pattern.query.isEmpty ? nil : pattern.query.map { "\($0.name)=\($0.value)" },
                    headers: pattern.headers.isEmpty ? nil : pattern.headers.map { "\($0.name): \($0.value)" },
                    body: pattern.bodies.isEmpty ? nil : true
                ),
                steps: override.steps.count,
                afterLast: override.afterLast.rawValue,
                state: override.state?.name
            )
        }
        if let stub = scenario.index.stubs.first(where: { $0.id == id }) {
            return AnswerSource(
                session: session,
                id: id,
                kind: .stub,
                scenario: scenario.name,
                afterLast: stub.afterLast.rawValue,
                set: stub.setName,
                request: AnswerSource.Request(
                    method: stub.key.method,
                    path: stub.key.path,
                    query: stub.key.query,
                    headers: stub.headerConstraints.map { "\($0.name): \($0.value)" },
                    host: stub.key.host.isEmpty ? nil : stub.key.host,
                    body: stub.body.flatMap { String(data: $0.prefix(JournalJSON.rowPreviewLimit), encoding: .utf8) }
                ),
                responses: stub.responses.map { response in
                    AnswerSource.Response(
                        status: response.status,
                        headers: response.headers.map { "\($0.name): \($0.value)" },
                        bodySize: response.fileBody?.count ?? response.body.count
                    )
                }
            )
        }
        throw Failure(
            .unknownAnswer,
            "nothing in session '\(session)' (\(scenario.isSingleSet ? "set" : "scenario") '\(scenario.name)') answers as '\(id)'"
        )
    }
}
