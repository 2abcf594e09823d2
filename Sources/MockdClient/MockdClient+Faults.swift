extension StubDefinition {
    /// A stub that fails the next `times` requests to `method` and `path` with `fault`, then lets every later one
    /// through to what answered before (an empty step passes the answer below through).
    ///
    /// Client faults (`.offline`, `.dnsFailure`, `.tlsFailure`, `.timeout`, `.cancelled`) are raised in the app by
    /// `MockdAppRedirect` as the matching `URLError` (`.notConnectedToInternet`…); an app without it gets a reset
    /// (no answer for `.timeout`). Wire faults (`.connectionReset`…) break the connection itself.
    /// - Parameters:
    ///   - method: The request method; any method when `nil`.
    ///   - path: The path, exact or a template (`/v1/orders/{id}`).
    ///   - fault: The failure: a client fault (`.offline`…) or a wire fault (`.connectionReset`…).
    ///   - times: How many requests fail, at least 1.
    ///   - id: The stub's id; the daemon assigns `runtime-N` when `nil`.
    public static func failing(
        method: String? = nil,
        path: String,
        with fault: Fault,
        times: Int = 1,
        id: String? = nil
    ) -> StubDefinition {
        StubDefinition(
            id: id,
            match: Match(method: method, path: path),
            responses: Array(repeating: Response(fault: fault), count: max(1, times)) + [Response()]
        )
    }
}

extension MockdClient {
    /// Fails the next `times` requests of this session to `method` and `path` with `fault`, then answers them as
    /// before: `try await mockd.fail("POST", "/v1/messages", with: .offline)` makes the app's next send fail with
    /// `URLError.notConnectedToInternet` (through `MockdAppRedirect`) and its retry succeed.
    /// - Returns: The runtime stub's id (remove it with `removeStub(id:)` to stop early).
    /// - Throws: `.server(400, "invalid_stub", …)` for a path that does not start with `/`.
    @discardableResult
    public func fail(
        _ method: String? = nil,
        _ path: String,
        with fault: Fault,
        times: Int = 1,
        id: String? = nil
    ) async throws -> String {
        try await addStub(.failing(method: method, path: path, with: fault, times: times, id: id))
    }
}
