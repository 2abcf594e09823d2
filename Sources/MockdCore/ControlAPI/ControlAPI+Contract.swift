import Foundation
import MockdFormat

/// The contract routes (`mockd --openapi SPEC`): `contractViolations` on journal entries,
/// `GET /__mockd/contract`, and `POST /__mockd/verify` with `"contract": true`.
extension ControlAPI {
    /// A journal entry as JSON, with `contractViolations` (a list of lines, empty when it honours the contract)
    /// when the daemon serves with a contract.
    func journalItem(_ entry: JournalEntry) -> [String: Any] {
        var item = JournalJSON.entry(entry)
        if let violations = contractViolations(of: entry) { item["contractViolations"] = violations }
        return item
    }

    /// The entry's violations, the request's then the answer's; `nil` without a contract. A body the journal kept cut
    /// is not checked.
    ///
    /// The answer is checked when a stub, override, runtime stub, resource or the upstream gave it (not mockd's own
    /// miss), as a status with a body: not a fault, a WebSocket handshake or an event stream.
    func contractViolations(of entry: JournalEntry) -> [String]? {
        guard let contract = engine.options.contract else { return nil }
        let cut = entry.bodySize > entry.body.count
        var lines = contract.violations(
            method: entry.method,
            target: entry.target,
            headers: entry.headers.map { ($0.name, $0.value) },
            body: cut ? Data() : entry.body
        )
        let response = entry.response
        if entry.matched || entry.proxied, let status = entry.status, status != 101, response.eventStream == nil,
            response.webSocket == nil, response.liveFeed == nil
        {
            lines += contract.answerViolations(
                method: entry.method,
                target: entry.target,
                status: status,
                headers: response.headers.map { ($0.name, $0.value) },
                body: ControlAPI.sentBody(of: entry)
            )
        }
        return lines
    }

    /// The body the answer sent, for the contract check: `nil` when the journal kept it cut, or when it is served from
    /// a file of more than 4 MiB (a video, an archive: not a JSON body a contract describes).
    private static func sentBody(of entry: JournalEntry) -> Data? {
        if entry.responseBodyCut { return nil }
        guard let file = entry.response.fileBody else { return entry.response.body }
        guard file.count <= 4 * 1024 * 1024 else { return nil }
        return try? file.bytes()
    }

    /// `GET /__mockd/contract`: the session's exchanges that break the contract (the request, or the answer it got).
    ///
    /// `{"session", "checked": N, "violating": M, "requests": [{"sequence", "method", "target", "violations": […]}]}`;
    /// 404 `no_contract` when the daemon was started without `--openapi`.
    func contractViolations(_ call: Call) -> MockResponse {
        guard engine.options.contract != nil else {
            return ControlAPI.error(
                404,
                "no_contract",
                "start mockd with --openapi <spec> to check requests against it"
            )
        }
        let entries = call.session.journal.snapshot().entries
        let violating = violatingRequests(entries)
        return ControlAPI.json(
            200,
            ["session": call.session.id, "checked": entries.count, "violating": violating.count, "requests": violating]
        )
    }

    /// `POST /__mockd/verify` with `{"contract": true}` (optionally `method` and `path` to narrow it): 200 when
    /// every journaled request honours the contract, else 409 `contract_violated` listing the requests that do not.
    func verifyContract(_ call: Call, _ body: [String: Any]) -> MockResponse {
        guard body["contract"] as? Bool == true else {
            return ControlAPI.error(400, "bad_request", #""contract" must be true"#)
        }
        guard engine.options.contract != nil else {
            return ControlAPI.error(
                404,
                "no_contract",
                "start mockd with --openapi <spec> to verify requests against it"
            )
        }
        let method = (body["method"] as? String)?.uppercased()
        // A path may be the document's own template (`/v1/pets/{petId}`): a `{name}` segment stands for any one.
        let pattern = (body["path"] as? String).map { $0.split(separator: "/", omittingEmptySubsequences: false) }
        let entries = call.session.journal.snapshot().entries.filter { entry in
            guard method == nil || entry.method == method else { return false }
            guard let pattern else { return true }
            let segments = RequestKey.normalizePath(HTTPRequest(method: entry.method, target: entry.target).path)
                .split(separator: "/", omittingEmptySubsequences: false)
            return segments.count == pattern.count
                && zip(pattern, segments).allSatisfy { wanted, segment in
                    wanted.hasPrefix("{") && wanted.hasSuffix("}")
                        || RequestKey.normalizePath("/" + wanted) == "/" + segment
                }
        }
        // Nothing checked is no evidence: a filter that matched no request fails rather than passing.
        if entries.isEmpty, method != nil || pattern != nil {
            return ControlAPI.json(
                409,
                [
                    "error": "nothing_checked",
                    "message":
                        "no journaled request matches \(method ?? "any method") \(body["path"] as? String ?? "any path"); nothing was checked against the contract",
                    "checked": 0,
                ]
            )
        }
        let violating = violatingRequests(entries)
        if violating.isEmpty { return ControlAPI.json(200, ["ok": true, "checked": entries.count]) }
        let first = violating[0]
        let lines = first["violations"] as? [String] ?? []
        return ControlAPI.json(
            409,
            [
                "error": "contract_violated",
                "message":
                    "\(violating.count) of \(entries.count) requests break the contract; first: #\(first["sequence"] ?? "") \(first["method"] ?? "") \(first["target"] ?? ""): \(lines.first ?? "")",
                "checked": entries.count, "requests": violating,
            ]
        )
    }

    private func violatingRequests(_ entries: [JournalEntry]) -> [[String: Any]] {
        entries.compactMap { entry -> [String: Any]? in
            guard let violations = contractViolations(of: entry), !violations.isEmpty else { return nil }
            return [
                "sequence": entry.sequence, "method": entry.method, "target": entry.target, "violations": violations,
            ]
        }
    }
}
