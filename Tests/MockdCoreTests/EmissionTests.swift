import Foundation
import MockdFormat
import MockdTestSupport
import Testing

@testable import MockdCore

/// `emit` in process: what a scenario may say (every mistake named with its path), and the pushes an answer makes for
/// one request (templates, selectors, the event's wire bytes, the webhook's request), never for a fault or a HEAD.
struct EmissionTests {
    static func decode(_ json: String) throws -> [EmitEntry] {
        try JSONDecoder().decode([EmitEntry].self, from: Data(json.utf8))
    }

    static func compile(_ json: String) throws -> Emissions {
        switch Emissions.compile(try decode(json)) {
        case .success(let emissions): return emissions
        case .failure(let problems): throw problems
        }
    }

    @Test func everyMistakeIsNamedWithItsField() throws {
        let entries = try Self.decode(
            #"""
            [{"after": -1, "websocket": {"send": "x"}},
             {"websocket": {"path": "/a"}, "events": {"path": "/b", "data": 1}},
             {},
             {"websocket": {"path": "chat", "send": "x"}},
             {"websocket": {"path": "/a", "pathPattern": "/b"}},
             {"websocket": {"pathPattern": "(a+)+", "send": "x"}},
             {"websocket": {"send": "x", "close": {}}},
             {"websocket": {"close": {"code": 1006}}},
             {"events": {"path": "/e"}},
             {"events": {"event": "two\nlines", "retry": -5}},
             {"webhook": {"url": "ftp://example.com/x", "method": "P O", "headers": {"Bad Name": "v", "X-Ok": "a\nb"}, "timeoutMs": 0}},
             {"webhook": {"url": "http://user:pw@127.0.0.1/x"}}]
            """#
        )
        guard case .failure(let problems) = Emissions.compile(entries) else {
            Issue.record("the entries compiled")
            return
        }
        #expect(
            problems.problems.map { "\($0.field): \($0.message)" } == [
                "[0].after: must be within 0–3600000 ms",
                "[1]: give exactly one of websocket, events, webhook",
                "[2]: give exactly one of websocket, events, webhook",
                "[3].websocket.path: must start with '/' (got 'chat')",
                "[4].websocket: give path or pathPattern, not both",
                "[4].websocket: give exactly one of send, close",
                "[5].websocket.pathPattern: regular expression '(a+)+' repeats a group that repeats itself (the group at offset 0): a nested quantifier can take exponential time on a value that almost matches; write it without the inner quantifier or make the group match a fixed length",
                "[6].websocket: give exactly one of send, close",
                "[7].websocket.close.code: 1006 cannot be sent in a close frame (RFC 6455 §7.4)",
                "[8].events: give the event: data, event, id or retry",
                "[9].events.retry: must be ≥ 0 ms",
                "[9].events.event: cannot hold a line break (one field line, WHATWG HTML §9.2.6)",
                "[10].webhook.method: 'P O' is not an HTTP method token",
                "[10].webhook.url: 'ftp://example.com/x' is not an http:// or https:// URL with a host",
                "[10].webhook.headers: 'Bad Name' is not a header name",
                "[10].webhook.headers.X-Ok: a header value cannot contain CR, LF or NUL",
                "[10].webhook.timeoutMs: must be within 1–600000 ms",
                "[11].webhook.url: 'http://user:pw@127.0.0.1/x' is not an http:// or https:// URL with a host",
            ]
        )
    }

    @Test func pushesRenderTheRequestThatCausedThem() throws {
        let emissions = try Self.compile(
            #"""
            [{"after": 100, "websocket": {"path": "/rooms/{{request.path[1]}}/socket", "send": {"type": "delivered", "text": "{{request.json.text}}", "n": "{{request.json.n}}", "at": "{{now.epochMs}}"}}},
             {"after": 50, "websocket": {"send": "plain {{request.json.text}}"}},
             {"websocket": {"pathPattern": "/rooms/.*/socket", "close": {"code": 4001, "reason": "bye"}}},
             {"after": 250, "events": {"path": "/rooms/{id}/feed", "event": "message", "id": "{{request.json.n}}", "data": "line one\n{{request.json.text}}"}},
             {"webhook": {"url": "http://127.0.0.1:9/hooks/{{request.path[1]}}?n={{request.json.n}}", "headers": {"X-Text": "{{request.json.text}}"}, "body": {"text": "{{request.json.text}}"}}},
             {"webhook": {"url": "http://localhost/plain", "method": "PUT", "body": "as text", "headers": {"Content-Type": "text/csv"}}}]
            """#
        )
        let request = HTTPRequest(
            method: "POST",
            target: "/rooms/r7/messages",
            headers: HTTPHeaders([("Content-Type", "application/json")]),
            body: Data(#"{"text": "He said \"hi\"\nthen left", "n": 3}"#.utf8)
        )
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let pushes = emissions.render(request: request, call: 1, now: now)
        #expect(pushes.map(\.delayMs) == [100, 150, 150, 400, 400, 400])
        guard case .webSocket(let selector, .message(.text(let text))) = pushes[0].action else {
            Issue.record("not a text message: \(pushes[0].action)")
            return
        }
        // Whole-value placeholders keep their JSON type and escaping; {{now}} is the push's moment (now + 100 ms).
        #expect(text == #"{"at":1800000000100,"n":3,"text":"He said \"hi\"\nthen left","type":"delivered"}"#)
        #expect(selector.description == "/rooms/r7/socket")
        #expect(selector.matches("/rooms/r7/socket"))
        #expect(!selector.matches("/rooms/r8/socket"))
        guard case .webSocket(let every, .message(.text(let plain))) = pushes[1].action else {
            Issue.record("not a text message: \(pushes[1].action)")
            return
        }
        #expect(plain == "plain He said \"hi\"\nthen left")
        #expect(every.description == "*" && every.matches("/anything"))
        guard case .webSocket(let pattern, .close(4001, "bye")) = pushes[2].action else {
            Issue.record("not a close: \(pushes[2].action)")
            return
        }
        #expect(pattern.description == "~/rooms/.*/socket")
        #expect(pattern.matches("/rooms/r9/socket") && !pattern.matches("/rooms/r9/feed"))
        guard case .event(let feeds, let event) = pushes[3].action else {
            Issue.record("not an event: \(pushes[3].action)")
            return
        }
        #expect(feeds.matches("/rooms/r1/feed") && !feeds.matches("/rooms/feed"))
        #expect(event.name == "message")
        #expect(
            String(decoding: event.wire, as: UTF8.self)
                == "event: message\nid: 3\ndata: line one\ndata: He said \"hi\"\ndata: then left\n\n"
        )
        guard case .webhook(let hook) = pushes[4].action, case .webhook(let csv) = pushes[5].action else {
            Issue.record("not webhooks: \(pushes[4...])")
            return
        }
        #expect(hook.method == "POST")
        #expect(hook.url == "http://127.0.0.1:9/hooks/r7?n=3")
        // A header value is one line: the text's line break becomes a space.
        #expect(
            hook.headers.fields.map { "\($0.name): \($0.value)" } == [
                #"X-Text: He said "hi" then left"#, "Content-Type: application/json; charset=utf-8",
            ]
        )
        #expect(String(decoding: hook.body, as: UTF8.self) == #"{"text":"He said \"hi\"\nthen left"}"#)
        #expect(hook.timeoutMs == 10_000)
        #expect(csv.method == "PUT")
        #expect(csv.headers.fields.map { "\($0.name): \($0.value)" } == ["Content-Type: text/csv"])
        #expect(String(decoding: csv.body, as: UTF8.self) == "as text")
    }

    @Test func webhookTargetsAreLoopbackOrAllowed() throws {
        let cases: [(String, Bool)] = [
            ("http://127.0.0.1:9000/x", true), ("http://127.8.9.10/x", true), ("http://localhost:1/x", true),
            ("http://[::1]:8080/x", true), ("https://LOCALHOST/x", true), ("http://127.0.0.1.example.com/x", false),
            ("http://10.0.0.5/x", false), ("http://0.0.0.0/x", false), ("http://api.example.com/x", false),
        ]
        for (url, loopback) in cases {
            let target = try #require(WebhookTarget.parse(url), "\(url)")
            #expect(target.isLoopback == loopback, "\(url)")
        }
        let hooks = try #require(WebhookTarget.parse("https://Hooks.Test:8443/a/b?c=d"))
        #expect(hooks.origin == "https://hooks.test:8443")
        #expect(hooks.target == "/a/b?c=d")
        #expect(hooks.isAllowed(by: ["hooks.test"]))
        #expect(hooks.isAllowed(by: ["HOOKS.test:8443"]))
        #expect(!hooks.isAllowed(by: ["hooks.test:443", "other.test"]))
        #expect(try #require(WebhookTarget.parse("https://hooks.test/a")).isAllowed(by: ["hooks.test:443"]))
        #expect(try #require(WebhookTarget.parse("http://[::1]:9/a")).isAllowed(by: ["[::1]:9"]))
        #expect(WebhookTarget.parse("mailto:someone@example.com") == nil)
        #expect(WebhookTarget.parse("http:///no-host") == nil)
    }

    static let scenario = #"""
        {"sets": ["base"], "overrides": [
          {"id": "pushing", "match": {"path": "/v1/orders/4521"}, "bodyPatch": {"note": "pushed"},
           "emit": [{"after": 20, "events": {"path": "/feed", "data": "{{request.header.X-Who}}"}}]},
          {"id": "head-too", "match": {"method": "GET", "path": "/poll"}, "emit": [{"websocket": {"send": "polled"}}]},
          {"id": "broken", "match": {"path": "/broken"}, "fault": "connectionReset", "emit": [{"websocket": {"send": "x"}}]}
        ]}
        """#

    @Test func anAnswerCarriesItsPushesButAFaultOrAHeadHasNone() throws {
        let engine = try ScenarioEngineTests.engine(Self.scenario)
        let answered = engine.handle(ScenarioEngineTests.get("/v1/orders/4521", headers: [("X-Who", "anna")]))
        #expect(ScenarioEngineTests.json(answered.plan.response)["note"] as? String == "pushed")
        let batch = try #require(answered.plan.pushes)
        #expect(batch.emittedBy == "pushing")
        #expect(batch.pushes.map(\.delayMs) == [20])
        guard case .event(_, let event) = batch.pushes[0].action else {
            Issue.record("not an event")
            return
        }
        #expect(String(decoding: event.data, as: UTF8.self) == "anna")
        #expect(engine.handle(ScenarioEngineTests.get("/poll")).plan.pushes?.pushes.count == 1)
        #expect(engine.handle(ScenarioEngineTests.get("/poll", method: "HEAD")).plan.pushes == nil)
        let faulted = engine.handle(ScenarioEngineTests.get("/broken"))
        #expect(faulted.plan.fault == .connectionReset)
        #expect(faulted.plan.pushes == nil)
        #expect(engine.handle(ScenarioEngineTests.get("/avatar.png")).plan.pushes == nil)
    }

    @Test func aScenarioWithWrongPushesNamesEachOne() throws {
        let root = try ScenarioEngineTests.makeRoot([
            "broken": #"""
            {"sets": ["base"], "defaults": {"emit": [{"websocket": {"send": "x"}}]},
             "overrides": [
               {"match": {"path": "/x"}, "status": 200, "emit": [{"websocket": {"send": "x"}}, {"events": {"path": "feed", "data": 1}}]},
               {"match": {"path": "/socket"}, "websocket": {"replies": [
                 {"when": {"any": true}},
                 {"when": {"any": true}, "state": {"name": "", "next": ""}, "emit": [{"webhook": {"url": "nope"}}]}
               ]}}
             ]}
            """#
        ])
        defer { try? FileManager.default.removeItem(at: root.url) }
        #expect {
            try Scenario.load(named: "broken", root: root)
        } throws: { error in
            "\(error)" == """
                configs/broken.json: defaults.emit: pushes belong to an override or a stub, not to defaults (they would follow every answer)
                configs/broken.json: overrides[0].emit[1].events.path: must start with '/' (got 'feed')
                configs/broken.json: overrides[1].websocket: replies[0]: give then, state or emit (what the message causes)
                configs/broken.json: overrides[1].websocket: replies[1].state.name: name the state machine
                configs/broken.json: overrides[1].websocket: replies[1].state.next: name the state to move to
                configs/broken.json: overrides[1].websocket: replies[1].emit[0].webhook.url: 'nope' is not an http:// or https:// URL with a host
                """
        }
    }

    @Test func aMockSetStubCanPushAndIsThenNotAnsweredAsLoaded() throws {
        let set = #"""
            {"stubs": [{"id": "send", "request": {"method": "POST", "path": "/send"},
              "responses": [{"status": 201, "body": "ok", "emit": [{"after": 5, "websocket": {"path": "/ws", "send": "{{request.body}}"}}]}]},
              {"id": "plain", "request": {"method": "GET", "path": "/plain"}, "responses": [{"body": "plain"}]}]}
            """#
        // The fast decoder reads emit as the slow path does.
        let fast = try #require(MockSetFastDecoder.decode(Data(set.utf8)))
        #expect(fast == (try JSONDecoder().decode(MockSetFile.self, from: Data(set.utf8))))
        let root = try ScenarioEngineTests.makeRoot(["s": #"{"sets": ["pushes"]}"#])
        defer { try? FileManager.default.removeItem(at: root.url) }
        let folder = root.url.appendingPathComponent("mocks/pushes")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try set.write(to: folder.appendingPathComponent("index.json"), atomically: true, encoding: .utf8)
        let engine = MockEngine(scenario: try Scenario.load(named: "s", root: root, defersBodies: false))
        let outcome = engine.handle(ScenarioEngineTests.get("/send", method: "POST", body: "hello"))
        #expect(outcome.servedStub == nil)
        #expect(outcome.plan.response.status == 201)
        guard case .webSocket(let selector, .message(.text("hello"))) = outcome.plan.pushes?.pushes.first?.action else {
            Issue.record("no push: \(String(describing: outcome.plan.pushes?.pushes))")
            return
        }
        #expect(selector.description == "/ws")
        #expect(outcome.plan.pushes?.emittedBy == "send")
        // A plain stub beside it is still answered as loaded: no plan is made, nothing is rendered.
        #expect(engine.handle(ScenarioEngineTests.get("/plain")).servedStub?.id == "plain")
    }
}
