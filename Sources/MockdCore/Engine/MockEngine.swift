import Foundation
import Synchronization

/// The front door of the core: turns a request into a planned response, as data.
///
/// Thread-safe: the scenario is immutable, sequence cursors are atomic and rate-limit windows sit behind a
/// lock, so libmicrohttpd's worker threads call `plan(_:)` concurrently. `reload(_:)` swaps the scenario
/// atomically (a request sees the old or the new one, never a mix).
public final class MockEngine: Sendable {
    private struct Active: Sendable {
        let scenario: Scenario
        let session: SessionState
    }

    private let active: Mutex<Active>
    /// Monotonic milliseconds, injectable for tests.
    private let clock: @Sendable () -> Double

    public init(scenario: Scenario, clock: @escaping @Sendable () -> Double = MockEngine.monotonicMilliseconds) {
        active = Mutex(Active(scenario: scenario, session: SessionState(stubCount: scenario.index.stubs.count, overrideCount: scenario.overrides.count)))
        self.clock = clock
    }

    /// The scenario being served.
    public var scenario: Scenario { active.withLock { $0.scenario } }

    /// Replaces the scenario; sequences and rate limits start over.
    public func reload(_ scenario: Scenario) {
        let session = SessionState(stubCount: scenario.index.stubs.count, overrideCount: scenario.overrides.count)
        active.withLock { $0 = Active(scenario: scenario, session: session) }
    }

    /// Sets every sequence and rate-limit window back to the start.
    public func resetSequences() {
        active.withLock { $0 }.session.reset()
    }

    /// The response for `request` without delivery details (see `plan(_:)`).
    public func respond(to request: HTTPRequest) -> MockResponse {
        plan(request).response
    }

    /// What to answer `request` with, and how to deliver it.
    ///
    /// Order: overrides (highest priority first, ties to the later one), then the mock sets' stubs. A `HEAD`
    /// request without its own stub is answered by the `GET` stub (RFC 9110 §9.3.2). An override without
    /// its own body edits the response the stub would give. With `conditionalRequests`, a response with an
    /// `ETag` answers a matching `If-None-Match` with 304. Placeholders are rendered last.
    /// - Complexity: O(overrides) + one hash lookup for a match; O(stubs) for a miss (near-miss search).
    public func plan(_ request: HTTPRequest) -> PlannedResponse {
        let (scenario, session) = active.withLock { ($0.scenario, $0.session) }
        let key = RequestKey(request)
        var baseOrdinal = scenario.index.match(request, key: key)
        if baseOrdinal == nil, request.method == "HEAD" {
            baseOrdinal = scenario.index.match(request, key: key.with(method: "GET"))
        }
        let matchedOverride = scenario.overrides.indices.first { scenario.overrides[$0].pattern.matches(request, key: key) }

        var call = 0
        var response: MockResponse
        var recipe: ResponseRecipe?
        if let ordinal = matchedOverride {
            let override = scenario.overrides[ordinal]
            if let rule = override.rateLimit, let retryAfter = session.rateLimited(ordinal, rule: rule, nowMs: clock()) {
                return PlannedResponse(response: rateLimitResponse(override, retryAfter: rule.retryAfter ?? retryAfter))
            }
            call = session.overrideCursors.take(ordinal)
            guard let step = override.afterLast.step(forCall: call, count: override.steps.count) else {
                return PlannedResponse(
                    response: unmatched(request, scenario: scenario, reason: "override '\(override.id)' answered all \(override.steps.count) responses of its sequence (afterLast: notFound)")
                )
            }
            recipe = override.steps[step].withDefaults(scenario.defaults)
            // A step with its own body is a whole response: the stub's sequence does not advance under it.
            let base =
                recipe!.replacesResponse
                ? nil : baseOrdinal.flatMap { stubResponse(scenario.index.stubs[$0], ordinal: $0, session: session).response }
            if base == nil && !recipe!.standsAlone {
                return PlannedResponse(response: unmatched(request, scenario: scenario, reason: nil))
            }
            do {
                response = try recipe!.apply(to: base)
            } catch {
                response = MockResponse(
                    status: 500, headers: HTTPHeaders([("Content-Type", "application/json; charset=utf-8")]),
                    body: Data("{\"error\":\"override_failed\",\"message\":\"override '\(override.id)': \(error.message)\"}\n".utf8)
                )
            }
            response.stubID = override.id
        } else if let baseOrdinal {
            let stub = scenario.index.stubs[baseOrdinal]
            let taken = stubResponse(stub, ordinal: baseOrdinal, session: session)
            guard let stubResponse = taken.response else {
                return PlannedResponse(
                    response: unmatched(request, scenario: scenario, reason: "stub '\(stub.id)' answered all \(stub.responses.count) responses of its sequence (afterLast: notFound)")
                )
            }
            call = taken.call
            response = stubResponse
            if let defaults = scenario.defaults {
                recipe = defaults
                if !defaults.headerEdits.isEmpty || !defaults.addHeaders.isEmpty || defaults.status != nil {
                    response = (try? defaults.apply(to: response)) ?? response
                    response.stubID = stub.id
                }
            }
        } else {
            return PlannedResponse(response: unmatched(request, scenario: scenario, reason: nil))
        }

        if scenario.conditionalRequests, let etag = response.headers["etag"],
            let condition = request.headers["if-none-match"], ConditionalRequest.matches(etag: etag, ifNoneMatch: condition)
        {
            response = ConditionalRequest.notModified(response)
        }
        let context = TemplateContext(request: request, call: call + 1)
        return PlannedResponse(
            response: response.rendered(context),
            delayMs: recipe?.latency?.delay(call: call, recordedTimeMs: response.recordedTimeMs) ?? 0,
            throttleBytesPerSecond: recipe?.throttle,
            fault: recipe?.fault
        )
    }

    /// The stub's next sequence step (nil when exhausted with `notFound`) and the 0-based call number.
    private func stubResponse(_ stub: Stub, ordinal: Int, session: SessionState) -> (response: MockResponse?, call: Int) {
        if stub.isStatic { return (stub.responses[0], 0) }
        let call = session.stubCursors.take(ordinal)
        return (stub.afterLast.step(forCall: call, count: stub.responses.count).map { stub.responses[$0] }, call)
    }

    private func rateLimitResponse(_ override: Override, retryAfter: Int) -> MockResponse {
        MockResponse(
            status: 429,
            headers: HTTPHeaders([("Content-Type", "application/json; charset=utf-8"), ("Retry-After", String(retryAfter))]),
            body: Data(#"{"error":"rate_limited","message":"Too many requests; retry after \#(retryAfter) s."}"#.utf8),
            stubID: override.id
        )
    }

    private func unmatched(_ request: HTTPRequest, scenario: Scenario, reason: String?) -> MockResponse {
        let misses = reason == nil ? NearMissCalculator.nearest(to: request, in: scenario) : []
        let body = UnmatchedReport(request: request, reason: reason, nearMisses: misses).jsonData()
        return MockResponse(
            status: 404,
            headers: HTTPHeaders([("Content-Type", "application/json; charset=utf-8")]),
            body: body,
            stubID: nil
        )
    }

    public static let monotonicMilliseconds: @Sendable () -> Double = {
        Double(DispatchTime.now().uptimeNanoseconds) / 1_000_000
    }
}

/// `If-None-Match` handling (RFC 9110 §13.1.2): weak comparison, `*` matches any current representation.
enum ConditionalRequest {
    static func matches(etag: String, ifNoneMatch: String) -> Bool {
        let current = weak(etag)
        return ifNoneMatch.split(separator: ",").contains { candidate in
            let trimmed = candidate.trimmingCharacters(in: .whitespaces)
            return trimmed == "*" || weak(trimmed) == current
        }
    }

    private static func weak(_ tag: String) -> String {
        tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag
    }

    /// 304 keeps the validator and caching headers and drops the content (RFC 9110 §15.4.5).
    static func notModified(_ response: MockResponse) -> MockResponse {
        let kept: Set<String> = ["etag", "cache-control", "content-location", "date", "expires", "vary", "last-modified"]
        var result = MockResponse(
            status: 304, headers: HTTPHeaders(response.headers.fields.filter { kept.contains($0.name.lowercased()) }),
            stubID: response.stubID
        )
        result.recordedTimeMs = response.recordedTimeMs
        return result
    }
}

/// The JSON body of a 404 for an unmatched request.
struct UnmatchedReport {
    let request: HTTPRequest
    let reason: String?
    let nearMisses: [NearMiss]

    func jsonData() -> Data {
        let key = RequestKey(request)
        let object: [String: Any] = [
            "error": "unmatched",
            "message": reason ?? "No stub matches \(request.method) \(request.target)",
            "request": ["method": request.method, "path": key.path, "query": key.query],
            "nearMisses": nearMisses.map { miss in
                var entry: [String: Any] = [
                    "stub": miss.stubID,
                    "set": miss.setName,
                    "distance": (miss.distance * 1000).rounded() / 1000,
                    "differs": miss.differences.map { difference in
                        ["part": difference.part, "expected": difference.expected, "actual": difference.actual]
                    },
                ]
                if let priority = miss.priority { entry["priority"] = priority }
                return entry
            },
        ]
        let data = try? JSONSerialization.data(
            withJSONObject: object,
            options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        )
        return (data ?? Data("{\"error\":\"unmatched\"}".utf8)) + Data("\n".utf8)
    }
}
