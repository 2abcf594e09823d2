import Foundation

/// The JSON body of a 404 for an unmatched request.
struct UnmatchedReport {
    let request: HTTPRequest
    let reason: String?
    let nearMisses: [NearMiss]

    func jsonData() -> Data {
        let key = RequestKey(request)
        var requestObject: [String: Any] = ["method": request.method, "path": key.path, "query": key.query]
        var message = reason ?? "No stub matches \(request.method) \(request.target)"
        // A GraphQL request misses by operation: which one, and how the nearest stub's differs.
        if let operations = GraphQLRequest.operations(of: request), operations.count == 1 {
            let operation = operations[0]
            requestObject["graphql"] = [
                "operation": operation.operationName ?? operation.persistedQuery.map { "#" + $0 } ?? "(anonymous)",
                "type": operation.operationType ?? "operation", "variables": operation.variablesObject,
            ]
            if reason == nil {
                message =
                    "No stub answers GraphQL \(operation.label) (\(request.method) \(key.path))"
                    + (UnmatchedReport.graphQLExplanation(nearMisses).map { "; nearest: \($0)" } ?? "")
            }
        }
        let object: [String: Any] = [
            "error": "unmatched",
            "message": message,
            "request": requestObject,
            "nearMisses": nearMisses.map(\.jsonObject),
        ]
        let data = try? JSONSerialization.data(
            withJSONObject: object,
            options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        )
        return (data ?? Data("{\"error\":\"unmatched\"}".utf8)) + Data("\n".utf8)
    }

    /// The nearest miss's GraphQL differences as one line: `operation GetUser: variables.id expected 7, got 8
    /// (stub 'POST_graphql__GetUser')`; `nil` when it has none.
    static func graphQLExplanation(_ nearMisses: [NearMiss]) -> String? {
        guard let nearest = nearMisses.first(where: { $0.differences.contains { $0.part == "graphql" } }) else {
            return nil
        }
        let parts = nearest.differences.filter { $0.part == "graphql" }.map { difference -> String in
            guard let equals = difference.expected.range(of: " = "),
                let actualEquals = difference.actual.range(of: " = ")
            else { return "expected \(difference.expected), got \(difference.actual)" }
            return
                "\(difference.expected[..<equals.lowerBound]) expected \(difference.expected[equals.upperBound...]), "
                + "got \(difference.actual[actualEquals.upperBound...])"
        }
        return parts.joined(separator: "; ")
            + " (\(nearest.setName == "override" ? "override" : "stub") '\(nearest.stubID)')"
    }
}
