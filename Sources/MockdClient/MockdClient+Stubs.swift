/// This session's runtime stubs (`/__mockd/stubs`).
extension MockdClient {
    /// Adds a runtime stub to this session; it wins over the scenario's overrides and mock sets of lower
    /// priority. Returns its id (`stub.id`, or `runtime-N` assigned by the daemon).
    /// - Throws: `.server(400, "invalid_stub", message)` naming the bad field.
    @discardableResult
    public func addStub(_ stub: StubDefinition) async throws -> String {
        try await call(ControlRoutes.addStub, body: stub.entry).id
    }

    /// The ids of this session's runtime stubs, in the order they were added.
    public func stubs() async throws -> [String] {
        try await stubDefinitions().map(\.id)
    }

    /// This session's runtime stubs with the JSON the daemon holds for each (and the group of those in one).
    public func stubDefinitions() async throws -> [RuntimeStub] {
        try await call(ControlRoutes.listStubs).stubs
    }

    /// One runtime stub of this session (`GET /__mockd/stubs/ID`).
    /// - Throws: `.server(404, "unknown_stub", …)` when this session has no stub `id`.
    public func stub(id: String) async throws -> RuntimeStub {
        try await call(ControlRoutes.getStub, path: [id])
    }

    /// Removes one runtime stub.
    /// - Throws: `.server(404, "unknown_stub", …)` when this session has no stub `id`.
    public func removeStub(id: String) async throws {
        _ = try await call(ControlRoutes.removeStub, path: [id])
    }

    /// Removes all of this session's runtime stubs.
    public func removeStubs() async throws {
        _ = try await call(ControlRoutes.removeStubs)
    }
}
