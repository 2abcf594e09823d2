import Foundation
import MockdFormat
import MockdPlatform

/// A session's copies of the scenario's stateful resources: each collection is seeded on first use and changes
/// only through its REST answers; a reset (a new `SessionState`) brings the seed back.
final class ResourceStore: Sendable {
    /// Resource name → items in order (the seed's, then created ones at the end).
    private let collections = Mutex<[String: [JSONValue]]>([:])

    init() {}

    /// Runs `body` on the items of `resource` under the store's lock (seeding them first).
    func withItems<R>(of resource: Resource, _ body: (inout [JSONValue]) -> R) -> R {
        collections.withLock { collections in
            var items = collections.removeValue(forKey: resource.name) ?? resource.seed
            defer { collections[resource.name] = items }
            return body(&items)
        }
    }

    /// The current items of `resource`.
    func items(of resource: Resource) -> [JSONValue] {
        withItems(of: resource) { $0 }
    }
}
