import Foundation
import MockdFormat

/// A scenario's stateful REST collection (`resources[]`), compiled: where it lives, how items are identified, what
/// it starts with, how its list pages. Each session keeps its own items (`ResourceStore`).
final class Resource: Sendable {
    let name: String
    /// The collection path without a trailing `/` (`/v1/orders`).
    let path: String
    let idField: String
    /// The items a session starts with.
    let seed: [JSONValue]
    /// The document the list is answered in, with the items at `pointer`; `nil`: the list is the bare array.
    let document: JSONValue?
    /// RFC 6901 reference tokens to the items array in `document`.
    let pointer: [String]
    let limitParameter: String
    let offsetParameter: String
    let pageParameter: String?
    let firstPage: Int
    let actions: [Action]

    struct Action: Sendable {
        let method: String
        let path: String
        let patch: JSONValue
    }

    init(
        name: String,
        path: String,
        idField: String,
        seed: [JSONValue],
        document: JSONValue?,
        pointer: [String],
        paging: ResourcePagingEntry?,
        actions: [Action]
    ) {
        self.name = name
        self.path = path
        self.idField = idField
        self.seed = seed
        self.document = document
        self.pointer = pointer
        self.limitParameter = paging?.limit ?? "limit"
        self.offsetParameter = paging?.offset ?? "offset"
        self.pageParameter = paging?.page
        self.firstPage = paging?.firstPage ?? 1
        self.actions = actions
    }

    /// The id of `item` as text (a string as is, a whole number in decimal); `nil` when it has none.
    func id(of item: JSONValue) -> String? {
        guard case .object(let members) = item else { return nil }
        switch members[idField] {
        case .string(let text)?: return text
        case .int(let number)?: return String(number)
        case .double(let number)? where number.rounded() == number && abs(number) < 1e15: return String(Int(number))
        default: return nil
        }
    }

    /// The list answer's body: `document` with `items` at the pointer (or the bare array).
    func listBody(_ items: [JSONValue]) -> JSONValue {
        guard let document else { return .array(items) }
        return Resource.replacing(pointer[...], in: document, with: .array(items))
    }

    private static func replacing(
        _ tokens: ArraySlice<String>,
        in value: JSONValue,
        with items: JSONValue
    )
        -> JSONValue
    {
        guard let token = tokens.first else { return items }
        switch value {
        case .object(var members):
            members[token] = replacing(tokens.dropFirst(), in: members[token] ?? .null, with: items)
            return .object(members)
        case .array(var elements):
            guard let index = Int(token), elements.indices.contains(index) else { return value }
            elements[index] = replacing(tokens.dropFirst(), in: elements[index], with: items)
            return .array(elements)
        default: return value
        }
    }

    /// The value at RFC 6901 reference tokens, `nil` when the path does not exist.
    static func value(at tokens: [String], in value: JSONValue) -> JSONValue? {
        value.value(at: tokens)
    }

    /// RFC 6901: `""` is the whole document, `/a/b` two tokens, `~1` is `/` and `~0` is `~`; `nil` when malformed.
    static func pointerTokens(_ pointer: String) -> [String]? {
        if pointer.isEmpty { return [] }
        guard pointer.hasPrefix("/") else { return nil }
        return pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map(
            JSONPointerToken.unescaped
        )
    }
}
