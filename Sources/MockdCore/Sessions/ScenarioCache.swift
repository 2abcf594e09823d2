import Foundation
import Synchronization

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
    /// Held strongly: no other session can take its address (and be mistaken for it) while it is cached.
    private var session: Session?
    private var generation: UInt64 = 0
    /// Keeps the scenario alive, here and in the exchanges answered by its stubs; `borrowed` and `borrowedLease`
    /// hand both out without a retain.
    private var lease: ScenarioLease?
    private var borrowed: Unmanaged<Scenario>?
    private var borrowedLease: Unmanaged<ScenarioLease>?
    private var servesStubsAsLoaded = false

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { pointer in
            if let pointer { Unmanaged<ScenarioCache>.fromOpaque(pointer).release() }
        }
        precondition(status == 0, "pthread_key_create failed: \(status)")
        return key
    }()

    /// `session`'s scenario when its stubs are served as loaded (no runtime stubs, and a scenario without
    /// overrides, defaults or conditional requests; see `Scenario.servesStubsAsLoaded`), with this thread's lease
    /// on it, which keeps the scenario and its stubs alive for whoever retains it.
    ///
    /// Both are unretained and valid until this thread calls again: use the scenario through
    /// `_withUnsafeGuaranteedRef`, and retain the lease to keep a stub beyond that.
    /// - Returns: `nil` when the session's stubs are not served as loaded.
    static func scenarioServingAsLoaded(of session: Session) -> (scenario: Unmanaged<Scenario>, lease: Unmanaged<ScenarioLease>)? {
        let cache: Unmanaged<ScenarioCache>
        if let pointer = pthread_getspecific(key) {
            cache = Unmanaged.fromOpaque(pointer)
        } else {
            cache = Unmanaged.passRetained(ScenarioCache())  // released by the key's destructor at thread exit
            pthread_setspecific(key, cache.toOpaque())
        }
        return cache._withUnsafeGuaranteedRef { $0.scenarioServingAsLoaded(of: session) }
    }

    private func scenarioServingAsLoaded(of session: Session) -> (scenario: Unmanaged<Scenario>, lease: Unmanaged<ScenarioLease>)? {
        if self.session !== session || generation != session.generation.load(ordering: .acquiring) {
            let (scenario, servesStubsAsLoaded, generation) = session.asLoadedSnapshot
            let lease = ScenarioLease(scenario)
            self.session = session
            self.lease = lease
            self.borrowed = Unmanaged.passUnretained(scenario)
            self.borrowedLease = Unmanaged.passUnretained(lease)
            self.servesStubsAsLoaded = servesStubsAsLoaded
            self.generation = generation
        }
        // `lease` keeps the scenario alive until the next call: only this thread changes this cache.
        guard servesStubsAsLoaded, let borrowed, let borrowedLease else { return nil }
        return (borrowed, borrowedLease)
    }
}

/// A thread's hold on a scenario (see `ScenarioCache`): exchanges answered by the scenario's stubs retain the
/// lease instead of the stub, whose reference count every thread would write (and which is cold in memory
/// once stubs are many); the lease's count is written mostly by the thread that made it.
final class ScenarioLease: Sendable {
    let scenario: Scenario

    init(_ scenario: Scenario) {
        self.scenario = scenario
    }
}
