import Foundation
import MockdControl
import MockdFormat

/// The JSON body of a 404 for an unmatched request.
struct UnmatchedReport: Encodable {
    /// The request as its key sees it.
    struct Request: Encodable {
        let method: String
        let path: String
        let query: String
        /// A GraphQL request's one operation: its name (`#HASH` for a persisted query without one), type and
        /// variables.
        var graphql: GraphQL?

        struct GraphQL: Encodable {
            let operation: String
            let type: String
            let variables: JSONValue
        }
    }

    let error = "unmatched"
    let message: String
    let request: Request
    let nearMisses: [NearMiss]

    init(request: HTTPRequest, reason: String?, nearMisses: [NearMiss]) {
        let key = RequestKey(request)
        var message = reason ?? "No stub matches \(request.method) \(request.target)"
        var graphql: Request.GraphQL?
        // A GraphQL request misses by operation: which one, and how the nearest stub's differs.
        if let operations = GraphQLRequest.operations(of: request), operations.count == 1 {
            let operation = operations[0]
            graphql = Request.GraphQL(
                operation: operation.operationName ?? operation.persistedQuery.map { "#" + $0 } ?? "(anonymous)",
                type: operation.operationType ?? "operation",
                variables: (try? JSONValue(parsing: operation.variables)) ?? .object([:])
            )
            if reason == nil {
                message =
                    "No stub answers GraphQL \(operation.label) (\(request.method) \(key.path))"
                    + (UnmatchedReport.graphQLExplanation(nearMisses).map { "; nearest: \($0)" } ?? "")
            }
        }
        self.message = message
        self.request = Request(method: request.method, path: key.path, query: key.query, graphql: graphql)
        self.nearMisses = nearMisses
    }

    func jsonData() -> Data {
        (try? ControlOpenAPI.encoded(self)) ?? Data("{\"error\":\"unmatched\"}\n".utf8)
    }

    /// The nearest miss's GraphQL differences as one line: `operation GetUser: variables.id expected 7, got 8
    /// (stub 'POST_graphql__GetUser')`; `nil` when it has none.
    static func graphQLExplanation(_ nearMisses: [NearMiss]) -> String? {
        guard let nearest = nearMisses.first(where: { $0.differs.contains { $0.part == "graphql" } }) else {
            return nil
        }
        let parts = nearest.differs.filter { $0.part == "graphql" }.map { difference -> String in
            let expected = difference.expected ?? ""
            let actual = difference.actual ?? ""
            guard let equals = expected.range(of: " = "), let actualEquals = actual.range(of: " = ") else {
                return "expected \(expected), got \(actual)"
            }
            return
                "\(expected[..<equals.lowerBound]) expected \(expected[equals.upperBound...]), "
                + "got \(actual[actualEquals.upperBound...])"
        }
        return parts.joined(separator: "; ")
            + " (\(nearest.set == "override" ? "override" : "stub") '\(nearest.stub)')"
    }
}
