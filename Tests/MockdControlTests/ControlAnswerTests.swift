import Foundation
import MockdControl
import MockdCore
import MockdFormat
import MockdOpenAPI
import MockdTestSupport
import Testing

/// Every route of the table, called in process with requests that fit the OpenAPI document, answers what the document
/// says: a documented status, and a body its schema accepts, checked by mockd's own contract check
/// (`OpenAPIContract`, the `--openapi` checker). Errors included: each route's error answers are listed here too.
struct ControlAnswerTests {
    static let scenario = """
        {"sets": ["chat"],
         "resources": [{"name": "orders", "path": "/v1/orders", "seed": [{"id": "1", "status": "open"}]}],
         "overrides": [{"id": "flaky", "match": {"path": "/v1/flaky"}, "status": 503}]}
        """

    /// Requests for each route, in order (setup first): success and the route's errors.
    static let calls: [(ControlRouteID, ClientRequest)] = [
        (.health, .init("GET", "/__mockd/health")),
        (.scenarios, .init("GET", "/__mockd/scenarios")),
        (.useScenario, control("PUT", "scenario", #"{"name": "s"}"#)),
        (.useScenario, control("PUT", "scenario", #"{"name": "nope"}"#)),
        (.useScenario, control("PUT", "scenario", #"{"nom": "s"}"#)),
        (.currentScenario, control("GET", "scenario")),
        (.addStub, control("POST", "stubs", #"{"id": "me", "match": {"path": "/v1/me"}, "status": 418}"#)),
        (.addStub, control("POST", "stubs", #"{"match": {"path": "/x"}, "latancy": 5}"#)),
        (.listStubs, control("GET", "stubs")),
        (.getStub, control("GET", "stubs/me")),
        (.getStub, control("GET", "stubs/nope")),
        (.answerSource, control("GET", "scenario/answers/me")),
        (.answerSource, control("GET", "scenario/answers/flaky")),
        (.answerSource, control("GET", "scenario/answers/GET_v1_me")),
        (.answerSource, control("GET", "scenario/answers/nope")),
        (.replaceGroup, control("PUT", "groups/g", #"{"stubs": [{"match": {"path": "/g"}, "status": 200}]}"#)),
        (.replaceGroup, control("PUT", "groups/g", #"{"stubs": [{"match": {"path": "/g"}, "status": 42}]}"#)),
        (.addToGroup, control("POST", "groups/g", #"{"stubs": [{"id": "g2", "match": {"path": "/g2"}}]}"#)),
        (.addToGroup, control("POST", "groups/g", "[]")),
        (.listGroups, control("GET", "groups")),
        (.removeGroup, control("DELETE", "groups/g")),
        (.removeGroup, control("DELETE", "groups/g")),
        (.readClock, control("GET", "clock")),
        (.moveClock, control("POST", "clock", #"{"advanceMs": 1000}"#)),
        (.moveClock, control("POST", "clock", #"{"set": "2030-01-01T09:00:00Z"}"#)),
        (.moveClock, control("POST", "clock", #"{"advanceMs": -1}"#)),
        (.readSwitches, control("GET", "switches")),
        (.setSwitches, control("POST", "switches", #"{"latencyScale": 0, "rules": {"flaky": false}}"#)),
        (.setSwitches, control("POST", "switches", #"{"speed": 2}"#)),
        (.listResources, control("GET", "resources")),
        (.getResource, control("GET", "resources/orders")),
        (.getResource, control("GET", "resources/nope")),
        (.journal, .init("GET", "/v1/me", headers: [("X-Mockd-Session", "t")])),
        (.journal, .init("GET", "/v1/nope?q=1", headers: [("X-Mockd-Session", "t")])),
        (.journal, control("GET", "journal?limit=1")),
        (.journal, control("GET", "journal?unmatched=true&method=GET&path=/v1/nope")),
        (.journal, control("GET", "journal?limit=0")),
        (.journalHAR, control("GET", "journal.har")),
        (.journalHAR, control("GET", "journal.har?keepSecrets=true")),
        (.journalEntry, control("GET", "journal/entries/2")),
        (.journalEntry, control("GET", "journal/entries/99")),
        (.unmatched, control("GET", "unmatched")),
        (.coverage, control("GET", "coverage")),
        (.verify, control("POST", "verify", #"{"path": "/v1/me", "count": 1}"#)),
        (.verify, control("POST", "verify", #"{"method": "POST", "path": "/v1/me", "atLeast": 1}"#)),
        (.verify, control("POST", "verify", #"{"contract": true}"#)),
        (.verify, control("POST", "verify", #"{"path": "/v1/me"}"#)),
        (.contract, control("GET", "contract")),
        (.sessions, control("GET", "sessions")),
        (.reload, control("POST", "reload")),
        (.listWebSockets, control("GET", "ws?all=true")),
        (.sendWebSocket, control("POST", "ws/send", #"{"json": {"a": [1, 2]}, "path": "/chat"}"#)),
        (.sendWebSocket, control("POST", "ws/send", #"{"path": "/chat"}"#)),
        (.closeWebSockets, control("POST", "ws/close")),
        (.closeWebSockets, control("POST", "ws/close", #"{"code": 4001, "reason": "bye"}"#)),
        (.release, control("POST", "release", #"{"path": "/v1/updates"}"#)),
        (.emit, control("POST", "emit", #"{"emit": [{"events": {"path": "/v1/feed", "event": "order", "data": 1}}]}"#)),
        (.emit, control("POST", "emit", #"{"emit": [{"events": {"path": "feed"}}]}"#)),
        (.recordStatus, control("GET", "record")),
        (.flushRecording, control("POST", "record/flush")),
        (.openAPI, control("GET", "openapi.json")),
        (.removeStub, control("DELETE", "stubs/me")),
        (.removeStub, control("DELETE", "stubs/me")),
        (.removeStubs, control("DELETE", "stubs")),
        (.reset, control("POST", "reset")),
        (.reset, control("POST", "reset?all=maybe")),
        (.dropSession, control("DELETE", "session")),
        (.journalStream, .init("GET", "/__mockd/journal/stream?after=x")),
    ]

    static func control(_ method: String, _ path: String, _ body: String? = nil) -> ClientRequest {
        var headers = [("X-Mockd-Session", "t")]
        if body != nil { headers.append(("Content-Type", "application/json")) }
        return ClientRequest(method, "/__mockd/" + path, headers: headers, body: body.map { Data($0.utf8) })
    }

    @Test func everyRouteAnswersAsDocumented() throws {
        let root = try Paths.makeRoot(scenario: Self.scenario)
        defer { try? FileManager.default.removeItem(at: root) }
        let mockdRoot = MockdRoot(url: root)
        let engine = MockEngine(scenario: try Scenario.load(named: "s", root: mockdRoot), root: mockdRoot) {
            try Scenario.load(named: "s", root: mockdRoot)
        }
        let client = InProcessClient(engine)
        let json = try JSONValue(parsing: try ControlOpenAPI.data(version: MockdVersion.current))
        let contract = OpenAPIContract(document: try OpenAPIDocument(json: json, display: "control-api.openapi.json"))
        var statuses: [ControlRouteID: Set<Int>] = [:]
        for (id, request) in Self.calls {
            let answer = try client.send(request)
            guard request.target.hasPrefix("/__mockd/") else { continue }
            statuses[id, default: []].insert(answer.status)
            let route = ControlRoutes.route(id)
            let path = String(request.target.prefix { $0 != "?" })
            #expect(contract.operation(method: request.method, path: path)?.operation.operationID == id.rawValue)
            let violations = contract.answerViolations(
                method: request.method,
                target: request.target,
                status: answer.status,
                headers: answer.headers,
                body: answer.body
            )
            #expect(violations.isEmpty, "\(route.method) \(request.target) → \(answer.status): \(violations)")
            if answer.status >= 400 {
                let code = answer.json["error"] as? String
                #expect(
                    route.allErrors.map(\.rawValue).contains(code ?? ""),
                    "\(route.method) \(request.target): \(code ?? answer.text) is not among the route's errors"
                )
            } else if route.kind == .json {
                #expect(answer.header("Content-Type") == "application/json; charset=utf-8")
            }
        }
        // The walk covers the table: each route answered at least once, and with success where it can in process
        // (without a recorder or a contract, those routes answer their 404; without a server to push from, emit its
        // 501 — ControlContractTests and PushClientTests see its success on a live daemon).
        for route in ControlRoutes.all {
            let seen = statuses[route.id] ?? []
            #expect(!seen.isEmpty, "\(route.id) was not called")
            if ![.recordStatus, .flushRecording, .contract, .journalStream, .emit].contains(route.id) {
                #expect(seen.contains(route.status), "\(route.id): \(seen)")
            }
        }
    }
}
