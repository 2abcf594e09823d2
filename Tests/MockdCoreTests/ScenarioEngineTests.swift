import Foundation
import MockdFormat
import MockdPlatform
import MockdTestSupport
import Testing

@testable import MockdCore

/// Scenario files through the engine, in process: overrides, priorities, edits, sequences, placeholders.
struct ScenarioEngineTests {
    /// A root with set `base` (three stubs) and the given scenario files.
    static func makeRoot(_ configs: [String: String]) throws -> MockdRoot {
        let url = Paths.makeTemporaryDirectory()
        let files: [String: String] = [
            "mocks/base/index.json": #"""
            {"stubs": [
              {"id": "order", "request": {"method": "GET", "path": "/v1/orders/4521"},
               "responses": [{"headers": ["Content-Type: application/json", "ETag: \"v7\"", "X-Trace: abc"], "bodyFile": "bodies/order.json", "recordedTimeMs": 120}]},
              {"id": "poll", "request": {"method": "GET", "path": "/poll"}, "responses": [{"body": "one"}, {"body": "two"}]},
              {"id": "avatar", "request": {"method": "GET", "path": "/avatar.png"}, "responses": [{"headers": ["Content-Type: image/png"], "body": "PNG"}]}
            ]}
            """#,
            "mocks/base/bodies/order.json":
                "{\n  \"id\": \"4521\",\n  \"status\": \"shipped\",\n  \"items\": [1, 2],\n  \"note\": \"keep\"\n}\n",
        ]
        for (path, text) in files.merging(
            configs.map { ("configs/\($0.key).json", $0.value) },
            uniquingKeysWith: { $1 }
        ) {
            let file = url.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try text.write(to: file, atomically: true, encoding: .utf8)
        }
        return MockdRoot(url: url)
    }

    static func engine(
        _ scenario: String,
        clock: @escaping @Sendable () -> Double = MonotonicClock.milliseconds
    ) throws -> MockEngine {
        let root = try makeRoot(["s": scenario])
        defer { try? FileManager.default.removeItem(at: root.url) }
        // The root goes when this returns, so body files are read now rather than on first use.
        return MockEngine(scenario: try Scenario.load(named: "s", root: root, defersBodies: false), clock: clock)
    }

    static func get(
        _ target: String,
        headers: [(String, String)] = [],
        method: String = "GET",
        body: String = ""
    ) -> HTTPRequest {
        HTTPRequest(method: method, target: target, headers: HTTPHeaders(headers), body: Data(body.utf8))
    }

    static func json(_ response: MockResponse) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]) ?? [:]
    }

    @Test func highestPriorityWinsAndTiesGoToTheLaterOverride() throws {
        let engine = try Self.engine(
            #"""
            {"sets": ["base"], "overrides": [
              {"id": "low", "match": {"path": "/v1/orders/{id}"}, "status": 500},
              {"id": "high", "priority": 5, "match": {"path": "/v1/orders/{id}"}, "status": 502},
              {"id": "tie-first", "priority": 1, "match": {"path": "/poll"}, "status": 401},
              {"id": "tie-later", "priority": 1, "match": {"path": "/poll"}, "status": 403}
            ]}
            """#
        )
        let order = engine.respond(to: Self.get("/v1/orders/4521"))
        #expect(order.status == 502)
        #expect(order.stubID == "high")
        #expect(engine.respond(to: Self.get("/poll")).stubID == "tie-later")
        #expect(engine.respond(to: Self.get("/poll")).status == 403)
    }

    @Test func overrideWithoutBodyEditsTheStubResponse() throws {
        let engine = try Self.engine(
            #"""
            {"sets": ["base"], "overrides": [
              {"match": {"method": "GET", "path": "/v1/orders/{id}"}, "status": 200,
               "headers": {"X-Trace": null, "Cache-Control": "no-store"}, "addHeaders": ["Set-Cookie: a=1", "Set-Cookie: b=2"],
               "bodyPatch": {"status": "delivered", "note": null, "items": [3], "extra": {"k": true}}}
            ]}
            """#
        )
        let response = engine.respond(to: Self.get("/v1/orders/4521"))
        #expect(
            String(decoding: response.body, as: UTF8.self) == """
                {
                  "extra" : {
                    "k" : true
                  },
                  "id" : "4521",
                  "items" : [
                    3
                  ],
                  "status" : "delivered"
                }

                """
        )
        #expect(
            response.headers.fields.map(\.name) == [
                "Content-Type", "ETag", "Cache-Control", "Set-Cookie", "Set-Cookie",
            ]
        )
        #expect(response.headers.values(named: "set-cookie") == ["a=1", "b=2"])
    }

    @Test func mergePatchFollowsRFC7386Examples() throws {
        // RFC 7386 Appendix A, a selection.
        let cases: [(String, String, String)] = [
            (#"{"a":"b"}"#, #"{"a":"c"}"#, #"{"a":"c"}"#),
            (#"{"a":"b"}"#, #"{"b":"c"}"#, #"{"a":"b","b":"c"}"#),
            (#"{"a":"b"}"#, #"{"a":null}"#, #"{}"#),
            (#"{"a":["b"]}"#, #"{"a":"c"}"#, #"{"a":"c"}"#),
            (#"{"a":{"b":"c"}}"#, #"{"a":{"b":"d","c":null}}"#, #"{"a":{"b":"d"}}"#),
            (#"["a","b"]"#, #"{"a":"b","c":null}"#, #"{"a":"b"}"#),
            (#"{"e":null}"#, #"{"a":1}"#, #"{"a":1,"e":null}"#),
        ]
        for (target, patch, expected) in cases {
            let decode = { (text: String) in try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) }
            let result = MergePatch.apply(try decode(patch), to: try decode(target))
            #expect(result == (try decode(expected)), "\(target) + \(patch)")
        }
    }

    @Test func responsesFormASequenceWithExhaustionPolicy() throws {
        let engine = try Self.engine(
            #"""
            {"sets": ["base"], "overrides": [
              {"id": "flaky", "match": {"path": "/v1/orders/4521"}, "afterLast": "notFound",
               "responses": [{"serverUnavailable": true}, {"serverUnavailable": {"retryAfter": 120}}, {}]}
            ]}
            """#
        )
        let first = engine.respond(to: Self.get("/v1/orders/4521"))
        #expect(first.status == 503)
        #expect(first.headers["Retry-After"] == "30")
        #expect(Self.json(first)["error"] as? String == "service_unavailable")
        #expect(engine.respond(to: Self.get("/v1/orders/4521")).headers["Retry-After"] == "120")
        let third = engine.respond(to: Self.get("/v1/orders/4521"))
        #expect(third.status == 200)
        #expect(Self.json(third)["status"] as? String == "shipped")
        #expect(engine.respond(to: Self.get("/v1/orders/4521")).status == 404)
        engine.resetSequences()
        #expect(engine.respond(to: Self.get("/v1/orders/4521")).status == 503)
    }

    @Test func rateLimitAnswers429UntilTheWindowEndsAndResetsWithSequences() throws {
        let now = Mutex(0.0)
        let engine = try Self.engine(
            #"{"sets": ["base"], "overrides": [{"id": "limited", "match": {"path": "/avatar.png"}, "rateLimit": {"limit": 2, "windowMs": 10000}}]}"#,
            clock: { now.withLock { $0 } }
        )
        #expect(engine.respond(to: Self.get("/avatar.png")).status == 200)
        now.withLock { $0 = 4000 }
        #expect(engine.respond(to: Self.get("/avatar.png")).status == 200)
        let limited = engine.respond(to: Self.get("/avatar.png"))
        #expect(limited.status == 429)
        #expect(limited.headers["Retry-After"] == "6")
        #expect(Self.json(limited)["error"] as? String == "rate_limited")
        now.withLock { $0 = 10_000 }
        #expect(engine.respond(to: Self.get("/avatar.png")).status == 200)
        #expect(engine.respond(to: Self.get("/avatar.png")).status == 200)
        #expect(engine.respond(to: Self.get("/avatar.png")).status == 429)
        engine.resetSequences()
        #expect(engine.respond(to: Self.get("/avatar.png")).status == 200)
    }

    @Test func conditionalRequestsAnswer304WhenEnabled() throws {
        let enabled = try Self.engine(#"{"sets": ["base"], "conditionalRequests": true}"#)
        let notModified = enabled.respond(
            to: Self.get("/v1/orders/4521", headers: [("If-None-Match", "W/\"v7\", \"other\"")])
        )
        #expect(notModified.status == 304)
        #expect(notModified.body.isEmpty)
        #expect(notModified.headers.fields.map(\.name) == ["ETag"])
        #expect(enabled.respond(to: Self.get("/v1/orders/4521", headers: [("If-None-Match", "\"v6\"")])).status == 200)
        let disabled = try Self.engine(#"{"sets": ["base"]}"#)
        #expect(disabled.respond(to: Self.get("/v1/orders/4521", headers: [("If-None-Match", "\"v7\"")])).status == 200)
    }

    @Test func matchOnQueryHeadersAndJSONBodySubset() throws {
        let engine = try Self.engine(
            #"""
            {"sets": ["base"], "overrides": [
              {"id": "vip", "match": {"method": "POST", "path": "/checkout", "query": {"coupon": "a b"}, "headers": {"x-client": "ios"},
                                       "body": {"json": {"cart": {"total": 10}}}},
               "status": 201, "body": {"ok": true}}
            ]}
            """#
        )
        let hit = engine.respond(
            to: Self.get(
                "/checkout?x=1&coupon=a+b",
                headers: [("X-Client", "ios")],
                method: "POST",
                body: #"{"cart": {"total": 10.0, "items": 3}, "u": 1}"#
            )
        )
        #expect(hit.status == 201)
        #expect(hit.headers["Content-Type"] == "application/json; charset=utf-8")
        #expect(String(decoding: hit.body, as: UTF8.self) == #"{"ok":true}"#)
        let miss = engine.respond(
            to: Self.get(
                "/checkout?coupon=a+b",
                headers: [("X-Client", "ios")],
                method: "POST",
                body: #"{"cart": {"total": 11}}"#
            )
        )
        #expect(miss.status == 404)
        let nearest = try #require((Self.json(miss)["nearMisses"] as? [[String: Any]])?.first)
        #expect(nearest["stub"] as? String == "vip")
        #expect(nearest["priority"] as? Int == 0)
        #expect((nearest["differs"] as? [[String: String]])?.first?["part"] == "body")
    }

    @Test func placeholdersRenderAtServeTime() throws {
        let engine = try Self.engine(
            #"""
            {"sets": ["base"], "overrides": [
              {"id": "echo", "match": {"path": "/echo/{id}"},
               "headers": {"X-Request-Path": "{{request.path}}"},
               "body": {"path": "{{request.path}}", "q": "{{request.query.q}}", "h": "{{request.header.X-Device}}",
                        "name": "{{request.json.user.names[1]}}", "n": "{{counter}}", "token": "{{token}}", "email": "{{email}}",
                        "id": "{{uuid}}", "at": "{{now}}", "date": "{{now.http}}"}}
            ]}
            """#
        )
        let request = Self.get(
            "/echo/7?q=a+b%21",
            headers: [("X-Device", "iPhone")],
            method: "POST",
            body: #"{"user": {"names": ["A", "Zoë"]}}"#
        )
        let first = Self.json(engine.respond(to: request))
        #expect(first["path"] as? String == "/echo/7")
        #expect(first["q"] as? String == "a b!")
        #expect(first["h"] as? String == "iPhone")
        #expect(first["name"] as? String == "Zoë")
        #expect(first["n"] as? Int == 1)
        #expect(first["token"] as? String == "mockd-token-0000000000000000")
        #expect(first["email"] as? String == "user@example.com")
        #expect(
            (first["id"] as? String)?.wholeMatch(of: /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/)
                != nil
        )
        #expect((first["at"] as? String)?.wholeMatch(of: /20\d\d-\d\d-\d\dT\d\d:\d\d:\d\dZ/) != nil)
        #expect(
            (first["date"] as? String)?.wholeMatch(
                of:
                    /(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) 20\d\d \d\d:\d\d:\d\d GMT/
            ) != nil
        )
        #expect(engine.respond(to: request).headers["X-Request-Path"] == "/echo/7")
        #expect(Self.json(engine.respond(to: request))["n"] as? Int == 3)
    }

    @Test func dateFormatsAreExact() {
        let date = Date(timeIntervalSince1970: 1_795_636_800)  // 2026-11-25T20:00:00Z, a Wednesday
        #expect(DateFormats.rfc3339(date) == "2026-11-25T20:00:00Z")
        #expect(DateFormats.imfFixdate(date) == "Wed, 25 Nov 2026 20:00:00 GMT")
    }

    @Test func unknownPlaceholdersAreRefusedWhereTheyLoad() throws {
        // An override's body, and a mock set's: the file, the JSON path and the placeholder, never sent as written.
        let root = try Self.makeRoot([
            "s": #"{"sets": ["base"], "overrides": [{"match": {"path": "/x"}, "body": {"a": "{{ nope }}"}}]}"#
        ])
        defer { try? FileManager.default.removeItem(at: root.url) }
        #expect(throws: ConfigErrors.self) { try Scenario.load(named: "s", root: root) }
        do {
            _ = try Scenario.load(named: "s", root: root)
        } catch let errors as ConfigErrors {
            #expect(
                errors.errors.map(\.description) == [
                    #"configs/s.json: overrides[0].body: line 1: {{nope}}: unknown helper 'nope' (did you mean 'now'?) (docs/FORMAT.md lists the placeholders; "templated": false sends {{…}} as written)"#
                ]
            )
        }
        let set = root.url.appendingPathComponent("mocks/base/index.json")
        try
            #"{"stubs": [{"id": "a", "request": {"method": "GET", "path": "/a"}, "responses": [{"headers": ["X-At: {{now.htp}}"], "body": "x"}]}]}"#
            .write(to: set, atomically: true, encoding: .utf8)
        #expect(throws: ConfigError.self) { try MockSetLoader(root: root).load(set: "base") }
        do {
            _ = try MockSetLoader(root: root).load(set: "base")
        } catch let error as ConfigError {
            #expect(
                error.description
                    == #"mocks/base/index.json: stubs[0].responses[0].headers: line 1: {{now.htp}}: unknown helper 'now.htp' (did you mean 'now.http'?) (docs/FORMAT.md lists the placeholders; "templated": false sends {{…}} as written)"#
            )
        }
        // `templated: false` sends it as written.
        try
            #"{"stubs": [{"id": "a", "request": {"method": "GET", "path": "/a"}, "responses": [{"templated": false, "body": "{{nope}}"}]}]}"#
            .write(to: set, atomically: true, encoding: .utf8)
        let stubs = try MockSetLoader(root: root).load(set: "base")
        #expect(String(decoding: stubs[0].firstResponse.body, as: UTF8.self) == "{{nope}}")
    }

    @Test func plainBodiesCarryNoTemplate() {
        #expect(MockResponse(status: 200, body: Data("{\"a\": \"{ not a placeholder }\"}".utf8)).template == nil)
        #expect(MockResponse(status: 200, body: Data("{{token}}".utf8)).template != nil)
        #expect(MockResponse(status: 200, headers: HTTPHeaders([("X-Id", "{{uuid}}")])).template != nil)
    }

    @Test func latencyModels() throws {
        #expect(LatencyModel(.fixed(250)).delay(call: 0, recordedTimeMs: nil) == 250)
        #expect(LatencyModel(.recorded(factor: 0.5)).delay(call: 3, recordedTimeMs: 120) == 60)
        let uniform = LatencyModel(.uniform(min: 100, max: 200, seed: 1))
        for call in 0..<200 { #expect((100...200).contains(uniform.delay(call: call, recordedTimeMs: nil))) }
        let seeded = LatencyModel(.logNormal(median: 1000, sigma: 0.5, seed: 42))
        let first = (0..<1000).map { seeded.delay(call: $0, recordedTimeMs: nil) }
        #expect(first == (0..<1000).map { seeded.delay(call: $0, recordedTimeMs: nil) })
        let median = first.sorted()[500]
        #expect(median > 900 && median < 1100)
        let other = LatencyModel(.logNormal(median: 1000, sigma: 0.5, seed: 43))
        #expect(first != (0..<1000).map { other.delay(call: $0, recordedTimeMs: nil) })
    }

    @Test func planCarriesLatencyThrottleAndFault() throws {
        let engine = try Self.engine(
            #"""
            {"sets": ["base"], "defaults": {"latency": 40},
             "overrides": [
               {"match": {"path": "/avatar.png"}, "throttle": "3g"},
               {"match": {"path": "/poll"}, "latency": {"recorded": 2}, "fault": "truncatedBody"},
               {"match": {"path": "/v1/orders/4521"}, "latency": {"recorded": 2}}
             ]}
            """#
        )
        let avatar = engine.plan(Self.get("/avatar.png"))
        #expect(avatar.throttleBytesPerSecond == 97_500)
        #expect(avatar.delayMs == 40)
        let poll = engine.plan(Self.get("/poll"))
        #expect(poll.fault == .truncatedBody)
        #expect(engine.plan(Self.get("/v1/orders/4521")).delayMs == 240)
    }

    @Test func includeExtendsAnotherScenario() throws {
        let root = try Self.makeRoot([
            "base":
                #"{"description": "base", "sets": ["base"], "conditionalRequests": true, "overrides": [{"id": "a", "match": {"path": "/poll"}, "status": 418}]}"#,
            "child": #"{"include": ["base"], "overrides": [{"id": "b", "match": {"path": "/poll"}, "status": 451}]}"#,
            "loop1": #"{"include": ["loop2"], "sets": ["base"]}"#,
            "loop2": #"{"include": ["loop1"]}"#,
        ])
        defer { try? FileManager.default.removeItem(at: root.url) }
        let child = try Scenario.load(named: "child", root: root)
        #expect(child.sets == ["base"])
        #expect(child.conditionalRequests)
        #expect(child.description == "base")
        #expect(MockEngine(scenario: child).respond(to: Self.get("/poll")).status == 451)
        #expect {
            try Scenario.load(named: "loop1", root: root)
        } throws: { error in
            "\(error)"
                == "configs/loop1.json: include: include cycle: configs/loop1.json → configs/loop2.json → configs/loop1.json"
        }
    }

    /// A missing set is named where the scenario that names it does, through `include` too: that line is the one to
    /// fix (or the set to import).
    @Test func aMissingSetIsNamedAtTheScenarioLineThatNamesIt() throws {
        let root = try Self.makeRoot([
            "parent": #"{"sets": ["base"]}"#,
            "child": #"{"include": ["parent", "other"], "sets": ["extra", "base"]}"#,
            "other": #"{"sets": ["gone"]}"#,
        ])
        defer { try? FileManager.default.removeItem(at: root.url) }
        #expect {
            try Scenario.load(named: "child", root: root)
        } throws: { error in
            "\(error)" == """
                configs/other.json: sets[0]: mock set 'gone' not found: no mocks/gone/index.json (create it with `mockd import-har FILE --set gone`)
                configs/child.json: sets[0]: mock set 'extra' not found: no mocks/extra/index.json (create it with `mockd import-har FILE --set extra`)
                """
        }
    }

    @Test func everyProblemIsReportedWithFileAndJSONPath() throws {
        let root = try Self.makeRoot([
            "broken": #"""
            {"sets": ["base", "missing"], "defaults": {"latency": -5},
             "overrides": [
               {"match": {"path": "orders"}, "status": 42},
               {"match": {"method": "G T", "body": {"json": 1, "text": "x"}}, "responses": []},
               {"match": {}, "bodyFile": "../../etc/passwd", "bodyPatch": [1], "addHeaders": ["nocolon"]}
             ]}
            """#
        ])
        defer { try? FileManager.default.removeItem(at: root.url) }
        #expect {
            try Scenario.load(named: "broken", root: root)
        } throws: { error in
            "\(error)" == """
                configs/broken.json: sets[1]: mock set 'missing' not found: no mocks/missing/index.json (create it with `mockd import-har FILE --set missing`)
                configs/broken.json: defaults.latency: must be within 0–3600000 ms
                configs/broken.json: overrides[0].match.path: must start with '/' (got 'orders')
                configs/broken.json: overrides[0].status: 42 is not an HTTP status code (100–999)
                configs/broken.json: overrides[1].match.method: 'G T' is not an HTTP method token
                configs/broken.json: overrides[1].match.body: give exactly one of "json", "jsonEquals", "text", "contains", "matches", "doesNotMatch", "jsonPath", "absent"
                configs/broken.json: overrides[1].responses: needs at least one response
                configs/broken.json: overrides[2].addHeaders[0]: expected "Name: value" without CR, LF or NUL, got 'nocolon'
                configs/broken.json: overrides[2].bodyFile: '../../etc/passwd' has a '..' component; body files must stay inside the mocks/ folder
                configs/broken.json: overrides[2].bodyPatch: must be a JSON object (RFC 7386 merge patch)
                """
        }
    }

    @Test(arguments: [
        (
            #"{"sets": ["base"], "overrides": [{"match": {"path": "/x"}, "latency": "soon"}]}"#,
            #"configs/s.json: overrides[0].latency: expected a number of ms, "recorded" or an object, got "soon""#
        ),
        (
            #"{"sets": ["base"], "overrides": [{"match": {"path": "/x"}, "throttle": "5g"}]}"#,
            #"configs/s.json: overrides[0].throttle: unknown throttle profile "5g" (known: 3g, edge, lte)"#
        ),
        (
            #"{"sets": ["base"], "overrides": [{"match": {"path": "/x"}, "fault": "explode"}]}"#,
            "configs/s.json: overrides[0].fault: Cannot initialize Fault from invalid String value explode"
        ),
        (
            #"{"sets": ["base"], "overrides": [{"path": "/x"}]}"#,
            "configs/s.json: overrides[0].match: required field is missing"
        ),
        (
            #"{"sets": ["base"], "overrides": [{"match": {"path": "/x"}, "rateLimit": {"limit": 1, "key": "phone"}}]}"#,
            "configs/s.json: overrides[0].rateLimit.key: 'phone' is not a request expression (request.json.PATH, request.header.NAME, request.query.NAME, request.method, request.path, request.body)"
        ),
        (
            #"{"sets": ["base"], "overrides": [{"match": {"path": "/x"}, "status": 503, "chance": 1.5}]}"#,
            "configs/s.json: overrides[0].chance: must be a share of calls from 0 to 1, got 1.5"
        ),
        (
            #"{"version": 2, "sets": ["base"]}"#,
            "configs/s.json: version: version 2 is newer than this mockd supports (up to 1)"
        ),
    ])
    func malformedValuesNameTheirPath(_ scenario: String, _ expected: String) throws {
        let root = try Self.makeRoot(["s": scenario])
        defer { try? FileManager.default.removeItem(at: root.url) }
        #expect { try Scenario.load(named: "s", root: root) } throws: { "\($0)" == expected }
    }
}

/// Plain static stubs are answered by the stub itself (`EngineOutcome.servedStub`): no response copy per request,
/// yet the same plan and the same journal entry as a planned answer.
struct StubServedAsLoadedTests {
    @Test func onlyPlainStaticStubsAreServedAsLoadedAndTheirJournalEntriesAreWhole() throws {
        let engine = try ScenarioEngineTests.engine(#"{"sets": ["base"]}"#)
        let order = engine.handle(ScenarioEngineTests.get("/v1/orders/4521"))
        let stub = try #require(order.servedStub)
        #expect(stub.id == "order")
        // Read through the plan, the answer is the stub's response with its native-response slot.
        #expect(order.plan.response.status == 200)
        #expect(order.plan.response.stubID == "order")
        #expect(order.plan.response.headers["etag"] == "\"v7\"")
        #expect(order.plan.response.body == stub.firstResponse.body)
        #expect(order.plan.nativeSlot === stub)
        #expect(order.plan.delayMs == 0 && order.plan.fault == nil && order.plan.holdMs == nil)
        #expect(!order.isUnmatched)
        engine.journal(order, durationMs: 1.5)
        // A HEAD is answered by the GET stub, as loaded too.
        let head = engine.handle(ScenarioEngineTests.get("/avatar.png", method: "HEAD"))
        #expect(head.servedStub?.id == "avatar")
        engine.journal(head, durationMs: 0.5)
        // A sequence is not static; an unmatched request has no stub.
        let poll = engine.handle(ScenarioEngineTests.get("/poll"))
        #expect(poll.servedStub == nil)
        #expect(String(decoding: poll.plan.response.body, as: UTF8.self) == "one")
        let miss = engine.handle(ScenarioEngineTests.get("/nothing"))
        #expect(miss.servedStub == nil)
        #expect(miss.isUnmatched)

        let (entries, dropped) = engine.sessions.defaultSession.journal.snapshot()
        #expect(dropped == 0)
        #expect(entries.map(\.sequence) == [1, 2])
        #expect(entries.map(\.method) == ["GET", "HEAD"])
        #expect(entries.map(\.target) == ["/v1/orders/4521", "/avatar.png"])
        #expect(entries.map(\.stubID) == ["order", "avatar"])
        #expect(entries.map(\.status) == [200, 200])
        #expect(entries.map(\.durationMs) == [1.5, 0.5])
        #expect(entries[0].response.headers.fields.map(\.name) == ["Content-Type", "ETag", "X-Trace"])
        #expect(String(decoding: entries[0].response.body, as: UTF8.self).hasPrefix("{\n  \"id\": \"4521\""))
        #expect(String(decoding: entries[1].response.body, as: UTF8.self) == "PNG")
    }

    @Test func overridesDefaultsConditionalsAndRuntimeStubsTurnItOff() throws {
        for scenario in [
            #"{"sets": ["base"], "overrides": [{"id": "o", "match": {"path": "/elsewhere"}, "status": 500}]}"#,
            #"{"sets": ["base"], "defaults": {"latency": 5}}"#,
            #"{"sets": ["base"], "conditionalRequests": true}"#,
        ] {
            let engine = try ScenarioEngineTests.engine(scenario)
            let order = engine.handle(ScenarioEngineTests.get("/v1/orders/4521"))
            #expect(order.servedStub == nil, "\(scenario)")
            #expect(order.plan.response.stubID == "order", "\(scenario)")
        }
        let engine = try ScenarioEngineTests.engine(#"{"sets": ["base"]}"#)
        #expect(engine.handle(ScenarioEngineTests.get("/avatar.png")).servedStub != nil)
        let added = engine.handle(
            ScenarioEngineTests.get(
                "/__mockd/stubs",
                method: "POST",
                body: #"{"id": "late", "match": {"path": "/elsewhere"}, "status": 204}"#
            )
        )
        #expect(added.plan.response.status == 201)
        let avatar = engine.handle(ScenarioEngineTests.get("/avatar.png"))
        #expect(avatar.servedStub == nil)
        #expect(avatar.plan.response.stubID == "avatar")
        #expect(String(decoding: avatar.plan.response.body, as: UTF8.self) == "PNG")
    }

    /// A root with the base set, an "other" set whose avatar differs, and scenarios "s" (base) and "other".
    static func twoScenarioRoot() throws -> MockdRoot {
        let root = try ScenarioEngineTests.makeRoot(["s": #"{"sets": ["base"]}"#, "other": #"{"sets": ["other"]}"#])
        let index = root.url.appendingPathComponent("mocks/other/index.json")
        try FileManager.default.createDirectory(
            at: index.deletingLastPathComponent(),
            withIntermediateDirectories: true
        )
        try
            #"{"stubs": [{"id": "avatar2", "request": {"method": "GET", "path": "/avatar.png"}, "responses": [{"body": "GIF"}]}]}"#
            .write(to: index, atomically: true, encoding: .utf8)
        return root
    }

    static func body(_ outcome: EngineOutcome) -> String {
        String(decoding: outcome.plan.response.body, as: UTF8.self)
    }

    /// Each thread keeps the session's scenario it read last (`ScenarioCache`); every change to the scenario or
    /// the runtime stubs must reach the very next request on the same thread.
    @Test func theNextRequestOnTheSameThreadSeesEveryChange() throws {
        let root = try Self.twoScenarioRoot()
        defer { try? FileManager.default.removeItem(at: root.url) }
        let engine = MockEngine(scenario: try Scenario.load(named: "s", root: root), root: root)
        func avatar() -> EngineOutcome { engine.handle(ScenarioEngineTests.get("/avatar.png")) }
        func control(_ method: String, _ path: String, _ body: String = "") -> Int {
            engine.handle(ScenarioEngineTests.get(path, method: method, body: body)).plan.response.status
        }
        #expect(avatar().servedStub?.id == "avatar")
        #expect(
            control("POST", "/__mockd/stubs", #"{"id": "teapot", "match": {"path": "/avatar.png"}, "status": 418}"#)
                == 201
        )
        #expect(avatar().plan.response.status == 418)
        #expect(control("DELETE", "/__mockd/stubs/teapot") == 204)
        #expect(avatar().servedStub?.id == "avatar")
        #expect(control("PUT", "/__mockd/scenario", #"{"name": "other"}"#) == 200)
        let switched = avatar()
        #expect(switched.servedStub?.id == "avatar2")
        #expect(Self.body(switched) == "GIF")
        #expect(
            control("POST", "/__mockd/stubs", #"{"id": "gone", "match": {"path": "/avatar.png"}, "status": 410}"#)
                == 201
        )
        #expect(avatar().plan.response.status == 410)
        #expect(control("POST", "/__mockd/reset") == 200)
        #expect(Self.body(avatar()) == "GIF")
        engine.reload(try Scenario.load(named: "s", root: root))
        #expect(Self.body(avatar()) == "GIF", "a session keeps its own scenario on reload, reloaded from disk")
        #expect(control("PUT", "/__mockd/scenario", #"{"name": "s"}"#) == 200)
        #expect(Self.body(avatar()) == "PNG")
        // A named session has its own generation: the default session's cached scenario does not leak into it.
        let named = engine.handle(ScenarioEngineTests.get("/avatar.png", headers: [("X-Mockd-Session", "t1")]))
        #expect(named.sessionID == "t1")
        #expect(Self.body(named) == "PNG")
        #expect(
            engine.handle(ScenarioEngineTests.get("/__mockd/scenario", method: "PUT", body: #"{"name": "other"}"#)).plan
                .response.status == 200
        )
        #expect(Self.body(avatar()) == "GIF")
        #expect(
            Self.body(engine.handle(ScenarioEngineTests.get("/avatar.png", headers: [("X-Mockd-Session", "t1")])))
                == "PNG"
        )
    }

    /// An exchange answered by a stub keeps that stub alive after the session moved to another scenario and
    /// after the engine itself is gone, and keeps only the stub: a journal full of such entries must not hold
    /// on to every scenario a reload replaced (each a whole mock set).
    @Test func answersAndJournalEntriesOutliveTheirScenarioAndEngineButKeepOnlyTheStub() throws {
        let root = try Self.twoScenarioRoot()
        defer { try? FileManager.default.removeItem(at: root.url) }
        var kept: EngineOutcome?
        var journal: RequestJournal?
        weak var firstScenario: Scenario?
        do {
            let engine = MockEngine(scenario: try Scenario.load(named: "s", root: root), root: root)
            firstScenario = engine.scenario
            let first = engine.handle(ScenarioEngineTests.get("/avatar.png"))
            engine.journal(first, durationMs: 1)
            kept = first
            journal = engine.sessions.defaultSession.journal
            // The session and this thread's cache move on to a fresh copy of "s" (a reload).
            engine.reload(try Scenario.load(named: "other", root: root))
            let fresh = engine.handle(ScenarioEngineTests.get("/avatar.png"))
            #expect(Self.body(fresh) == "PNG")
            #expect(fresh.servedStub !== first.servedStub)
            #expect(firstScenario == nil, "the journal entry and the kept answer hold their stub, not its scenario")
        }
        // Another engine on this thread replaces the thread's cached scenario as well.
        let other = try ScenarioEngineTests.engine(#"{"sets": ["base"]}"#)
        #expect(other.handle(ScenarioEngineTests.get("/poll")).plan.response.status == 200)
        let outcome = try #require(kept)
        #expect(outcome.sessionID == "default")
        #expect(outcome.servedStub?.id == "avatar")
        #expect(Self.body(outcome) == "PNG")
        #expect(outcome.plan.response.headers["content-type"] == "image/png")
        let entries = try #require(journal).snapshot().entries
        #expect(entries.map(\.stubID) == ["avatar"])
        #expect(String(decoding: entries[0].response.body, as: UTF8.self) == "PNG")
    }

    /// A thread's cached scenario names its session by identity only: a removed session is freed at once, and a
    /// session made afterwards (possibly at the same address) is read afresh.
    @Test func theCacheKeepsNoRemovedSessionAlive() throws {
        let root = try Self.twoScenarioRoot()
        defer { try? FileManager.default.removeItem(at: root.url) }
        let engine = MockEngine(scenario: try Scenario.load(named: "s", root: root), root: root)
        func avatar(_ session: String) -> EngineOutcome {
            engine.handle(ScenarioEngineTests.get("/avatar.png", headers: [("X-Mockd-Session", session)]))
        }
        weak var removed: Session?
        do {
            #expect(Self.body(avatar("t1")) == "PNG")
            removed = engine.sessions.existing("t1")
            #expect(removed != nil)
            #expect(
                engine.handle(
                    ScenarioEngineTests.get(
                        "/__mockd/scenario",
                        headers: [("X-Mockd-Session", "t1")],
                        method: "PUT",
                        body: #"{"name": "other"}"#
                    )
                ).plan.response.status == 200
            )
            #expect(Self.body(avatar("t1")) == "GIF")
            engine.sessions.removeAll()
        }
        #expect(removed == nil, "the thread's cache does not keep a removed session")
        // Made anew with the startup scenario, whatever address it gets.
        #expect(Self.body(avatar("t1")) == "PNG")
    }
}
