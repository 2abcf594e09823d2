import Foundation
public import MockdControl
import MockdFormat

/// Ranks stubs by distance to an unmatched request.
public enum NearMissCalculator {
    /// The `limit` closest stubs and overrides of `scenario` to `request`, nearest first.
    public static func nearest(
        to request: HTTPRequest,
        in scenario: Scenario,
        runtime: [Override] = [],
        limit: Int = 3
    ) -> [NearMiss] {
        nearest(to: request, in: scenario, runtime: runtime, limit: limit, states: nil)
    }

    /// With `states`, an override waiting for another state of its state machine shows a `state` difference.
    static func nearest(
        to request: HTTPRequest,
        in scenario: Scenario,
        runtime: [Override] = [],
        limit: Int = 3,
        states: SessionState?
    ) -> [NearMiss] {
        let key = RequestKey(request)
        var misses = nearest(to: request, in: scenario.index, limit: limit)
        let host = MockEngine.requestHost(request, key: scenario.index.key(for: request), in: scenario.index)
        for override in runtime + scenario.overrides {
            var differences = override.pattern.differences(request, key: key, host: host)
            if let states, let rule = override.state, let required = rule.requires {
                let current = states.state(of: rule.name)
                if !required.contains(current) {
                    differences.append(
                        .init(
                            part: "state",
                            expected: "\(rule.name): \(required.joined(separator: " | "))",
                            actual: "\(rule.name): \(current)"
                        )
                    )
                }
            }
            let distance = differences.reduce(0.0) { total, difference in
                total + (difference.part == "method" ? 1 : difference.part == "path" ? 2 : 0.5)
            }
            misses.append(
                NearMiss(
                    stub: override.id,
                    set: "override",
                    distance: distance,
                    differs: differences,
                    priority: override.priority
                )
            )
        }
        let ranked = misses.enumerated().sorted {
            $0.element.distance != $1.element.distance
                ? $0.element.distance < $1.element.distance : $0.offset < $1.offset
        }
        return ranked.prefix(limit).map(\.element)
    }

    /// The `limit` closest stubs to `request`, nearest first; ties keep stub order.
    /// - Complexity: for a small index O(n) in the number of stubs; for a large one, the stubs whose route prefix
    ///   can still be among the nearest (`NearMissIndex`), which names the same stubs. It runs only for requests that
    ///   matched nothing.
    public static func nearest(to request: HTTPRequest, in index: StubIndex, limit: Int = 3) -> [NearMiss] {
        // GraphQL stubs measure method and query their own way (`assessGraphQL`), outside the trie's bounds.
        let search: Search = index.stubs.count > exhaustiveLimit && index.graphQL == nil ? .pruned : .exhaustive
        return nearest(to: request, in: index, limit: limit, search: search)
    }

    /// Indexes up to this many stubs are searched stub by stub (cheaper than building the trie).
    static let exhaustiveLimit = 256

    enum Search {
        /// Every stub's distance.
        case exhaustive
        /// Only the subtrees of the route trie that can still hold one of the nearest (`NearMissIndex`).
        case pruned
    }

    static func nearest(to request: HTTPRequest, in index: StubIndex, limit: Int, search: Search) -> [NearMiss] {
        guard limit > 0, index.stubs.count > 0 else { return [] }
        let assessment = Assessment(request, in: index)
        var ranking = Ranking(limit: limit)
        switch search {
        case .exhaustive:
            for ordinal in 0..<index.stubs.count {
                ranking.offer(assessment.assess(ordinal, collect: false).distance, ordinal)
            }
        case .pruned:
            PrunedSearch(assessment: assessment, trie: index.nearMissIndex()).run(into: &ranking)
        }
        return ranking.nearest.map { candidate in
            let assessed = assessment.assess(candidate.ordinal, collect: true)
            let stub = index.stubs[candidate.ordinal]
            return NearMiss(
                stub: stub.id,
                set: stub.setName,
                distance: assessed.distance,
                differs: assessed.differences
            )
        }
    }

    /// The `limit` nearest so far, nearest first; among equal distances the earlier stub (a stable order).
    struct Ranking {
        let limit: Int
        var nearest: [(distance: Double, ordinal: Int)] = []

        init(limit: Int) {
            self.limit = limit
            nearest.reserveCapacity(limit + 1)
        }

        mutating func offer(_ distance: Double, _ ordinal: Int) {
            if nearest.count == limit, !(distance < nearest[limit - 1].distance) {
                // Equal to the last one's distance: the earlier ordinal stays (ties keep stub order).
                guard distance == nearest[limit - 1].distance, ordinal < nearest[limit - 1].ordinal else { return }
            }
            let position =
                nearest.firstIndex { $0.distance > distance || ($0.distance == distance && $0.ordinal > ordinal) }
                ?? nearest.count
            nearest.insert((distance, ordinal), at: position)
            if nearest.count > limit { nearest.removeLast() }
        }

        /// Whether no stub whose distance is at least `bound` and whose ordinal is at least `ordinal` can be among the
        /// nearest any more.
        @inline(__always)
        func excludes(_ bound: Double, from ordinal: Int) -> Bool {
            guard nearest.count == limit else { return false }
            let last = nearest[limit - 1]
            return bound > last.distance || (bound == last.distance && ordinal > last.ordinal)
        }
    }

    /// What a request is compared by, worked out once per miss, and the distance of one stub to it.
    final class Assessment {
        let index: StubIndex
        let request: HTTPRequest
        let key: RequestKey
        let requestHost: String?
        let requestPairs: Set<String>
        let requestSegments: [Substring]
        let noHost: String?
        private var canonicalBody: Data?
        /// A GraphQL request's operations, read once and only when a GraphQL stub is looked at.
        private var requestOperations: [GraphQLOperation]??

        init(_ request: HTTPRequest, in index: StubIndex) {
            self.index = index
            self.request = request
            key = index.key(for: request)
            requestHost = index.hasHostKeys ? index.namedHost(of: request) : nil
            // Bounded work per stub, so a hostile 10,000-segment path or query cannot stall the daemon: distances
            // look at the first 64 segments and pairs (equality still compares everything).
            requestPairs = Set(
                RequestKey.queryPairs(request.query, normalizer: index.normalizer).prefix(64).map {
                    "\($0.name)=\($0.value)"
                }
            )
            requestSegments = NearMissIndex.segments(key.path)
            // A request naming no host whose key several hosts recorded: the near miss says to choose one.
            let collidingHosts = index.hasHostKeys && requestHost == nil ? index.recordingHosts(of: key) : []
            noHost =
                collidingHosts.count > 1
                ? "(none; \(key.method) \(key.path) was recorded on \(collidingHosts.joined(separator: ", ")): choose one with /__host/NAME/ or X-Forwarded-Host)"
                : nil
        }

        /// The header constraints' share of the distance for `list`: what `assess` adds for a stub with that list.
        func headerDistance(_ constraints: [HeaderConstraint]) -> Double {
            let failedCount = constraints.reduce(0) { $0 + ($1.isSatisfied(by: request.headers) ? 0 : 1) }
            return failedCount > 0 ? 0.5 * Double(failedCount) / Double(constraints.count) : 0
        }

        /// The constraints of `constraints` the request does not satisfy, as the near miss shows them.
        func headerDifferences(_ constraints: [HeaderConstraint]) -> [NearMiss.Difference] {
            constraints.filter { !$0.isSatisfied(by: request.headers) }.map { constraint in
                .init(
                    part: "header",
                    expected: "\(constraint.name): \(constraint.value)",
                    actual: request.headers[constraint.name].map { "\(constraint.name): \($0)" }
                        ?? "(no \(constraint.name) header)"
                )
            }
        }

        /// How far stub `ordinal` is, and with `collect` what differs: the distance of every candidate first, the
        /// differences (strings for the answer) only for the nearest. Building them for every stub made a miss in a
        /// set of 10,000 stubs cost 170 million instructions.
        ///
        /// The parts are added in this order: host, method, path, query, headers, body (`PrunedSearch` adds its lower
        /// bounds in the same order, so a bound equal to a distance is the same number).
        func assess(_ ordinal: Int, collect: Bool) -> (distance: Double, differences: [NearMiss.Difference]) {
            let stubKey = index.routeKey(ordinal)
            if let expected = index.graphQL?.operations[ordinal] {
                return assessGraphQL(expected, stub: index.stubs[ordinal], stubKey: stubKey, collect: collect)
            }
            var distance = 0.0
            var differences: [NearMiss.Difference] = []
            if !stubKey.host.isEmpty, stubKey.host != requestHost {
                distance += 1
                if collect {
                    differences.append(
                        .init(
                            part: "host",
                            expected: stubKey.host,
                            actual: requestHost ?? noHost
                                ?? "(none: prefix the path with /__host/\(stubKey.host) or send X-Forwarded-Host)"
                        )
                    )
                }
            }
            if stubKey.method != key.method {
                distance += 1
                if collect { differences.append(.init(part: "method", expected: stubKey.method, actual: key.method)) }
            }
            if stubKey.path != key.path {
                distance += 2 * segmentDistance(NearMissIndex.segments(stubKey.path), requestSegments)
                if collect { differences.append(.init(part: "path", expected: stubKey.path, actual: key.path)) }
            }
            if stubKey.query != key.query {
                let stubPairs =
                    stubKey.query.isEmpty ? [] : Set(stubKey.query.split(separator: "&").prefix(64).map(String.init))
                distance += 1 - jaccard(stubPairs, requestPairs)
                if collect {
                    differences.append(
                        .init(part: "query", expected: stubKey.readableQuery, actual: key.readableQuery)
                    )
                }
            }
            let constraints = index.stubs[ordinal].headerConstraints
            let headers = headerDistance(constraints)
            if headers > 0 {
                distance += headers
                if collect { differences += headerDifferences(constraints) }
            }
            if let body = index.routeBody(ordinal) {
                let canonical = canonicalBody ?? index.canonicalBody(of: request)
                canonicalBody = canonical
                if canonical != body {
                    distance += 0.5
                    if collect {
                        differences.append(
                            .init(
                                part: "body",
                                expected: NearMiss.summary(of: body),
                                actual: NearMiss.summary(of: canonical)
                            )
                        )
                    }
                }
            }
            return (distance, differences)
        }

        private func operations() -> [GraphQLOperation]? {
            if let known = requestOperations { return known }
            let read = GraphQLRequest.operations(of: request, normalizer: index.normalizer)
            requestOperations = .some(read)
            return read
        }

        /// A GraphQL stub's distance: host, path and other query parameters as for any stub (`GET` and `POST` alike),
        /// then the operation: another operation is far (1), the same one with other variables near (0.5).
        private func assessGraphQL(
            _ expected: GraphQLOperation,
            stub: Stub,
            stubKey: RequestKey,
            collect: Bool
        ) -> (distance: Double, differences: [NearMiss.Difference]) {
            var distance = 0.0
            var differences: [NearMiss.Difference] = []
            if !stubKey.host.isEmpty, stubKey.host != requestHost {
                distance += 1
                if collect {
                    differences.append(.init(part: "host", expected: stubKey.host, actual: requestHost ?? "(none)"))
                }
            }
            if !["GET", "POST"].contains(key.method) {
                distance += 1
                if collect { differences.append(.init(part: "method", expected: "POST or GET", actual: key.method)) }
            }
            if stubKey.path != key.path {
                distance += 2 * segmentDistance(NearMissIndex.segments(stubKey.path), requestSegments)
                if collect { differences.append(.init(part: "path", expected: stubKey.path, actual: key.path)) }
            }
            let otherQuery = GraphQLRequest.otherQuery(request.query, normalizer: index.normalizer)
            if stubKey.query != otherQuery {
                distance += 0.5
                if collect { differences.append(.init(part: "query", expected: stubKey.query, actual: otherQuery)) }
            }
            let headers = headerDistance(stub.headerConstraints)
            if headers > 0 {
                distance += headers
                if collect { differences += headerDifferences(stub.headerConstraints) }
            }
            let operations = operations()
            guard let operations, operations.count == 1 else {
                distance += 1.5
                if collect {
                    differences.append(
                        .init(
                            part: "graphql",
                            expected: expected.label,
                            actual: operations.map { "a batch of \($0.count) operations" }
                                ?? "(not a GraphQL request: no query, persisted query or document id)"
                        )
                    )
                }
                return (distance, differences)
            }
            let found = expected.differences(from: operations[0])
            if !found.isEmpty {
                distance += expected.identity == operations[0].identity ? 0.5 : 1.5
                if collect {
                    for (wanted, got) in found {
                        differences.append(.init(part: "graphql", expected: wanted, actual: got))
                    }
                }
            }
            return (distance, differences)
        }
    }

    /// Levenshtein distance over path segments, scaled to 0…1.
    static func segmentDistance(_ lhs: [Substring], _ rhs: [Substring]) -> Double {
        let longest = max(lhs.count, rhs.count)
        if longest == 0 { return 0 }
        var previous = Array(0...rhs.count)
        var current = previous
        for i in 1...max(lhs.count, 1) where !lhs.isEmpty {
            current[0] = i
            for j in stride(from: 1, through: rhs.count, by: 1) {
                let cost = lhs[i - 1] == rhs[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            }
            swap(&previous, &current)
        }
        return Double(lhs.isEmpty ? rhs.count : previous[rhs.count]) / Double(longest)
    }

    static func jaccard(_ a: Set<String>, _ b: Set<String>) -> Double {
        if a.isEmpty && b.isEmpty { return 1 }
        return Double(a.intersection(b).count) / Double(a.union(b).count)
    }
}
