public import Foundation

extension JSONValue {
    /// The JSON that `encoder` writes for `value`: how a test turns its own DTOs (the app's `Codable` models or
    /// test-only fixtures) into stub bodies and body patches.
    ///
    /// The encoder's strategies decide the shape (`keyEncodingStrategy = .convertToSnakeCase`, `dateEncodingStrategy
    /// = .iso8601`…), so a body looks exactly like what the app's decoder expects. Integers stay integers, other
    /// numbers become `double`; object key order is not kept (the daemon sends objects with sorted keys).
    /// - Parameters:
    ///   - value: Any `Encodable`, a top-level string or number included.
    ///   - encoder: The encoder to use; `MockdClient.defaultEncoder` (ISO 8601 dates, keys as declared) by default.
    /// - Throws: The `EncodingError` of `encoder`, or `DecodingError` if its output is not JSON (a custom encoder).
    public init(encoding value: some Encodable, encoder: JSONEncoder = MockdClient.defaultEncoder) throws {
        let data = try encoder.encode(value)
        self = try JSONDecoder().decode(JSONValue.self, from: data)
    }
}

extension MockdClient {
    /// The encoder typed bodies use unless a call passes its own: dates as ISO 8601 (`2026-12-02T04:10:00Z`), keys
    /// as the types declare them. A fresh instance on each access, so changing one changes no other test's.
    public static var defaultEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}

extension StubDefinition {
    /// A stub matching `method` and `path` whose body is `body` encoded as JSON (with `Content-Type:
    /// application/json` unless `headers` sets one).
    ///
    /// ```swift
    /// struct Order: Encodable { let id: Int; let status: String }
    /// try await mockd.addStub(try .json(method: "GET", path: "/v1/orders", body: [Order(id: 1, status: "open")]))
    /// ```
    /// - Parameters:
    ///   - id: The stub's id; the daemon assigns `runtime-N` when `nil`.
    ///   - priority: Higher wins; the daemon's default is 0.
    ///   - method: The request method; any method when `nil`.
    ///   - path: The path, exact or a template (`/v1/orders/{id}`).
    ///   - query: Decoded query parameters that must be present with these values, or operators.
    ///   - requestHeaders: Request headers that must be present (names case-insensitive), values as for `query`.
    ///   - status: The status to send (the mock set's, or 200, when `nil`).
    ///   - headers: Response headers to set; a `nil` value removes that header.
    ///   - body: The body, any `Encodable`, sent as the JSON `encoder` writes.
    ///   - encoder: How to encode `body` (`MockdClient.defaultEncoder` by default).
    ///   - latencyMs: Milliseconds before the answer.
    ///   - host: The recorded host the request must be for, in sets recorded from several hosts.
    /// - Throws: What `encoder` throws for `body`.
    public static func json(
        id: String? = nil,
        priority: Int? = nil,
        method: String? = nil,
        path: String,
        query: [String: ValueMatchEntry]? = nil,
        requestHeaders: [String: ValueMatchEntry]? = nil,
        status: Int? = nil,
        headers: [String: String?] = [:],
        body: some Encodable,
        encoder: JSONEncoder = MockdClient.defaultEncoder,
        latencyMs: Double? = nil,
        host: String? = nil
    ) throws -> StubDefinition {
        var headers = headers
        if !headers.keys.contains(where: { $0.lowercased() == "content-type" }) {
            headers["Content-Type"] = "application/json"
        }
        return StubDefinition(
            id: id,
            priority: priority,
            method: method,
            path: path,
            query: query,
            requestHeaders: requestHeaders,
            status: status,
            headers: headers,
            body: try JSONValue(encoding: body, encoder: encoder),
            latencyMs: latencyMs,
            host: host
        )
    }

    /// A stub that changes the JSON body another stub (the mock set's, or another runtime stub's) would send by
    /// an RFC 7386 merge patch made from `patch`: only the fields `patch` encodes change, `null` removes one.
    /// - Throws: What `encoder` throws for `patch`.
    public static func patch(
        id: String? = nil,
        priority: Int? = nil,
        method: String? = nil,
        path: String,
        with patch: some Encodable,
        encoder: JSONEncoder = MockdClient.defaultEncoder,
        host: String? = nil
    ) throws -> StubDefinition {
        StubDefinition(
            id: id,
            priority: priority,
            method: method,
            path: path,
            bodyPatch: try JSONValue(encoding: patch, encoder: encoder),
            host: host
        )
    }
}
