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
    /// - Complexity: O(n) in the number of stubs; it runs only for requests that matched nothing.
    public static func nearest(to request: HTTPRequest, in index: StubIndex, limit: Int = 3) -> [NearMiss] {
        let key = index.key(for: request)
        let requestHost = index.hasHostKeys ? index.namedHost(of: request) : nil
        // Bounded work per stub, so a hostile 10,000-segment path or query cannot stall the daemon: distances
        // look at the first 64 segments and pairs (equality still compares everything).
        let requestPairs = Set(
            RequestKey.queryPairs(request.query, normalizer: index.normalizer).prefix(64).map {
                "\($0.name)=\($0.value)"
            }
        )
        let requestSegments = Array(key.path.split(separator: "/", omittingEmptySubsequences: false).prefix(64))
        var canonicalBody: Data?
        // A request naming no host whose key several hosts recorded: the near miss says to choose one.
        let collidingHosts = index.hasHostKeys && requestHost == nil ? index.recordingHosts(of: key) : []
        let noHost =
            collidingHosts.count > 1
            ? "(none; \(key.method) \(key.path) was recorded on \(collidingHosts.joined(separator: ", ")): choose one with /__host/NAME/ or X-Forwarded-Host)"
            : nil
        // How far stub `ordinal` is, and with `collect` what differs: the distance of every stub first, the differences
        // (strings for the answer) only for the `limit` nearest. Building them for every stub made a miss in a set of
        // 10,000 stubs cost 170 million instructions.
        // A GraphQL request's operations, read once and only when a GraphQL stub is looked at.
        var requestOperations: [GraphQLOperation]??
        func operations() -> [GraphQLOperation]? {
            if let known = requestOperations { return known }
            let read = GraphQLRequest.operations(of: request, normalizer: index.normalizer)
            requestOperations = .some(read)
            return read
        }
        func assess(_ ordinal: Int, collect: Bool) -> (distance: Double, differences: [NearMiss.Difference]) {
            let stub = index.stubs[ordinal]
            let stubKey = index.routeKey(ordinal)
            var distance = 0.0
            var differences: [NearMiss.Difference] = []
            if let expected = index.graphQL?.operations[ordinal] {
                return assessGraphQL(
                    expected,
                    stub: stub,
                    stubKey: stubKey,
                    operations: operations(),
                    collect: collect
                )
            }
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
                let stubSegments = Array(
                    stubKey.path.split(separator: "/", omittingEmptySubsequences: false).prefix(64)
                )
                distance += 2 * segmentDistance(stubSegments, requestSegments)
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
            let constraints = stub.headerConstraints
            let failedCount = constraints.reduce(0) { $0 + ($1.isSatisfied(by: request.headers) ? 0 : 1) }
            if failedCount > 0 {
                distance += 0.5 * Double(failedCount) / Double(constraints.count)
                if collect {
                    for constraint in constraints where !constraint.isSatisfied(by: request.headers) {
                        differences.append(
                            .init(
                                part: "header",
                                expected: "\(constraint.name): \(constraint.value)",
                                actual: request.headers[constraint.name].map { "\(constraint.name): \($0)" }
                                    ?? "(no \(constraint.name) header)"
                            )
                        )
                    }
                }
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
        /// A GraphQL stub's distance: host, path and other query parameters as for any stub (`GET` and `POST` alike),
        /// then the operation: another operation is far (1), the same one with other variables near (0.5).
        func assessGraphQL(
            _ expected: GraphQLOperation,
            stub: Stub,
            stubKey: RequestKey,
            operations: [GraphQLOperation]?,
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
                let stubSegments = Array(
                    stubKey.path.split(separator: "/", omittingEmptySubsequences: false).prefix(64)
                )
                distance += 2 * segmentDistance(stubSegments, requestSegments)
                if collect { differences.append(.init(part: "path", expected: stubKey.path, actual: key.path)) }
            }
            let otherQuery = GraphQLRequest.otherQuery(request.query, normalizer: index.normalizer)
            if stubKey.query != otherQuery {
                distance += 0.5
                if collect { differences.append(.init(part: "query", expected: stubKey.query, actual: otherQuery)) }
            }
            let failed = stub.headerConstraints.filter { !$0.isSatisfied(by: request.headers) }
            if !failed.isEmpty {
                distance += 0.5 * Double(failed.count) / Double(stub.headerConstraints.count)
                if collect {
                    for constraint in failed {
                        differences.append(
                            .init(
                                part: "header",
                                expected: "\(constraint.name): \(constraint.value)",
                                actual: request.headers[constraint.name].map { "\(constraint.name): \($0)" }
                                    ?? "(no \(constraint.name) header)"
                            )
                        )
                    }
                }
            }
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
        // The `limit` nearest, nearest first; among equal distances the earlier stub (a stable order).
        var nearest: [(distance: Double, ordinal: Int)] = []
        nearest.reserveCapacity(limit + 1)
        for ordinal in index.stubs.indices where limit > 0 {
            let distance = assess(ordinal, collect: false).distance
            guard nearest.count < limit || distance < nearest[nearest.count - 1].distance else { continue }
            let position = nearest.firstIndex { $0.distance > distance } ?? nearest.count
            nearest.insert((distance, ordinal), at: position)
            if nearest.count > limit { nearest.removeLast() }
        }
        return nearest.map { candidate in
            let stub = index.stubs[candidate.ordinal]
            let assessed = assess(candidate.ordinal, collect: true)
            return NearMiss(
                stub: stub.id,
                set: stub.setName,
                distance: assessed.distance,
                differs: assessed.differences
            )
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
