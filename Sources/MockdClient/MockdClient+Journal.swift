public import Foundation

/// This session's journal: the requests its app sent, the misses, verify, the contract, coverage.
extension MockdClient {
    /// The requests this session's app sent, oldest first (the journal keeps the most recent ones), every page.
    /// - Parameters:
    ///   - method: only this method.
    ///   - path: only this exact path (compared without the query).
    ///   - unmatchedOnly: only requests no stub answered.
    public func journal(
        method: String? = nil,
        path: String? = nil,
        unmatchedOnly: Bool = false
    ) async throws -> [JournalEntry] {
        // Page by page (the daemon answers at most 1,000 entries at a time by default), following `next`.
        var entries: [JournalEntry] = []
        var after: Int?
        repeat {
            let page = try await journalPage(after: after, method: method, path: path, unmatchedOnly: unmatchedOnly)
            entries += page.entries
            after = page.next.flatMap { Int($0) }
        } while after != nil
        return entries
    }

    /// One page of the journal (`GET /__mockd/journal`): at most `limit` entries (1,000 when `nil`, at most 10,000)
    /// after the cursor `after` (the previous page's `next`), filtered as `journal(method:path:unmatchedOnly:)`.
    public func journalPage(
        limit: Int? = nil,
        after: Int? = nil,
        method: String? = nil,
        path: String? = nil,
        unmatchedOnly: Bool = false
    ) async throws -> JournalPage {
        var query: [URLQueryItem] = []
        if let limit { query.append(URLQueryItem(name: "limit", value: String(limit))) }
        if let after { query.append(URLQueryItem(name: "after", value: String(after))) }
        query += Self.journalFilters(method: method, path: path, unmatchedOnly: unmatchedOnly)
        return try await call(ControlRoutes.journal, query: query)
    }

    /// One exchange of the journal in full: the request with its body, its near misses, the response sent
    /// (`GET /__mockd/journal/entries/SEQ`).
    /// - Throws: `.server(404, "unknown_entry", …)` once the journal no longer holds it.
    public func journalEntry(_ sequence: Int) async throws -> JournalEntryDetail {
        try await call(ControlRoutes.journalEntry, path: [String(sequence)])
    }

    /// The requests no stub answered, each with its near misses (closest stubs and what differed).
    public func unmatched() async throws -> [UnmatchedRequest] {
        try await call(ControlRoutes.unmatched).requests
    }

    /// Checks that the journal holds exactly `count` requests for `path` (the exact path, compared without
    /// the query), `method` (any when `nil`) and `host` (the recorded host the request was for, any when `nil`).
    /// Returns the count.
    /// - Throws: `.verificationFailed(message:expected:actual:)` when the count differs.
    @discardableResult
    public func verify(method: String? = nil, path: String, host: String? = nil, count: Int) async throws -> Int {
        try await verify(VerifyRequest(method: method, path: path, host: host, count: count))
    }

    /// Checks that the journal holds at least `atLeast` requests for `path` and `method`. Returns the count.
    /// - Throws: `.verificationFailed(message:expected:actual:)` when there are fewer.
    @discardableResult
    public func verify(method: String? = nil, path: String, host: String? = nil, atLeast: Int) async throws -> Int {
        try await verify(VerifyRequest(method: method, path: path, host: host, atLeast: atLeast))
    }

    /// Checks that every journaled request of this session (those of `method` and `path` when given; `path` may be
    /// the document's template, `/v1/pets/{petId}`), and the answer it got, honours the daemon's `--openapi`
    /// document. Returns how many were checked.
    /// - Throws: `.server(409, "contract_violated", …)` naming the first violation, `.server(409, "nothing_checked",
    ///   …)` when no request matched the filter, `.server(404, "no_contract", …)` without `--openapi`.
    @discardableResult
    public func verifyContract(method: String? = nil, path: String? = nil) async throws -> Int {
        let result = try await call(
            ControlRoutes.verify,
            body: VerifyRequest(method: method, path: path, contract: true)
        )
        return result.checked ?? 0
    }

    /// This session's exchanges that break the daemon's `--openapi` document (`GET /__mockd/contract`).
    /// - Throws: `.server(404, "no_contract", …)` without `--openapi`.
    public func contractViolations() async throws -> ContractReport {
        try await call(ControlRoutes.contract)
    }

    /// Which stubs and overrides no request used: in this session, and over the daemon's life
    /// (`GET /__mockd/coverage`).
    public func coverage() async throws -> CoverageAnswer {
        try await call(ControlRoutes.coverage)
    }

    /// This session's journal as a HAR 1.2 document (JSON bytes), for attaching to a failed test.
    ///
    /// - Parameter keepSecrets: `false` (the default): passwords, tokens, cookies, e-mail addresses and the like the
    ///   app sent or received are replaced by placeholders, as `mockd import-har` does; `true` keeps every value as
    ///   sent (`?keepSecrets=true`).
    public func journalHAR(keepSecrets: Bool = false) async throws -> Data {
        try await send(
            ControlRoutes.journalHAR.erased,
            path: [],
            query: keepSecrets ? [URLQueryItem(name: "keepSecrets", value: "true")] : [],
            body: NoBody?.none
        )
    }

    /// As `journalHAR(keepSecrets:)`, decoded.
    public func journalHARDocument(keepSecrets: Bool = false) async throws -> JournalHAR {
        try decode(JournalHAR.self, from: try await journalHAR(keepSecrets: keepSecrets))
    }

    private func verify(_ body: VerifyRequest) async throws -> Int {
        guard let count = try await call(ControlRoutes.verify, body: body).count else {
            throw MockdClientError.invalidResponse("POST /__mockd/verify: the answer has no count")
        }
        return count
    }

    static func journalFilters(method: String?, path: String?, unmatchedOnly: Bool) -> [URLQueryItem] {
        var query: [URLQueryItem] = []
        if let method { query.append(URLQueryItem(name: "method", value: method)) }
        if let path { query.append(URLQueryItem(name: "path", value: path)) }
        if unmatchedOnly { query.append(URLQueryItem(name: "unmatched", value: "true")) }
        return query
    }
}
