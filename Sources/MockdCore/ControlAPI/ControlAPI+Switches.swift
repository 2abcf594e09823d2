import Foundation

/// `/__mockd/switches`: the session's switches (`SessionSwitches`), set without a scenario file.
extension ControlAPI {
    /// `GET /__mockd/switches`: `{"session", "latencyScale", "seed", "draws", "disabledRules"}`.
    func readSwitches(_ call: Call) -> MockResponse {
        switchesAnswer(call.session)
    }

    /// `POST /__mockd/switches` with any of `{"latencyScale": 0.5, "seed": 42, "rules": {"ID": false}}`:
    /// `latencyScale` (≥ 0, at most 1000) multiplies every planned latency (0 = off); `seed` (a whole number
    /// 0…2⁵³) restarts the generator of `chance` rules; `rules` turns overrides (and runtime stubs) off or back on
    /// by id. 200 with the switches as `GET` shows them; 400 `invalid_switches` naming the bad field, changing
    /// nothing.
    func setSwitches(_ call: Call) -> MockResponse {
        guard let object = ControlAPI.object(call.request.body), !object.isEmpty else {
            return invalidSwitches(#"send {"latencyScale": N, "seed": N, "rules": {"ID": true|false}} (any of them)"#)
        }
        if let unknown = object.keys.sorted().first(where: { !["latencyScale", "seed", "rules"].contains($0) }) {
            return invalidSwitches("unknown field '\(unknown)' (known: latencyScale, seed, rules)")
        }
        var scale: Double?
        if let value = object["latencyScale"] {
            guard let number = value as? NSNumber, number.objCType.pointee != CChar(UInt8(ascii: "c")),
                (0...1000).contains(number.doubleValue)
            else { return invalidSwitches("latencyScale must be a number from 0 (no latency) to 1000") }
            scale = number.doubleValue
        }
        var seed: UInt64?
        if let value = object["seed"] {
            guard let number = value as? NSNumber, number.objCType.pointee != CChar(UInt8(ascii: "c")),
                number.doubleValue.rounded() == number.doubleValue,
                (0...9_007_199_254_740_992).contains(number.doubleValue)
            else { return invalidSwitches("seed must be a whole number from 0 to 2⁵³") }
            seed = UInt64(number.doubleValue)
        }
        var rules: [(String, Bool)] = []
        if let value = object["rules"] {
            guard let map = value as? [String: Any] else {
                return invalidSwitches(#"rules must be an object of override ids to true (on) or false (off)"#)
            }
            for (id, flag) in map.sorted(by: { $0.key < $1.key }) {
                guard let number = flag as? NSNumber, number.objCType.pointee == CChar(UInt8(ascii: "c")) else {
                    return invalidSwitches("rules.\(id) must be true (on) or false (off)")
                }
                rules.append((id, number.boolValue))
            }
            // A typo in a rule id would silently switch nothing: every id must name an override or runtime stub.
            let known = Set(call.session.scenario.overrides.map(\.id) + call.session.runtimeStubs.map(\.override.id))
            if let unknown = rules.first(where: { !known.contains($0.0) }) {
                return invalidSwitches(
                    "rules.\(unknown.0): no override or runtime stub of this session has that id (known: \(known.sorted().joined(separator: ", ")))"
                )
            }
        }
        let switches = call.session.switches
        if let scale { switches.setLatencyScale(scale) }
        if let seed { switches.setSeed(seed) }
        for (id, enabled) in rules { switches.set(rule: id, enabled: enabled) }
        return switchesAnswer(call.session)
    }

    private func switchesAnswer(_ session: Session) -> MockResponse {
        let switches = session.switches
        let (seed, draws) = switches.seed
        return ControlAPI.json(
            200,
            [
                "session": session.id, "latencyScale": switches.latencyScale, "seed": seed, "draws": draws,
                "disabledRules": switches.disabledRules,
            ]
        )
    }

    private func invalidSwitches(_ message: String) -> MockResponse {
        ControlAPI.error(400, "invalid_switches", message)
    }
}
