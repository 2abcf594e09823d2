import Foundation
import MockdControl
import MockdFormat

/// The daemon and the session's scenario: health, the scenario catalog, switching, what answers as an id, reload,
/// the sessions, and the OpenAPI document of this API.
extension ControlAPI {
    func health(_ call: Call, _: NoBody) -> Health {
        let uptime = Double(DispatchTime.now().uptimeNanoseconds - engine.startedAt) / 1_000_000_000
        let startup = engine.catalog.startup
        return Health(
            version: MockdVersion.current,
            uptimeSeconds: (uptime * 1000).rounded() / 1000,
            scenario: startup.name,
            // A mock set served alone (`--set NAME`): named as what it is; `scenario` keeps the same name for old
            // readers.
            set: startup.isSingleSet ? startup.name : nil,
            sessions: engine.sessions.all.count,
            sessionsEvicted: engine.sessions.evictions.count,
            // Requests being answered besides this one: a test waits for a request to be in flight by reading this.
            // Open live journals (a dashboard tab) are requests in flight for the server, not for a test waiting on
            // it.
            inFlight: engine.serverStatus.map { max(0, $0.requestsInFlight - 1 - JournalFeed.openCount) },
            logLinesDropped: StderrLogSink.droppedLines,
            // Open live journals (`JournalFeed`): a closed dashboard tab shows here as one fewer.
            liveJournals: JournalFeed.openCount,
            // Recording: exchanges its crash spool could not keep (a full disk), as `GET /__mockd/record` counts them.
            recordSpoolFailed: engine.recorder?.spoolFailures.count
        )
    }

    func scenarios(_ call: Call, _: NoBody) -> ScenarioList {
        let active = call.session.scenario.name
        return ScenarioList(
            session: call.session.id,
            active: active,
            scenarios: engine.catalog.list().map { entry in
                ScenarioInfo(
                    name: entry.name,
                    active: entry.name == active,
                    description: entry.description,
                    problem: entry.problem
                )
            }
        )
    }

    func currentScenario(_ call: Call, _: NoBody) -> ScenarioState {
        let scenario = call.session.scenario
        return ScenarioState(
            session: call.session.id,
            name: scenario.name,
            sets: scenario.sets,
            description: scenario.description,
            states: call.session.stateMachines
        )
    }

    func useScenario(_ call: Call, _ body: UseScenario) throws -> ActiveScenario {
        let name = body.name
        do {
            let scenario = try engine.catalog.scenario(named: name)
            call.session.use(scenario)
            return ActiveScenario(session: call.session.id, name: scenario.name, sets: scenario.sets)
        } catch {
            let problems = (error as? ConfigErrors)?.errors ?? [error as? ConfigError].compactMap { $0 }
            if problems.count == 1, problems[0].code == .fileNotFound,
                problems[0].file.hasSuffix("configs/\(name).json") || problems[0].file == name
            {
                throw Failure(.unknownScenario, "no scenario '\(name)' (GET /__mockd/scenarios lists them)")
            }
            throw Failure(.invalidScenario, String(describing: error))
        }
    }

    /// Reloads configs and sets from disk atomically, as SIGHUP does; a broken file keeps the old version.
    func reload(_ call: Call, _: NoBody) throws -> ReloadResult {
        guard let loader = engine.loader else {
            throw Failure(.reloadUnavailable, "this daemon was started without files to reload")
        }
        do {
            let scenario = try loader()
            engine.reload(scenario)
            return ReloadResult(
                reloaded: scenario.name,
                stubs: scenario.index.stubs.count,
                overrides: scenario.overrides.count
            )
        } catch {
            throw Failure(.invalidScenario, "reload failed, still serving the previous version:\n\(error)")
        }
    }

    func listSessions(_ call: Call, _: NoBody) -> SessionList {
        SessionList(
            sessions: engine.sessions.all.map { session in
                // Counted, not copied: the dashboard reads this every 2 s.
                let journal = session.journal.summary
                return SessionInfo(
                    id: session.id,
                    scenario: session.scenario.name,
                    journalCount: journal.count,
                    runtimeStubs: session.runtimeStubs.count,
                    lastActivity: journal.newestTime.map(DateFormats.rfc3339Milliseconds)
                )
            }
        )
    }

    /// `GET /__mockd/openapi.json`: this API as OpenAPI 3.1 (`ControlOpenAPI`), the same bytes as
    /// docs/control-api.openapi.json.
    func openAPIDocument(_ call: Call, _: NoBody) throws -> MockResponse {
        MockResponse(status: 200, headers: ControlAPI.jsonHeaders, body: try ControlAPI.openAPIData())
    }

    /// Made once: the document depends on the build only.
    private static let openAPI = Result { try ControlOpenAPI.data(version: MockdVersion.current) }

    static func openAPIData() throws -> Data { try openAPI.get() }
}
