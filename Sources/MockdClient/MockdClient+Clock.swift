public import Foundation

/// The session's virtual clock (`/__mockd/clock`): rate-limit windows and `{{now}}` in this session read it, so a
/// test of "resend after 30 s" advances the clock instead of waiting.
extension MockdClient {
    /// The session's clock as `GET /__mockd/clock` reports it.
    public typealias Clock = VirtualClock

    /// This session's clock (`GET /__mockd/clock`).
    public func clock() async throws -> VirtualClock {
        try await call(ControlRoutes.readClock)
    }

    /// Moves this session's clock forward by `milliseconds` (`POST /__mockd/clock {"advanceMs": N}`).
    /// - Throws: `.server(400, "invalid_clock", …)` for a negative or larger than 10⁹ value.
    @discardableResult
    public func advanceClock(byMs milliseconds: Int) async throws -> VirtualClock {
        try await call(ControlRoutes.moveClock, body: ClockChange(advanceMs: milliseconds))
    }

    /// Sets this session's clock to `date` (`POST /__mockd/clock {"set": ISO-8601}`); it runs on from there.
    @discardableResult
    public func setClock(to date: Date) async throws -> VirtualClock {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return try await call(ControlRoutes.moveClock, body: ClockChange(set: formatter.string(from: date)))
    }
}
