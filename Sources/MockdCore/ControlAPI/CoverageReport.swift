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
        // One pass over every listed scenario's stubs; a set shared by scenarios lists each stub once, in first-seen
        // order (a set's stubs run to 100,000: no scan per stub).
        var setOrder: [String] = []
        var bySet: [String: SetTally] = [:]
        for usage in usages {
            for stub in usage.stubs {
                if bySet[stub.set] == nil { setOrder.append(stub.set) }
                bySet[stub.set, default: SetTally()].count(stub.id, used: usage.usedStubs.contains(stub))
            }
        }
        let sets = setOrder.map { set in
            let tally = bySet[set]!
            let unused = tally.ids.filter { !tally.used.contains($0) }
            return SetCoverage(set: set, total: tally.ids.count, used: tally.ids.count - unused.count, unused: unused)
        }
        return OverallCoverage(scenarios: scenarios, sets: sets)
    }

    /// One set's stubs across the listed scenarios: each id once, in first-seen order, and the ones any used.
    private struct SetTally {
        var ids: [String] = []
        var listed: Set<String> = []
        var used: Set<String> = []

        mutating func count(_ id: String, used isUsed: Bool) {
            if listed.insert(id).inserted { ids.append(id) }
            if isUsed { used.insert(id) }
        }
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
