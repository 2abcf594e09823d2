/// What changed between two mock sets (or HAR recordings) of an API, endpoint by endpoint: what `mockd diff`,
/// `mockd refresh` and `import-har --merge` print.
///
/// An endpoint is a method and a path template (`GET /v1/users/{id}`, see `EndpointTemplate`), with the hosts that
/// answer it. Encoded as JSON (`--format json`) with these field names; empty lists are written as `[]`.
public struct MockSetChangelog: Codable, Sendable, Equatable {
    public var endpointsAdded: [Endpoint] = []
    public var endpointsRemoved: [Endpoint] = []
    public var endpointsChanged: [EndpointChange] = []

    /// Whether the two sides describe the same API (placeholders and normalised values aside).
    public var isEmpty: Bool { endpointsAdded.isEmpty && endpointsRemoved.isEmpty && endpointsChanged.isEmpty }

    public init() {}
}

/// One endpoint: `method`, path `template` and the `hosts` recorded for it (empty when the set names none).
public struct Endpoint: Codable, Sendable, Hashable, Comparable {
    public var method: String
    public var template: String
    public var hosts: [String]
    /// The ids of the stubs behind the endpoint on the side it comes from (the old side for removals).
    public var stubs: [String]

    /// `GET /v1/users/{id}`.
    public var name: String { "\(method) \(template)" }

    public static func < (left: Endpoint, right: Endpoint) -> Bool {
        (left.template, left.method) < (right.template, right.method)
    }
}

/// How one endpoint present on both sides changed.
public struct EndpointChange: Codable, Sendable, Equatable {
    public var endpoint: Endpoint
    public var statusesAdded: [Int] = []
    public var statusesRemoved: [Int] = []
    /// Structural changes of JSON bodies, per status, sorted by status then path.
    public var bodyChanges: [StatusBodyChange] = []
    /// Values that changed where the structure did not (same stub, same step, same JSON path; or a whole non-JSON
    /// body), per status.
    public var valueChanges: [StatusValueChanges] = []
}

/// The structural changes of the JSON bodies answered with one status.
public struct StatusBodyChange: Codable, Sendable, Equatable {
    public var status: Int
    public var changes: [BodyChange]
}

/// One structural change at a JSON path.
public struct BodyChange: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        case added, removed, typeChanged
    }

    public var kind: Kind
    /// `$.user.name`; `[]` stands for every element of an array (`$.items[].id`).
    public var path: String
    /// The JSON types before and after (`string`, `number|null`); `nil` on the side where the path is absent.
    public var before: String?
    public var after: String?

    /// Whether the change is inside an array's items (`$.items[].id`): an item shape change.
    public var isInArrayItems: Bool { path.contains("[]") }
}

/// A count of value-only changes for one status, with the first few paths as examples.
public struct StatusValueChanges: Codable, Sendable, Equatable {
    public var status: Int
    public var count: Int
    /// At most three, sorted (`$.updatedAt`, or `body` for a non-JSON body).
    public var examples: [String]
}
