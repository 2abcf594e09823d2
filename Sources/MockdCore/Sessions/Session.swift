import Foundation
import MockdFormat
import MockdPlatform

/// One test's isolated view of the daemon: its active scenario, runtime stubs, sequence cursors,
/// rate-limit windows and journal. Requests pick a session with `X-Mockd-Session`, the `mockd_session`
/// cookie or a `/__session/ID/` path prefix; without one they use the default session.
public final class Session: Sendable {
    /// A stub added through the control API: compiled, plus the definition as posted (for listing).
    struct RuntimeStub: Sendable {
        let override: Override
        let definition: JSONValue
        /// The stub group it was added with (`PUT /__mockd/groups/NAME`), `nil` for a stub added on its own.
        var group: String? = nil
    }

    struct Core: Sendable {
        var scenario: Scenario
        var state: SessionState
        /// Runtime stubs in the order added; tried before the scenario's overrides.
        var runtime: [RuntimeStub] {
            didSet { runtimeOrder = runtime.reversed().map(\.override).sorted { $0.priority > $1.priority } }
        }
        /// The runtime stubs in matching order: highest priority first, then the latest added (kept sorted
        /// here so a request never sorts).
        private(set) var runtimeOrder: [Override] = []

        /// Whether a stub is served exactly as loaded: no runtime stubs, a scenario that serves its stubs as loaded
        /// (`Scenario.servesStubsAsLoaded`), and the clock at real time (a moved clock answers with its own `Date`).
        var servesStubsAsLoaded: Bool {
            runtime.isEmpty && scenario.servesStubsAsLoaded && state.clock.offsetMs == 0
        }

        init(scenario: Scenario, state: SessionState, runtime: [RuntimeStub]) {
            self.scenario = scenario
            self.state = state
            self.runtime = runtime
            self.runtimeOrder = runtime.reversed().map(\.override).sorted { $0.priority > $1.priority }
        }
    }

    public let id: String
    let core: Mutex<Core>
    /// Changed (under the `core` lock) whenever the scenario or the runtime stubs change: `ScenarioCache` keeps a
    /// thread's copy of the scenario while it stays the same. Drawn from `Session.generations`, so no two
    /// sessions ever share a value (a cache tells sessions apart by address and generation).
    let generation = Atomic<UInt64>(Session.nextGeneration())

    /// The source of every session's generations.
    private static let generations = Atomic<UInt64>(0)

    private static func nextGeneration() -> UInt64 {
        generations.add(1, ordering: .relaxed).newValue
    }
    public let journal: RequestJournal
    /// `journal`, for use without a retain (see `SessionRegistry.borrowedDefaultSession`); valid as long as the session.
    let borrowedJournal: Unmanaged<RequestJournal>
    /// When the session was last used, in µs of the registry's monotonic clock, for idle expiry and eviction order.
    let lastUsed: Atomic<UInt64>

    /// - Parameter nowMs: The registry's clock now, in ms.
    init(id: String, scenario: Scenario, journalLimit: Int, nowMs: Double) {
        self.id = id
        self.core = Mutex(Core(scenario: scenario, state: SessionState(), runtime: []))
        self.journal = RequestJournal(limit: journalLimit)
        self.borrowedJournal = Unmanaged.passUnretained(journal)
        self.lastUsed = Atomic(Session.microseconds(nowMs))
    }

    static func microseconds(_ milliseconds: Double) -> UInt64 { UInt64(max(0, milliseconds * 1000)) }

    /// The session's active scenario.
    public var scenario: Scenario { core.withLock { $0.scenario } }

    /// Marks the session used at `nowMs` (the registry's clock, `SessionRegistry.touch(_:)`).
    func touch(nowMs: Double) {
        lastUsed.store(Session.microseconds(nowMs), ordering: .relaxed)
    }

    /// The scenario, whether its stubs are served as loaded (no runtime stubs, `Scenario.servesStubsAsLoaded`),
    /// and the generation they belong to, read together under the lock.
    var asLoadedSnapshot: (scenario: Scenario, servesStubsAsLoaded: Bool, generation: UInt64) {
        core.withLock { core in
            (
                core.scenario, core.servesStubsAsLoaded,
                generation.load(ordering: .relaxed)
            )
        }
    }

    /// Changes the scenario or the runtime stubs, and the generation with them.
    func change<R>(_ body: (inout Core) -> R) -> R {
        core.withLock { core in
            defer { generation.store(Session.nextGeneration(), ordering: .releasing) }
            return body(&core)
        }
    }

    /// Switches the scenario; cursors, rate limits and runtime stubs start over, the journal, clock and switches are kept.
    func use(_ scenario: Scenario) {
        change {
            $0 = Core(
                scenario: scenario,
                state: SessionState(clock: $0.state.clock, switches: $0.state.switches),
                runtime: []
            )
        }
    }

    /// A reloaded copy of the scenario: cursors and rate limits start over, runtime stubs, journal and clock stay.
    func reload(_ scenario: Scenario) {
        change { core in
            core.scenario = scenario
            core.state = SessionState(clock: core.state.clock, switches: core.state.switches)
        }
    }

    /// The session's virtual clock (`SessionClock`).
    var clock: SessionClock { core.withLock { $0.state.clock } }

    /// Moves the session's clock with `move`, and the generation with it: stubs are served as loaded only while the
    /// clock is at real time (`Core.servesStubsAsLoaded`), so each thread's cached scenario must look again.
    func moveClock(_ move: (SessionClock) -> Void) {
        change { move($0.state.clock) }
    }

    /// The session's switches (`SessionSwitches`).
    var switches: SessionSwitches { core.withLock { $0.state.switches } }

    /// Back to the scenario's start: cursors, rate limits, runtime stubs, journal, and the clock to real time.
    func reset() {
        change { core in
            core.state = SessionState()
            core.runtime = []
        }
        journal.clear()
    }

    /// Adds a runtime stub, or replaces the one with the same id, in one step under the session's lock.
    ///
    /// Without a `requestedID` the stub gets `runtime-N`, the first N from the number of runtime stubs + 1 up that
    /// no runtime stub of the session holds, so parallel adds always get different ids and none is lost.
    /// - Parameters:
    ///   - override: The compiled stub; its id and position are replaced by the ones chosen here.
    ///   - definition: The stub as posted, for listing.
    ///   - requestedID: The id the caller asked for (`"id"` in the body), or `nil` for a generated one.
    /// - Returns: The id the stub is kept under.
    /// - Complexity: O(n) in the session's runtime stubs.
    func addRuntimeStub(_ override: Override, definition: JSONValue, requestedID: String?) -> String {
        change { core in
            var id = requestedID ?? ""
            if id.isEmpty {
                let taken = Set(core.runtime.map(\.override.id))
                var counter = core.runtime.count + 1
                repeat {
                    id = "runtime-\(counter)"
                    counter += 1
                } while taken.contains(id)
            }
            var runtime = core.runtime
            runtime.removeAll { $0.override.id == id }
            let placed = override.placed(id: id, position: runtime.count)
            runtime.append(RuntimeStub(override: placed, definition: definition))
            core.runtime = runtime
            return id
        }
    }

    /// - Returns: whether a stub with that id existed.
    func removeRuntimeStub(id: String) -> Bool {
        change { core in
            let before = core.runtime.count
            core.runtime.removeAll { $0.override.id == id }
            return core.runtime.count != before
        }
    }

    func removeAllRuntimeStubs() {
        change { $0.runtime.removeAll() }
    }

    var runtimeStubs: [RuntimeStub] { core.withLock { $0.runtime } }

    /// Every state machine named by the session's overrides and runtime stubs, with its current state.
    var stateMachines: [String: String] {
        let (overrides, state) = core.withLock { core in
            (core.scenario.overrides + core.runtime.map(\.override), core.state)
        }
        var machines: [String: String] = [:]
        for rule in overrides.compactMap(\.state) where machines[rule.name] == nil {
            machines[rule.name] = state.state(of: rule.name)
        }
        return machines
    }
}
