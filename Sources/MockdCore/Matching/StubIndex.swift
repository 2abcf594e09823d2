import Foundation

/// All stubs of a scenario, indexed by `RequestKey` for constant-time lookup.
public struct StubIndex: Sendable {
    /// The stubs sharing one request key.
    struct Route: Sendable {
        /// Stubs that accept any body.
        var anyBody: [Int] = []
        /// Stubs keyed by canonical request body.
        var byBody: [Data: [Int]] = [:]
    }

    /// Every stub, by ordinal.
    public let stubs: [Stub]
    private let routes: [RequestKey: Route]

    /// Builds the index from mock sets layered in order; a later stub with the same key and constraints
    /// replaces an earlier one in place.
    /// - Complexity: O(n) in the number of stubs.
    public init(layers: [[Stub]]) {
        var stubs: [Stub] = []
        var positions: [Stub.Identity: Int] = [:]
        for layer in layers {
            for stub in layer {
                if let existing = positions[stub.identity] {
                    stubs[existing] = stub
                } else {
                    positions[stub.identity] = stubs.count
                    stubs.append(stub)
                }
            }
        }
        var routes: [RequestKey: Route] = [:]
        routes.reserveCapacity(stubs.count)
        for (ordinal, stub) in stubs.enumerated() {
            if let body = stub.body {
                routes[stub.key, default: Route()].byBody[body, default: []].append(ordinal)
            } else {
                routes[stub.key, default: Route()].anyBody.append(ordinal)
            }
        }
        self.stubs = stubs
        self.routes = routes
    }

    /// The ordinal of the stub that answers `request` under `key`, or `nil`.
    ///
    /// Among the stubs sharing the key, those whose header and body constraints hold are eligible; the
    /// most specific wins, ties go to the one listed first.
    /// - Complexity: one hash lookup plus the number of stubs sharing the key.
    func match(_ request: HTTPRequest, key: RequestKey) -> Int? {
        guard let route = routes[key] else { return nil }
        var best: Int?
        var bestSpecificity = -1
        if !route.byBody.isEmpty {
            let canonical = BodyCanonicalizer.canonicalize(request.body, contentType: request.headers["content-type"])
            for ordinal in route.byBody[canonical] ?? [] where stubs[ordinal].acceptsHeaders(request.headers) {
                let specificity = stubs[ordinal].specificity
                if specificity > bestSpecificity || (specificity == bestSpecificity && ordinal < best!) {
                    best = ordinal
                    bestSpecificity = specificity
                }
            }
        }
        for ordinal in route.anyBody where stubs[ordinal].acceptsHeaders(request.headers) {
            let specificity = stubs[ordinal].specificity
            if specificity > bestSpecificity || (specificity == bestSpecificity && ordinal < best!) {
                best = ordinal
                bestSpecificity = specificity
            }
        }
        return best
    }

    /// Whether any stub uses `key`.
    func contains(_ key: RequestKey) -> Bool { routes[key] != nil }
}
