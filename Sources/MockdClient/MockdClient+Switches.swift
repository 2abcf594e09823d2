import Foundation

/// The session's switches (`/__mockd/switches`) and its stateful resources (`/__mockd/resources`).
extension MockdClient {
    /// The session's switches as `GET /__mockd/switches` reports them.
    public typealias Switches = MockdControl.Switches

    /// This session's switches (`GET /__mockd/switches`).
    public func switches() async throws -> Switches {
        try await call(ControlRoutes.readSwitches)
    }

    /// Sets any of this session's switches (`POST /__mockd/switches`); `nil` leaves one as it is.
    /// - Parameters:
    ///   - latencyScale: Multiplies every planned latency, 0…1000 (0 = no latency).
    ///   - seed: Restarts the generator of `chance` rules from this seed (0…2⁵³).
    ///   - rules: Override ids to turn on (`true`) or off (`false`).
    /// - Throws: `.server(400, "invalid_switches", …)` naming the bad value.
    @discardableResult
    public func setSwitches(
        latencyScale: Double? = nil,
        seed: UInt64? = nil,
        rules: [String: Bool]? = nil
    ) async throws -> Switches {
        try await call(
            ControlRoutes.setSwitches,
            body: SwitchesChange(latencyScale: latencyScale, seed: seed, rules: rules)
        )
    }

    /// This session's stateful resources with their item counts (`GET /__mockd/resources`).
    public func resources() async throws -> [ResourceSummary] {
        try await call(ControlRoutes.listResources).resources
    }

    /// One stateful resource of this session with its items in order (`GET /__mockd/resources/NAME`).
    /// - Throws: `.server(404, "unknown_resource", …)` when the session's scenario declares none of that name.
    public func resource(_ name: String) async throws -> ResourceState {
        try await call(ControlRoutes.getResource, path: [name])
    }
}
