import Foundation
import MockdFormat

/// Compares two mock sets endpoint by endpoint into a `MockSetChangelog`.
///
/// Placeholders (`{{token}}`, `{{email}}`, normalised `{{timestamp}}` values…) never count as changes: a string
/// holding `{{` on either side equals anything. Stub ids, body file names, response headers and recorded times are
/// not compared. Responses are compared by status; values only between the same stub (same host, method, path,
/// query and request body) and the same step of its sequence.
///
/// - Complexity: O(stubs + body bytes) of both sets.
public enum MockSetDiff {
    public static func changelog(from old: MockSetBuild, to new: MockSetBuild) -> MockSetChangelog {
        let before = EndpointTable(old)
        let after = EndpointTable(new)
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
        var change = EndpointChange(endpoint: old.endpoint)
        change.endpoint.hosts = Array(Set(old.endpoint.hosts).union(new.endpoint.hosts)).sorted()
        let oldStatuses = Set(old.shapes.keys).union(old.statuses)
        let newStatuses = Set(new.shapes.keys).union(new.statuses)
        change.statusesAdded = newStatuses.subtracting(oldStatuses).sorted()
        change.statusesRemoved = oldStatuses.subtracting(newStatuses).sorted()
        for status in oldStatuses.intersection(newStatuses).sorted() {
            let oldShape = old.shapes[status] ?? JSONShape()
            let newShape = new.shapes[status] ?? JSONShape()
            let changes = newShape.changes(from: oldShape)
            if !changes.isEmpty { change.bodyChanges.append(StatusBodyChange(status: status, changes: changes)) }
        }
        var valuePaths: [Int: [String]] = [:]
        for (identity, oldResponses) in old.responsesByStub {
            guard let newResponses = new.responsesByStub[identity] else { continue }
            for (oldBody, newBody) in zip(oldResponses, newResponses) where oldBody.status == newBody.status {
                valuePaths[oldBody.status, default: []] += ValueComparison.changedPaths(oldBody.body, newBody.body)
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

    init(_ build: MockSetBuild) {
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
                to: &endpoints[
                    key,
                    default: EndpointGroup(
                        endpoint: Endpoint(method: key.method, template: key.template, hosts: [], stubs: [])
                    )
                ]
            )
        }
    }

    private static func add(_ stub: MockSetFile.StubEntry, of build: MockSetBuild, to group: inout EndpointGroup) {
        let request = stub.request
        // A set recorded from one host names it only in its origins.
        let hosts = request.host.map { [$0] } ?? (build.file.origins ?? []).map(Self.host(ofOrigin:))
        for host in hosts where !group.endpoint.hosts.contains(host) {
            group.endpoint.hosts.append(host)
            group.endpoint.hosts.sort()
        }
        if let id = stub.id { group.endpoint.stubs.append(id) }
        var steps: [RecordedAnswer] = []
        for response in stub.responses where response.miss == nil && response.fault == nil {
            let status = response.status ?? 200
            group.statuses.insert(status)
            let body = AnswerBody(response, files: build.files)
            if case .json(let value) = body { group.shapes[status, default: JSONShape()].add(value) }
            steps.append(RecordedAnswer(status: status, body: body))
        }
        let identity = StubIdentity(
            host: request.host ?? "",
            method: group.endpoint.method,
            path: request.path,
            query: request.query ?? "",
            body: request.body.map { AnswerBody(requestBody: $0, files: build.files) }?.fingerprint ?? ""
        )
        group.responsesByStub[identity] = steps
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

private struct EndpointGroup {
    var endpoint: Endpoint
    var statuses: Set<Int> = []
    var shapes: [Int: JSONShape] = [:]
    var responsesByStub: [StubIdentity: [RecordedAnswer]] = [:]
}

private struct StubIdentity: Hashable {
    var host, method, path, query, body: String
}

private struct RecordedAnswer {
    var status: Int
    var body: AnswerBody
}

/// A stored body as the diff reads it: JSON when it parses, else its bytes.
enum AnswerBody: Equatable {
    case none
    case json(JSONValue)
    case bytes(Data)

    init(_ response: MockSetFile.ResponseEntry, files: [String: Data]) {
        if let json = response.json {
            self = .json(json)
        } else if let text = response.body {
            self = Self.reading(Data(text.utf8))
        } else if let file = response.bodyFile, let data = files[file] {
            self = Self.reading(data)
        } else {
            self = .none
        }
    }

    init(requestBody: MockSetFile.BodyEntry, files: [String: Data]) {
        if let json = requestBody.json {
            self = .json(json)
        } else if let text = requestBody.text {
            self = Self.reading(Data(text.utf8))
        } else if let file = requestBody.file, let data = files[file] {
            self = Self.reading(data)
        } else {
            self = .none
        }
    }

    private static func reading(_ data: Data) -> AnswerBody {
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
