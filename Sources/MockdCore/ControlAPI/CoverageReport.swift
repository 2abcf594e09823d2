public import Foundation

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
    static func session(_ session: Session) -> [String: Any] {
        let (entries, dropped) = session.journal.snapshot()
        var used = Set<String>()
        for entry in entries {
            if let id = entry.stubID { used.insert(id) }
            used.formUnion(entry.edited)
        }
        let scenario = session.scenario
        var report = parts(
            scenario.name,
            stubs: scenario.index.stubs.map { StubReference(set: $0.setName, id: $0.id) },
            usedStubs: { used.contains($0.id) },
            overrides: scenario.overrides.map(\.id),
            usedOverrides: used.contains
        )
        report["session"] = session.id
        report["requests"] = entries.count + dropped
        report["complete"] = dropped == 0
        let runtime = session.runtimeStubs.map(\.override.id)
        report["runtimeStubs"] = [
            "total": runtime.count, "used": runtime.filter(used.contains).count,
            "unused": runtime.filter { !used.contains($0) },
        ]
        return report
    }

    /// Over the daemon's life: `{"scenarios": [{"scenario", "sessions", "stubs", "overrides"}], "sets": [{"set",
    /// "total", "used", "unused": [id]}]}`. A scenario is listed when it is the startup one, a live session uses it, or
    /// something of it was used; `sessions` names the live sessions on it. A set's stubs count as used when any
    /// listed scenario used them.
    static func overall(_ engine: MockEngine) -> [String: Any] {
        let live = engine.sessions.all
        let current = engine.catalog.loaded + live.map(\.scenario)
        let startup = engine.catalog.startup.name
        let usages = engine.coverage.usages(current: current).filter { usage in
            usage.name == startup || usage.isUsed || live.contains { $0.scenario.name == usage.name }
        }
        let scenarios = usages.map { usage -> [String: Any] in
            var report = parts(
                usage.name,
                stubs: usage.stubs,
                usedStubs: usage.usedStubs.contains,
                overrides: usage.overrides,
                usedOverrides: usage.usedOverrides.contains
            )
            report["sessions"] = live.filter { $0.scenario.name == usage.name }.map(\.id)
            return report
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
        let sets = setOrder.map { set -> [String: Any] in
            let ids = setStubs[set] ?? []
            let used = usedBySet[set] ?? []
            return [
                "set": set, "total": ids.count, "used": ids.filter(used.contains).count,
                "unused": ids.filter { !used.contains($0) },
            ]
        }
        return ["scenarios": scenarios, "sets": sets]
    }

    private static func parts(
        _ name: String,
        stubs: [StubReference],
        usedStubs: (StubReference) -> Bool,
        overrides: [String],
        usedOverrides: (String) -> Bool
    ) -> [String: Any] {
        let unusedStubs = stubs.filter { !usedStubs($0) }
        return [
            "scenario": name,
            "stubs": [
                "total": stubs.count, "used": stubs.count - unusedStubs.count,
                "unused": unusedStubs.map { ["set": $0.set, "id": $0.id] },
            ] as [String: Any],
            "overrides": [
                "total": overrides.count, "used": overrides.filter(usedOverrides).count,
                "unused": overrides.filter { !usedOverrides($0) },
            ] as [String: Any],
        ]
    }
}

extension MockEngine {
    /// The coverage of every session, as JSON (`mockd --summary FILE`): `{"overall": …, "sessions": […]}`.
    public func coverageSummary() -> Data {
        let object: [String: Any] = [
            "overall": CoverageReport.overall(self), "sessions": sessions.all.map(CoverageReport.session),
        ]
        return
            (try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]))
            ?? Data("{}".utf8)
    }
}
