import Foundation
import MockdClient
import MockdTestKit
import ShopFixtures
import XCTest

/// The same kit from XCTest: `MockdTestCase` gives each test a session named after it (set up, journal kept,
/// dropped), here against a daemon the test case starts; a UI-test case would read `MOCKD_BASE_URL` instead.
final class ShopXCTests: MockdTestCase {
    private var daemon: MockdDaemon?

    override var baseURL: URL? { daemon?.baseURL }

    override func setUp() async throws {
        daemon = try await startShopDaemon()
        try await super.setUp()
    }

    override func tearDown() async throws {
        try await super.tearDown()
        daemon?.stop()
        daemon = nil
    }

    func testEachTestHasASessionNamedAfterIt() async throws {
        XCTAssertTrue(mockd.session.hasPrefix("ShopXCTests.testEachTestHasASessionNamedAfterIt-"), mockd.session)
        try await mockd.client.replace(.annaWithThreeOrders(placedAt: Date(timeIntervalSince1970: 0)))
        let app = ShopApp(launchEnvironment: mockd.launchEnvironment)
        let user = try await app.get("/v1/me", as: User.self, decoder: shopDecoder)
        XCTAssertEqual(user, User(id: "u-1", displayName: "Anna", orderCount: 3))
        await assertRequested(method: "GET", path: "/v1/me", count: 1)
    }
}
