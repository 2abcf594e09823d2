import Foundation
import MockdFormat

/// Compares two mock sets endpoint by endpoint into a `MockSetChangelog`.
///
/// Placeholders (`{{token}}`, `{{email}}`, normalised `{{timestamp}}` values…) never count as changes: a string
/// holding `{{` on either side equals anything. Stub ids, body file names, response headers and recorded times are
/// not compared. Responses are compared by status; values only between the same stub (same host, method, path,
/// query and request body) and the same step of its sequence.
///
/// - Complexity: O(stubs + body bytes) of both sets; bodies are parsed only for the endpoints whose recorded stubs
///   differ (a merge of a few entries into 100,000 stubs parsed every body of both sets).
public enum MockSetDiff {
    public static func changelog(from old: MockSetBuild, to new: MockSetBuild) -> MockSetChangelog {
        let carried = CarriedBodies()
        let before = EndpointTable(old, carried: carried)
        let after = EndpointTable(new, carried: carried)
        var changelog = MockSetChangelog()
        for key in Set(before.endpoints.keys).union(after.endpoints.keys).sorted(by: { $0.sortKey < $1.sortKey }) {
            switch (before.endpoints[key], after.endpoints[key]) {
            case (nil, let added?): changelog.endpointsAdded.append(added.endpoint)
            case (let removed?, nil): changelog.endpointsRemoved.append(removed.endpoint)
            case (let oldGroup?, let newGroup?):
                if let change = compare(oldGroup, newGroup) { changelog.endpointsChanged.append(change) }
            default: break
            }
        }
        return changelog
    }

    private static func compare(_ old: EndpointGroup, _ new: EndpointGroup) -> EndpointChange? {
        // The same stubs with the same answers, in the same order: nothing to parse, nothing changed.
        if old.recorded == new.recorded { return nil }
        var change = EndpointChange(endpoint: old.endpoint)
        change.endpoint.hosts = Array(Set(old.endpoint.hosts).union(new.endpoint.hosts)).sorted()
        let oldStatuses = old.statuses
        let newStatuses = new.statuses
        change.statusesAdded = newStatuses.subtracting(oldStatuses).sorted()
        change.statusesRemoved = oldStatuses.subtracting(newStatuses).sorted()
        // The same answers in the same order (the stubs keyed anew, say by a host a merge added) have the same shapes.
        if old.recorded.map(\.steps) != new.recorded.map(\.steps) {
            let oldShapes = old.shapes()
            let newShapes = new.shapes()
            for status in oldStatuses.intersection(newStatuses).sorted() {
                let changes = (newShapes[status] ?? JSONShape()).changes(from: oldShapes[status] ?? JSONShape())
                if !changes.isEmpty { change.bodyChanges.append(StatusBodyChange(status: status, changes: changes)) }
            }
        }
        var valuePaths: [Int: [String]] = [:]
        let newSteps = new.stepsByStub
        for (identity, oldResponses) in old.stepsByStub {
            // Answers stored alike have no value that differs.
            guard let newResponses = newSteps[identity], newResponses != oldResponses else { continue }
            for (oldStep, newStep) in zip(oldResponses, newResponses) where oldStep.status == newStep.status {
                valuePaths[oldStep.status, default: []] += ValueComparison.changedPaths(
                    AnswerBody(oldStep.body),
                    AnswerBody(newStep.body)
                )
            }
        }
        // A value change under a path whose structure changed is that change, not a second one.
        for (status, paths) in valuePaths.sorted(by: { $0.key < $1.key }) {
            let structural = change.bodyChanges.first { $0.status == status }?.changes.map(\.path) ?? []
            let remaining = paths.filter { path in
                !structural.contains { path == $0 || path.hasPrefix($0 + ".") || path.hasPrefix($0 + "[") }
            }
            let unique = Array(Set(remaining)).sorted()
            if !remaining.isEmpty {
                change.valueChanges.append(
                    StatusValueChanges(status: status, count: remaining.count, examples: Array(unique.prefix(3)))
                )
            }
        }
        let unchanged =
            change.statusesAdded.isEmpty && change.statusesRemoved.isEmpty && change.bodyChanges.isEmpty
            && change.valueChanges.isEmpty
        return unchanged ? nil : change
    }
}

/// What `MockSetDiff` compares in a set: the stubs grouped by endpoint.
private struct EndpointTable {
    var endpoints: [EndpointKey: EndpointGroup] = [:]

    init(_ build: MockSetBuild, carried: CarriedBodies) {
        for stub in build.file.stubs {
            let key = EndpointKey(
                method: stub.request.method.uppercased(),
                template: EndpointTemplate.template(ofPath: stub.request.path)
            )
            // Changed in place: a copy of the group taken out and put back copied its dictionaries for every stub,
            // quadratic in the stubs of one endpoint (20,000 stubs of `/items/{id}` took minutes to diff).
            Self.add(
                stub,
                of: build,
                carried: carried,
                to: &endpoints[
                    key,
                    default: EndpointGroup(
                        endpoint: Endpoint(method: key.method, template: key.template, hosts: [], stubs: [])
                    )
                ]
            )
        }
    }

    private static func add(
        _ stub: MockSetFile.StubEntry,
        of build: MockSetBuild,
        carried: CarriedBodies,
        to group: inout EndpointGroup
    ) {
        let request = stub.request
        // A set recorded from one host names it only in its origins.
        let hosts = request.host.map { [$0] } ?? (build.file.origins ?? []).map(Self.host(ofOrigin:))
        for host in hosts where !group.endpoint.hosts.contains(host) {
            group.endpoint.hosts.append(host)
            group.endpoint.hosts.sort()
        }
        if let id = stub.id { group.endpoint.stubs.append(id) }
        let steps = stub.responses.filter { $0.miss == nil && $0.fault == nil }.map { response in
            RecordedAnswer(status: response.status ?? 200, body: StoredBody(response, of: build, carried: carried))
        }
        let identity = StubIdentity(
            host: request.host ?? "",
            method: group.endpoint.method,
            path: request.path,
            query: request.query ?? "",
            body: request.body.map { AnswerBody(requestBody: $0, of: build) }?.fingerprint ?? ""
        )
        group.recorded.append(RecordedStub(identity: identity, steps: steps))
    }
}

extension EndpointTable {
    /// `api.example.com` of `https://api.example.com`.
    fileprivate static func host(ofOrigin origin: String) -> String {
        guard let separator = origin.range(of: "://") else { return origin }
        return String(origin[separator.upperBound...])
    }
}

private struct EndpointKey: Hashable {
    var method: String
    var template: String
    var sortKey: String { template + " " + method }
}

/// An endpoint's stubs as recorded, bodies unparsed until a comparison needs them.
private struct EndpointGroup {
    var endpoint: Endpoint
    var recorded: [RecordedStub] = []

    var statuses: Set<Int> { Set(recorded.lazy.flatMap(\.steps).map(\.status)) }

    /// The shape of the JSON bodies of each status (every body parsed).
    func shapes() -> [Int: JSONShape] {
        var shapes: [Int: JSONShape] = [:]
        for step in recorded.lazy.flatMap(\.steps) {
            if case .json(let value) = AnswerBody(step.body) { shapes[step.status, default: JSONShape()].add(value) }
        }
        return shapes
    }

    /// Each stub's answers; of two stubs with one identity, the later.
    var stepsByStub: [StubIdentity: [RecordedAnswer]] {
        Dictionary(recorded.map { ($0.identity, $0.steps) }, uniquingKeysWith: { _, later in later })
    }
}

private struct StubIdentity: Hashable {
    var host, method, path, query, body: String
}

private struct RecordedStub: Equatable {
    var identity: StubIdentity
    var steps: [RecordedAnswer]
}

private struct RecordedAnswer: Equatable {
    var status: Int
    var body: StoredBody
}

/// The bytes of the body files a merge carries unread (`MockSetBuild.carried`), read at most once each by one
/// changelog: stubs sharing one file were compared with it once per stub, each comparison reading it again.
private final class CarriedBodies {
    private var read: [String: Data?] = [:]

    /// The bytes of the file at `source` (absolute), or `nil` when it cannot be read.
    func bytes(of source: String) -> Data? {
        if let known = read[source] { return known }
        let data = try? MockSetBuild.read(carriedFrom: source)
        read[source] = .some(data)
        return data
    }
}

/// A response body as the set stores it: inline JSON, or bytes (inline text or a body file's) not parsed yet, or a body
/// file a merge carries unread (`MockSetBuild.carried`), read only when compared with other bytes or parsed: two stubs
/// answering from the same carried file are equal without reading it, so a merge into a large set reads only the
/// bodies of the endpoints it changed.
private enum StoredBody: Equatable {
    case none
    case json(JSONValue)
    case bytes(Data)
    /// The absolute path of the file it is carried from, and where it is read.
    case carried(String, CarriedBodies)

    init(_ response: MockSetFile.ResponseEntry, of build: MockSetBuild, carried: CarriedBodies) {
        if let json = response.json {
            self = .json(json)
        } else if let text = response.body {
            self = .bytes(Data(text.utf8))
        } else if let file = response.bodyFile, let data = build.files[file] {
            self = .bytes(data)
        } else if let file = response.bodyFile, let source = build.carried[file] {
            self = .carried(source, carried)
        } else {
            self = .none
        }
    }

    /// `.carried` read into `.bytes` (`.none` when it cannot be read, as a missing body file is: the merge checked
    /// that each one opens); others as they are.
    var loaded: StoredBody {
        guard case .carried(let source, let carried) = self else { return self }
        return carried.bytes(of: source).map(StoredBody.bytes) ?? .none
    }

    static func == (lhs: StoredBody, rhs: StoredBody) -> Bool {
        switch (lhs, rhs) {
        case (.none, .none): return true
        case (.json(let left), .json(let right)): return left == right
        case (.bytes(let left), .bytes(let right)): return left == right
        case (.carried(let left, _), .carried(let right, _)) where left == right: return true
        // `loaded` is never `.carried`: compared by the cases above.
        case (.carried, _), (_, .carried): return lhs.loaded == rhs.loaded
        default: return false
        }
    }
}

extension AnswerBody {
    /// The body as the diff reads it (`reading` its bytes).
    fileprivate init(_ stored: StoredBody) {
        switch stored.loaded {
        case .none: self = .none
        case .json(let value): self = .json(value)
        case .bytes(let data): self = Self.reading(data)
        case .carried: self = .none  // `loaded` reads it
        }
    }
}

/// A stored body as the diff reads it: JSON when it parses, else its bytes.
enum AnswerBody: Equatable {
    case none
    case json(JSONValue)
    case bytes(Data)

    init(requestBody: MockSetFile.BodyEntry, of build: MockSetBuild) {
        if let json = requestBody.json {
            self = .json(json)
        } else if let text = requestBody.text {
            self = Self.reading(Data(text.utf8))
        } else if let file = requestBody.file, let data = build.bytes(at: file) {
            self = Self.reading(data)
        } else {
            self = .none
        }
    }

    fileprivate static func reading(_ data: Data) -> AnswerBody {
        if let first = data.first(where: { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }),
            first == UInt8(ascii: "{") || first == UInt8(ascii: "["),
            let value = try? JSONValue(parsing: data)
        {
            return .json(value)
        }
        return data.isEmpty ? .none : .bytes(data)
    }

    /// A stable text standing for the body in a stub's identity (JSON with sorted keys).
    var fingerprint: String {
        switch self {
        case .none: return ""
        case .json(let value):
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        case .bytes(let data): return String(decoding: data, as: UTF8.self)
        }
    }
}

/// Value-only differences between two bodies of the same step.
enum ValueComparison {
    /// The JSON paths whose leaf values differ (placeholders equal anything), or `["body"]` when two non-JSON bodies
    /// differ.
    static func changedPaths(_ old: AnswerBody, _ new: AnswerBody) -> [String] {
        switch (old, new) {
        case (.json(let before), .json(let after)):
            var paths: [String] = []
            collect(before, after, at: "$", into: &paths)
            return paths
        case (.bytes(let before), .bytes(let after)):
            if before == after { return [] }
            let oldText = String(decoding: before, as: UTF8.self)
            let newText = String(decoding: after, as: UTF8.self)
            return oldText.contains("{{") || newText.contains("{{") ? [] : ["body"]
        case (.none, .none): return []
        default: return ["body"]
        }
    }

    private static func collect(_ old: JSONValue, _ new: JSONValue, at path: String, into paths: inout [String]) {
        switch (old, new) {
        case (.object(let before), .object(let after)):
            for (key, value) in before {
                guard let counterpart = after[key] else { continue }
                collect(value, counterpart, at: path + "." + JSONShape.member(key), into: &paths)
            }
        case (.array(let before), .array(let after)):
            for (value, counterpart) in zip(before, after) {
                collect(value, counterpart, at: path + "[]", into: &paths)
            }
            if before.count != after.count { paths.append(path + " (length)") }
        case (.string(let before), .string(let after)):
            if before != after && !before.contains("{{") && !after.contains("{{") { paths.append(path) }
        case (.int, _), (.double, _):
            if let before = old.numberDouble, let after = new.numberDouble, before == after { return }
            if case .string(let text) = new, text.contains("{{") { return }
            paths.append(path)
        default:
            if case .string(let text) = old, text.contains("{{") { return }
            if case .string(let text) = new, text.contains("{{") { return }
            if old != new { paths.append(path) }
        }
    }
}

extension JSONValue {
    fileprivate var numberDouble: Double? {
        switch self {
        case .int(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }
}
