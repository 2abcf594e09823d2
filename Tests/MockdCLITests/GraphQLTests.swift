import Foundation
import MockdTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// GraphQL as operations, not bodies (issue 39): an Apollo-style recording (every call `POST /graphql`, automatic
/// persisted queries) imported by the real binary, served by the real daemon, replayed with reordered variables, a
/// changed document and a persisted-query `GET`; misses explained by operation; `match.graphql` overrides and
/// one-line GraphQL errors. curl and URLSession ask.
@Suite(.serialized)
struct GraphQLTests {
    typealias HAR = ImportHygieneTests

    static let getUser =
        "query GetUser($id: ID!, $withAvatar: Boolean!) { user(id: $id) { __typename id name avatarURL @include(if: $withAvatar) } }"
    static let feedHash = "7b1d54c1c38f8d2bb28aa1b7aa2a5f0dcd4d6e6b5b6bb2f9e1f4b2a4c9f1e0aa"

    /// What Apollo iOS sends: `Content-Type: application/json`, its client headers, the multipart `Accept` of `@defer`.
    static let apolloHeaders = [
        ("Content-Type", "application/json"), ("Accept", "multipart/mixed;deferSpec=20220824, application/json"),
        ("apollographql-client-name", "com.example.app-apollo-ios"),
    ]

    static func post(_ body: String, answer: String, operation: String) -> [String: Any] {
        HAR.entry(
            "POST",
            "https://api.example.com/graphql",
            requestHeaders: apolloHeaders + [("X-APOLLO-OPERATION-NAME", operation)],
            body: body,
            headers: [("Content-Type", "application/json")],
            text: answer
        )
    }

    static var recording: [[String: Any]] {
        let persistedGET =
            "https://api.example.com/graphql?extensions=%7B%22persistedQuery%22%3A%7B%22version%22%3A1%2C%22sha256Hash%22%3A%22\(feedHash)%22%7D%7D&operationName=GetFeed&variables=%7B%22first%22%3A10%2C%22after%22%3Anull%7D"
        return [
            post(
                #"{"operationName":"GetUser","query":"\#(getUser)","variables":{"id":"7","withAvatar":true}}"#,
                answer:
                    #"{"data":{"user":{"__typename":"User","id":"7","name":"Ada","avatarURL":"https://cdn.example.com/7.png"}}}"#,
                operation: "GetUser"
            ),
            post(
                #"{"operationName":"GetUser","query":"\#(getUser)","variables":{"id":"8","withAvatar":true}}"#,
                answer: #"{"data":{"user":{"__typename":"User","id":"8","name":"Grace","avatarURL":null}}}"#,
                operation: "GetUser"
            ),
            // Apollo's automatic persisted queries: the hash alone first, refused, then the document with the hash.
            HAR.entry(
                "GET",
                persistedGET,
                requestHeaders: apolloHeaders,
                text:
                    #"{"errors":[{"message":"PersistedQueryNotFound","extensions":{"code":"PERSISTED_QUERY_NOT_FOUND"}}]}"#
            ),
            post(
                #"{"operationName":"GetFeed","query":"query GetFeed($first: Int!, $after: String) { feed(first: $first, after: $after) { id title } }","variables":{"first":10,"after":null},"extensions":{"persistedQuery":{"version":1,"sha256Hash":"\#(feedHash)"}}}"#,
                answer: #"{"data":{"feed":[{"id":"p1","title":"Hello"}]}}"#,
                operation: "GetFeed"
            ),
            post(
                #"{"operationName":"SendMessage","query":"mutation SendMessage($text: String!) { send(text: $text) { id } }","variables":{"text":"hi"}}"#,
                answer: #"{"data":{"send":{"id":"m1"}}}"#,
                operation: "SendMessage"
            ),
        ]
    }

    static func graphQL(_ daemon: RunningDaemon, _ body: String, path: String = "/graphql") throws -> CurlResponse {
        try Curl.send(
            CurlRequest(method: "POST", url: daemon.baseURL + path, headers: apolloHeaders, body: Data(body.utf8))
        )
    }

    @Test func anApolloRecordingReplaysByOperationAndVariables() async throws {
        let (root, report, daemon) = try JustifiedAnswerTests.imported(Self.recording)
        defer {
            daemon.stop()
            try? FileManager.default.removeItem(at: root)
        }
        do {
            // The report groups the recording by operation.
            let lines = report.split(separator: "\n").map(String.init)
            let section = lines.drop { !$0.hasPrefix("  GraphQL:") }.prefix(4)
            #expect(
                Array(section) == [
                    "  GraphQL:        4 requests to /graphql as 3 operations, matched by operation name and variables (not the body's text)",
                    "    query GetUser: 2 requests, 2 stubs (one per set of variables)",
                    "    query GetFeed: 1 request, 1 stub",
                    "    mutation SendMessage: 1 request, 1 stub",
                ]
            )
            #expect(
                lines.contains(
                    "    GraphQL automatic persisted query handshake (PersistedQueryNotFound): the mock answers the operation by its hash, so the app never needs to send the document again: entry 3"
                )
            )
            let index = try String(contentsOf: root.appendingPathComponent("mocks/app/index.json"), encoding: .utf8)
            #expect(index.contains(#""operationName" : "GetUser""#))

            // Variables in another order, other whitespace, a document that asks for one more field: Ada.
            let reordered = try Self.graphQL(
                daemon,
                """
                {"variables": {"withAvatar": true, "id": "7"}, "operationName": "GetUser",
                 "query": "query GetUser($id: ID!, $withAvatar: Boolean!) {\\n  user(id: $id) {\\n    __typename\\n    id\\n    name\\n    email\\n  }\\n}"}
                """
            )
            #expect(reordered.status == 200)
            #expect(
                reordered.text
                    == #"{"data":{"user":{"__typename":"User","id":"7","name":"Ada","avatarURL":"https://cdn.example.com/7.png"}}}"#
            )
            #expect(
                try Self.graphQL(daemon, #"{"query":"\#(Self.getUser)","variables":{"withAvatar":true,"id":"8"}}"#).text
                    == #"{"data":{"user":{"__typename":"User","id":"8","name":"Grace","avatarURL":null}}}"#
            )
            // The persisted-query GET: the hash alone, parameters in another order, `after: null` left out.
            let persisted = try Curl.send(
                CurlRequest(
                    url: daemon.baseURL
                        + "/graphql?operationName=GetFeed&variables=%7B%22first%22%3A10%7D&extensions=%7B%22persistedQuery%22%3A%7B%22sha256Hash%22%3A%22\(Self.feedHash)%22%2C%22version%22%3A1%7D%7D",
                    headers: [("Accept", "multipart/mixed;deferSpec=20220824, application/json")]
                )
            )
            #expect(persisted.status == 200)
            #expect(persisted.text == #"{"data":{"feed":[{"id":"p1","title":"Hello"}]}}"#)

            // A user nobody recorded: a miss that names the operation and the variable.
            let miss = try Self.graphQL(
                daemon,
                #"{"query":"\#(Self.getUser)","variables":{"id":"9","withAvatar":true}}"#
            )
            #expect(miss.status == 404)
            let object = try #require(JSONSerialization.jsonObject(with: miss.body) as? [String: Any])
            #expect(
                object["message"] as? String
                    == #"No stub answers GraphQL query GetUser (POST /graphql); nearest: query GetUser: variables.id expected "7", got "9" (stub 'POST_graphql__GetUser')"#
            )
            let graphql = (object["request"] as? [String: Any])?["graphql"] as? [String: Any]
            #expect(graphql?["operation"] as? String == "GetUser")
            let variables = try JSONSerialization.data(
                withJSONObject: graphql?["variables"] ?? [:],
                options: [.sortedKeys]
            )
            #expect(String(decoding: variables, as: UTF8.self) == #"{"id":"9","withAvatar":true}"#)

            // URLSession, as an app's networking layer sends it.
            var request = URLRequest(url: URL(string: daemon.baseURL + "/graphql")!)
            request.httpMethod = "POST"
            for (name, value) in Self.apolloHeaders { request.setValue(value, forHTTPHeaderField: name) }
            request.httpBody = Data(
                #"{"operationName":"SendMessage","variables":{"text":"hi"},"query":"mutation SendMessage($text: String!) { send(text: $text) { id } }"}"#
                    .utf8
            )
            let (data, response) = try await URLSession(configuration: .ephemeral).data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(String(decoding: data, as: UTF8.self) == #"{"data":{"send":{"id":"m1"}}}"#)
        }
    }

    @Test func overridesMatchOperationsAndAnswerGraphQLErrorsInOneLine() throws {
        let (root, _, importer) = try JustifiedAnswerTests.imported(Self.recording)
        importer.stop()
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("configs"),
            withIntermediateDirectories: true
        )
        try #"""
        {"sets": ["app"], "overrides": [
          {"id": "suspended", "match": {"path": "/graphql", "graphql": {"operationName": "GetUser", "variables": {"id": "8"}}},
           "graphqlErrors": {"message": "User 8 is suspended", "extensions": {"code": "FORBIDDEN"}}},
          {"id": "any-mutation", "match": {"graphql": {"operationType": "mutation", "variables": {"text": {"matches": "spam.*"}}}},
           "graphqlErrors": "Message refused: {{request.json.variables.text}}"}
        ]}
        """#.write(to: root.appendingPathComponent("configs/errors.json"), atomically: true, encoding: .utf8)
        let daemon = try RunningDaemon(["--config", "errors", "--root", root.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        let suspended = try Self.graphQL(
            daemon,
            #"{"query":"\#(Self.getUser)","variables":{"withAvatar":true,"id":"8"}}"#
        )
        #expect(suspended.status == 200)
        #expect(suspended.header("Content-Type") == "application/json; charset=utf-8")
        #expect(
            suspended.text
                == #"{"data":null,"errors":[{"extensions":{"code":"FORBIDDEN"},"message":"User 8 is suspended"}]}"#
        )
        #expect(
            try Self.graphQL(daemon, #"{"query":"\#(Self.getUser)","variables":{"withAvatar":true,"id":"7"}}"#).text
                .contains("Ada")
        )
        let spam = try Self.graphQL(
            daemon,
            #"{"query":"mutation SendMessage($text: String!) { send(text: $text) { id } }","variables":{"text":"spam!"}}"#
        )
        #expect(spam.text == #"{"data":null,"errors":[{"message":"Message refused: spam!"}]}"#)
        // A runtime stub says the same through the control API.
        let added = try Curl.send(
            CurlRequest(
                method: "POST",
                url: daemon.baseURL + "/__mockd/stubs",
                headers: [("Content-Type", "application/json")],
                body: Data(
                    #"{"id": "feed-down", "match": {"graphql": {"operationName": "GetFeed"}}, "graphqlErrors": ["Feed unavailable", {"message": "Try later", "path": ["feed"]}]}"#
                        .utf8
                )
            )
        )
        #expect(added.status == 201, "\(added.text)")
        let feed = try Self.graphQL(
            daemon,
            #"{"operationName":"GetFeed","variables":{"first":10},"extensions":{"persistedQuery":{"version":1,"sha256Hash":"\#(Self.feedHash)"}}}"#
        )
        #expect(
            feed.text
                == #"{"data":null,"errors":[{"message":"Feed unavailable"},{"message":"Try later","path":["feed"]}]}"#
        )
        // A mistake in the condition is refused with the file and JSON path.
        let refused = try Curl.send(
            CurlRequest(
                method: "POST",
                url: daemon.baseURL + "/__mockd/stubs",
                headers: [("Content-Type", "application/json")],
                body: Data(#"{"match": {"graphql": {"operationType": "query!"}}, "graphqlErrors": [{"code": 1}]}"#.utf8)
            )
        )
        #expect(refused.status == 400)
        #expect(refused.text.contains("match.graphql: operationType 'query!' is not query, mutation or subscription"))
        #expect(refused.text.contains(#"graphqlErrors: error 1 needs a string \"message\" (GraphQL spec §7.1.2)"#))
    }
}
