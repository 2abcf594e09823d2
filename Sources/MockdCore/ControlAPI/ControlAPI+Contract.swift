import Foundation
import MockdControl
import MockdFormat

/// The contract routes (`mockd --openapi SPEC`): `contractViolations` on journal entries,
/// `GET /__mockd/contract`, and `POST /__mockd/verify` with `"contract": true`.
extension ControlAPI {
    /// A journal entry as the control API sends it, with `contractViolations` (a list of lines, empty when it
    /// honours the contract) when the daemon serves with a contract.
    func journalItem(_ entry: JournalRecord) -> JournalEntry {
        var item = JournalJSON.entry(entry)
        item.contractViolations = contractViolations(of: entry)
        return item
    }

    /// The entry's violations, the request's then the answer's; `nil` without a contract. A body the journal kept cut
    /// is not checked.
    ///
    /// The answer is checked when a stub, override, runtime stub, resource or the upstream gave it (not mockd's own
    /// miss), as a status with a body: not a fault, a WebSocket handshake or an event stream.
    func contractViolations(of entry: JournalRecord) -> [String]? {
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
    private static func sentBody(of entry: JournalRecord) -> Data? {
        if entry.responseBodyCut { return nil }
        guard let file = entry.response.fileBody else { return entry.response.body }
        guard file.count <= 4 * 1024 * 1024 else { return nil }
        return try? file.bytes()
    }

    /// `GET /__mockd/contract`: the session's exchanges that break the contract (the request, or the answer it got);
    /// 404 `no_contract` when the daemon was started without `--openapi`.
    func contractReport(_ call: Call, _: NoBody) throws -> ContractReport {
        guard engine.options.contract != nil else {
            throw Failure(.noContract, "start mockd with --openapi <spec> to check requests against it")
        }
        let entries = call.session.journal.snapshot().entries
        return ContractReport(session: call.session.id, checked: entries.count, requests: violatingRequests(entries))
    }

    /// `POST /__mockd/verify` with `{"contract": true}` (optionally `method` and `path` to narrow it): 200 when
    /// every journaled request honours the contract, else 409 `contract_violated` listing the requests that do not.
    func verifyContract(_ call: Call, _ body: VerifyRequest) throws -> VerifyResult {
        guard body.contract == true else { throw Failure(.badRequest, #""contract" must be true"#) }
        guard engine.options.contract != nil else {
            throw Failure(.noContract, "start mockd with --openapi <spec> to verify requests against it")
        }
        let method = body.method?.uppercased()
        // A path may be the document's own template (`/v1/pets/{petId}`): a `{name}` segment stands for any one.
        let pattern = body.path.map { $0.split(separator: "/", omittingEmptySubsequences: false) }
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
            throw Failure(
                .nothingChecked,
                evidence: ContractFailure(
                    .nothingChecked,
                    message:
                        "no journaled request matches \(method ?? "any method") \(body.path ?? "any path"); nothing was checked against the contract",
                    checked: 0,
                    requests: nil
                )
            )
        }
        let violating = violatingRequests(entries)
        guard let first = violating.first else { return VerifyResult(checked: entries.count) }
        throw Failure(
            .contractViolated,
            evidence: ContractFailure(
                .contractViolated,
                message:
                    "\(violating.count) of \(entries.count) requests break the contract; first: #\(first.sequence) \(first.method) \(first.target): \(first.violations.first ?? "")",
                checked: entries.count,
                requests: violating
            )
        )
    }

    private func violatingRequests(_ entries: [JournalRecord]) -> [ViolatingRequest] {
        entries.compactMap { entry in
            guard let violations = contractViolations(of: entry), !violations.isEmpty else { return nil }
            return ViolatingRequest(
                sequence: entry.sequence,
                method: entry.method,
                target: entry.target,
                violations: violations
            )
        }
    }
}
