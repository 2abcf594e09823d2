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

    /// A key's route as kept: almost every key has one stub that accepts any body, kept without the route's
    /// arrays (a one-element array was 48 bytes per stub of idle memory).
    enum CompactRoute: Sendable {
        case single(Int)
        case full(Route)

        init(_ route: Route) {
            self = route.byBody.isEmpty && route.anyBody.count == 1 ? .single(route.anyBody[0]) : .full(route)
        }

        var route: Route {
            switch self {
            case .single(let ordinal): return Route(anyBody: [ordinal])
            case .full(let route): return route
            }
        }
    }

    /// Every stub, by ordinal.
    public let stubs: [Stub]
    private let routes: [RequestKey: CompactRoute]
    /// The rules every key and body goes through (see `RequestNormalization`).
    public let normalizer: RequestNormalizer
    /// Each stub's key and canonical body under `normalizer`, by ordinal; empty when there are no rules and
    /// they are the stubs' own (80 bytes per stub of idle memory otherwise). Read through `routeKey(_:)`.
    private let routeKeys: [RequestKey]
    private let routeBodies: [Data?]

    /// Stub `ordinal`'s key under `normalizer`.
    func routeKey(_ ordinal: Int) -> RequestKey { routeKeys.isEmpty ? stubs[ordinal].key : routeKeys[ordinal] }

    /// Stub `ordinal`'s canonical body under `normalizer`.
    func routeBody(_ ordinal: Int) -> Data? { routeBodies.isEmpty ? stubs[ordinal].body : routeBodies[ordinal] }
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
            var routes: [RequestKey: CompactRoute] = [:]
            routes.reserveCapacity(layers.reduce(0) { $0 + $1.count })
            for layer in layers {
                for stub in layer {
                    let existing = routes[stub.key]
                    // The same identity (key, header constraints, body) replaces the earlier stub in place.
                    if let route = existing?.route,
                        let earlier = (stub.body.map { route.byBody[$0] ?? [] } ?? route.anyBody).first(where: {
                            stubs[$0].headerConstraints == stub.headerConstraints
                        })
                    {
                        stubs[earlier] = stub
                        continue
                    }
                    let ordinal = stubs.count
                    stubs.append(stub)
                    guard let existing else {
                        routes[stub.key] = stub.body.map { .full(Route(byBody: [$0: [ordinal]])) } ?? .single(ordinal)
                        continue
                    }
                    var route = existing.route
                    if let body = stub.body {
                        route.byBody[body, default: []].append(ordinal)
                    } else {
                        route.anyBody.append(ordinal)
                    }
                    routes[stub.key] = .full(route)
                }
            }
            self.stubs = stubs
            self.routes = routes
            self.normalizer = normalizer
            self.routeKeys = []
            self.routeBodies = []
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
        self.routes = routes.mapValues(CompactRoute.init)
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
        guard let compact = routes[key] else { return nil }
        let route: Route
        switch compact {
        case .single(let ordinal):
            // The general loop below with one candidate.
            return stubs[ordinal].acceptsHeaders(request.headers) ? ordinal : nil
        case .full(let full):
            route = full
        }
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
