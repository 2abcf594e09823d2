import Foundation
public import MockdFormat

/// How long to hold a response before sending it, in ms.
///
/// Seeded models are reproducible: the n-th call of a stub in a session always gets the same delay.
public struct LatencyModel: Sendable, Equatable {
    public let entry: LatencyEntry

    public init(_ entry: LatencyEntry) {
        self.entry = entry
    }

    /// The delay in ms for the `call`-th (0-based) call, given the HAR entry's recorded time; never more than
    /// `TimeLimits.maxDelayMs`.
    public func delay(call: Int, recordedTimeMs: Double?) -> Double {
        let value = unboundedDelay(call: call, recordedTimeMs: recordedTimeMs)
        return value.isFinite ? min(value, TimeLimits.maxDelayMs) : TimeLimits.maxDelayMs
    }

    private func unboundedDelay(call: Int, recordedTimeMs: Double?) -> Double {
        switch entry {
        case .fixed(let milliseconds):
            return max(0, milliseconds)
        case .uniform(let low, let high, let seed):
            return max(0, low + (high - low) * LatencyModel.unitRandom(seed: seed, call: call, stream: 0))
        case .logNormal(let median, let sigma, let seed):
            // Box–Muller from two uniform draws; median · e^(σ·z) has the given median.
            let u1 = max(LatencyModel.unitRandom(seed: seed, call: call, stream: 1), 1e-12)
            let u2 = LatencyModel.unitRandom(seed: seed, call: call, stream: 2)
            let z = (-2 * Foundation.log(u1)).squareRoot() * cos(2 * Double.pi * u2)
            return max(0, median * exp(sigma * z))
        case .recorded(let factor):
            return max(0, (recordedTimeMs ?? 0) * factor)
        }
    }

    /// A uniform number in [0, 1): SplitMix64 of (seed, call, stream) when seeded, else system randomness.
    static func unitRandom(seed: UInt64?, call: Int, stream: UInt64) -> Double {
        guard let seed else { return Double.random(in: 0..<1) }
        var z = seed &+ UInt64(truncatingIfNeeded: call) &* 0x9E37_79B9_7F4A_7C15 &+ stream &* 0xD1B5_4A32_D192_ED03
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z = z ^ (z >> 31)
        return Double(z >> 11) / Double(UInt64(1) << 53)
    }
}
