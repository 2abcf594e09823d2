import Foundation
import MockdControl

/// `/__mockd/switches`: the session's switches (`SessionSwitches`), set without a scenario file.
extension ControlAPI {
    func readSwitches(_ call: Call, _: NoBody) -> Switches {
        switchesAnswer(call.session)
    }

    /// `POST /__mockd/switches` with any of `{"latencyScale": 0.5, "seed": 42, "rules": {"ID": false}}`:
    /// `latencyScale` (≥ 0, at most 1000) multiplies every planned latency (0 = off); `seed` (a whole number
    /// 0…2⁵³) restarts the generator of `chance` rules; `rules` turns overrides (and runtime stubs) off or back on
    /// by id. 400 `invalid_switches` naming the bad field, changing nothing.
    func setSwitches(_ call: Call, _ body: SwitchesChange) throws -> Switches {
        let keys = ControlAPI.bodyKeys(call.request.body)
        guard !keys.isEmpty else { throw Failure(.invalidSwitches, SwitchesChange.usage) }
        if let unknown = keys.first(where: { !["latencyScale", "seed", "rules"].contains($0) }) {
            throw Failure(.invalidSwitches, "unknown field '\(unknown)' (known: latencyScale, seed, rules)")
        }
        if let scale = body.latencyScale, !(0...1000).contains(scale) {
            throw Failure(.invalidSwitches, SwitchesChange.problem(at: ["latencyScale"])!)
        }
        if let seed = body.seed, seed > 9_007_199_254_740_992 {
            throw Failure(.invalidSwitches, SwitchesChange.problem(at: ["seed"])!)
        }
        let rules = (body.rules ?? [:]).sorted { $0.key < $1.key }
        // A typo in a rule id would silently switch nothing: every id must name an override or runtime stub.
        let known = Set(call.session.scenario.overrides.map(\.id) + call.session.runtimeStubs.map(\.override.id))
        if let unknown = rules.first(where: { !known.contains($0.key) }) {
            throw Failure(
                .invalidSwitches,
                "rules.\(unknown.key): no override or runtime stub of this session has that id (known: \(known.sorted().joined(separator: ", ")))"
            )
        }
        let switches = call.session.switches
        if let scale = body.latencyScale { switches.setLatencyScale(scale) }
        if let seed = body.seed { switches.setSeed(seed) }
        for (id, enabled) in rules { switches.set(rule: id, enabled: enabled) }
        return switchesAnswer(call.session)
    }

    private func switchesAnswer(_ session: Session) -> Switches {
        let switches = session.switches
        let (seed, draws) = switches.seed
        return Switches(
            session: session.id,
            latencyScale: switches.latencyScale,
            seed: seed,
            draws: draws,
            disabledRules: switches.disabledRules
        )
    }
}
