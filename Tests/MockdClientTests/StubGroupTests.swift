import Foundation
import MockdClient
import MockdTestKit
import MockdTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Stub groups (`/__mockd/groups/NAME`) and typed bodies, against the real daemon.
@Suite("Stub groups and typed bodies against a running daemon")
struct StubGroupTests {
    struct Order: Codable, Equatable {
        let id: Int
        let status: String
        let placedAt: Date
    }

    static let placed = Date(timeIntervalSince1970: 1_764_648_000)  // 2025-12-02T04:00:00Z

    static func orders(_ orders: [Order]) throws -> StubGroup {
        try StubGroup("orders") {
            try StubDefinition.json(method: "GET", path: "/v1/orders", body: orders)
            for order in orders {
                try StubDefinition.json(method: "GET", path: "/v1/orders/\(order.id)", body: order)
            }
        }
    }

    @Test func replaceSwapsTheWholeGroupAndRemoveTakesItAway() async throws {
        try await withDaemon { harness in
            let client = harness.client
            let three = [
                Order(id: 1, status: "open", placedAt: Self.placed),
                Order(id: 2, status: "open", placedAt: Self.placed),
                Order(id: 3, status: "cancelled", placedAt: Self.placed),
            ]
            #expect(try await client.replace(Self.orders(three)) == ["orders.1", "orders.2", "orders.3", "orders.4"])
            let list = try harness.app("/v1/orders")
            #expect(list.status == 200)
            #expect(list.header("Content-Type") == "application/json")
            #expect(
                try JSONDecoder.iso8601.decode([Order].self, from: list.body) == three,
                "\(list.text)"
            )
            #expect(try harness.app("/v1/orders/3").status == 200)
            // Replaced by one order: /v1/orders/3 is no longer a stub of the group (the chat set has no such path).
            let one = [Order(id: 7, status: "open", placedAt: Self.placed)]
            #expect(try await client.replace(Self.orders(one)) == ["orders.1", "orders.2"])
            #expect(try JSONDecoder.iso8601.decode([Order].self, from: harness.app("/v1/orders").body) == one)
            #expect(try harness.app("/v1/orders/3").status == 404)
            #expect(try await client.groups() == [GroupInfo(name: "orders", stubs: ["orders.1", "orders.2"])])
            // A stub added on its own stays through replaces of a group.
            try await client.addStub(StubDefinition(id: "me", method: "GET", path: "/v1/me", body: ["name": "Anna"]))
            #expect(
                try await client.add(StubGroup("orders", stubs: [StubDefinition(path: "/v1/extra", status: 204)])) == [
                    "orders.3"
                ]
            )
            #expect(try await client.stubs() == ["orders.1", "orders.2", "me", "orders.3"])
            #expect(try await client.removeGroup("orders") == 3)
            #expect(try await client.stubs() == ["me"])
            let missing = await caught { try await client.removeGroup("orders") }
            #expect(
                missing
                    == .server(
                        status: 404,
                        code: "unknown_group",
                        message: "session 'client-tests' has no group 'orders'"
                    )
            )
        }
    }

    @Test func oneBadStubRefusesTheWholeCallAndChangesNothing() async throws {
        try await withDaemon { harness in
            let client = harness.client
            try await client.replace(StubGroup("g", stubs: [StubDefinition(path: "/a", status: 200)]))
            let bad = StubGroup(
                "g",
                stubs: [
                    StubDefinition(path: "/b", status: 200), StubDefinition(path: "/c", status: 99),
                    StubDefinition(id: "x", path: "/d"), StubDefinition(id: "x", path: "/e"),
                ]
            )
            let error = await caught { try await client.replace(bad) }
            guard case .server(400, "invalid_stub", let message) = error else {
                Issue.record("expected a 400 invalid_stub, got \(String(describing: error))")
                return
            }
            #expect(message.hasPrefix("stubs[1]"), "\(message)")
            #expect(message.contains("stubs[3].id: 'x' is given to an earlier stub of the group too"), "\(message)")
            #expect(try await client.groups() == [GroupInfo(name: "g", stubs: ["g.1"])])
            let badName = await caught { try await client.replace(StubGroup("no/slash", stubs: [])) }
            #expect(
                badName?.description.contains("404") == true || badName?.description.contains("invalid_group") == true
            )
        }
    }

    /// Hundreds of replaces from parallel clients while others list the session's stubs and the app is served:
    /// every listing shows all three stubs of one replace, never a mix or a part.
    @Test func concurrentReplacesNeverShowHalfAGroup() async throws {
        try await withDaemon { harness in
            let writers = 6
            let replacesPerWriter = 50
            let readers = 4
            let readsPerReader = 75
            let observed = try await withThrowingTaskGroup(of: [[String]].self) { group in
                for writer in 0..<writers {
                    let client = Self.ownClient(harness)
                    group.addTask {
                        for round in 0..<replacesPerWriter {
                            let tag = "w\(writer)r\(round)"
                            try await client.replace(
                                StubGroup(
                                    "state",
                                    stubs: ["a", "b", "c"].map {
                                        StubDefinition(id: "\(tag)-\($0)", path: "/v1/\($0)", body: .string(tag))
                                    }
                                )
                            )
                        }
                        return []
                    }
                }
                for _ in 0..<readers {
                    let client = Self.ownClient(harness)
                    group.addTask {
                        var seen: [[String]] = []
                        for _ in 0..<readsPerReader { seen.append(try await client.stubs()) }
                        return seen
                    }
                }
                var all: [[String]] = []
                for try await seen in group { all += seen }
                return all
            }
            #expect(observed.count == readers * readsPerReader)
            var complete = 0
            for stubs in observed where !stubs.isEmpty {
                let tags = Set(stubs.map { $0.split(separator: "-")[0] })
                #expect(tags.count == 1 && stubs.count == 3, "half a state visible: \(stubs)")
                #expect(stubs.map { $0.split(separator: "-")[1] } == ["a", "b", "c"], "\(stubs)")
                complete += 1
            }
            #expect(complete > 0)
            let final = try await harness.client.groups()
            try #require(final.count == 1 && final[0].stubs.count == 3)
            let tag = String(final[0].stubs[0].split(separator: "-")[0])
            #expect(try harness.app("/v1/c").text == tag)
        }
    }

    /// A client of the harness's session with a URLSession of its own: hundreds of calls through
    /// `URLSession.shared` would queue the other suites' calls in this process behind them.
    static func ownClient(_ harness: Harness) -> MockdClient {
        MockdClient(
            baseURL: harness.client.baseURL,
            session: harness.client.session,
            urlSession: URLSession(configuration: .ephemeral)
        )
    }

    @Test func typedBodiesFollowTheEncoderTheTestGives() async throws {
        struct Profile: Encodable {
            let displayName: String
            let unreadCount: Int
        }
        try await withDaemon { harness in
            let snake = JSONEncoder()
            snake.keyEncodingStrategy = .convertToSnakeCase
            try await harness.client.addStub(
                try .json(
                    method: "GET",
                    path: "/v1/me",
                    status: 201,
                    headers: ["X-Fixture": "profile"],
                    body: Profile(displayName: "Anna", unreadCount: 3),
                    encoder: snake
                )
            )
            let answer = try harness.app("/v1/me")
            #expect(answer.status == 201)
            #expect(answer.header("X-Fixture") == "profile")
            #expect(answer.header("Content-Type") == "application/json")
            #expect(answer.text == #"{"display_name":"Anna","unread_count":3}"#)
            // A patch over the test's own stub: the runtime stub below it gives the body, the patch changes a field.
            try await harness.client.addStub(try .patch(method: "GET", path: "/v1/me", with: ["unread_count": 0]))
            let patchedOwn = try harness.app("/v1/me")
            #expect(patchedOwn.status == 201)
            #expect(patchedOwn.text == #"{"display_name":"Anna","unread_count":0}"#, "\(patchedOwn.text)")
            #expect(patchedOwn.header("X-Fixture") == "profile")
            // Without a stub of its own below it, a patch edits what the mock set answers.
            try await harness.client.removeStubs()
            struct Rename: Encodable { let displayName: String }
            try await harness.client.addStub(
                try .patch(method: "GET", path: "/v1/me", with: Rename(displayName: "Olga"))
            )
            let patched = try harness.app("/v1/me")
            let fields = try JSONSerialization.jsonObject(with: patched.body) as? [String: Any]
            #expect(fields?["displayName"] as? String == "Olga", "\(patched.text)")
            #expect(fields?["email"] as? String == "anna@example.com", "\(patched.text)")
        }
    }

    @Test func aTestSessionIsNamedAfterTheTestSavesItsJournalAndIsDropped() async throws {
        try await withDaemon { harness in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mockd-kit-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let session = try await MockdTestSession.start(
                testName: "-[OrdersUITests testCancel]",
                baseURL: harness.client.baseURL,
                environment: ["MOCKD_SCENARIO": "chat_send_fails"]
            )
            #expect(session.session.hasPrefix("OrdersUITests.testCancel-"))
            #expect(session.session.count == "OrdersUITests.testCancel-".count + 8)
            #expect(try await session.client.scenarios().filter(\.active).map(\.name) == ["chat_send_fails"])
            _ = try harness.app("GET", "/v1/me", as: session.client)
            _ = try harness.app("GET", "/v1/nope", as: session.client)
            let failure = await caughtAny { try await session.verify(method: "POST", path: "/v1/me", count: 1) }
            #expect(
                failure.map { String(describing: $0) }
                    == """
                    expected exactly 1 POST /v1/me, journal has 0; closest: GET /v1/me (method: expected POST, got GET)
                    """
            )
            let saved = try await session.finish(directory: folder)
            #expect(saved.file.lastPathComponent == "\(session.session).har")
            let har = try JSONSerialization.jsonObject(with: Data(contentsOf: saved.file)) as? [String: Any]
            let entries = (har?["log"] as? [String: Any])?["entries"] as? [[String: Any]]
            #expect(entries?.count == 2)
            let listed = try harness.daemon.health()["sessions"] as? Int
            #expect(listed == 1)
        }
    }
}

extension JSONDecoder {
    static var iso8601: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}

/// The error `body` throws, any type, or `nil`.
func caughtAny(_ body: () async throws -> Void) async -> (any Error)? {
    do {
        try await body()
        return nil
    } catch {
        return error
    }
}
