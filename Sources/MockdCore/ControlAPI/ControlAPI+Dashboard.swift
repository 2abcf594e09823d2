import Foundation

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
