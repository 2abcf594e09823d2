import Foundation
import MockdPlatform
import MockdTestSupport
import Testing

@testable import MockdCore

/// Override patterns beyond exact values (regex paths and URLs, query/header operators, body conditions) and
/// per-session state machines, through the engine in process.
struct PatternAndStateTests {
    static func engine(_ overrides: String) throws -> MockEngine {
        try ScenarioEngineTests.engine(#"{"sets": ["base"], "overrides": "# + overrides + "}")
    }

    static func call(
        _ engine: MockEngine,
        _ method: String,
        _ target: String,
        headers: [(String, String)] = [],
        body: String = ""
    ) -> String {
        let response = engine.respond(
            to: HTTPRequest(method: method, target: target, headers: HTTPHeaders(headers), body: Data(body.utf8))
        )
        return "\(response.status) \(response.stubID ?? "-")"
    }

    @Test func pathAndURLPatternsMatchTheWholeValue() throws {
        let engine = try Self.engine(
            #"""
            [{"id": "roles", "match": {"method": "GET", "pathPattern": "/cases/.*/userCaseRoles"}, "status": 201},
             {"id": "exact", "match": {"url": "/todo/items?b=2&a=1"}, "status": 202},
             {"id": "proxy", "match": {"urlPattern": "/proxy/[a-z]+\\?x=[0-9]+"}, "status": 203}]
            """#
        )
        #expect(Self.call(engine, "GET", "/cases/1234/userCaseRoles") == "201 roles")
        #expect(Self.call(engine, "GET", "/x/cases/1/userCaseRoles").hasPrefix("404"))
        #expect(Self.call(engine, "GET", "/cases/1/userCaseRolesX").hasPrefix("404"))
        #expect(Self.call(engine, "POST", "/cases/1/userCaseRoles").hasPrefix("404"))
        #expect(Self.call(engine, "GET", "/todo/items?a=1&b=2") == "202 exact")
        #expect(Self.call(engine, "DELETE", "/todo/items?b=2&a=1") == "202 exact")
        #expect(Self.call(engine, "GET", "/todo/items?a=1&b=2&c=3").hasPrefix("404"))
        #expect(Self.call(engine, "GET", "/todo/items").hasPrefix("404"))
        #expect(Self.call(engine, "GET", "/proxy/abc?x=12") == "203 proxy")
        #expect(Self.call(engine, "GET", "/proxy/abc").hasPrefix("404"))
        #expect(Self.call(engine, "GET", "/proxy/abc?x=12&y=1").hasPrefix("404"))
    }

    @Test func queryAndHeaderOperators() throws {
        let engine = try Self.engine(
            #"""
            [{"id": "plain", "match": {"path": "/user", "query": {"pretty": {"absent": true}}}, "status": 200},
             {"id": "pretty", "match": {"path": "/user", "query": {"pretty": {"equalTo": "true"}}}, "status": 201},
             {"id": "case", "match": {"path": "/q", "query": {"kind": {"equalTo": "ALL", "caseInsensitive": true}}}, "status": 202},
             {"id": "contains", "match": {"path": "/q", "query": {"kind": {"contains": "xyz"}}}, "status": 203},
             {"id": "not-digits", "match": {"path": "/q", "query": {"kind": {"doesNotMatch": "[0-9]+"}, "page": {"absent": false}}}, "status": 204},
             {"id": "bearer", "match": {"path": "/roles", "headers": {"authorization": {"matches": "Bearer .*"}, "Content-Type": "application/json"}}, "status": 205}]
            """#
        )
        #expect(Self.call(engine, "GET", "/user") == "200 plain")
        #expect(Self.call(engine, "GET", "/user?pretty=true") == "201 pretty")
        #expect(Self.call(engine, "GET", "/user?pretty=false").hasPrefix("404"))
        #expect(Self.call(engine, "GET", "/q?kind=all") == "202 case")
        #expect(Self.call(engine, "GET", "/q?kind=axyzb") == "203 contains")
        #expect(Self.call(engine, "GET", "/q?kind=a1&page=2") == "204 not-digits")
        #expect(Self.call(engine, "GET", "/q?kind=12&page=2").hasPrefix("404"))
        #expect(Self.call(engine, "GET", "/q?kind=a1").hasPrefix("404"))
        let json = ("Content-Type", "application/json; charset=utf-8")
        #expect(
            Self.call(engine, "GET", "/roles", headers: [("Authorization", "Bearer abc.def"), json]) == "205 bearer"
        )
        #expect(Self.call(engine, "GET", "/roles", headers: [("Authorization", "Basic abc"), json]).hasPrefix("404"))
        #expect(Self.call(engine, "GET", "/roles", headers: [("Authorization", "xBearer abc"), json]).hasPrefix("404"))
        #expect(Self.call(engine, "GET", "/roles", headers: [json]).hasPrefix("404"))
        let miss = engine.respond(
            to: HTTPRequest(
                method: "GET",
                target: "/roles",
                headers: HTTPHeaders([("Authorization", "Basic abc"), json])
            )
        )
        let nearest = try #require((ScenarioEngineTests.json(miss)["nearMisses"] as? [[String: Any]])?.first)
        #expect(nearest["stub"] as? String == "bearer")
        #expect(
            nearest["differs"] as? [[String: String]] == [
                ["part": "header", "expected": "authorization matches Bearer .*", "actual": "authorization: Basic abc"]
            ]
        )
    }

    @Test func bodyConditionsAllHold() throws {
        let engine = try Self.engine(
            #"""
            [{"id": "bad-request", "match": {"method": "POST", "path": "/api",
               "body": [{"jsonPath": "$.name"}, {"jsonPath": "$['e-mail']"}, {"doesNotMatch": ".*\"cep\".*"}]}, "status": 400},
             {"id": "exact-json", "match": {"method": "PUT", "path": "/api", "body": {"jsonEquals": {"a": 1, "b": [1, 2]}}}, "status": 200},
             {"id": "empty", "match": {"method": "DELETE", "path": "/api", "body": {"absent": true}}, "status": 204},
             {"id": "regex", "match": {"method": "PATCH", "path": "/api", "body": {"matches": "<item>.*</item>"}}, "status": 202}]
            """#
        )
        #expect(Self.call(engine, "POST", "/api", body: #"{"name": "a", "e-mail": "x@y"}"#) == "400 bad-request")
        #expect(
            Self.call(engine, "POST", "/api", body: #"{"name": "a", "e-mail": "x@y", "cep": "1"}"#).hasPrefix("404")
        )
        #expect(Self.call(engine, "POST", "/api", body: #"{"name": null, "e-mail": "x@y"}"#).hasPrefix("404"))
        #expect(Self.call(engine, "POST", "/api", body: #"{"name": [], "e-mail": "x@y"}"#).hasPrefix("404"))
        #expect(Self.call(engine, "POST", "/api", body: #"{"e-mail": "x@y"}"#).hasPrefix("404"))
        #expect(Self.call(engine, "PUT", "/api", body: #"{"b": [1, 2.0], "a": 1.0}"#) == "200 exact-json")
        #expect(Self.call(engine, "PUT", "/api", body: #"{"b": [1, 2], "a": 1, "c": 3}"#).hasPrefix("404"))
        #expect(Self.call(engine, "PUT", "/api", body: #"{"b": [2, 1], "a": 1}"#).hasPrefix("404"))
        #expect(Self.call(engine, "DELETE", "/api") == "204 empty")
        #expect(Self.call(engine, "DELETE", "/api", body: "x").hasPrefix("404"))
        #expect(Self.call(engine, "PATCH", "/api", body: "<item>milk</item>") == "202 regex")
        #expect(Self.call(engine, "PATCH", "/api", body: "<items><item>milk</item></items>").hasPrefix("404"))
    }

    @Test func invalidPatternsAreConfigErrorsWithTheirPath() throws {
        let root = try ScenarioEngineTests.makeRoot([
            "s": #"""
            {"sets": ["base"], "overrides": [
              {"match": {"pathPattern": "/cases/(.*"}, "status": 200},
              {"match": {"urlPattern": "a)(b", "headers": {"Authorization": {"matches": "Bearer [", "contains": "x"}, "X-A": {"matches": "*"}}}, "status": 200},
              {"match": {"query": {"q": {"caseInsensitive": true, "contains": "x"}}, "body": [{"text": "a"}, {"jsonPath": "$..name"}]}, "status": 200},
              {"match": {"body": {"matches": "(", "text": "x"}}, "state": {"name": "m"}, "status": 200}
            ]}
            """#
        ])
        defer { try? FileManager.default.removeItem(at: root.url) }
        #expect {
            try Scenario.load(named: "s", root: root)
        } throws: { error in
            "\(error)" == #"""
                configs/s.json: overrides[0].match.pathPattern: invalid regular expression '/cases/(.*'
                configs/s.json: overrides[1].match.urlPattern: invalid regular expression 'a)(b'
                configs/s.json: overrides[1].match.headers.Authorization: give exactly one of "equalTo", "matches", "doesNotMatch", "contains", "absent"
                configs/s.json: overrides[1].match.headers.X-A: invalid regular expression '*'
                configs/s.json: overrides[2].match.query.q: "caseInsensitive" goes with "equalTo" only
                configs/s.json: overrides[2].match.body[1]: '$..name' is not a simple JSONPath (mockd evaluates $ followed by .name, ['name'] and [index] steps only)
                configs/s.json: overrides[3].match.body: give exactly one of "json", "jsonEquals", "text", "contains", "matches", "doesNotMatch", "jsonPath", "absent"
                configs/s.json: overrides[3].state: give "requires", "next" or both
                """#
        }
    }

    @Test func unknownOperatorIsNamedWithItsPath() throws {
        let root = try ScenarioEngineTests.makeRoot([
            "s":
                #"{"sets": ["base"], "overrides": [{"match": {"query": {"q": {"matchez": "x"}}, "body": [{"jsonpath": "$.a"}]}}]}"#
        ])
        defer { try? FileManager.default.removeItem(at: root.url) }
        #expect {
            try Scenario.load(named: "s", root: root)
        } throws: { error in
            "\(error)" == #"""
                configs/s.json: overrides[0].match.body[0].jsonpath: unknown field (did you mean "jsonPath"?)
                configs/s.json: overrides[0].match.query.q.matchez: unknown field (did you mean "matches"?)
                configs/s.json: overrides[0].match.query.q: give exactly one of "equalTo", "matches", "doesNotMatch", "contains", "absent"
                configs/s.json: overrides[0].match.body[0]: give exactly one of "json", "jsonEquals", "text", "contains", "matches", "doesNotMatch", "jsonPath", "absent"
                """#
        }
    }

    @Test func templatedFalseSendsPlaceholdersLiterally() throws {
        let engine = try Self.engine(
            #"""
            [{"match": {"path": "/literal"}, "body": "{{request.path}} {{uuid}}", "headers": {"X-Path": "{{request.path}}"}, "templated": false},
             {"match": {"path": "/rendered"}, "body": "{{request.path}}"}]
            """#
        )
        let literal = engine.respond(to: HTTPRequest(method: "GET", target: "/literal"))
        #expect(String(decoding: literal.body, as: UTF8.self) == "{{request.path}} {{uuid}}")
        #expect(literal.headers["X-Path"] == "{{request.path}}")
        #expect(
            String(decoding: engine.respond(to: HTTPRequest(method: "GET", target: "/rendered")).body, as: UTF8.self)
                == "/rendered"
        )
    }

    static let todo = #"""
        [{"id": "list-empty", "match": {"method": "GET", "path": "/todo"}, "state": {"name": "todo", "requires": "Started"}, "body": "[]"},
         {"id": "add", "match": {"method": "POST", "path": "/todo"}, "state": {"name": "todo", "requires": "Started", "next": "Added"}, "status": 201, "body": ""},
         {"id": "list-one", "match": {"method": "GET", "path": "/todo"}, "state": {"name": "todo", "requires": "Added"}, "body": "[\"milk\"]"},
         {"id": "clear", "match": {"method": "DELETE", "path": "/todo"}, "state": {"name": "todo", "next": "Started"}, "status": 204, "body": ""}]
        """#

    @Test func stateMachineStepsPerSessionAndResets() throws {
        let engine = try Self.engine(Self.todo)
        func send(_ method: String, session: String? = nil) -> String {
            let headers = session.map { HTTPHeaders([("X-Mockd-Session", $0)]) } ?? HTTPHeaders()
            let response = engine.handle(HTTPRequest(method: method, target: "/todo", headers: headers)).plan.response
            return "\(response.status) \(response.stubID ?? "-") \(String(decoding: response.body, as: UTF8.self))"
        }
        func states(session: String? = nil) -> [String: String]? {
            let target = "/__mockd/scenario" + (session.map { "?session=\($0)" } ?? "")
            let body = engine.handle(HTTPRequest(method: "GET", target: target)).plan.response.body
            return (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["states"] as? [String: String]
        }
        #expect(states() == ["todo": "Started"])
        #expect(send("GET") == "200 list-empty []")
        #expect(send("POST") == "201 add ")
        #expect(states() == ["todo": "Added"])
        #expect(send("GET") == #"200 list-one ["milk"]"#)
        let second = send("POST")
        #expect(second.hasPrefix("404 - "))
        #expect(second.contains(#""expected" : "todo: Started""#) && second.contains(#""actual" : "todo: Added""#))
        #expect(send("GET", session: "other") == "200 list-empty []")
        #expect(states(session: "other") == ["todo": "Started"])
        #expect(send("DELETE") == "204 clear ")
        #expect(send("GET") == "200 list-empty []")
        #expect(send("POST") == "201 add ")
        _ = engine.handle(HTTPRequest(method: "POST", target: "/__mockd/reset"))
        #expect(states() == ["todo": "Started"])
        #expect(send("GET") == "200 list-empty []")
    }

    @Test func concurrentRequestsMakeATransitionOnce() throws {
        let engine = try Self.engine(
            #"""
            [{"id": "fallback", "match": {"path": "/pay"}, "status": 409, "body": "already paid"},
             {"id": "pay", "match": {"path": "/pay"}, "state": {"name": "checkout", "requires": "Started", "next": "Paid"}, "body": "paid"}]
            """#
        )
        for round in 0..<20 {
            let winners = Atomic<Int>(0)
            let losers = Atomic<Int>(0)
            DispatchQueue.concurrentPerform(iterations: 64) { _ in
                let response = engine.respond(to: HTTPRequest(method: "POST", target: "/pay"))
                if response.stubID == "pay" {
                    winners.add(1, ordering: .relaxed)
                } else {
                    losers.add(1, ordering: .relaxed)
                }
            }
            #expect(winners.load(ordering: .relaxed) == 1, "round \(round)")
            #expect(losers.load(ordering: .relaxed) == 63, "round \(round)")
            engine.resetSequences()
        }
    }
}
