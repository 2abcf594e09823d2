import Foundation

/// The front door of the core: turns a request into the response to send, as data.
///
/// Thread-safe: the index is immutable and sequence cursors are atomic, so libmicrohttpd's worker
/// threads call `respond(to:)` concurrently without a lock.
public final class MockEngine: Sendable {
    public let scenario: Scenario
    private let cursors: SequenceCursors

    public init(scenario: Scenario) {
        self.scenario = scenario
        self.cursors = SequenceCursors(count: scenario.index.stubs.count)
    }

    /// The response for `request`.
    ///
    /// Looks the request key up in the index; a `HEAD` request without its own stub is answered by the
    /// `GET` stub (RFC 9110 §9.3.2; the bridge omits the body). A sequence advances one step per match.
    /// A request matching nothing gets 404 with a JSON body listing the nearest stubs.
    /// - Complexity: O(1) in the number of stubs for a match; O(n) for a miss (near-miss search).
    public func respond(to request: HTTPRequest) -> MockResponse {
        let index = scenario.index
        var key = RequestKey(request)
        var ordinal = index.match(request, key: key)
        if ordinal == nil, request.method == "HEAD" {
            key = key.with(method: "GET")
            ordinal = index.match(request, key: key)
        }
        guard let ordinal else { return unmatched(request, reason: nil) }
        let stub = index.stubs[ordinal]
        if stub.isStatic { return stub.responses[0] }
        let call = cursors.take(ordinal)
        guard let step = stub.afterLast.step(forCall: call, count: stub.responses.count) else {
            return unmatched(
                request,
                reason: "stub '\(stub.id)' answered all \(stub.responses.count) responses of its sequence (afterLast: notFound)"
            )
        }
        return stub.responses[step]
    }

    /// Sets every sequence back to its first step.
    public func resetSequences() {
        cursors.reset()
    }

    private func unmatched(_ request: HTTPRequest, reason: String?) -> MockResponse {
        let misses = reason == nil ? NearMissCalculator.nearest(to: request, in: scenario.index) : []
        let body = UnmatchedReport(request: request, reason: reason, nearMisses: misses).jsonData()
        return MockResponse(
            status: 404,
            headers: HTTPHeaders([("Content-Type", "application/json; charset=utf-8")]),
            body: body,
            stubID: nil
        )
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
                [
                    "stub": miss.stubID,
                    "set": miss.setName,
                    "distance": (miss.distance * 1000).rounded() / 1000,
                    "differs": miss.differences.map { difference in
                        ["part": difference.part, "expected": difference.expected, "actual": difference.actual]
                    },
                ] as [String: Any]
            },
        ]
        let data = try? JSONSerialization.data(
            withJSONObject: object,
            options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        )
        return (data ?? Data("{\"error\":\"unmatched\"}".utf8)) + Data("\n".utf8)
    }
}
