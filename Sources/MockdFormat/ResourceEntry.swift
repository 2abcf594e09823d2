/// `resources[]` of a scenario: a stateful REST collection each session keeps its own copy of (docs/FORMAT.md,
/// Stateful resources).
///
/// `{"name": "orders", "path": "/v1/orders", "id": "id", "seed": {"stub": "GET_v1_orders", "items": "/orders"}}`
/// answers `GET /v1/orders` (the list, in the seed's shape), `GET /v1/orders/{id}`, `POST /v1/orders`,
/// `PUT`/`PATCH` (RFC 7386 merge) and `DELETE /v1/orders/{id}`, and the declared `actions`.
public struct ResourceEntry: Codable, Sendable, Equatable {
    enum CodingKeys: String, CodingKey, CaseIterable { case name, path, id, seed, paging, actions }

    /// The name templates and `GET /__mockd/resources/NAME` use: letters, digits, `-` and `_`.
    public var name: String
    /// The collection's path (`/v1/orders`); items live at `PATH/{id}`.
    public var path: String
    /// The items' id field. Default `id`.
    public var id: String?
    /// The items the collection starts with (and returns to on reset). Default: none.
    public var seed: ResourceSeedEntry?
    /// The query parameters of the list (`GET PATH`). Default: `limit` and `offset`.
    public var paging: ResourcePagingEntry?
    /// Item actions such as `POST PATH/{id}/cancel`.
    public var actions: [ResourceActionEntry]?

    public init(
        name: String,
        path: String,
        id: String? = nil,
        seed: ResourceSeedEntry? = nil,
        paging: ResourcePagingEntry? = nil,
        actions: [ResourceActionEntry]? = nil
    ) {
        self.name = name
        self.path = path
        self.id = id
        self.seed = seed
        self.paging = paging
        self.actions = actions
    }
}

/// `seed`: an inline JSON array of items, or `{"bodyFile": "shop/bodies/orders.json", "items": "/orders"}`, or
/// `{"stub": "GET_v1_orders", "items": "/orders"}` — the recorded answer of a mock-set stub (a HAR import), with
/// `items` an RFC 6901 JSON pointer to the array inside it (default: the whole document). The list is answered in
/// the document's shape, with the array at `items` holding the current items.
public struct ResourceSeedEntry: Codable, Sendable, Equatable {
    enum CodingKeys: String, CodingKey, CaseIterable { case bodyFile, stub, items }

    /// The inline form.
    public var inline: [JSONValue]?
    /// A JSON file under `mocks/`.
    public var bodyFile: String?
    /// The id of a stub of the scenario's mock sets; its first response's body is the document.
    public var stub: String?
    /// RFC 6901 JSON pointer to the items array inside the document. Default `""` (the document is the array).
    public var items: String?

    public init(inline: [JSONValue]? = nil, bodyFile: String? = nil, stub: String? = nil, items: String? = nil) {
        self.inline = inline
        self.bodyFile = bodyFile
        self.stub = stub
        self.items = items
    }

    public init(from decoder: any Decoder) throws {
        if let array = try? decoder.singleValueContainer().decode([JSONValue].self) {
            self.init(inline: array)
            return
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            bodyFile: try container.decodeIfPresent(String.self, forKey: .bodyFile),
            stub: try container.decodeIfPresent(String.self, forKey: .stub),
            items: try container.decodeIfPresent(String.self, forKey: .items)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        if let inline {
            var container = encoder.singleValueContainer()
            try container.encode(inline)
            return
        }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(bodyFile, forKey: .bodyFile)
        try container.encodeIfPresent(stub, forKey: .stub)
        try container.encodeIfPresent(items, forKey: .items)
    }
}

/// `paging`: the names of the list's query parameters. `limit` (items per answer; absent = all) and `offset`
/// (items to skip), or `page` (1-based unless `firstPage` says otherwise) with `limit` as the page size.
public struct ResourcePagingEntry: Codable, Sendable, Equatable {
    enum CodingKeys: String, CodingKey, CaseIterable { case limit, offset, page, firstPage }

    /// Default `limit`.
    public var limit: String?
    /// Default `offset`.
    public var offset: String?
    /// No default: page numbers are read only when named.
    public var page: String?
    /// The number of the first page. Default 1.
    public var firstPage: Int?

    public init(limit: String? = nil, offset: String? = nil, page: String? = nil, firstPage: Int? = nil) {
        self.limit = limit
        self.offset = offset
        self.page = page
        self.firstPage = firstPage
    }
}

/// An item action: `{"method": "POST", "path": "cancel", "patch": {"status": "cancelled"}}` answers
/// `POST PATH/{id}/cancel` by merging `patch` into the item (RFC 7386) and answering 200 with it (404 for an
/// unknown id).
public struct ResourceActionEntry: Codable, Sendable, Equatable {
    enum CodingKeys: String, CodingKey, CaseIterable { case method, path, patch }

    /// Default `POST`.
    public var method: String?
    /// The segment after the item's path, without a leading `/`.
    public var path: String
    /// An RFC 7386 merge patch applied to the item.
    public var patch: JSONValue

    public init(method: String? = nil, path: String, patch: JSONValue) {
        self.method = method
        self.path = path
        self.patch = patch
    }
}
