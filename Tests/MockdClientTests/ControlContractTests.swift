import Foundation
import MockdControl
import MockdTestSupport
import Testing

@testable import MockdClient

/// The control API's table (`ControlRoutes`) against what is built from it: every route has a `MockdClient` method
/// (called here against a live daemon, which must send that route), an MCP tool or a stated exclusion, and a doc line;
/// and every field of every answer reaches the client (the answer decoded and encoded again is the answer).
///
/// Adding a route to the table without a client method fails here, naming the route.
struct ControlContractTests {
    /// A client call for each route: the method a test author uses.
    static let calls: [ControlRouteID: @Sendable (MockdClient) async throws -> Void] = [
        .health: { _ = try await $0.health() },
        .scenarios: { _ = try await $0.scenarios() },
        .currentScenario: { _ = try await $0.scenario() },
        .useScenario: { try await $0.useScenario("s") },
        .answerSource: { _ = try await $0.answerSource(id: "GET_v1_me") },
        .listStubs: { _ = try await $0.stubDefinitions() },
        .addStub: { try await $0.addStub(StubDefinition(id: "me", method: "GET", path: "/v1/me", status: 200)) },
        .removeStubs: { try await $0.removeStubs() },
        .getStub: { client in
            try await client.addStub(StubDefinition(id: "kept", path: "/kept", status: 200))
            _ = try await client.stub(id: "kept")
        },
        .removeStub: { client in
            try await client.addStub(StubDefinition(id: "gone", path: "/gone", status: 410))
            try await client.removeStub(id: "gone")
        },
        .listGroups: { _ = try await $0.groups() },
        .replaceGroup: { try await $0.replace(StubGroup("g", stubs: [StubDefinition(path: "/g", status: 200)])) },
        .addToGroup: { try await $0.add(StubGroup("g", stubs: [StubDefinition(path: "/g2", status: 200)])) },
        .removeGroup: { try await $0.removeGroup("g") },
        .dropSession: { try await $0.dropSession() },
        .reset: { try await $0.reset() },
        .readClock: { _ = try await $0.clock() },
        .moveClock: { try await $0.advanceClock(byMs: 1000) },
        .readSwitches: { _ = try await $0.switches() },
        .setSwitches: { try await $0.setSwitches(latencyScale: 0.5) },
        .listResources: { _ = try await $0.resources() },
        .getResource: { _ = try await $0.resource("orders") },
        .journal: { _ = try await $0.journalPage(limit: 1) },
        .journalHAR: { _ = try await $0.journalHARDocument() },
        .journalStream: { client in
            try appRequest(client)
            for try await event in client.journalEvents() {
                if case .entry = event { break }
            }
        },
        .journalEntry: { client in
            try appRequest(client)
            _ = try await client.journalEntry(try await client.journalPage().entries.last?.sequence ?? 1)
        },
        .unmatched: { _ = try await $0.unmatched() },
        .coverage: { _ = try await $0.coverage() },
        .verify: { client in
            try appRequest(client)
            try await client.verify(method: "GET", path: "/v1/me", atLeast: 1)
        },
        .contract: { _ = try await $0.contractViolations() },
        .sessions: { _ = try await $0.sessions() },
        .reload: { try await $0.reload() },
        .listWebSockets: { _ = try await $0.webSockets(allSessions: true) },
        .sendWebSocket: { try await $0.push(text: "hi") },
        .closeWebSockets: { try await $0.closeWebSockets(code: 4000) },
        .release: { try await $0.release() },
        .emit: { try await $0.emit([EmitEntry(events: EventEmit(path: "/v1/feed", event: "order", data: ["id": 1]))]) },
        .recordStatus: { _ = try await $0.recordStatus() },
        .flushRecording: { try await $0.flushRecording() },
        .openAPI: { _ = try await $0.openAPIDocument() },
    ]

    /// What the app does: `GET /v1/me` in the client's session.
    static func appRequest(_ client: MockdClient) throws {
        let url = client.baseURL.absoluteString + "/v1/me"
        _ = try Curl.send(CurlRequest(url: url, headers: [(MockdClient.sessionHeader, client.session)]))
    }

    static let spec = """
        {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {"/v1/me": {"get": {"responses": {
          "200": {"description": "me", "content": {"application/json": {"schema": {"type": "object"}}}}}}}}}
        """

    @Test func everyRouteHasAClientMethodAToolAndADocLine() async throws {
        let root = try Paths.makeRoot(
            scenario:
                #"{"sets": ["chat"], "resources": [{"name": "orders", "path": "/v1/orders", "seed": [{"id": "1"}]}]}"#
        )
        defer { try? FileManager.default.removeItem(at: root) }
        try Self.spec.write(to: root.appendingPathComponent("api.json"), atomically: true, encoding: .utf8)
        // With a contract and a recording, so that every route can answer 200.
        let daemon = try RunningDaemon([
            "--config", "s", "--root", root.path, "--port", "0", "--quiet", "--openapi", root.path + "/api.json",
            "--on-miss", "proxy", "--upstream", "http://127.0.0.1:9", "--record-misses",
        ])
        defer { daemon.stop() }
        let seen = Seen()
        var client = MockdClient(baseURL: URL(string: daemon.baseURL)!, session: "contract")
        client.observer = { id, body in seen.add(id, body) }
        try Self.appRequest(client)

        var tools: [String] = []
        for route in ControlRoutes.all {
            #expect(!route.doc.isEmpty, "\(route.method) /__mockd/\(route.path) has no doc line")
            switch route.mcp {
            case .tool(let name): tools.append(name)
            case .excluded(let reason): #expect(!reason.isEmpty, "\(route.id): an MCP exclusion says why")
            }
            tools += route.shortcuts.map(\.name)
            guard let call = Self.calls[route.id] else {
                Issue.record("\(route.method) /__mockd/\(route.path) has no MockdClient method (\(route.clientMethod))")
                continue
            }
            seen.clear()
            try await call(client)
            #expect(
                seen.routes.contains(route.id),
                "MockdClient.\(route.clientMethod) does not call \(route.method) /__mockd/\(route.path)"
            )
            guard route.kind == .json, let answer = route.answerType else { continue }
            for body in seen.bodies(of: route.id) {
                #expect(try Self.roundTrip(answer, body) == JSONValue(parsing: body), "\(route.id): a field is lost")
            }
        }
        #expect(Set(tools).count == tools.count, "MCP tool names are unique")
        #expect(Set(ControlRoutes.all.map { "\($0.method) \($0.path)" }).count == ControlRoutes.all.count)
        #expect(Set(ControlRoutes.all.map(\.id)) == Set(ControlRouteID.allCases))
    }

    /// Every health field reaches the client: none of the answer's keys is lost on the way into `Health`.
    @Test func everyHealthFieldReachesTheClient() async throws {
        try await withDaemon { harness in
            let raw = try Curl.send(CurlRequest(url: harness.daemon.baseURL + "/__mockd/health"))
            let keys = Set((try JSONValue(parsing: raw.body)).objectKeys)
            #expect(
                keys == [
                    "status", "version", "uptimeSeconds", "scenario", "sessions", "sessionsEvicted", "inFlight",
                    "logLinesDropped", "liveJournals",
                ]
            )
            let health = try await harness.client.health()
            let encoded = try JSONValue(parsing: try JSONEncoder().encode(health))
            #expect(Set(encoded.objectKeys) == keys)
            #expect(health.liveJournals == 0 && health.sessionsEvicted == 0 && health.logLinesDropped == 0)
        }
    }

    /// `body` read as `type` and written again.
    static func roundTrip(_ type: any (Codable & Sendable).Type, _ body: Data) throws -> JSONValue {
        func again<T: Codable>(_ type: T.Type) throws -> Data {
            try JSONEncoder().encode(JSONDecoder().decode(T.self, from: body))
        }
        return try JSONValue(parsing: try again(type))
    }
}

/// What the observed client called, and the answers it read.
private final class Seen: @unchecked Sendable {
    private let lock = NSLock()
    private var calls: [(ControlRouteID, Data?)] = []

    func add(_ id: ControlRouteID, _ body: Data?) { locked { calls.append((id, body)) } }
    func clear() { locked { calls.removeAll() } }
    var routes: Set<ControlRouteID> { locked { Set(calls.map(\.0)) } }
    func bodies(of id: ControlRouteID) -> [Data] { locked { calls.filter { $0.0 == id }.compactMap(\.1) } }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
}

extension JSONValue {
    fileprivate var objectKeys: [String] {
        if case .object(let members) = self { return Array(members.keys) }
        return []
    }
}
