import Foundation
import MockdClient
import MockdTestKit
import ShopFixtures
import Testing

/// The shop app's tests as a team writes them with the kit: typed fixtures, a state swapped mid-test, a WebSocket
/// event pushed from the test, a session per test and a failing verify that says why. Each test starts its own
/// daemon (the real `mockd`, `$MOCKD_BINARY`); a UI-test target on a Mac would use one started beside the
/// simulators instead.
@Suite("Shop app tests with MockdTestKit")
struct ShopTests {
    static let placed = Date(timeIntervalSince1970: 1_764_648_000)  // 2025-12-02T04:00:00Z

    @Test func typedFixturesAreWhatTheAppDecodes() async throws {
        try await withShopDaemon { daemon in
            let mockd = try await MockdTestSession.start(testName: "ShopTests.typedFixtures", baseURL: daemon.baseURL)
            try await mockd.client.replace(.annaWithThreeOrders(placedAt: Self.placed))
            let app = ShopApp(launchEnvironment: mockd.launchEnvironment)
            let orders = try await app.get("/v1/orders", as: [Order].self, decoder: shopDecoder)
            #expect(orders.map(\.id) == [1, 2, 3])
            #expect(orders.map(\.status) == [.open, .shipped, .cancelled])
            #expect(orders.map(\.totalCents) == [1_999, 4_550, 999])
            #expect(orders.allSatisfy { $0.placedAt == Self.placed })
            // The exact bytes: snake_case keys and ISO 8601 dates, as the shop encoder writes them.
            let raw = try await app.send("GET", "/v1/orders/3")
            #expect(
                String(decoding: raw.body, as: UTF8.self)
                    == #"{"id":3,"placed_at":"2025-12-02T04:00:00Z","status":"cancelled","total_cents":999}"#
            )
            #expect(try await app.get("/v1/me", as: User.self, decoder: shopDecoder).displayName == "Anna")
            // The session ends: its journal is saved as a HAR, the session is dropped.
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shop-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let saved = try await mockd.finish(directory: folder)
            #expect(saved.file.lastPathComponent == "\(mockd.session).har")
            let har = try JSONSerialization.jsonObject(with: Data(contentsOf: saved.file)) as? [String: Any]
            let entries = (har?["log"] as? [String: Any])?["entries"] as? [[String: Any]] ?? []
            #expect(entries.compactMap { ($0["request"] as? [String: Any])?["url"] as? String }.count == 3)
            #expect(try await MockdClient(baseURL: daemon.baseURL).health().sessions == 1)
        }
    }

    @Test func aGroupReplacedMidTestChangesTheWholeAccountAtOnce() async throws {
        try await withShopDaemon { daemon in
            try await withMockdSession(baseURL: daemon.baseURL) { mockd in
                try await mockd.client.replace(.annaWithThreeOrders(placedAt: Self.placed))
                let app = ShopApp(launchEnvironment: mockd.launchEnvironment)
                #expect(try await app.send("POST", "/v1/orders/1/cancel").status == 200)
                #expect(try await app.send("POST", "/v1/orders/3/cancel").status == 409)
                // The backend has cancelled order 1 and dropped order 2: one call replaces the whole state.
                try await mockd.client.replace(
                    .account(
                        User(id: "u-1", displayName: "Anna", orderCount: 2),
                        orders: [
                            Order(id: 1, status: .cancelled, totalCents: 1_999, placedAt: Self.placed),
                            Order(id: 3, status: .cancelled, totalCents: 999, placedAt: Self.placed),
                        ]
                    )
                )
                let orders = try await app.get("/v1/orders", as: [Order].self, decoder: shopDecoder)
                #expect(orders.map(\.id) == [1, 3])
                #expect(try await app.get("/v1/orders/1", as: Order.self, decoder: shopDecoder).status == .cancelled)
                #expect(try await app.send("GET", "/v1/orders/2").status == 404)
                #expect(try await app.send("POST", "/v1/orders/1/cancel").status == 409)
                #expect(try await app.get("/v1/me", as: User.self, decoder: shopDecoder).orderCount == 2)
                #expect(
                    try await mockd.client.groups()
                        == [
                            GroupInfo(
                                name: "account",
                                stubs: ["me", "orders", "order-1", "order-3", "cancel-1", "cancel-3"]
                            )
                        ]
                )
                try await mockd.verify(method: "POST", path: "/v1/orders/1/cancel", count: 2)
            }
        }
    }

    struct OrderEvent: Encodable {
        let orderId: Int
        let status: Order.Status
    }

    @Test func aWebSocketEventPushedFromTheTestReachesTheApp() async throws {
        try await withShopDaemon { daemon in
            try await withMockdSession(baseURL: daemon.baseURL) { mockd in
                let socket = try TinyWebSocket(port: daemon.baseURL.port!, path: "/v1/live", session: mockd.session)
                #expect(try socket.receive() == .text(#"{"type":"hello"}"#))
                let open = try await mockd.client.waitForWebSocket(path: "/v1/live")
                #expect(open.session == mockd.session)
                #expect(
                    try await mockd.client.push(json: OrderEvent(orderId: 1, status: .shipped), encoder: shopEncoder)
                        == 1
                )
                #expect(try socket.receive() == .text(#"{"order_id":1,"status":"shipped"}"#))
                // What the app sends is counted; the test waits for it rather than sleeping.
                try socket.send(text: #"{"ack":1}"#)
                let acknowledged = try await mockd.client.waitForWebSocket(path: "/v1/live") { $0.framesIn >= 1 }
                #expect(acknowledged.framesIn == 1)
                #expect(try await mockd.client.closeWebSockets(code: 4001, reason: "logged out") == 1)
                #expect(try socket.receive() == .close(code: 4001, reason: "logged out"))
            }
        }
    }

    @Test func aFailingVerifyNamesThePartOfTheKeyThatDiffered() async throws {
        try await withShopDaemon { daemon in
            try await withMockdSession(baseURL: daemon.baseURL) { mockd in
                try await mockd.client.replace(.annaWithThreeOrders(placedAt: Self.placed))
                let app = ShopApp(launchEnvironment: mockd.launchEnvironment)
                // The app's bug: it cancels with PUT.
                #expect(try await app.send("PUT", "/v1/orders/1/cancel").status == 404)
                let error = await #expect(throws: MockdTestKitError.self) {
                    try await mockd.verify(method: "POST", path: "/v1/orders/1/cancel", count: 1)
                }
                #expect(
                    error?.description == """
                        expected exactly 1 POST /v1/orders/1/cancel, journal has 0; closest: PUT /v1/orders/1/cancel \
                        (method: expected POST, got PUT)
                        PUT /v1/orders/1/cancel was not answered: closest stub 'cancel-1' (method: expected POST, got PUT)
                        """
                )
            }
        }
    }
}
