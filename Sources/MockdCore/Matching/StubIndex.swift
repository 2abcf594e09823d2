import Foundation
import MockdPlatform

/// All stubs of a scenario, indexed by `RequestKey` for constant-time lookup.
///
/// Immutable; a class so that reaching it through a scenario on every request costs no copy of its fields.
public final class StubIndex: Sendable {
    /// The stubs sharing one request key, when there are several or one keyed by body (a key with one stub
    /// that accepts any body, nearly every key, is stored as that stub's ordinal alone).
    struct Route: Sendable {
        let key: RequestKey
        /// Stubs that accept any body.
        var anyBody: [Int] = []
        /// Stubs keyed by canonical request body.
        var byBody: [Data: [Int]] = [:]
        /// Whether a body holds U+FFFD: recorded as text by an exporter that lost bytes that were not UTF-8, so a
        /// request is looked up by its body read as the same text too.
        var hasLossyBodies = false
    }

    /// Every stub, by ordinal.
    public let stubs: [Stub]
    /// Request key → a stub ordinal, or `Route.flag | i` for `groups[i]`.
    private let table: RouteTable
    private let groups: [Route]
    /// Set in a table value that names a group rather than a stub.
    private static let groupFlag: UInt32 = 1 << 31

    /// The group a table value names, or `nil` when it names a stub (its ordinal is the value itself).
    @inline(__always)
    private static func group(_ value: UInt32) -> Int? { value & groupFlag != 0 ? Int(value & ~groupFlag) : nil }
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
    /// The stubs arranged for the near-miss search (`NearMissIndex`), made on the first miss that needs them.
    private let nearMisses = Mutex<NearMissIndex?>(nil)

    /// The near-miss trie of this index, built now if this is the first miss that needs it.
    func nearMissIndex() -> NearMissIndex {
        nearMisses.withLock { built in
            if let built { return built }
            let made = NearMissIndex(self)
            built = made
            return made
        }
    }
    /// For each key of host-keyed stubs (taken without its host): the one host that recorded it, or `""` when several
    /// did. A request that names no host is answered by that host's stubs; where hosts collide it must name one.
    /// Empty unless `hasHostKeys`.
    private let recordedHosts: [RequestKey: String]
    /// Every host that recorded a host-keyed stub: a `Host` header names an upstream only when it is one of these.
    let recordedHostNames: Set<String>
    /// The stubs keyed by GraphQL operation (`request.graphql`), outside the key table; `nil` when there are none, so
    /// other sets' requests pay one check.
    let graphQL: GraphQLRoutes?

    /// Builds the index from mock sets layered in order; a later stub with the same key and constraints
    /// replaces an earlier one in place.
    /// - Parameter normalizer: Rules applied to every stub's key and body here and to every request in `key(for:)`.
    /// - Complexity: O(n) in the number of stubs.
    public init(layers: [[Stub]], normalizer: RequestNormalizer = .none) {
        let total = layers.reduce(0) { $0 + $1.count }
        var stubs: [Stub] = []
        stubs.reserveCapacity(total)
        var builder = Builder(capacity: total)
        // GraphQL stubs are routed by operation (`GraphQLRoutes`), not by key: layered by identity here.
        var graphQLPositions: [Stub.Identity: Int] = [:]
        if normalizer.isEmpty {
            // Keys and bodies are the stubs' own, so one table serves both layering and routing: one hash per stub,
            // no identity table beside the routes.
            for layer in layers {
                for stub in layer {
                    if stub.graphQL != nil {
                        if let earlier = graphQLPositions[stub.identity] {
                            stubs[earlier] = stub
                        } else {
                            graphQLPositions[stub.identity] = stubs.count
                            stubs.append(stub)
                        }
                        continue
                    }
                    // Hashed and compared as the bytes in the stubs' arenas: no key is made for a stub alone on its key.
                    let hash = stub.routeHash
                    let existing = builder.table.find(hash: hash) { value in
                        StubIndex.group(value).map { stub.hasKey(builder.groups[$0].key) }
                            ?? stubs[Int(value)].hasSameKey(as: stub)
                    }
                    if let existing, let earlier = builder.sameIdentity(as: stub, value: existing, stubs: stubs) {
                        stubs[earlier] = stub
                        continue
                    }
                    stubs.append(stub)
                    builder.add(stubs.count - 1, existing: existing, hash: hash, body: stub.body) { stub.key }
                }
            }
            self.routeKeys = []
            self.routeBodies = []
            hasHostKeys = stubs.contains { !$0.host.isEmpty }
        } else {
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
                        ? BodyCanonicalizer.canonicalize(
                            body,
                            contentType: stub.bodyContentType,
                            normalizer: normalizer
                        ) : body
                }
            }
            for ordinal in stubs.indices where stubs[ordinal].graphQL == nil {
                let key = routeKeys[ordinal]
                let hash = key.routeHash
                let existing = builder.table.find(hash: hash) { value in
                    (StubIndex.group(value).map { builder.groups[$0].key } ?? routeKeys[Int(value)]) == key
                }
                builder.add(ordinal, existing: existing, hash: hash, body: routeBodies[ordinal]) { key }
            }
            self.routeKeys = routeKeys
            self.routeBodies = routeBodies
            hasHostKeys = routeKeys.contains { !$0.host.isEmpty }
        }
        self.stubs = stubs
        if routeKeys.isEmpty {
            // Keys are the stubs' own: a lookup compares them through the slot's hint (see `RouteTable`). `stubs` keeps
            // every stub alive as long as the table.
            builder.table.setHints { value in
                StubIndex.group(value) == nil
                    ? UnsafeRawPointer(Unmanaged.passUnretained(stubs[Int(value)]).toOpaque()) : nil
            }
        }
        self.table = builder.table
        self.groups = builder.groups
        self.normalizer = normalizer
        let keys = self.routeKeys
        self.graphQL = GraphQLRoutes(stubs: stubs, normalizer: normalizer) { keys.isEmpty ? stubs[$0].key : keys[$0] }
        var recordedHosts: [RequestKey: String] = [:]
        var hostNames: Set<String> = []
        if hasHostKeys {
            for ordinal in stubs.indices {
                let key = routeKeys.isEmpty ? stubs[ordinal].key : routeKeys[ordinal]
                guard !key.host.isEmpty else { continue }
                hostNames.insert(key.host)
                let hostless = key.with(host: "")
                if let known = recordedHosts[hostless] {
                    if known != key.host { recordedHosts[hostless] = "" }
                } else {
                    recordedHosts[hostless] = key.host
                }
            }
        }
        self.recordedHosts = recordedHosts
        self.recordedHostNames = hostNames
    }

    /// The recorded host `request` names (`HostRouting.host(of:recordedHosts:)`), `nil` when it names none.
    func namedHost(of request: HTTPRequest) -> String? {
        guard hasHostKeys else { return HostRouting.explicitHost(of: request) }
        return HostRouting.host(of: request, recordedHosts: recordedHostNames)
    }

    /// The host a request for `key` is meant for when it names none: the only host that recorded `key`, or `nil`
    /// when none or several did (then only a host-free stub answers, and the near miss says to name a host).
    func soleRecordedHost(of key: RequestKey) -> String? {
        guard hasHostKeys, let host = recordedHosts[key.with(host: "")], !host.isEmpty else { return nil }
        return host
    }

    /// The hosts that recorded `key` (taken without its host), sorted; empty for a key no host-keyed stub has.
    /// - Complexity: one table lookup per recorded host (a miss in a large multi-host set looked at every stub).
    func recordingHosts(of key: RequestKey) -> [String] {
        guard hasHostKeys else { return [] }
        return recordedHostNames.filter { contains(key.with(host: $0)) }.sorted()
    }

    /// Fills the table and groups while stubs are added.
    private struct Builder {
        let table: RouteTable
        var groups: [Route] = []

        init(capacity: Int) { table = RouteTable(capacity: capacity) }

        /// The ordinal of an earlier stub with `stub`'s identity (key, header constraints, body), if any.
        /// - Parameter value: The table value under `stub`'s key.
        func sameIdentity(as stub: Stub, value: UInt32, stubs: [Stub]) -> Int? {
            let candidates: [Int]
            if let index = StubIndex.group(value) {
                let group = groups[index]
                candidates = stub.body.map { group.byBody[$0] ?? [] } ?? group.anyBody
            } else {
                candidates = stub.body == nil ? [Int(value)] : []
            }
            return candidates.first { stubs[$0].headerConstraints == stub.headerConstraints }
        }

        /// Routes stub `ordinal` under its key (with `body` when it is keyed by body).
        /// - Parameters:
        ///   - existing: The table value under the key, if any.
        ///   - key: The key, made only when the stub shares it with another (a group keeps it).
        mutating func add(_ ordinal: Int, existing: UInt32?, hash: UInt64, body: Data?, key: () -> RequestKey) {
            var route: Route
            if let existing, let index = StubIndex.group(existing) {
                route = groups[index]
                groups[index] = Route(key: route.key)  // drops the second reference before the arrays are appended to
                route.append(ordinal, body: body)
                groups[index] = route
                return
            }
            if existing == nil, body == nil {
                table.insert(hash: hash, value: UInt32(ordinal))
                return
            }
            route = Route(key: key())
            if let existing { route.anyBody = [Int(existing)] }
            route.append(ordinal, body: body)
            let value = UInt32(groups.count) | StubIndex.groupFlag
            groups.append(route)
            if let existing {
                table.replace(hash: hash, old: existing, new: value)
            } else {
                table.insert(hash: hash, value: value)
            }
        }
    }

    /// The key `request` is looked up with: its method, path and query under this index's rules (no host;
    /// `match` adds the request's host when the index has host-keyed stubs).
    public func key(for request: HTTPRequest) -> RequestKey {
        RequestKey(request, normalizer: normalizer)
    }

    /// The request body as stubs' bodies are compared: canonical, after the body rules.
    func canonicalBody(of request: HTTPRequest) -> Data {
        let contentType = request.headers["content-type"]
        guard let memo = request.canonicalBodies else {
            return BodyCanonicalizer.canonicalize(request.body, contentType: contentType, normalizer: normalizer)
        }
        let bodyRules = normalizer.hasBodyRules ? normalizer.rules : nil
        return memo.canonical(of: request.body, contentType: contentType, bodyRules: bodyRules) {
            BodyCanonicalizer.canonicalize(request.body, contentType: contentType, normalizer: normalizer)
        }
    }

    /// The ordinal of the stub that answers `request` under `key`, or `nil`.
    ///
    /// Among the stubs sharing the key, those whose header and body constraints hold are eligible; the
    /// most specific wins, ties go to the one listed first.
    /// - Complexity: one hash lookup plus the number of stubs sharing the key.
    ///
    /// In a set that keeps hosts apart, a request naming a host (`/__host/NAME/`, `X-Forwarded-Host`, `Host`) is
    /// answered by that host's stubs, else by host-free ones; a request naming none by host-free stubs, else by the
    /// stubs of the one host that recorded its key.
    func match(_ request: HTTPRequest, key: RequestKey) -> Int? {
        if let graphQL, graphQL.paths.contains(key.path), let hit = matchGraphQL(request, key: key, routes: graphQL) {
            return hit
        }
        guard hasHostKeys else { return matchRoute(request, key: key) }
        if let host = namedHost(of: request) {
            return matchRoute(request, key: key.with(host: host)) ?? matchRoute(request, key: key)
        }
        if let hit = matchRoute(request, key: key) { return hit }
        return soleRecordedHost(of: key).flatMap { matchRoute(request, key: key.with(host: $0)) }
    }

    /// The GraphQL stub answering `request` (read as GraphQL only here, for a path GraphQL stubs answer): among those
    /// of its operation whose header constraints hold, the most specific, then the first listed. `nil` when the
    /// request is not GraphQL or no stub has its operation.
    private func matchGraphQL(_ request: HTTPRequest, key: RequestKey, routes: GraphQLRoutes) -> Int? {
        guard request.method == "POST" || request.method == "GET",
            let operations = GraphQLRequest.operations(of: request, normalizer: normalizer)
        else { return nil }
        let candidates = routes.candidates(
            for: operations,
            path: key.path,
            query: GraphQLRequest.otherQuery(request.query, normalizer: normalizer),
            namedHost: hasHostKeys ? namedHost(of: request) : nil
        )
        var best: Int?
        for ordinal in candidates where stubs[ordinal].acceptsHeaders(request.headers) {
            if best == nil || stubs[ordinal].specificity > stubs[best!].specificity { best = ordinal }
        }
        return best
    }

    private func matchRoute(_ request: HTTPRequest, key: RequestKey) -> Int? {
        var hinted: UnsafeRawPointer?
        guard let value = tableValue(for: key, hinted: &hinted) else { return nil }
        guard let index = StubIndex.group(value) else {
            // A route of one stub: the general loop below with one candidate, on the stub the slot names when it
            // names one (reached without a retain: `stubs` keeps it alive).
            let ordinal = Int(value)
            if let hinted {
                return Unmanaged<Stub>.fromOpaque(hinted)._withUnsafeGuaranteedRef {
                    $0.acceptsHeaders(request.headers)
                } ? ordinal : nil
            }
            return stubs[ordinal].acceptsHeaders(request.headers) ? ordinal : nil
        }
        let route = groups[index]
        var best: Int?
        var bestSpecificity = -1
        func consider(_ ordinal: Int) {
            guard stubs[ordinal].acceptsHeaders(request.headers) else { return }
            let specificity = stubs[ordinal].specificity
            if specificity > bestSpecificity || (specificity == bestSpecificity && prefers(ordinal, to: best!, request))
            {
                best = ordinal
                bestSpecificity = specificity
            }
        }
        if !route.byBody.isEmpty {
            let canonical = canonicalBody(of: request)
            if let exact = route.byBody[canonical] {
                for ordinal in exact { consider(ordinal) }
            } else if route.hasLossyBodies, String(data: request.body, encoding: .utf8) == nil {
                // The body as a lossy exporter would have written it: each invalid UTF-8 sequence a U+FFFD.
                let asText = Data(String(decoding: request.body, as: UTF8.self).utf8)
                let lossy = BodyCanonicalizer.canonicalize(
                    asText,
                    contentType: request.headers["content-type"],
                    normalizer: normalizer
                )
                for ordinal in route.byBody[lossy] ?? [] { consider(ordinal) }
            }
        }
        for ordinal in route.anyBody { consider(ordinal) }
        return best
    }

    /// Between two equally specific stubs that both accept `request`: the one recorded with its very `Accept`, then
    /// the one whose type it rates highest (`q`), then the one listed first.
    private func prefers(_ ordinal: Int, to best: Int, _ request: HTTPRequest) -> Bool {
        let preference = stubs[ordinal].acceptPreference(request.headers)
        let bestPreference = stubs[best].acceptPreference(request.headers)
        return preference != bestPreference ? preference > bestPreference : ordinal < best
    }

    /// How the route table is laid out: how many of its values name their stub directly (see `RouteTable`), and
    /// whether it asked for huge pages. For tests.
    var routeTableLayout: (hintedStubs: Int, hugePages: Bool) { (table.hintedCount, table.asksForHugePages) }

    /// The table value stored under `key`: a stub ordinal, or a group with `groupFlag` set.
    /// - Parameter hinted: Set to the stub the value's slot names (see `RouteTable`), when it names one.
    private func tableValue(for key: RequestKey, hinted: inout UnsafeRawPointer?) -> UInt32? {
        table.find(hash: key.routeHash) { value, stub in
            // Compared in place: copying the stored key out to compare it cost a retain and release per string.
            if let group = StubIndex.group(value) { return groups[group].key == key }
            if let stub {
                guard Unmanaged<Stub>.fromOpaque(stub)._withUnsafeGuaranteedRef({ $0.hasKey(key) }) else {
                    return false
                }
                hinted = stub
                return true
            }
            return routeKeys.isEmpty ? stubs[Int(value)].hasKey(key) : routeKeys[Int(value)] == key
        }
    }

    private func tableValue(for key: RequestKey) -> UInt32? {
        var hinted: UnsafeRawPointer?
        return tableValue(for: key, hinted: &hinted)
    }

    /// Whether any stub uses `key`.
    func contains(_ key: RequestKey) -> Bool { tableValue(for: key) != nil }
}

extension StubIndex.Route {
    mutating func append(_ ordinal: Int, body: Data?) {
        if let body {
            byBody[body, default: []].append(ordinal)
            if !hasLossyBodies, ByteSearch.contains([0xEF, 0xBF, 0xBD], in: body) { hasLossyBodies = true }
        } else {
            anyBody.append(ordinal)
        }
    }
}
