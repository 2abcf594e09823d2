import Foundation
import MockdControl
import MockdFormat

/// The session's journal: pages of it, its HAR export, the misses, verify and coverage.
extension ControlAPI {
    /// Entries per journal page unless `limit` says otherwise (the table says at most 10,000).
    static let journalPageDefault = 1000

    /// Whether `entry` passes the journal filters `method`, `path` (raw path, no query) and `unmatched=true`.
    private func journalFilter(_ call: Call) -> (JournalRecord) -> Bool {
        let method = call.query("method")
        let path = call.query("path").map(RequestKey.normalizePath)
        let onlyUnmatched = call.flag("unmatched")
        return { entry in
            (method == nil || entry.method == method)
                && (path == nil
                    || RequestKey.normalizePath(HTTPRequest(method: entry.method, target: entry.target).path) == path)
                && (!onlyUnmatched || !entry.matched)
        }
    }

    /// One page of the journal (`limit`, default 1,000; `after`, the `next` cursor of the previous page), filtered
    /// by `method`, `path` and `unmatched=true`; `next` is `null` on the last page. A long page is streamed.
    func journal(_ call: Call, _: NoBody) -> MockResponse {
        let limit = call.query("limit").flatMap { Int($0) } ?? ControlAPI.journalPageDefault
        let after = call.query("after").flatMap { Int($0) } ?? 0
        let (entries, more, dropped) = call.session.journal.page(after: after, limit: limit, where: journalFilter(call))
        let page = JournalPage(
            session: call.session.id,
            count: entries.count,
            dropped: dropped,
            entries: [],
            next: more ? String(entries.last?.sequence ?? after) : nil
        )
        return ControlAPI.json(200, page, arrayAt: ["entries"], count: entries.count) { [self] in
            journalItem(entries[$0])
        }
    }

    /// The journal as HAR 1.2, through import's hygiene unless the caller asks for the values as sent; streamed when
    /// long.
    func journalHAR(_ call: Call, _: NoBody) -> MockResponse {
        let entries = call.session.journal.snapshot().entries.filter(journalFilter(call))
        let export = JournalJSON.HARExport(entries, redacting: !call.flag("keepSecrets"))
        var response = ControlAPI.json(
            200,
            export.log,
            arrayAt: ["log", "entries"],
            count: export.count,
            element: export.entry
        ) { export.comment.map { ["comment": .string($0)] } ?? [:] }
        response.headers.add(
            name: "Content-Disposition",
            value: "attachment; filename=\"mockd-\(call.session.id).har\""
        )
        return response
    }

    /// The requests no stub answered, with their near misses; streamed when many.
    func unmatched(_ call: Call, _: NoBody) -> MockResponse {
        let entries = call.session.journal.snapshot().entries.filter { !$0.matched && $0.fault == nil }
        return ControlAPI.json(
            200,
            UnmatchedList(session: call.session.id, count: entries.count, requests: []),
            arrayAt: ["requests"],
            count: entries.count
        ) { UnmatchedRequest(entry: JournalJSON.entry(entries[$0]), nearMisses: entries[$0].nearMisses) }
    }

    func coverage(_ call: Call, _: NoBody) -> CoverageAnswer {
        CoverageAnswer(session: CoverageReport.session(call.session), overall: CoverageReport.overall(engine))
    }

    func verify(_ call: Call, _ body: VerifyRequest) throws -> VerifyResult {
        if body.contract != nil { return try verifyContract(call, body) }
        guard let path = body.path, path.hasPrefix("/") else {
            throw Failure(.badRequest, #""path" is required and must start with '/'"#)
        }
        let range = 0...1_000_000_000
        guard (body.count != nil) != (body.atLeast != nil), (body.count ?? 0) >= 0, range.contains(body.count ?? 0),
            range.contains(body.atLeast ?? 0)
        else {
            throw Failure(.badRequest, #"give "count" (exactly) or "atLeast", a whole number from 0 to 1000000000"#)
        }
        if let host = body.host, host.isEmpty || !OriginRewrite.isAuthority(Substring(host)) {
            throw Failure(.badRequest, #""host" must be a host[:port] such as "api.example.com" (no scheme or path)"#)
        }
        let method = body.method
        let host = body.host.map(HostName.normalized)
        let normalized = RequestKey.normalizePath(path)
        let (entries, dropped) = call.session.journal.snapshot()
        // What the app sent, not what mockd did for it (pushed events, webhooks, state changes).
        let matching = entries.filter {
            !$0.isEffect && (method == nil || $0.method == method) && (host == nil || $0.host == host)
                && RequestKey.normalizePath(HTTPRequest(method: $0.method, target: $0.target).path) == normalized
        }
        let ok = body.count.map { matching.count == $0 } ?? (matching.count >= body.atLeast!)
        if ok { return VerifyResult(count: matching.count) }
        let what = "\(method ?? "any method") \(host.map { "//\($0)" } ?? "")\(path)"
        let wanted = body.count.map { "exactly \($0)" } ?? "at least \(body.atLeast!)"
        var note = dropped > 0 ? " (\(dropped) older entries were dropped by --journal-limit)" : ""
        let unanswered = matching.filter { !$0.matched && $0.fault == nil }.count
        if unanswered > 0 { note += "; \(unanswered) of them no stub answered (GET /__mockd/unmatched says why)" }
        // The near misses of the request key: journaled requests that differ in method, host or path.
        let nearest = VerifyExplanation.candidates(in: entries, method: method, host: host, path: normalized) {
            RequestKey.normalizePath(HTTPRequest(method: $0.method, target: $0.target).path)
        }
        if !nearest.isEmpty { note += "; closest: " + nearest.map(\.summary).joined(separator: ", ") }
        // The matching requests may be many: the evidence is streamed (`ControlAPI.json(_:_:arrayAt:…)`).
        let evidence = VerificationFailure(
            message: "expected \(wanted) \(what), journal has \(matching.count)\(note)",
            expected: body.count ?? body.atLeast!,
            actual: matching.count,
            requests: [],
            nearest: nearest.map(\.answer),
            journalCount: entries.count
        )
        let code = ControlErrorCode.verificationFailed
        throw Failure(
            code,
            evidence: evidence,
            sent: ControlAPI.json(code.status, evidence, arrayAt: ["requests"], count: matching.count) { [self] in
                journalItem(matching[$0])
            }
        )
    }
}
