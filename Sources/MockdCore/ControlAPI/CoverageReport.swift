public import Foundation
import MockdControl

/// Which stubs and overrides no request used (dead mocks, untested branches): over the daemon's life, per scenario
/// and per mock set, whatever happened to the sessions that sent the requests; and per live session, from its journal.
/// `GET /__mockd/coverage` and `mockd --summary FILE` at shutdown.
///
/// Over the daemon's life, a stub counts as used when it answered, or when an override or runtime stub answered by
/// editing its response (a pass-through `{}`, a `bodyPatch`, a latency); an override when it answered or a runtime
/// stub edited its answer. A session's own view comes from its journal, which keeps its last `--journal-limit`
/// entries: when it dropped some, the session's report says `"complete": false`.
enum CoverageReport {
    /// `{"session", "scenario", "requests", "complete", "stubs": {"total", "used", "unused": [{"set", "id"}]},
    /// "overrides": {"total", "used", "unused": [id]}, "runtimeStubs": {…}}`.
    static func session(_ session: Session) -> SessionCoverage {
        let (entries, dropped) = session.journal.snapshot()
        var used = Set<String>()
        for entry in entries {
            if let id = entry.stubID { used.insert(id) }
            used.formUnion(entry.edited)
        }
        let scenario = session.scenario
        return SessionCoverage(
            session: session.id,
            scenario: scenario.name,
            requests: entries.count + dropped,
            complete: dropped == 0,
            stubs: stubs(
                scenario.index.stubs.map { StubReference(set: $0.setName, id: $0.id) },
                used: { used.contains($0.id) }
            ),
            overrides: rules(scenario.overrides.map(\.id), used: used.contains),
            runtimeStubs: rules(session.runtimeStubs.map(\.override.id), used: used.contains)
        )
    }

    /// Over the daemon's life: `{"scenarios": [{"scenario", "sessions", "stubs", "overrides"}], "sets": [{"set",
    /// "total", "used", "unused": [id]}]}`. A scenario is listed when it is the startup one, a live session uses it, or
    /// something of it was used; `sessions` names the live sessions on it. A set's stubs count as used when any
    /// listed scenario used them.
    static func overall(_ engine: MockEngine) -> OverallCoverage {
        let live = engine.sessions.all
        let current = engine.catalog.loaded + live.map(\.scenario)
        let startup = engine.catalog.startup.name
        let usages = engine.coverage.usages(current: current).filter { usage in
            usage.name == startup || usage.isUsed || live.contains { $0.scenario.name == usage.name }
        }
        let scenarios = usages.map { usage in
            ScenarioCoverage(
                scenario: usage.name,
                sessions: live.filter { $0.scenario.name == usage.name }.map(\.id),
                stubs: stubs(usage.stubs, used: usage.usedStubs.contains),
                overrides: rules(usage.overrides, used: usage.usedOverrides.contains)
            )
        }
        var setOrder: [String] = []
        var setStubs: [String: [String]] = [:]
        var usedBySet: [String: Set<String>] = [:]
        for usage in usages {
            for stub in usage.stubs {
                if setStubs[stub.set] == nil { setOrder.append(stub.set) }
                if !setStubs[stub.set, default: []].contains(stub.id) {
                    setStubs[stub.set, default: []].append(stub.id)
                }
                if usage.usedStubs.contains(stub) { usedBySet[stub.set, default: []].insert(stub.id) }
            }
        }
        let sets = setOrder.map { set in
            let ids = setStubs[set] ?? []
            let used = usedBySet[set] ?? []
            return SetCoverage(
                set: set,
                total: ids.count,
                used: ids.filter(used.contains).count,
                unused: ids.filter { !used.contains($0) }
            )
        }
        return OverallCoverage(scenarios: scenarios, sets: sets)
    }

    private static func stubs(_ stubs: [StubReference], used: (StubReference) -> Bool) -> StubCoverage {
        let unused = stubs.filter { !used($0) }
        return StubCoverage(
            total: stubs.count,
            used: stubs.count - unused.count,
            unused: unused.map { SetStub(set: $0.set, id: $0.id) }
        )
    }

    private static func rules(_ ids: [String], used: (String) -> Bool) -> RuleCoverage {
        RuleCoverage(total: ids.count, used: ids.filter(used).count, unused: ids.filter { !used($0) })
    }
}

extension MockEngine {
    /// The coverage of every session, as JSON (`mockd --summary FILE`): `{"overall": …, "sessions": […]}`.
    public func coverageSummary() -> Data {
        let summary = CoverageSummary(
            overall: CoverageReport.overall(self),
            sessions: sessions.all.map(CoverageReport.session)
        )
        return (try? ControlOpenAPI.encoded(summary)) ?? Data("{}".utf8)
    }
}
