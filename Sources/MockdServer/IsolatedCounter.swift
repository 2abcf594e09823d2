import MockdPlatform

/// A counter alone on its 64-byte cache line (padded on both sides), so that threads writing it do not
/// take the line away from readers of neighbouring data.
final class IsolatedCounter: Sendable {
    private let before: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    let value = Atomic<Int>(0)
    private let after: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
}
