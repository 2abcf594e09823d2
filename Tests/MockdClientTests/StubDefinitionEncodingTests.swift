import Foundation
import MockdClient
import Testing

@Suite("StubDefinition and JSONValue encoding: the scenario override format")
struct StubDefinitionEncodingTests {
    private func encoded(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test func minimalStubSendsOnlyItsFields() throws {
        let stub = StubDefinition(method: "GET", path: "/v1/me", status: 200, body: ["name": "x"])
        #expect(try encoded(stub) == #"{"body":{"name":"x"},"match":{"method":"GET","path":"/v1/me"},"status":200}"#)
    }

    @Test func everyFieldUsesTheFormatsKeyNames() throws {
        let stub = StubDefinition(
            id: "all",
            priority: 5,
            match: .init(
                method: "POST",
                path: "/v1/orders/{id}",
                query: ["limit": "20"],
                headers: ["Accept": "application/json"],
                body: .init(json: ["sku": "A-1", "qty": 2])
            ),
            response: .init(
                status: 201,
                headers: ["Cache-Control": "no-store", "ETag": nil],
                addHeaders: ["Set-Cookie: a=1"],
                bodyPatch: ["total": 9.5, "gone": nil],
                latency: .uniform(min: 100, max: 400),
                throttle: .threeG,
                fault: .truncatedBody
            ),
            afterLast: .cycle,
            rateLimit: .init(limit: 2, windowMs: 1000, retryAfter: 3)
        )
        #expect(
            try encoded(stub)
                == #"{"addHeaders":["Set-Cookie: a=1"],"afterLast":"cycle","bodyPatch":{"gone":null,"total":9.5},"#
                + #""fault":"truncatedBody","headers":{"Cache-Control":"no-store","ETag":null},"id":"all","latency":{"max":400,"min":100},"#
                + #""match":{"body":{"json":{"qty":2,"sku":"A-1"}},"headers":{"Accept":"application/json"},"method":"POST","#
                + #""path":"/v1/orders/{id}","query":{"limit":"20"}},"priority":5,"rateLimit":{"limit":2,"retryAfter":3,"windowMs":1000},"#
                + #""status":201,"throttle":{"bytesPerSecond":97500}}"#
        )
    }

    @Test func sequenceStepsAndTheirForms() throws {
        let stub = StubDefinition(
            path: "/v1/x",
            requestBody: .init(contains: "hi"),
            responses: [
                .init(serverUnavailable: .init(retryAfter: 5)), .init(serverUnavailable: .init()), .init(),
                .init(body: "plain", latency: .fixed(300), throttle: .init(bytesPerSecond: 512)),
                .init(latency: .logNormal(median: 800, sigma: 0.5, seed: 7), fault: .connectionReset),
            ],
            afterLast: .notFound
        )
        #expect(
            try encoded(stub)
                == #"{"afterLast":"notFound","match":{"body":{"contains":"hi"},"path":"/v1/x"},"responses":["#
                + #"{"serverUnavailable":{"retryAfter":5}},{"serverUnavailable":{"retryAfter":30}},{},"#
                + #"{"body":"plain","latency":{"fixed":300},"throttle":{"bytesPerSecond":512}},"#
                + #"{"fault":"connectionReset","latency":{"median":800,"seed":7,"sigma":0.5}}]}"#
        )
    }

    @Test func latencyMsConvenienceAndTextBody() throws {
        let stub = StubDefinition(
            id: "t",
            method: "GET",
            path: "/t",
            requestBody: .init(text: "exact"),
            body: "hello",
            latencyMs: 1.5
        )
        #expect(
            try encoded(stub)
                == #"{"body":"hello","id":"t","latency":{"fixed":1.5},"match":{"body":{"text":"exact"},"method":"GET","path":"/t"}}"#
        )
    }

    @Test func graphQLStubsMatchTheOperationAndAnswerDataOrErrors() throws {
        #expect(
            try encoded(StubDefinition.graphQL("GetUser", variables: ["id": "7", "first": 10], data: ["user": nil]))
                == #"{"body":{"data":{"user":null}},"match":{"graphql":{"operationName":"GetUser","variables":{"first":10,"id":"7"}}}}"#
        )
        #expect(
            try encoded(StubDefinition.graphQL(.init(matches: "Send.*"), path: "/graphql", errors: "Rate limited"))
                == #"{"graphqlErrors":"Rate limited","match":{"graphql":{"operationName":{"matches":"Send.*"}},"path":"/graphql"}}"#
        )
        #expect(
            try encoded(
                StubDefinition.graphQL(
                    "Feed",
                    data: ["feed": []],
                    errors: ["late", ["message": "x", "path": ["feed"]]]
                )
            )
                == #"{"body":{"data":{"feed":[]},"errors":[{"message":"late"},{"message":"x","path":["feed"]}]},"match":{"graphql":{"operationName":"Feed"}}}"#
        )
    }

    @Test func jsonValueLiteralsRoundTrip() throws {
        let value: JSONValue = ["a": 1, "b": [true, nil, 2.5, "s"], "c": .object(["d": -3])]
        let text = try encoded(value)
        #expect(text == #"{"a":1,"b":[true,null,2.5,"s"],"c":{"d":-3}}"#)
        let parsed = try JSONValue(parsing: Data(text.utf8))
        #expect(parsed == value)
        #expect(parsed["c"]?["d"]?.intValue == -3)
        #expect(parsed["b"]?[3]?.stringValue == "s")
        #expect(parsed["b"]?[9] == nil)
    }

    @Test func errorDescriptionsCarryTheServerMessage() {
        #expect(
            MockdClientError.server(status: 404, code: "unknown_stub", message: "no stub 'x'").description
                == "mockd 404 unknown_stub: no stub 'x'"
        )
        #expect(
            MockdClientError.verificationFailed(
                message: "expected exactly 2 GET /a, journal has 1",
                expected: 2,
                actual: 1
            )
            .description == "mockd verification failed: expected exactly 2 GET /a, journal has 1"
        )
        #expect(MockdClientError.invalidResponse("not JSON").description == "mockd sent an unexpected answer: not JSON")
        // A harness that logs `localizedDescription` gets the same line.
        let error: any Error = MockdClientError.timedOut("the journal to hold 2 entries")
        #expect(error.localizedDescription == "mockd: timed out: the journal to hold 2 entries")
    }
}
