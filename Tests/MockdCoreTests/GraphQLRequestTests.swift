import Foundation
import MockdFormat
import Testing

@testable import MockdCore

/// GraphQL requests as mockd keys them, in process: the operation's name and variables, never the body's text.
struct GraphQLRequestTests {
    static func operation(
        _ method: String,
        _ target: String,
        body: String = "",
        contentType: String? = "application/json"
    )
        -> GraphQLOperation?
    {
        let request = HTTPRequest(
            method: method,
            target: target,
            headers: HTTPHeaders(contentType.map { [("Content-Type", $0)] } ?? []),
            body: Data(body.utf8)
        )
        return GraphQLRequest.operations(of: request)?.first
    }

    /// A JSON body that spells no member an operation needs is not GraphQL, read without parsing it; one that spells
    /// `query` only through an escape still is.
    @Test func onlyABodyThatCanNameAnOperationIsParsed() throws {
        #expect(!GraphQLRequest.mayNameAnOperation(Data(#"{"email": "a@b.c", "items": [{"quer": 1}]}"#.utf8)))
        #expect(Self.operation("POST", "/graphql", body: #"{"email": "a@b.c"}"#) == nil)
        for spelt in ["query", "extensions", "documentId", "doc_id"] {
            #expect(GraphQLRequest.mayNameAnOperation(Data(#"{"\#(spelt)": 1}"#.utf8)))
        }
        let escaped = try #require(
            Self.operation("POST", "/graphql", body: #"{"\u0071uery": "query Me { me { id } }"}"#)
        )
        #expect(escaped.operationName == "Me")
    }

    @Test func theKeyIsTheOperationAndItsVariables() throws {
        let apollo = try #require(
            Self.operation(
                "POST",
                "/graphql",
                body:
                    #"{"operationName":"GetUser","query":"query GetUser($id: ID!) { user(id: $id) { id name } }","variables":{"id":"7","withAvatar":true,"after":null}}"#
            )
        )
        #expect(apollo.key == #"GetUser {"id":"7","withAvatar":true}"#)
        #expect(apollo.label == "query GetUser")
        #expect(apollo.document == "query GetUser($id:ID!){user(id:$id){id name}}")
        // Reordered variables, other whitespace, a changed document: the same key.
        let reordered = try #require(
            Self.operation(
                "POST",
                "/graphql",
                body: """
                    {"variables": {"withAvatar": true, "id": "7"},
                     "query": "query GetUser($id: ID!) {\\n  user(id: $id) {\\n    id\\n    name\\n    avatar\\n  }\\n}"}
                    """
            )
        )
        #expect(reordered.key == apollo.key)
        // A persisted-query GET (Apollo's APQ), parameters in any order, the document left out.
        let persisted = try #require(
            Self.operation(
                "GET",
                "/graphql?variables=%7B%22withAvatar%22%3Atrue%2C%22id%22%3A%227%22%7D&operationName=GetUser&extensions=%7B%22persistedQuery%22%3A%7B%22version%22%3A1%2C%22sha256Hash%22%3A%22ecf4%22%7D%7D",
                contentType: nil
            )
        )
        #expect(persisted.key == apollo.key)
        #expect(persisted.persistedQuery == "ecf4")
        #expect(persisted.operationType == nil)
        // Numbers by value; `variables: {}`, `null` and none alike.
        #expect(
            Self.operation("POST", "/g", body: #"{"query":"query Q { a }","variables":{"n":1.50}}"#)?.key
                == #"Q {"n":1.5}"#
        )
        #expect(Self.operation("POST", "/g", body: #"{"query":"{ a }","variables":null}"#)?.key == "{{a}} {}")
        #expect(
            Self.operation("POST", "/g", body: "{ me { id } }", contentType: "application/graphql")?.key
                == "{{me{id}}} {}"
        )
        // Not GraphQL: no document, no persisted query.
        #expect(Self.operation("POST", "/g", body: #"{"variables":{"a":1}}"#) == nil)
        #expect(Self.operation("GET", "/g?q=1", contentType: nil) == nil)
        #expect(Self.operation("POST", "/g", body: #"{"query":"query Q { a }","variables":[1]}"#) == nil)
    }

    @Test func documentsNameTheirOperations() {
        func operations(_ text: String) -> [String] {
            GraphQLDocument(text).operations.map { "\($0.type) \($0.name ?? "-")" }
        }
        #expect(operations("query A { a } mutation B($x: Int) { b(x: $x) }") == ["query A", "mutation B"])
        #expect(operations("{ a } fragment F on T { b }") == ["query -"])
        #expect(
            operations("# query Commented\nsubscription OnMessage { m(text: \"query X {\") }") == [
                "subscription OnMessage"
            ]
        )
        #expect(operations("query @live { a }") == ["query -"])
        #expect(operations(#"query Q { a(t: """block "quoted" query Z {""") }"#) == ["query Q"])
    }

    /// An anonymous query is keyed by its document: the shorthand and `query { … }`, commas, line breaks and
    /// comments are one document (GraphQL spec §2.1, §2.3) — as CNN's recorded weather query (corpus,
    /// haralyzer__cnn-chrome) replays written out by another client.
    @Test func anonymousDocumentsWrittenDifferentlyAreOne() throws {
        let recorded = GraphQLDocument(
            #"{wsiForecast(locCode:"UKXX0085",celcius:"true"){currentConditions{temperature,description,icon},location{city,stateOrCountry}}}"#
        )
        let written = GraphQLDocument(
            """
            query {
              # the weather box
              wsiForecast(locCode: "UKXX0085" celcius: "true") {
                currentConditions { temperature description icon }
                location { city stateOrCountry }
              }
            }
            """
        )
        #expect(written.normalized == recorded.normalized)
        #expect(
            recorded.normalized
                == #"{wsiForecast(locCode:"UKXX0085"celcius:"true"){currentConditions{temperature description icon}location{city stateOrCountry}}}"#
        )
        #expect(written.operations == [GraphQLDocument.Operation(type: "query", name: nil)])
        // A named query keeps its keyword and name; `query($x: Int) { … }` is not the shorthand.
        #expect(GraphQLDocument("query Q { a }").normalized == "query Q{a}")
        #expect(GraphQLDocument("query($x: Int) { a(x: $x) }").normalized == "query($x:Int){a(x:$x)}")
        // Two anonymous documents that differ: the near miss shows both.
        let stub = try GraphQLOperation(entry: GraphQLEntry(document: #"{a(x:"1")}"#))
        let request = try #require(Self.operation("GET", "/graphql?query=%7Ba(x%3A%222%22)%7D"))
        #expect(
            stub.differences(from: request).map { "\($0.expected) | \($0.actual)" } == [
                #"query (anonymous): document {a(x:"1")} | document {a(x:"2")}"#
            ]
        )
    }

    @Test func variablesDifferencesNameThePath() throws {
        let stub = try GraphQLOperation(
            entry: GraphQLEntry(
                operationName: "GetUser",
                operationType: "query",
                variables: .object(["id": .int(7), "filter": .object(["kind": .string("a")])])
            )
        )
        let request = try #require(
            Self.operation(
                "POST",
                "/graphql",
                body: #"{"query":"query GetUser { a }","variables":{"id":8,"filter":{"kind":"a"}}}"#
            )
        )
        #expect(
            stub.differences(from: request).map { "\($0.expected) | \($0.actual)" } == [
                "query GetUser: variables.id = 7 | variables.id = 8"
            ]
        )
        let other = try #require(Self.operation("POST", "/graphql", body: #"{"query":"query GetUsers { a }"}"#))
        #expect(
            stub.differences(from: other).map { "\($0.expected) | \($0.actual)" } == ["query GetUser | query GetUsers"]
        )
    }
}
