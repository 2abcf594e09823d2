import Foundation
import MockdFormat

/// Stateful resources (`resources[]`): REST answers from the session's copy of each collection, so list and detail
/// always agree. Tried after the overrides (a test can still force an error) and before the mock sets.
extension MockEngine {
    /// The answer of the scenario's resource that `request` addresses, or `nil` when none does.
    ///
    /// `GET PATH` the list (paged by the declared parameters), `POST PATH` creates (201 + `Location`; 409 for an id
    /// that exists; 422 for a body that is not a JSON object), `GET`/`PUT`/`PATCH`/`DELETE PATH/{id}` (PUT replaces
    /// or creates, PATCH is an RFC 7386 merge, DELETE answers 204; 404 for an unknown id), `METHOD PATH/{id}/ACTION`
    /// the declared actions; another method gets 405 with `Allow` (RFC 9110 §15.5.6).
    static func resourceAnswer(_ request: HTTPRequest, scenario: Scenario, store: ResourceStore) -> MockResponse? {
        guard addressesResource(request, in: scenario) else { return nil }
        var path = String(request.path)
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        for resource in scenario.resources {
            if path == resource.path {
                return collectionAnswer(request, resource, store)
            }
            guard path.hasPrefix(resource.path + "/") else { continue }
            let rest = path.dropFirst(resource.path.count + 1).split(separator: "/", omittingEmptySubsequences: false)
            let id = String(decoding: URLEncoding.decode(rest[0].utf8, plusIsSpace: false), as: UTF8.self)
            if rest.count == 1 { return itemAnswer(request, resource, id: id, store) }
            if rest.count == 2, let action = resource.actions.first(where: { $0.path == rest[1] }) {
                guard request.method == action.method else { return methodNotAllowed(resource, [action.method]) }
                return store.withItems(of: resource) { items in
                    guard let position = items.firstIndex(where: { resource.id(of: $0) == id }) else {
                        return notFound(resource, id)
                    }
                    items[position] = MergePatch.apply(action.patch, to: items[position])
                    return json(200, items[position], resource)
                }
            }
        }
        return nil
    }

    /// Whether one of the scenario's resources answers `request`'s path (its collection, an item, or a declared
    /// action of an item), without answering it: `resourceAnswer` would give a response.
    static func addressesResource(_ request: HTTPRequest, in scenario: Scenario) -> Bool {
        guard !scenario.resources.isEmpty else { return false }
        var path = Substring(request.path)
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return scenario.resources.contains { resource in
            if path == resource.path { return true }
            guard path.hasPrefix(resource.path + "/") else { return false }
            let rest = path.dropFirst(resource.path.count + 1).split(separator: "/", omittingEmptySubsequences: false)
            return rest.count == 1 || (rest.count == 2 && resource.actions.contains { $0.path == rest[1] })
        }
    }

    private static func collectionAnswer(
        _ request: HTTPRequest,
        _ resource: Resource,
        _ store: ResourceStore
    )
        -> MockResponse
    {
        switch request.method {
        case "GET", "HEAD":
            let items = store.items(of: resource)
            let query = URLEncoding.decodedQuery(request.query)
            func number(_ name: String?) -> Int? {
                guard let name else { return nil }
                // Clamped, so that page × limit and offset + limit never overflow.
                return query.first { $0.name == name }.flatMap { Int($0.value) }.map { min(max(0, $0), 1_000_000_000) }
            }
            let limit = number(resource.limitParameter)
            var offset = number(resource.offsetParameter) ?? 0
            if let page = number(resource.pageParameter), let limit {
                offset = max(0, page - resource.firstPage) * limit
            }
            let start = min(offset, items.count)
            let end = limit.map { min(items.count, start + $0) } ?? items.count
            return json(200, resource.listBody(Array(items[start..<end])), resource)
        case "POST":
            guard case .object(var members)? = body(request) else { return notAnObject(resource) }
            // An id the client gives must be usable as a path segment: a non-empty string or a whole number.
            if let sent = members[resource.idField], !MockEngine.isUsableID(sent) {
                return error(
                    422,
                    "invalid_body",
                    "\(resource.idField) must be a non-empty string or a whole number (got \((try? JSONValueEncoding.data(sent)).map { String(decoding: $0, as: UTF8.self) } ?? "?"))",
                    resource
                )
            }
            return store.withItems(of: resource) { items in
                if let given = resource.id(of: .object(members)) {
                    if items.contains(where: { resource.id(of: $0) == given }) {
                        return error(
                            409,
                            "conflict",
                            "\(resource.name) already has an item with id '\(given)'",
                            resource
                        )
                    }
                } else {
                    members[resource.idField] = nextID(resource, items)
                }
                let item = JSONValue.object(members)
                items.append(item)
                var response = json(201, item, resource)
                response.headers.add(
                    name: "Location",
                    value: resource.path + "/" + MockEngine.pathSegment(resource.id(of: item) ?? "")
                )
                return response
            }
        default:
            return methodNotAllowed(resource, ["GET", "HEAD", "POST"])
        }
    }

    private static func itemAnswer(
        _ request: HTTPRequest,
        _ resource: Resource,
        id: String,
        _ store: ResourceStore
    )
        -> MockResponse
    {
        switch request.method {
        case "GET", "HEAD":
            let item = store.items(of: resource).first { resource.id(of: $0) == id }
            return item.map { json(200, $0, resource) } ?? notFound(resource, id)
        case "PUT", "PATCH":
            guard case .object(var members)? = body(request) else { return notAnObject(resource) }
            return store.withItems(of: resource) { items in
                let position = items.firstIndex { resource.id(of: $0) == id }
                if request.method == "PATCH" {
                    guard let position else { return notFound(resource, id) }
                    var patched = MergePatch.apply(.object(members), to: items[position])
                    if case .object(var merged) = patched, let kept = memberID(of: items[position], resource) {
                        merged[resource.idField] = kept
                        patched = .object(merged)
                    }
                    items[position] = patched
                    return json(200, patched, resource)
                }
                members[resource.idField] =
                    position.flatMap { memberID(of: items[$0], resource) } ?? idValue(id, like: items, resource)
                let item = JSONValue.object(members)
                if let position {
                    items[position] = item
                    return json(200, item, resource)
                }
                items.append(item)
                var response = json(201, item, resource)
                response.headers.add(name: "Location", value: resource.path + "/" + MockEngine.pathSegment(id))
                return response
            }
        case "DELETE":
            return store.withItems(of: resource) { items in
                guard let position = items.firstIndex(where: { resource.id(of: $0) == id }) else {
                    return notFound(resource, id)
                }
                items.remove(at: position)
                var response = MockResponse(status: 204)
                response.stubID = "resource:\(resource.name)"
                return response
            }
        default:
            return methodNotAllowed(resource, ["GET", "HEAD", "PUT", "PATCH", "DELETE"])
        }
    }

    /// The id for a created item: after the largest whole-number id (as a number or a string, like the others),
    /// else a UUID in lower case.
    private static func nextID(_ resource: Resource, _ items: [JSONValue]) -> JSONValue {
        let ids = items.compactMap { memberID(of: $0, resource) }
        let numbers = ids.compactMap { id -> Int? in
            switch id {
            case .int(let number): return number
            case .string(let text): return Int(text)
            default: return nil
            }
        }
        guard !ids.isEmpty, numbers.count == ids.count, let largest = numbers.max() else {
            return ids.isEmpty ? .int(1) : .string(UUID().uuidString.lowercased())
        }
        if case .string = ids[0] { return .string(String(largest + 1)) }
        return .int(largest + 1)
    }

    /// `id` from a path as the items' ids are typed: a number when theirs are numbers.
    private static func idValue(_ id: String, like items: [JSONValue], _ resource: Resource) -> JSONValue {
        if case .int? = items.lazy.compactMap({ memberID(of: $0, resource) }).first, let number = Int(id) {
            return .int(number)
        }
        return .string(id)
    }

    private static func memberID(of item: JSONValue, _ resource: Resource) -> JSONValue? {
        guard case .object(let members) = item else { return nil }
        return members[resource.idField]
    }

    private static func body(_ request: HTTPRequest) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: request.body)
    }

    private static func json(_ status: Int, _ value: JSONValue, _ resource: Resource) -> MockResponse {
        var response = MockResponse(
            status: status,
            headers: HTTPHeaders([("Content-Type", "application/json; charset=utf-8")]),
            body: ((try? JSONValueEncoding.data(value)) ?? Data("null".utf8)) + [0x0A]
        )
        response.disableTemplate()
        response.stubID = "resource:\(resource.name)"
        return response
    }

    private static func error(_ status: Int, _ code: String, _ message: String, _ resource: Resource) -> MockResponse {
        var response = MockResponse.jsonError(status: status, code: code, message: message)
        response.stubID = "resource:\(resource.name)"
        return response
    }

    private static func notFound(_ resource: Resource, _ id: String) -> MockResponse {
        error(404, "not_found", "\(resource.name) has no item with id '\(id)'", resource)
    }

    /// Whether a client-given id can name an item in a path: a non-empty string or a whole number.
    static func isUsableID(_ value: JSONValue) -> Bool {
        switch value {
        case .string(let text): return !text.isEmpty
        case .int: return true
        case .double(let number): return number.isFinite && number == number.rounded() && abs(number) < 1e15
        default: return false
        }
    }

    /// `id` percent-encoded as one path segment (RFC 3986 §3.3), for `Location`.
    static func pathSegment(_ id: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#%;")
        return id.addingPercentEncoding(withAllowedCharacters: allowed) ?? id
    }

    private static func notAnObject(_ resource: Resource) -> MockResponse {
        error(422, "invalid_body", "the body must be a JSON object (an item of \(resource.name))", resource)
    }

    private static func methodNotAllowed(_ resource: Resource, _ allowed: [String]) -> MockResponse {
        var response = error(
            405,
            "method_not_allowed",
            "\(resource.path) accepts \(allowed.joined(separator: ", "))",
            resource
        )
        response.headers.add(name: "Allow", value: allowed.joined(separator: ", "))
        return response
    }
}

extension MockEngine {
    /// `{{resources.NAME.count}}` or `{{resources.NAME.ID[.FIELD…]}}` (given without `resources.`): the value as a
    /// Foundation JSON value (the count as a number); `nil` (left as written) for an unknown resource, `""` for an
    /// unknown item or field.
    static func resourcePlaceholder(_ name: String, scenario: Scenario, store: ResourceStore) -> Any? {
        let parts = name.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, let resource = scenario.resources.first(where: { $0.name == parts[0] }) else {
            return nil
        }
        let items = store.items(of: resource)
        if parts.count == 2 && parts[1] == "count" { return items.count }
        guard let item = items.first(where: { resource.id(of: $0) == String(parts[1]) }) else { return "" }
        let foundation = item.foundationValue
        let value: Any? = parts.count == 3 ? TemplateContext.lookup(foundation, path: String(parts[2])) : foundation
        return value ?? ""
    }
}
