import Foundation

/// The request condition of a scenario override: method, path (exact or `{name}` template), query
/// subset, headers and body. Absent parts match anything.
public struct RequestPattern: Sendable {
    public let method: String?
    /// The path as written (for near-miss output).
    public let pathText: String?
    /// Normalised segments; `nil` entries are `{name}` wildcards.
    private let pathSegments: [String?]?
    /// Decoded name → decoded value.
    public let query: [(name: String, value: String)]
    public let headers: [HeaderConstraint]
    public let body: BodyCondition?

    /// A request-body condition.
    public enum BodyCondition: Sendable {
        /// JSON containing these fields (objects as subsets, arrays and scalars exactly).
        case json(JSONValue)
        case text(String)
        case contains(String)
    }

    public init(method: String? = nil, path: String? = nil, query: [String: String] = [:], headers: [String: String] = [:], body: BodyCondition? = nil) {
        self.method = method
        self.pathText = path
        self.pathSegments = path.map { path in
            path.split(separator: "/", omittingEmptySubsequences: false).map { segment -> String? in
                if segment.hasPrefix("{") && segment.hasSuffix("}") && segment.count > 2 { return nil }
                return segment.isEmpty ? "" : RequestKey.normalizePath(segment)
            }
        }
        self.query = query.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        self.headers = headers.sorted { $0.key.lowercased() < $1.key.lowercased() }.map { HeaderConstraint(name: $0.key, value: $0.value) }
        self.body = body
    }

    /// Whether `request` satisfies every part of the pattern.
    public func matches(_ request: HTTPRequest, key: RequestKey) -> Bool {
        differences(request, key: key, stopAtFirst: true).isEmpty
    }

    /// The parts of `request` that break the pattern, for near-miss reports.
    func differences(_ request: HTTPRequest, key: RequestKey, stopAtFirst: Bool = false) -> [NearMiss.Difference] {
        var result: [NearMiss.Difference] = []
        if let method, method != request.method {
            result.append(.init(part: "method", expected: method, actual: request.method))
            if stopAtFirst { return result }
        }
        if let pathSegments, let pathText, !matchesPath(pathSegments, key.path) {
            result.append(.init(part: "path", expected: pathText, actual: key.path))
            if stopAtFirst { return result }
        }
        if !query.isEmpty {
            let actual = RequestPattern.decodedQuery(request.query)
            for (name, value) in query where !actual.contains(where: { $0.name == name && $0.value == value }) {
                result.append(.init(part: "query", expected: "\(name)=\(value)", actual: key.query.isEmpty ? "(no query)" : key.query))
                if stopAtFirst { return result }
            }
        }
        for constraint in headers where !constraint.isSatisfied(by: request.headers) {
            result.append(
                .init(
                    part: "header", expected: "\(constraint.name): \(constraint.value)",
                    actual: request.headers[constraint.name].map { "\(constraint.name): \($0)" } ?? "(no \(constraint.name) header)"
                )
            )
            if stopAtFirst { return result }
        }
        if let body, !RequestPattern.bodyMatches(body, request.body) {
            let expected: String
            switch body {
            case .json(let json): expected = (try? String(decoding: JSONValueEncoding.data(json), as: UTF8.self)) ?? "JSON"
            case .text(let text): expected = text
            case .contains(let text): expected = "contains \(text)"
            }
            result.append(.init(part: "body", expected: expected, actual: NearMissCalculator.summary(of: request.body)))
        }
        return result
    }

    private func matchesPath(_ segments: [String?], _ path: String) -> Bool {
        let actual = path.split(separator: "/", omittingEmptySubsequences: false)
        guard actual.count == segments.count else { return false }
        for (expected, segment) in zip(segments, actual) {
            if let expected {
                if expected != segment { return false }
            } else if segment.isEmpty {
                return false
            }
        }
        return true
    }

    static func decodedQuery(_ raw: Substring) -> [(name: String, value: String)] {
        raw.split(separator: "&").map { piece in
            let parts = piece.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (text: Substring) in String(decoding: URLEncoding.decode(text.utf8, plusIsSpace: true), as: UTF8.self) }
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    static func bodyMatches(_ condition: BodyCondition, _ body: Data) -> Bool {
        switch condition {
        case .text(let text): return body == Data(text.utf8)
        case .contains(let text): return String(decoding: body, as: UTF8.self).contains(text)
        case .json(let expected):
            guard let actual = try? JSONDecoder().decode(JSONValue.self, from: body) else { return false }
            return jsonContains(actual, expected)
        }
    }

    /// Objects match when every expected key matches; arrays and scalars must be equal (numbers by value).
    static func jsonContains(_ actual: JSONValue, _ expected: JSONValue) -> Bool {
        switch (actual, expected) {
        case (.object(let actualObject), .object(let expectedObject)):
            return expectedObject.allSatisfy { key, value in actualObject[key].map { jsonContains($0, value) } ?? false }
        case (.array(let actualArray), .array(let expectedArray)):
            return actualArray.count == expectedArray.count && zip(actualArray, expectedArray).allSatisfy { jsonContains($0, $1) }
        case (.int(let a), .double(let b)): return Double(a) == b
        case (.double(let a), .int(let b)): return a == Double(b)
        default: return actual == expected
        }
    }
}
