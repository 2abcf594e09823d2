import MockdPlatform

/// A session's switches, set through `POST /__mockd/switches` without a scenario file: a latency scale, overrides
/// turned off by id, and the seed of the generator that draws `chance` rules.
///
/// The generator is SplitMix64 (Steele, Lea, Flood 2014): the n-th draw of a session depends only on its seed, so a
/// flaky-network run is reproduced by setting the same seed. Switching or reloading the scenario keeps the
/// switches; `POST /__mockd/reset` returns them to their defaults (scale 1, every override on, seed 1) and the
/// generator to its first draw.
final class SessionSwitches: Sendable {
    /// The seed a session starts with.
    static let defaultSeed: UInt64 = 1

    private struct Generator {
        var seed: UInt64
        var random: SplitMix64
        var draws = 0
        init(seed: UInt64) {
            self.seed = seed
            self.random = SplitMix64(seed: seed)
        }
    }

    private let generator = Mutex(Generator(seed: SessionSwitches.defaultSeed))
    /// `Double.bitPattern` of the latency scale.
    private let scale = Atomic<UInt64>(1.0.bitPattern)
    private let disabled = Mutex<Set<String>>([])
    /// Whether `disabled` holds anything, so that matching reads no lock while every override is on.
    private let anyDisabled = Atomic<Bool>(false)

    init() {}

    /// The factor every planned latency is multiplied by (0 = no latency); real time, not the virtual clock.
    var latencyScale: Double { Double(bitPattern: scale.load(ordering: .relaxed)) }

    func setLatencyScale(_ value: Double) {
        scale.store(value.bitPattern, ordering: .relaxed)
    }

    /// The seed and how many draws were made since it was set.
    var seed: (seed: UInt64, draws: Int) {
        generator.withLock { ($0.seed, $0.draws) }
    }

    /// Restarts the generator from `seed`.
    func setSeed(_ seed: UInt64) {
        generator.withLock { $0 = Generator(seed: seed) }
    }

    /// The overrides turned off, by id, sorted.
    var disabledRules: [String] { disabled.withLock { $0.sorted() } }

    /// Turns override `id` off (`enabled: false`) or back on.
    func set(rule id: String, enabled: Bool) {
        disabled.withLock { rules in
            if enabled { rules.remove(id) } else { rules.insert(id) }
            anyDisabled.store(!rules.isEmpty, ordering: .relaxed)
        }
    }

    /// Whether `override` is on (`rules`), without drawing for a `chance` rule: whether it could take a call.
    func isOn(_ override: Override) -> Bool {
        !(anyDisabled.load(ordering: .relaxed) && disabled.withLock({ $0.contains(override.id) }))
    }

    /// Whether `override` takes this call: it is on, and a `chance` rule's draw falls within its share (each call a
    /// chance rule would answer takes one draw).
    func admits(_ override: Override) -> Bool {
        if anyDisabled.load(ordering: .relaxed), disabled.withLock({ $0.contains(override.id) }) { return false }
        guard let chance = override.chance else { return true }
        return nextDraw() < chance
    }

    /// The next value in [0, 1) of the session's generator.
    func nextDraw() -> Double {
        generator.withLock { generator in
            generator.draws += 1
            return generator.random.unit()
        }
    }
}
