/// SplitMix64 (Steele, Lea, Flood 2014): a small deterministic generator, so a seed gives the same numbers on every
/// machine and every run (session draws, fake data, OpenAPI examples, generated test inputs).
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The next value in [0, 1), from the top 53 bits.
    public mutating func unit() -> Double { Double(next() >> 11) / Double(UInt64(1) << 53) }
}
