extension StubDefinition {
    /// A stub for one GraphQL operation, matched by name and variables rather than by the body's text
    /// (`match.graphql`, docs/FORMAT.md "GraphQL"): a `POST` with a JSON body or `application/graphql`, or a `GET`
    /// with query parameters, its document or only its persisted-query hash, its variables in any order.
    ///
    /// ```swift
    /// try await client.addStub(.graphQL("GetUser", variables: ["id": "7"], data: ["user": ["name": "Ada"]]))
    /// try await client.addStub(.graphQL("SendMessage", errors: "Rate limited"))   // 200 {"data": null, "errors": […]}
    /// ```
    /// - Parameters:
    ///   - operationName: The operation's name, or an operator (`.init(matches: "Get.*")`).
    ///   - variables: Conditions on variables by path (`id`, `input.email`, `ids[0]`): a JSON value or an operator;
    ///     other variables may be present too. `nil`: any variables.
    ///   - path: The endpoint's path (`/graphql`); any path when `nil`.
    ///   - data: The answer's `data`: sent as `200 {"data": …}`.
    ///   - errors: GraphQL errors (GraphQL spec §7.1.2): a message, an error object (with `message`) or an array of
    ///     either. Alone: `200 {"data": null, "errors": […]}`; with `data`: `{"data": …, "errors": […]}` (a partial
    ///     result).
    ///   - id: The stub's id; the daemon assigns `runtime-N` when `nil`.
    ///   - priority: Higher wins; the daemon's default is 0.
    ///   - latencyMs: Milliseconds before the answer.
    /// - Returns: With neither `data` nor `errors`, a stub that passes the mock set's answer for the operation
    ///   through (add `latencyMs`, or edit it with `bodyPatch` through `init(match:response:)`).
    public static func graphQL(
        _ operationName: ValueMatchEntry,
        variables: [String: GraphQLVariableMatch]? = nil,
        path: String? = nil,
        data: JSONValue? = nil,
        errors: GraphQLErrorsEntry? = nil,
        id: String? = nil,
        priority: Int? = nil,
        latencyMs: Double? = nil
    ) -> StubDefinition {
        var response = Response(latency: latencyMs.map { .fixed($0) })
        switch (data, errors) {
        case (let data?, let errors?):
            response.body = .object(["data": data, "errors": errorList(errors)])
        case (let data?, nil):
            response.body = .object(["data": data])
        case (nil, let errors?):
            response.graphqlErrors = errors
        case (nil, nil):
            break
        }
        return StubDefinition(
            id: id,
            priority: priority,
            match: Match(
                path: path,
                graphql: ScenarioFile.GraphQLMatchEntry(operationName: operationName, variables: variables)
            ),
            response: response
        )
    }

    /// `errors` as the list GraphQL answers carry: a message becomes `{"message": …}`.
    private static func errorList(_ errors: GraphQLErrorsEntry) -> JSONValue {
        func error(_ value: JSONValue) -> JSONValue {
            if case .string(let message) = value { return .object(["message": .string(message)]) }
            return value
        }
        if case .array(let items) = errors { return .array(items.map(error)) }
        return .array([error(errors)])
    }
}
