import MockdPlatform

/// A monotonic clock in ms that only moves when a test moves it: hand `read` to whatever takes a clock
/// (`MockEngine`, `SessionRegistry`), so time-based behaviour is tested without sleeping.
public final class ManualClock: Sendable {
    private let milliseconds: Mutex<Double>

    public init(startingAt start: Double = 1_000) {
        milliseconds = Mutex(start)
    }

    /// The clock as a `@Sendable () -> Double`.
    public var read: @Sendable () -> Double { { self.now } }

    public var now: Double { milliseconds.withLock { $0 } }

    public func advance(by delta: Double) {
        milliseconds.withLock { $0 += delta }
    }
}
