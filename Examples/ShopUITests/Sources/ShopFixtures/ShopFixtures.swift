public import Foundation
public import MockdClient

/// An order as the shop app's API sends it (`GET /v1/orders`, `GET /v1/orders/{id}`).
public struct Order: Codable, Sendable, Equatable {
    public enum Status: String, Codable, Sendable { case open, shipped, cancelled }

    public let id: Int
    public var status: Status
    public var totalCents: Int
    public var placedAt: Date

    public init(id: Int, status: Status, totalCents: Int, placedAt: Date) {
        self.id = id
        self.status = status
        self.totalCents = totalCents
        self.placedAt = placedAt
    }
}

/// The signed-in user (`GET /v1/me`).
public struct User: Codable, Sendable, Equatable {
    public let id: String
    public var displayName: String
    public var orderCount: Int

    public init(id: String, displayName: String, orderCount: Int) {
        self.id = id
        self.displayName = displayName
        self.orderCount = orderCount
    }
}

/// The API's JSON: snake_case keys and ISO 8601 dates, as the app's decoder expects.
public let shopEncoder: JSONEncoder = {
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    encoder.dateEncodingStrategy = .iso8601
    encoder.outputFormatting = [.sortedKeys]
    return encoder
}()

/// The decoder the app uses for the same JSON.
public let shopDecoder: JSONDecoder = {
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    decoder.dateDecodingStrategy = .iso8601
    return decoder
}()

extension StubGroup {
    /// The state "a user with these orders": `GET /v1/me`, the order list and each order, one group named `account`,
    /// so that a test swaps the whole account for another in one call.
    /// - Throws: What the encoder throws (never for these types).
    public static func account(_ user: User, orders: [Order]) throws -> StubGroup {
        try StubGroup("account") {
            try StubDefinition.json(id: "me", method: "GET", path: "/v1/me", body: user, encoder: shopEncoder)
            try StubDefinition.json(id: "orders", method: "GET", path: "/v1/orders", body: orders, encoder: shopEncoder)
            for order in orders {
                try StubDefinition.json(
                    id: "order-\(order.id)",
                    method: "GET",
                    path: "/v1/orders/\(order.id)",
                    body: order,
                    encoder: shopEncoder
                )
            }
            // Cancelling answers 200 for open orders only; a cancelled or shipped one is a 409.
            for order in orders {
                StubDefinition(
                    id: "cancel-\(order.id)",
                    method: "POST",
                    path: "/v1/orders/\(order.id)/cancel",
                    status: order.status == .open ? 200 : 409
                )
            }
        }
    }

    /// "Anna with 3 orders, one cancelled", the state most tests start from.
    public static func annaWithThreeOrders(placedAt: Date) throws -> StubGroup {
        try account(
            User(id: "u-1", displayName: "Anna", orderCount: 3),
            orders: [
                Order(id: 1, status: .open, totalCents: 1_999, placedAt: placedAt),
                Order(id: 2, status: .shipped, totalCents: 4_550, placedAt: placedAt),
                Order(id: 3, status: .cancelled, totalCents: 999, placedAt: placedAt),
            ]
        )
    }
}
