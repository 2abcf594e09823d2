public import Foundation

/// The session's virtual clock (`/__mockd/clock`): rate-limit windows and `{{now}}` in this session read it, so a
/// test of "resend after 30 s" advances the clock instead of waiting.
extension MockdClient {
    /// The session's clock as `GET /__mockd/clock` reports it.
    public struct Clock: Decodable, Sendable, Equatable {
        public let session: String
        /// The session's time, RFC 3339 UTC with milliseconds.
        public let now: String
        /// The session's time in ms since 1970.
        public let epochMs: Int64
        /// How far the session's clock is ahead of real time, in ms (0 = real time).
        public let offsetMs: Int64

        /// `epochMs` as a date.
        public var date: Date { Date(timeIntervalSince1970: Double(epochMs) / 1000) }
    }

    /// This session's clock (`GET /__mockd/clock`).
    public func clock() async throws -> Clock {
        try await decode(Clock.self, from: send("GET", "clock"))
    }

    /// Moves this session's clock forward by `milliseconds` (`POST /__mockd/clock {"advanceMs": N}`).
    /// - Throws: `.server(400, "invalid_clock", …)` for a negative or larger than 10⁹ value.
    @discardableResult
    public func advanceClock(byMs milliseconds: Int) async throws -> Clock {
        let body = try JSONEncoder().encode(["advanceMs": milliseconds])
        return try await decode(Clock.self, from: send("POST", "clock", body: body))
    }

    /// Sets this session's clock to `date` (`POST /__mockd/clock {"set": ISO-8601}`); it runs on from there.
    @discardableResult
    public func setClock(to date: Date) async throws -> Clock {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let body = try JSONEncoder().encode(["set": formatter.string(from: date)])
        return try await decode(Clock.self, from: send("POST", "clock", body: body))
    }
}
