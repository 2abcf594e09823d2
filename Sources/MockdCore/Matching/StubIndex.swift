import Foundation

/// All stubs of a scenario, indexed by `RequestKey` for constant-time lookup.
///
/// Immutable; a class so that reaching it through a scenario on every request costs no copy of its fields.
public final class StubIndex: Sendable {
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
    /// The rules every key and body goes through (see `RequestNormalization`).
    public let normalizer: RequestNormalizer
    /// Each stub's key and canonical body under `normalizer`, by ordinal.
    let routeKeys: [RequestKey]
    let routeBodies: [Data?]
    /// Whether some stub is keyed by host (a multi-host import): only then is a request's host looked at.
    let hasHostKeys: Bool

    /// Builds the index from mock sets layered in order; a later stub with the same key and constraints
    /// replaces an earlier one in place.
    /// - Parameter normalizer: Rules applied to every stub's key and body here and to every request in `key(for:)`.
    /// - Complexity: O(n) in the number of stubs.
    public init(layers: [[Stub]], normalizer: RequestNormalizer = .none) {
        if normalizer.isEmpty {
            // Keys and bodies are the stubs' own, so one table serves both layering and routing: one hash per
            // stub instead of three (an identity table beside the routes showed in the start-up profile).
            var stubs: [Stub] = []
            var routes: [RequestKey: Route] = [:]
            routes.reserveCapacity(layers.reduce(0) { $0 + $1.count })
            for layer in layers {
                for stub in layer {
                    // The same identity (key, header constraints, body) replaces the earlier stub in place.
                    if let route = routes[stub.key],
                        let existing = (stub.body.map { route.byBody[$0] ?? [] } ?? route.anyBody).first(where: {
                            stubs[$0].headerConstraints == stub.headerConstraints
                        })
                    {
                        stubs[existing] = stub
                        continue
                    }
                    let ordinal = stubs.count
                    stubs.append(stub)
                    if let body = stub.body {
                        routes[stub.key, default: Route()].byBody[body, default: []].append(ordinal)
                    } else {
                        routes[stub.key, default: Route()].anyBody.append(ordinal)
                    }
                }
            }
            self.stubs = stubs
            self.routes = routes
            self.normalizer = normalizer
            self.routeKeys = stubs.map(\.key)
            self.routeBodies = stubs.map(\.body)
            hasHostKeys = stubs.contains { !$0.key.host.isEmpty }
            return
        }
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
        let routeKeys = stubs.map { $0.key.normalized(by: normalizer) }
        let routeBodies = stubs.map { stub in
            stub.body.map { body in
                // Stored bodies are canonical already; only body rules can change them.
                normalizer.hasBodyRules
                    ? BodyCanonicalizer.canonicalize(body, contentType: stub.bodyContentType, normalizer: normalizer) : body
            }
        }
        var routes: [RequestKey: Route] = [:]
        routes.reserveCapacity(stubs.count)
        for ordinal in stubs.indices {
            if let body = routeBodies[ordinal] {
                routes[routeKeys[ordinal], default: Route()].byBody[body, default: []].append(ordinal)
            } else {
                routes[routeKeys[ordinal], default: Route()].anyBody.append(ordinal)
            }
        }
        self.stubs = stubs
        self.routes = routes
        self.normalizer = normalizer
        self.routeKeys = routeKeys
        self.routeBodies = routeBodies
        hasHostKeys = routeKeys.contains { !$0.host.isEmpty }
    }

    /// The key `request` is looked up with: its method, path and query under this index's rules (no host;
    /// `match` adds the request's host when the index has host-keyed stubs).
    public func key(for request: HTTPRequest) -> RequestKey {
        RequestKey(method: request.method, rawPath: request.path, rawQuery: request.query, normalizer: normalizer)
    }

    /// The request body as stubs' bodies are compared: canonical, after the body rules.
    func canonicalBody(of request: HTTPRequest) -> Data {
        BodyCanonicalizer.canonicalize(request.body, contentType: request.headers["content-type"], normalizer: normalizer)
    }

    /// The ordinal of the stub that answers `request` under `key`, or `nil`.
    ///
    /// Among the stubs sharing the key, those whose header and body constraints hold are eligible; the
    /// most specific wins, ties go to the one listed first.
    /// - Complexity: one hash lookup plus the number of stubs sharing the key.
    func match(_ request: HTTPRequest, key: RequestKey) -> Int? {
        if hasHostKeys, let host = HostRouting.host(of: request), let hit = matchRoute(request, key: key.with(host: host)) {
            return hit
        }
        return matchRoute(request, key: key)
    }

    private func matchRoute(_ request: HTTPRequest, key: RequestKey) -> Int? {
        guard let route = routes[key] else { return nil }
        var best: Int?
        var bestSpecificity = -1
        if !route.byBody.isEmpty {
            let canonical = canonicalBody(of: request)
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
