import Foundation
import MockdControl
import MockdFormat

/// `match.graphql` of an override, compiled: the request must be one GraphQL operation with this name (or one the
/// operator admits), type and variables.
struct GraphQLCondition: Sendable {
    enum Check: Sendable {
        /// The variable is this JSON value (an object: holds these members; numbers by value).
        case value(JSONValue)
        /// The variable's text (a string as is, anything else as JSON) satisfies the operator.
        case matcher(ValueMatcher)
    }

    /// As written, to tell two conditions apart (`RequestPattern.covers`).
    let entry: ScenarioFile.GraphQLMatchEntry
    let operationName: ValueMatcher?
    let operationType: String?
    let variables: [(path: String, check: Check)]

    /// - Throws: `PatternError` for an invalid operator, an unknown operation type or an empty condition.
    init(_ entry: ScenarioFile.GraphQLMatchEntry) throws(PatternError) {
        self.entry = entry
        if let name = entry.operationName {
            if let plain = name.plain {
                operationName = .equalTo(plain, caseInsensitive: false)
            } else {
                do {
                    operationName = try ValueMatcher(name)
                } catch {
                    throw PatternError(message: "operationName: \(error.message)")
                }
            }
        } else {
            operationName = nil
        }
        if let type = entry.operationType, !["query", "mutation", "subscription"].contains(type) {
            throw PatternError(message: "operationType '\(type)' is not query, mutation or subscription")
        }
        operationType = entry.operationType
        var variables: [(String, Check)] = []
        for (path, match) in (entry.variables ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard PlaceholderName.isValid(path) else {
                throw PatternError(message: "variables: '\(path)' is not a variable path (name, input.email, ids[0])")
            }
            switch match {
            case .value(let value): variables.append((path, .value(value)))
            case .matcher(let entry):
                do {
                    variables.append((path, .matcher(try ValueMatcher(entry))))
                } catch {
                    throw PatternError(message: "variables.\(path): \(error.message)")
                }
            }
        }
        self.variables = variables
        guard operationName != nil || operationType != nil || !variables.isEmpty else {
            throw PatternError(message: #"give "operationName", "operationType" or "variables""#)
        }
    }

    /// What breaks the condition for `request`: empty when it holds.
    func differences(_ request: HTTPRequest, stopAtFirst: Bool) -> [NearMiss.Difference] {
        let expectedName = operationName.map { matcher -> String in
            if case .equalTo(let name, false) = matcher { return "operation \(name)" }
            return "operation name \(matcher)"
        }
        guard let operations = GraphQLRequest.operations(of: request), operations.count == 1 else {
            let actual =
                GraphQLRequest.operations(of: request).map { "a batch of \($0.count) operations" }
                ?? "(not a GraphQL request)"
            return [.init(part: "graphql", expected: expectedName ?? "a GraphQL operation", actual: actual)]
        }
        let operation = operations[0]
        var result: [NearMiss.Difference] = []
        if let operationName, !operationName.isSatisfied(by: operation.operationName.map { [$0] } ?? []) {
            result.append(.init(part: "graphql", expected: expectedName ?? "", actual: operation.label))
            if stopAtFirst { return result }
        }
        if let operationType, operationType != operation.operationType {
            result.append(
                .init(
                    part: "graphql",
                    expected: "a \(operationType)",
                    actual: operation.operationType.map { "a \($0)" } ?? "(no document: type unknown)"
                )
            )
            if stopAtFirst { return result }
        }
        guard !variables.isEmpty else { return result }
        let actual = operation.variablesObject
        let label = operation.label
        for (path, check) in variables {
            let found = TemplateContext.lookup(actual, path: path)
            let shown = found.map { GraphQLCondition.text($0, quoted: true) } ?? "(absent)"
            switch check {
            case .value(let expected):
                let value = found.flatMap { try? JSONDecoder().decode(JSONValue.self, from: GraphQLCondition.json($0)) }
                if let value, RequestPattern.jsonContains(value, expected) { continue }
                let wanted = (try? String(decoding: JSONValueEncoding.data(expected), as: UTF8.self)) ?? "?"
                result.append(
                    .init(
                        part: "graphql",
                        expected: "\(label): variables.\(path) = \(wanted)",
                        actual: "variables.\(path) = \(shown)"
                    )
                )
            case .matcher(let matcher):
                let values = found.map { [GraphQLCondition.text($0, quoted: false)] } ?? []
                if matcher.isSatisfied(by: values) { continue }
                result.append(
                    .init(
                        part: "graphql",
                        expected: "\(label): variables.\(path) \(matcher)",
                        actual: "variables.\(path) = \(shown)"
                    )
                )
            }
            if stopAtFirst { return result }
        }
        return result
    }

    private static func json(_ value: Any) -> Data {
        (try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys])) ?? Data()
    }

    /// A variable's value as text: a string as is (or quoted as JSON), anything else as compact JSON.
    static func text(_ value: Any, quoted: Bool) -> String {
        if !quoted, let string = value as? String { return string }
        return String(decoding: json(value), as: UTF8.self)
    }
}
