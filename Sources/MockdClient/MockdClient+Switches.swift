import Foundation

/// The session's switches (`/__mockd/switches`): latency scale, overrides on or off, the seed of `chance` rules.
extension MockdClient {
    /// The session's switches as `GET /__mockd/switches` reports them.
    public struct Switches: Decodable, Sendable, Equatable {
        public let session: String
        /// Every planned latency is multiplied by this (0 = off).
        public let latencyScale: Double
        /// The seed of the generator that draws `chance` rules.
        public let seed: UInt64
        /// Draws made since the seed was set.
        public let draws: Int
        /// Overrides and runtime stubs turned off, by id.
        public let disabledRules: [String]

        public init(session: String, latencyScale: Double, seed: UInt64, draws: Int, disabledRules: [String]) {
            self.session = session
            self.latencyScale = latencyScale
            self.seed = seed
            self.draws = draws
            self.disabledRules = disabledRules
        }
    }

    /// This session's switches (`GET /__mockd/switches`).
    public func switches() async throws -> Switches {
        try await decode(Switches.self, from: send("GET", "switches"))
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
        struct Body: Encodable {
            let latencyScale: Double?
            let seed: UInt64?
            let rules: [String: Bool]?
        }
        let body = try JSONEncoder().encode(Body(latencyScale: latencyScale, seed: seed, rules: rules))
        return try await decode(Switches.self, from: send("POST", "switches", body: body))
    }
}
