import Foundation

/// The GraphQL stubs of a `StubIndex` (`request.graphql`), routed by host, path, other query parameters and operation
/// key (`GraphQLOperation.key`): a request to one of their paths is read as GraphQL once, then looked up in one hash
/// map. `GET` and `POST` reach the same stubs (GraphQL over HTTP sends one operation either way). Requests to other
/// paths never parse a body: the index asks `paths` first.
struct GraphQLRoutes: Sendable {
    struct RouteKey: Hashable, Sendable {
        let host: String
        let path: String
        /// The query without GraphQL's own parameters, canonical.
        let query: String
        /// `GraphQLOperation.key` (a batch's keys joined by new lines).
        let operation: String
    }

    /// Route → stub ordinals, in index order.
    private let routes: [RouteKey: [Int]]
    /// The paths some GraphQL stub answers (normalised, as `RequestKey.path`).
    let paths: Set<String>
    /// The hosts of host-keyed GraphQL stubs.
    private let hosts: [String]
    /// Each GraphQL stub's operation under the index's rules, by ordinal: for near misses.
    let operations: [Int: GraphQLOperation]

    /// - Parameter routeKey: A stub's request key under the index's rules.
    init?(stubs: [Stub], normalizer: RequestNormalizer, routeKey: (Int) -> RequestKey) {
        var routes: [RouteKey: [Int]] = [:]
        var paths: Set<String> = []
        var hosts: Set<String> = []
        var operations: [Int: GraphQLOperation] = [:]
        for (ordinal, stub) in stubs.enumerated() {
            guard let operation = stub.graphQL?.normalized(by: normalizer) else { continue }
            let key = routeKey(ordinal)
            operations[ordinal] = operation
            paths.insert(key.path)
            if !key.host.isEmpty { hosts.insert(key.host) }
            routes[RouteKey(host: key.host, path: key.path, query: key.query, operation: operation.key), default: []]
                .append(ordinal)
        }
        guard !routes.isEmpty else { return nil }
        self.routes = routes
        self.paths = paths
        self.hosts = hosts.sorted()
        self.operations = operations
    }

    /// The stubs that may answer `operations` sent to `key`'s path: those of the host the request names, else
    /// host-free ones, else (a request naming no host) those of the only host that has the operation.
    func candidates(
        for operations: [GraphQLOperation],
        path: String,
        query: String,
        namedHost: String?
    ) -> [Int] {
        let operation = GraphQLRequest.key(of: operations)
        func lookup(_ host: String) -> [Int]? {
            routes[RouteKey(host: host, path: path, query: query, operation: operation)]
        }
        if let namedHost, let hit = lookup(namedHost) { return hit }
        if let hit = lookup("") { return hit }
        guard namedHost == nil else { return [] }
        let hits = hosts.compactMap(lookup)
        return hits.count == 1 ? hits[0] : []
    }
}
