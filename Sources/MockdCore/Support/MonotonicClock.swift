import Dispatch
import Foundation

/// The monotonic clock in ms that rate windows, session expiry and delays read unless a test hands in its own.
public enum MonotonicClock {
    /// Milliseconds since an arbitrary start (boot), never going back.
    public static let milliseconds: @Sendable () -> Double = {
        Double(DispatchTime.now().uptimeNanoseconds) / 1_000_000
    }
}

/// The wall clock.
enum WallClock {
    /// Now, from one `clock_gettime(CLOCK_REALTIME)`: `Date()` went through Foundation's wrappers, ~45 instructions
    /// more on every request (its arrival time).
    @inline(__always)
    static func now() -> Date {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Date(timeIntervalSince1970: Double(now.tv_sec) + Double(now.tv_nsec) / 1_000_000_000)
    }
}
