import MockdClient

extension MockdTestSession {
    /// Checks that the app sent exactly `count` requests for `path` (`method` and `host` when given); on failure
    /// throws an error whose message explains the near miss, which fails the test where it is called.
    ///
    /// The message is the daemon's ("expected exactly 1 POST /v1/orders, journal has 0; closest: PUT /v1/orders
    /// (method: expected POST, got PUT)"), followed, for each request to `path` that no stub answered, by the stubs
    /// that came closest and the parts of the key that differed (`query status: expected open, got all`).
    /// - Returns: The count.
    /// - Throws: `MockdTestKitError.expectationFailed(message)`; `MockdClientError` for other daemon errors.
    @discardableResult
    public func verify(method: String? = nil, path: String, host: String? = nil, count: Int) async throws -> Int {
        try await explained(path: path) {
            try await client.verify(method: method, path: path, host: host, count: count)
        }
    }

    /// As `verify(method:path:host:count:)` with at least `atLeast` requests.
    @discardableResult
    public func verify(method: String? = nil, path: String, host: String? = nil, atLeast: Int) async throws -> Int {
        try await explained(path: path) {
            try await client.verify(method: method, path: path, host: host, atLeast: atLeast)
        }
    }

    /// The unmatched requests of `path` with their near misses, one line each, for a failure message: the stubs
    /// that differ in the fewest parts (at most three), and those parts.
    public func nearMissLines(path: String? = nil) async throws -> [String] {
        try await client.unmatched().filter { path == nil || $0.path == path }.map { request in
            // The closest stubs: those differing in the fewest parts, at most three.
            let fewest = request.nearMisses.map(\.differs.count).min() ?? 0
            let closest = request.nearMisses.filter { $0.differs.count == fewest }.prefix(3).map { miss in
                let parts = miss.differs.map { difference in
                    "\(difference.part): expected \(difference.expected ?? "(nothing)"), got \(difference.actual ?? "(nothing)")"
                }
                return "stub '\(miss.stub)' (\(parts.joined(separator: "; ")))"
            }
            let why = closest.isEmpty ? "no stub came close" : "closest " + closest.joined(separator: ", ")
            return "\(request.method) \(request.target) was not answered: \(why)"
        }
    }

    private func explained(path: String, _ check: () async throws -> Int) async throws -> Int {
        do {
            return try await check()
        } catch MockdClientError.verificationFailed(let message, _, _) {
            let lines = (try? await nearMissLines(path: path)) ?? []
            throw MockdTestKitError.expectationFailed(([message] + lines).joined(separator: "\n"))
        }
    }
}
