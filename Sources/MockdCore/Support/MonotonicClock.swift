import Dispatch

/// The monotonic clock in ms that rate windows, session expiry and delays read unless a test hands in its own.
public enum MonotonicClock {
    /// Milliseconds since an arbitrary start (boot), never going back.
    public static let milliseconds: @Sendable () -> Double = {
        Double(DispatchTime.now().uptimeNanoseconds) / 1_000_000
    }
}
