import Foundation
import MockdPlatform

/// The scenarios a session can switch to: every `configs/*.json` under the root, loaded on first use and
/// cached until `reload`.
final class ScenarioCatalog: Sendable {
    let root: MockdRoot?
    private let cache = Mutex<[String: Scenario]>([:])
    private let initial: Mutex<Scenario>

    init(initial: Scenario, root: MockdRoot?) {
        self.root = root
        self.initial = Mutex(initial)
    }

    /// The scenario the daemon started with (new sessions use it).
    var startup: Scenario { initial.withLock { $0 } }

    /// Loads (or returns the cached) scenario `name`.
    /// - Throws: `ConfigErrors` / `ConfigError` as `Scenario.load`; `ConfigError.fileNotFound` without a root.
    func scenario(named name: String) throws -> Scenario {
        let startup = self.startup
        if name == startup.name { return startup }
        if let cached = cache.withLock({ $0[name] }) { return cached }
        guard let root else {
            throw ConfigError(.fileNotFound, file: "configs/\(name).json", message: "no scenario root configured")
        }
        guard MockdRoot.isValidName(name) else {
            throw ConfigError(.invalidValue, file: name, message: "not a valid scenario name")
        }
        let loaded = try Scenario.load(named: name, root: root)
        cache.withLock { $0[name] = loaded }
        return loaded
    }

    /// Names and descriptions of `configs/*.json`, sorted; a file that does not load carries its problem.
    func list() -> [(name: String, description: String?, problem: String?)] {
        guard let root, let names = try? FileManager.default.contentsOfDirectory(atPath: root.configsURL.path) else {
            return [(startup.name, startup.description, nil)]
        }
        return names.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.sorted().map { file in
            let name = String(file.dropLast(5))
            do {
                let scenario = try self.scenario(named: name)
                return (name, scenario.description, nil)
            } catch {
                return (name, nil, String(describing: error))
            }
        }
    }

    /// Every scenario loaded now: the startup one, then the others in name order.
    var loaded: [Scenario] {
        [startup] + cache.withLock { $0.sorted { $0.key < $1.key }.map(\.value) }
    }

    /// Replaces the startup scenario and forgets cached ones (SIGHUP).
    /// - Returns: The scenarios it let go (the previous startup one and the cached ones).
    @discardableResult
    func reload(startup scenario: Scenario) -> [Scenario] {
        let previous = initial.withLock { previous in
            defer { previous = scenario }
            return previous
        }
        let cached = cache.withLock { cache in
            defer { cache.removeAll() }
            return Array(cache.values)
        }
        return [previous] + cached
    }
}
