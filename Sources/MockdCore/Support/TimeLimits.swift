/// Upper bounds that keep every timer and rate computable (and a typo from holding a connection for years).
public enum TimeLimits {
    /// One hour, the longest latency, hold or scripted delay, in ms.
    public static let maxDelayMs: Double = 3_600_000
    /// The fastest throttle, 1 GB/s.
    public static let maxBytesPerSecond = 1_000_000_000
}
