import Foundation
import MockdPlatform

/// A session's virtual clock: real time plus an offset that a test moves with `POST /__mockd/clock`.
///
/// Every time-based rule of the session reads it: rate-limit windows, `{{now…}}` placeholders and dates in
/// templates. Real latency, throttling and holds keep real time. The clock runs on with real time after a change
/// (it is an offset, not a frozen instant); switching or reloading the scenario keeps it, `POST /__mockd/reset`
/// puts it back to real time.
final class SessionClock: Sendable {
    private let offset = Atomic<Int64>(0)

    init() {}

    /// How far the session's clock is ahead of real time, in ms (negative: behind).
    var offsetMs: Int64 { offset.load(ordering: .relaxed) }

    /// Moves the clock forward by `milliseconds` (≥ 0).
    func advance(byMs milliseconds: Int64) {
        offset.wrappingAdd(milliseconds, ordering: .relaxed)
    }

    /// Sets the clock to `date` (the offset from real time `realNow`).
    func set(to date: Date, realNow: Date = Date()) {
        offset.store(Int64((date.timeIntervalSince(realNow) * 1000).rounded()), ordering: .relaxed)
    }

    /// The session's wall-clock time for the real time `real`.
    func date(_ real: Date = Date()) -> Date {
        let offset = offsetMs
        return offset == 0 ? real : real.addingTimeInterval(Double(offset) / 1000)
    }

    /// The session's time on a monotonic ms clock whose reading is `realMs` (rate-limit windows).
    func milliseconds(_ realMs: Double) -> Double {
        realMs + Double(offsetMs)
    }
}
