import MockdPlatform

/// A stub of a mock set, by set and id: what coverage counts.
struct StubReference: Hashable, Sendable {
    let set: String
    let id: String
}

/// What one loaded scenario's stubs and overrides are, and which of them ever answered, read from the scenario's own
/// flags (`Scenario.stubUsage`, `Override.wasUsed`), which every session using that scenario sets.
struct ScenarioUsage: Sendable {
    let name: String
    /// Every stub of the scenario's sets, in index order.
    var stubs: [StubReference]
    var usedStubs: Set<StubReference>
    /// Every override id, in matching order.
    var overrides: [String]
    var usedOverrides: Set<String>

    init(_ scenario: Scenario) {
        name = scenario.name
        let stubs = scenario.index.stubs.map { StubReference(set: $0.setName, id: $0.id) }
        self.stubs = stubs
        usedStubs = Set(stubs.indices.filter(scenario.stubUsage.isSet).map { stubs[$0] })
        overrides = scenario.overrides.map(\.id)
        usedOverrides = Set(scenario.overrides.filter(\.wasUsed).map(\.id))
    }

    /// This (newer) copy's stubs and overrides, with what either copy used.
    func absorbing(_ older: ScenarioUsage) -> ScenarioUsage {
        var merged = self
        merged.usedStubs.formUnion(older.usedStubs)
        merged.usedOverrides.formUnion(older.usedOverrides)
        return merged
    }

    var isUsed: Bool { !usedStubs.isEmpty || !usedOverrides.isEmpty }
}

/// Coverage over the daemon's life: the use of scenarios no longer loaded (replaced by a reload), by scenario name.
/// The loaded ones keep their use in their own flags; a session that is dropped, reset, evicted or expired takes
/// nothing away, as its requests were counted in the scenario it used.
final class CoverageLedger: Sendable {
    private let retired = Mutex<(byName: [String: ScenarioUsage], order: [String])>(([:], []))

    /// Keeps what `scenarios` used once they are no longer served (after a reload switched every session away).
    func retire(_ scenarios: [Scenario]) {
        let usages = scenarios.map(ScenarioUsage.init)
        retired.withLock { retired in
            for usage in usages {
                if let kept = retired.byName[usage.name] {
                    retired.byName[usage.name] = usage.absorbing(kept)
                } else {
                    retired.byName[usage.name] = usage
                    retired.order.append(usage.name)
                }
            }
        }
    }

    /// The use of every scenario the daemon served: the loaded ones (`current`, by name; their stubs and overrides
    /// are the ones listed) with what their retired copies used, then the retired ones no longer loaded.
    func usages(current: [Scenario]) -> [ScenarioUsage] {
        let (byName, order) = retired.withLock { ($0.byName, $0.order) }
        var seen = Set<String>()
        var result: [ScenarioUsage] = []
        for scenario in current where seen.insert(scenario.name).inserted {
            var usage = ScenarioUsage(scenario)
            // Another copy of the same scenario loaded meanwhile (a session kept it across a failed reload).
            for other in current where other.name == scenario.name && other !== scenario {
                usage = usage.absorbing(ScenarioUsage(other))
            }
            if let older = byName[scenario.name] { usage = usage.absorbing(older) }
            result.append(usage)
        }
        for name in order where seen.insert(name).inserted {
            result.append(byName[name]!)
        }
        return result
    }
}
