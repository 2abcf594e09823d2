public import Foundation

/// Which stubs and overrides the requests of a test run never used (dead mocks, untested branches), per session and
/// over all sessions, from the sessions' journals. `GET /__mockd/coverage` and `mockd --summary FILE` at shutdown.
///
/// A journal keeps its last `--journal-limit` entries: when a session dropped some, its coverage says
/// `"complete": false` (a stub seen only in dropped entries counts as unused).
enum CoverageReport {
    /// `{"session", "scenario", "requests", "complete", "stubs": {"total", "used", "unused": [{"set", "id"}]},
    /// "overrides": {"total", "used", "unused": [id]}, "runtimeStubs": {…}}`.
    static func session(_ session: Session) -> [String: Any] {
        let (entries, dropped) = session.journal.snapshot()
        let used = Set(entries.compactMap(\.stubID))
        var report = parts(session.scenario, used: used)
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

    /// Per scenario (sessions that used the same scenario pooled): what none of its sessions used.
    static func overall(_ sessions: [Session]) -> [String: Any] {
        var byScenario:
            [ObjectIdentifier: (scenario: Scenario, sessions: [String], used: Set<String>, complete: Bool)] =
                [:]
        var order: [ObjectIdentifier] = []
        for session in sessions {
            let scenario = session.scenario
            let key = ObjectIdentifier(scenario)
            let (entries, dropped) = session.journal.snapshot()
            if byScenario[key] == nil {
                order.append(key)
                byScenario[key] = (scenario, [], [], true)
            }
            byScenario[key]!.sessions.append(session.id)
            byScenario[key]!.used.formUnion(entries.compactMap(\.stubID))
            if dropped > 0 { byScenario[key]!.complete = false }
        }
        return [
            "scenarios": order.map { key -> [String: Any] in
                let pooled = byScenario[key]!
                var report = parts(pooled.scenario, used: pooled.used)
                report["sessions"] = pooled.sessions
                report["complete"] = pooled.complete
                return report
            }
        ]
    }

    private static func parts(_ scenario: Scenario, used: Set<String>) -> [String: Any] {
        let stubs = scenario.index.stubs
        let unusedStubs = stubs.filter { !used.contains($0.id) }
        let overrides = scenario.overrides.map(\.id)
        return [
            "scenario": scenario.name,
            "stubs": [
                "total": stubs.count, "used": stubs.count - unusedStubs.count,
                "unused": unusedStubs.map { ["set": $0.setName, "id": $0.id] },
            ] as [String: Any],
            "overrides": [
                "total": overrides.count, "used": overrides.filter(used.contains).count,
                "unused": overrides.filter { !used.contains($0) },
            ] as [String: Any],
        ]
    }
}

extension MockEngine {
    /// The coverage of every session, as JSON (`mockd --summary FILE`): `{"overall": …, "sessions": […]}`.
    public func coverageSummary() -> Data {
        let sessions = self.sessions.all
        let object: [String: Any] = [
            "overall": CoverageReport.overall(sessions), "sessions": sessions.map(CoverageReport.session),
        ]
        return
            (try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]))
            ?? Data("{}".utf8)
    }
}
