import Foundation
import MockdPlatform

/// Each thread's last-read scenario of one session, so that a request answered by a stub as loaded takes no
/// lock and changes no reference count another thread also changes.
///
/// Every request read the session's scenario under its lock and retained it: the lock word and the scenario's
/// reference count were written by both worker threads on every request, and their cache lines moved between
/// the cores each time. Here a request reads the session's `generation` (written only when its scenario or
/// runtime stubs change, so its line stays shared) and, when it is the one this thread saw last, uses the
/// scenario this thread already holds. A request racing a change may be answered by the scenario of just
/// before it, as if it had arrived first.
final class ScenarioCache {
    /// The session by identity only, so that a cache never keeps a removed session (and its journal) alive. A
    /// session later made at the same address is not mistaken for it: generations are unique across sessions.
    private var session: ObjectIdentifier?
    private var generation: UInt64 = 0
    /// Keeps the cached scenario alive; `borrowed` hands it out without a retain.
    private var owner: Scenario?
    private var borrowed: Unmanaged<Scenario>?
    private var servesStubsAsLoaded = false
    /// This thread's answers of the cached scenario (`AnswerCache`); only this thread touches it, so its accesses are not
    /// checked at run time (they cost ~120 instructions a request).
    @exclusivity(unchecked) private var answers = AnswerCache()

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { pointer in
            ThreadSlot.scenarioCache.clear()
            if let pointer { Unmanaged<ScenarioCache>.fromOpaque(pointer).release() }
        }
        precondition(status == 0, "pthread_key_create failed: \(status)")
        return key
    }()

    /// Calls `body` with `session`'s scenario when its stubs are served as loaded (no runtime stubs, and a
    /// scenario without overrides, defaults or conditional requests; see `Scenario.servesStubsAsLoaded`).
    /// - Returns: `body`'s result, or `nil` when the session's stubs are not served as loaded.
    // Inlined, with `body`: a closure passed to an outlined generic function captured a copy of the request it reads.
    @inline(__always)
    static func withScenarioServingAsLoaded<R>(
        of session: Session,
        _ body: (Scenario, inout AnswerCache) -> R
    ) -> R? {
        let cache: Unmanaged<ScenarioCache>
        if let pointer = ThreadSlot.scenarioCache.value {
            cache = Unmanaged.fromOpaque(pointer)
        } else {
            cache = Unmanaged.passRetained(ScenarioCache())  // released by the key's destructor at thread exit
            ThreadSlot.scenarioCache.set(cache.toOpaque(), key: key)
        }
        return cache._withUnsafeGuaranteedRef { $0.withScenarioServingAsLoaded(of: session, body) }
    }

    @inline(__always)
    private func withScenarioServingAsLoaded<R>(of session: Session, _ body: (Scenario, inout AnswerCache) -> R) -> R? {
        if self.session != ObjectIdentifier(session) || generation != session.generation.load(ordering: .acquiring) {
            let (scenario, servesStubsAsLoaded, generation) = session.asLoadedSnapshot
            // The answers stay only with the very scenario they came from; `owner` still holds the one they belong to,
            // so its identity cannot have been taken by a new scenario meanwhile.
            if scenario !== owner { answers = AnswerCache() }
            self.session = ObjectIdentifier(session)
            self.owner = scenario
            self.borrowed = Unmanaged.passUnretained(scenario)
            self.servesStubsAsLoaded = servesStubsAsLoaded
            self.generation = generation
            if servesStubsAsLoaded { answers.bind(to: scenario) }
        }
        guard servesStubsAsLoaded, let borrowed else { return nil }
        // `owner` keeps the scenario alive during `body`: only this thread changes this cache, and `body` does
        // not come back here.
        return borrowed._withUnsafeGuaranteedRef { body($0, &answers) }
    }
}
