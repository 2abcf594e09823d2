import Foundation
public import MockdControl
public import MockdFormat
import MockdPlatform

/// The request condition of a scenario override: method, path (exact, `{name}` template or regex), exact URL
/// or URL regex, query and header conditions, and body conditions. Absent parts match anything; every given
/// part must hold.
public struct RequestPattern: Sendable {
    /// The recorded host the request must be for (`HostName.normalized`), or `nil` for any.
    public let host: String?
    public let method: String?
    /// The path as written (for near-miss output).
    public let pathText: String?
    /// Normalised segments; `nil` entries are `{name}` wildcards.
    let pathSegments: [String?]?
    /// A regex the whole normalised path must match (`match.pathPattern`).
    public let pathRegex: FullMatchRegex?
    /// Exact path and query (`match.url`), both normalised as request keys are (query order does not matter).
    public let exactURL: (path: String, query: String)?
    /// A regex the whole path plus `?query` as sent must match (`match.urlPattern`).
    public let urlRegex: FullMatchRegex?
    /// Plain query conditions: decoded name → decoded value, present among the request's parameters.
    public let query: [(name: String, value: String)]
    /// Plain header conditions (trimmed values; `Content-Type` by media type).
    public let headers: [HeaderConstraint]
    /// Query conditions written as operator objects (`{"matches": …}`), by decoded name.
    public let queryMatchers: [(name: String, matcher: ValueMatcher)]
    /// Header conditions written as operator objects, by lower-cased name.
    public let headerMatchers: [(name: String, matcher: ValueMatcher)]
    /// Body conditions; all must hold.
    public let bodies: [BodyCondition]
    /// The GraphQL operation the request must be (`match.graphql`); read from the request only when every other part
    /// holds.
    let graphQL: GraphQLCondition?

    /// The first body condition (patterns written with a single `body` object have at most one).
    public var body: BodyCondition? { bodies.first }

    /// A request-body condition.
    public enum BodyCondition: Sendable {
        /// JSON containing these fields (objects as subsets, arrays and scalars exactly).
        case json(JSONValue)
        case text(String)
        case contains(String)
        /// JSON equal to this value (same members, arrays in order, numbers by value).
        case jsonEquals(JSONValue)
        /// The body as UTF-8 text matches the regex as a whole.
        case matches(FullMatchRegex)
        /// The body as UTF-8 text does not match the regex as a whole.
        case doesNotMatch(FullMatchRegex)
        /// The body is JSON and the path leads to a value that is not null (and not an empty array or object).
        case jsonPath(SimpleJSONPath)
        /// The body is empty.
        case absent
    }

    public init(
        method: String? = nil,
        path: String? = nil,
        query: [String: String] = [:],
        headers: [String: String] = [:],
        body: BodyCondition? = nil
    ) {
        self.init(
            method: method,
            path: path,
            query: query.mapValues { ValueMatchEntry(plain: $0) },
            headers: headers.mapValues { ValueMatchEntry(plain: $0) },
            bodies: body.map { [$0] } ?? []
        )
    }

    /// A pattern with every kind of condition; `query` and `headers` entries that are operator objects must be
    /// valid (see `compile`, which checks them and compiles their regexes first).
    init(
        host: String? = nil,
        method: String?,
        path: String?,
        pathRegex: FullMatchRegex? = nil,
        url: String? = nil,
        urlRegex: FullMatchRegex? = nil,
        query: [String: ValueMatchEntry],
        headers: [String: ValueMatchEntry],
        queryMatchers: [(String, ValueMatcher)] = [],
        headerMatchers: [(String, ValueMatcher)] = [],
        bodies: [BodyCondition],
        graphQL: GraphQLCondition? = nil
    ) {
        self.graphQL = graphQL
        self.host = host.map(HostName.normalized)
        self.method = method
        self.pathText = path
        self.pathSegments = path.map { path in
            path.split(separator: "/", omittingEmptySubsequences: false).map { segment -> String? in
                if segment.hasPrefix("{") && segment.hasSuffix("}") && segment.count > 2 { return nil }
                return segment.isEmpty ? "" : RequestKey.normalizePath(segment)
            }
        }
        self.pathRegex = pathRegex
        self.exactURL = url.map { url in
            let request = HTTPRequest(method: "GET", target: url)
            let key = RequestKey(method: "GET", rawPath: request.path, rawQuery: request.query)
            return (key.path, key.query)
        }
        self.urlRegex = urlRegex
        self.query = query.compactMap { name, entry in entry.plain.map { (name, $0) } }.sorted { $0.name < $1.name }
        self.headers = headers.compactMap { name, entry in entry.plain.map { HeaderConstraint(name: name, value: $0) } }
            .sorted { $0.name < $1.name }
        self.queryMatchers = queryMatchers.sorted { $0.0 < $1.0 }.map { (name: $0.0, matcher: $0.1) }
        self.headerMatchers = headerMatchers.sorted { $0.0.asciiLowercased < $1.0.asciiLowercased }.map {
            (name: $0.0.asciiLowercased, matcher: $0.1)
        }
        self.bodies = bodies
    }

    /// Whether `request` satisfies every part of the pattern.
    /// - Parameter host: The recorded host the request is for (see `MockEngine.requestHost`); compared only when the
    ///   pattern names a host.
    public func matches(_ request: HTTPRequest, key: RequestKey, host: String? = nil) -> Bool {
        if case .matches = verdict(request, key: key, host: host) { return true }
        return false
    }

    /// Whether the pattern matches `request`, and the part left undecided when a regular expression ran out of its
    /// budget (`BoundedRegex`).
    public enum Verdict: Sendable {
        case matches
        case differs
        case undecided(NearMiss.Difference)
    }

    /// Whether `request` satisfies every part of the pattern, does not, or cannot be told (see `Verdict`).
    public func verdict(_ request: HTTPRequest, key: RequestKey, host: String? = nil) -> Verdict {
        let found = differences(request, key: key, host: host, stopAtFirst: true)
        guard let first = found.first else { return .matches }
        return first.undecided ? .undecided(first) : .differs
    }

    /// Whether the method, path, URL and query conditions hold (headers and body not looked at): whether the
    /// pattern can match some request to this method and target. A condition left undecided counts as could.
    public func couldMatch(method: String, target: String) -> Bool {
        let request = HTTPRequest(method: method, target: target)
        let found = differences(request, key: RequestKey(request), stopAtFirst: true, requestLineOnly: true)
        return found.allSatisfy(\.undecided)
    }

    /// The parts of `request` that break the pattern, for near-miss reports. A part a regular expression could not
    /// decide (`undecided`) ends the list, whatever `stopAtFirst` says: nothing after it is evaluated.
    func differences(
        _ request: HTTPRequest,
        key: RequestKey,
        host requestHost: String? = nil,
        stopAtFirst: Bool = false,
        requestLineOnly: Bool = false
    ) -> [NearMiss.Difference] {
        var result: [NearMiss.Difference] = []
        if let host, host != requestHost {
            result.append(
                .init(
                    part: "host",
                    expected: host,
                    actual: requestHost ?? "(none: prefix the path with /__host/\(host))"
                )
            )
            if stopAtFirst { return result }
        }
        if let method, method != request.method {
            result.append(.init(part: "method", expected: method, actual: request.method))
            if stopAtFirst { return result }
        }
        if let pathSegments, let pathText, !matchesPath(pathSegments, key.path) {
            result.append(.init(part: "path", expected: pathText, actual: key.path))
            if stopAtFirst { return result }
        }
        if let pathRegex, let outcome = Self.failed(pathRegex.evaluate(key.path)) {
            result.append(
                .init(part: "path", expected: "matches \(pathRegex.pattern)", actual: key.path, undecided: outcome)
            )
            if stopAtFirst || outcome { return result }
        }
        if let exactURL, exactURL.path != key.path || exactURL.query != key.query {
            let expected = exactURL.query.isEmpty ? exactURL.path : "\(exactURL.path)?\(exactURL.query)"
            result.append(
                .init(
                    part: "url",
                    expected: expected,
                    actual: key.query.isEmpty ? key.path : "\(key.path)?\(key.query)"
                )
            )
            if stopAtFirst { return result }
        }
        if let urlRegex {
            let url = request.query.isEmpty ? key.path : "\(key.path)?\(request.query)"
            if let outcome = Self.failed(urlRegex.evaluate(url)) {
                result.append(
                    .init(part: "url", expected: "matches \(urlRegex.pattern)", actual: url, undecided: outcome)
                )
                if stopAtFirst || outcome { return result }
            }
        }
        if !query.isEmpty || !queryMatchers.isEmpty {
            let actual = URLEncoding.decodedQuery(request.query)
            for (name, value) in query where !actual.contains(where: { $0.name == name && $0.value == value }) {
                result.append(
                    .init(
                        part: "query",
                        expected: "\(name)=\(value)",
                        actual: key.query.isEmpty ? "(no query)" : key.query
                    )
                )
                if stopAtFirst { return result }
            }
            for (name, matcher) in queryMatchers {
                guard let outcome = Self.failed(matcher.evaluate(actual.filter { $0.name == name }.map(\.value)))
                else { continue }
                result.append(
                    .init(
                        part: "query",
                        expected: "\(name) \(matcher)",
                        actual: key.query.isEmpty ? "(no query)" : key.query,
                        undecided: outcome
                    )
                )
                if stopAtFirst || outcome { return result }
            }
        }
        if requestLineOnly { return result }
        for constraint in headers where !constraint.isSatisfied(by: request.headers) {
            result.append(
                .init(
                    part: "header",
                    expected: "\(constraint.name): \(constraint.value)",
                    actual: request.headers[constraint.name].map { "\(constraint.name): \($0)" }
                        ?? "(no \(constraint.name) header)"
                )
            )
            if stopAtFirst { return result }
        }
        for (name, matcher) in headerMatchers {
            let values = request.headers.values(named: name)
            if let outcome = Self.failed(matcher.evaluate(values)) {
                result.append(
                    .init(
                        part: "header",
                        expected: "\(name) \(matcher)",
                        actual: values.first.map { "\(name): \($0)" } ?? "(no \(name) header)",
                        undecided: outcome
                    )
                )
                if stopAtFirst || outcome { return result }
            }
        }
        for body in bodies {
            guard let outcome = Self.failed(RequestPattern.evaluate(body, request.body)) else { continue }
            let expected: String
            switch body {
            case .json(let json):
                expected = (try? String(decoding: JSONValueEncoding.data(json), as: UTF8.self)) ?? "JSON"
            case .text(let text): expected = text
            case .contains(let text): expected = "contains \(text)"
            case .jsonEquals(let json):
                expected =
                    "JSON equal to " + ((try? String(decoding: JSONValueEncoding.data(json), as: UTF8.self)) ?? "JSON")
            case .matches(let regex): expected = "matches \(regex.pattern)"
            case .doesNotMatch(let regex): expected = "does not match \(regex.pattern)"
            case .jsonPath(let path): expected = "JSON with a value at \(path.text)"
            case .absent: expected = "(empty body)"
            }
            result.append(
                .init(part: "body", expected: expected, actual: NearMiss.summary(of: request.body), undecided: outcome)
            )
            if stopAtFirst || outcome { return result }
        }
        if let graphQL, stopAtFirst ? result.isEmpty : true {
            result += graphQL.differences(request, stopAtFirst: stopAtFirst)
        }
        return result
    }

    /// `nil` when a condition holds; else whether it was left undecided (`true`) rather than failed (`false`).
    private static func failed(_ outcome: ConditionOutcome) -> Bool? {
        switch outcome {
        case .holds: return nil
        case .fails: return false
        case .undecided: return true
        }
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

    static func bodyMatches(_ condition: BodyCondition, _ body: Data) -> Bool {
        evaluate(condition, body) == .holds
    }

    /// Whether `condition` holds for `body`; undecided when its regular expression ran out of budget.
    static func evaluate(_ condition: BodyCondition, _ body: Data) -> ConditionOutcome {
        switch condition {
        case .matches(let regex): return regex.evaluate(String(decoding: body, as: UTF8.self))
        case .doesNotMatch(let regex): return regex.evaluate(String(decoding: body, as: UTF8.self)).negated
        default: return plainBodyMatches(condition, body) ? .holds : .fails
        }
    }

    private static func plainBodyMatches(_ condition: BodyCondition, _ body: Data) -> Bool {
        switch condition {
        case .text(let text): return body == Data(text.utf8)
        case .contains(let text): return String(decoding: body, as: UTF8.self).contains(text)
        case .json(let expected):
            guard let actual = try? JSONDecoder().decode(JSONValue.self, from: body) else { return false }
            return jsonContains(actual, expected)
        case .jsonEquals(let expected):
            guard let actual = try? JSONDecoder().decode(JSONValue.self, from: body) else { return false }
            return jsonEqual(actual, expected)
        case .matches, .doesNotMatch: return evaluate(condition, body) == .holds
        case .jsonPath(let path):
            guard let actual = try? JSONDecoder().decode(JSONValue.self, from: body) else { return false }
            return path.hasValue(in: actual)
        case .absent: return body.isEmpty
        }
    }

    /// Objects match when every expected key matches; arrays and scalars must be equal (numbers by value).
    static func jsonContains(_ actual: JSONValue, _ expected: JSONValue) -> Bool {
        switch (actual, expected) {
        case (.object(let actualObject), .object(let expectedObject)):
            return expectedObject.allSatisfy { key, value in actualObject[key].map { jsonContains($0, value) } ?? false
            }
        case (.array(let actualArray), .array(let expectedArray)):
            return actualArray.count == expectedArray.count
                && zip(actualArray, expectedArray).allSatisfy { jsonContains($0, $1) }
        case (.int(let a), .double(let b)): return Double(a) == b
        case (.double(let a), .int(let b)): return a == Double(b)
        default: return actual == expected
        }
    }

    /// Equal JSON: the same members (any order), arrays element by element, numbers by value.
    static func jsonEqual(_ actual: JSONValue, _ expected: JSONValue) -> Bool {
        if case .object(let actualObject) = actual, case .object(let expectedObject) = expected {
            return actualObject.count == expectedObject.count && jsonContains(actual, expected)
        }
        if case .array(let actualArray) = actual, case .array(let expectedArray) = expected {
            return actualArray.count == expectedArray.count
                && zip(actualArray, expectedArray).allSatisfy { jsonEqual($0, $1) }
        }
        return jsonContains(actual, expected)
    }
}

extension RequestPattern {
    /// Compiles an override's `match` object, checking it: method token, path starting with `/`, valid
    /// regexes (compiled here, once), exactly one operator per query/header object and per body condition.
    ///
    /// - Parameters:
    ///   - path: JSON path of the override (`overrides[2]`); problems are reported under `<path>.match…`.
    /// - Returns: The pattern, or `nil` when a problem was appended to `problems`.
    static func compile(
        _ match: ScenarioFile.MatchEntry,
        file: String,
        path: String,
        problems: inout [ConfigError]
    ) -> RequestPattern? {
        let before = problems.count
        func fail(_ field: String, _ message: String) {
            problems.append(
                ConfigError(.invalidValue, file: file, jsonPath: "\(path).match.\(field)", message: message)
            )
        }
        if let method = match.method, !HTTPToken.isToken(method) {
            fail("method", "'\(method)' is not an HTTP method token")
        }
        if let matchPath = match.path, !matchPath.hasPrefix("/") {
            fail("path", "must start with '/' (got '\(matchPath)')")
        }
        if let url = match.url, !url.hasPrefix("/") {
            fail("url", "must start with '/' (got '\(url)')")
        }
        if let host = match.host, host.isEmpty || host.contains(where: { $0 == "/" || $0 == " " || $0 == "?" }) {
            fail("host", "'\(host)' is not a host[:port] (write api.example.com, without a scheme or path)")
        }
        func regex(_ pattern: String?, _ field: String) -> FullMatchRegex? {
            guard let pattern else { return nil }
            do {
                return try FullMatchRegex(pattern)
            } catch {
                fail(field, error.message)
                return nil
            }
        }
        let pathRegex = regex(match.pathPattern, "pathPattern")
        let urlRegex = regex(match.urlPattern, "urlPattern")
        func matchers(_ entries: [String: ValueMatchEntry]?, _ field: String) -> [(String, ValueMatcher)] {
            var result: [(String, ValueMatcher)] = []
            for (name, entry) in (entries ?? [:]).sorted(by: { $0.key < $1.key }) where entry.plain == nil {
                do {
                    result.append((name, try ValueMatcher(entry)))
                } catch {
                    fail("\(field).\(name)", error.message)
                }
            }
            return result
        }
        if let headers = match.headers {
            for name in headers.keys.sorted() where !HTTPToken.isToken(name) {
                fail("headers", "'\(name)' is not a header name")
            }
        }
        let queryMatchers = matchers(match.query, "query")
        let headerMatchers = matchers(match.headers, "headers")
        var graphQL: GraphQLCondition?
        if let entry = match.graphql {
            do {
                graphQL = try GraphQLCondition(entry)
            } catch {
                fail("graphql", error.message)
            }
        }
        var bodies: [BodyCondition] = []
        if let list = match.body {
            for (index, body) in list.conditions.enumerated() {
                let field = list.isList ? "body[\(index)]" : "body"
                do {
                    bodies.append(try body.condition())
                } catch {
                    fail(field, error.message)
                }
            }
        }
        guard problems.count == before else { return nil }
        return RequestPattern(
            host: match.host,
            method: match.method,
            path: match.path,
            pathRegex: pathRegex,
            url: match.url,
            urlRegex: urlRegex,
            query: match.query ?? [:],
            headers: match.headers ?? [:],
            queryMatchers: queryMatchers,
            headerMatchers: headerMatchers,
            bodies: bodies,
            graphQL: graphQL
        )
    }
}

/// Why a pattern part could not be compiled; `message` is one line for a `ConfigError`.
public struct PatternError: Error, Sendable {
    public let message: String
}

/// Whether a condition holds for a request: `undecided` when a regular expression ran out of its matching budget
/// (`BoundedRegex`), so that neither `matches` nor `doesNotMatch` is taken to hold.
public enum ConditionOutcome: Sendable, Equatable {
    case holds
    case fails
    case undecided

    /// The outcome of the opposite condition (`doesNotMatch` from `matches`); undecided stays undecided.
    var negated: ConditionOutcome {
        switch self {
        case .holds: return .fails
        case .fails: return .holds
        case .undecided: return .undecided
        }
    }

    /// `.holds` when any value's outcome holds, else `.undecided` when any is undecided, else `.fails`.
    static func any<Values: Sequence>(
        _ values: Values,
        _ outcome: (Values.Element) -> ConditionOutcome
    )
        -> ConditionOutcome
    {
        var undecided = false
        for value in values {
            switch outcome(value) {
            case .holds: return .holds
            case .undecided: undecided = true
            case .fails: continue
            }
        }
        return undecided ? .undecided : .fails
    }
}

/// A regular expression (ICU syntax, as `NSRegularExpression`) that must match a **whole** value, like Java's
/// `String.matches` that WireMock uses: `Bearer .*` matches `Bearer abc` but not `xBearer abc`. Compiled once, run
/// on a budget (`BoundedRegex`).
public struct FullMatchRegex: Sendable, CustomStringConvertible {
    /// The expression as written.
    public var pattern: String { expression.pattern }
    private let expression: BoundedRegex
    /// Longer values never match (`RegexGuard.subjectLimit(for:)`).
    private let subjectLimit: Int

    /// - Throws: `PatternError` naming the problem when `pattern` is not a valid regular expression, or one
    ///   `RegexGuard` refuses.
    public init(_ pattern: String) throws(PatternError) {
        guard let expression = try? BoundedRegex(pattern) else {
            throw PatternError(message: "invalid regular expression '\(pattern)'")
        }
        try RegexGuard.check(pattern)
        self.subjectLimit = RegexGuard.subjectLimit(for: pattern)
        self.expression = expression
    }

    /// Whether the whole of `text` matches; `.undecided` when the match ran out of its budget.
    public func evaluate(_ text: String) -> ConditionOutcome {
        guard text.utf8.count <= subjectLimit else { return .fails }
        switch expression.wholeMatch(text) {
        case .match: return .holds
        case .noMatch: return .fails
        case .overBudget: return .undecided
        }
    }

    /// Whether the whole of `text` matches (an undecided match does not).
    public func matches(_ text: String) -> Bool { evaluate(text) == .holds }

    public var description: String { pattern }
}

/// A condition on the values of one query parameter or header, written as an operator object.
///
/// Every operator but `absent` needs the parameter or header to be present; with several values (a repeated
/// parameter or header), one satisfying value is enough.
public enum ValueMatcher: Sendable, CustomStringConvertible {
    /// The whole value equals the text (optionally ignoring case).
    case equalTo(String, caseInsensitive: Bool)
    case matches(FullMatchRegex)
    case doesNotMatch(FullMatchRegex)
    case contains(String)
    /// `true`: the parameter or header must be absent; `false`: it must be present (any value).
    case absent(Bool)

    /// Compiles an operator object.
    /// - Throws: `PatternError` when it gives no operator or several, `caseInsensitive` without `equalTo`, or an
    ///   invalid regex.
    init(_ entry: ValueMatchEntry) throws(PatternError) {
        // One row per operator: whether it is given and how it compiles. The list in the error, the count and the
        // compilation cannot drift apart.
        let operators: [(name: String, given: Bool, compile: () throws(PatternError) -> ValueMatcher)] = [
            (
                "equalTo", entry.equalTo != nil,
                { .equalTo(entry.equalTo!, caseInsensitive: entry.caseInsensitive ?? false) }
            ),
            (
                "matches", entry.matches != nil,
                { () throws(PatternError) in .matches(try FullMatchRegex(entry.matches!)) }
            ),
            (
                "doesNotMatch", entry.doesNotMatch != nil,
                { () throws(PatternError) in .doesNotMatch(try FullMatchRegex(entry.doesNotMatch!)) }
            ),
            ("contains", entry.contains != nil, { .contains(entry.contains!) }),
            ("absent", entry.absent != nil, { .absent(entry.absent!) }),
        ]
        let given = operators.filter(\.given)
        guard given.count == 1 else {
            throw PatternError(
                message: "give exactly one of " + operators.map { "\"\($0.name)\"" }.joined(separator: ", ")
            )
        }
        if entry.caseInsensitive != nil && entry.equalTo == nil {
            throw PatternError(message: #""caseInsensitive" goes with "equalTo" only"#)
        }
        self = try given[0].compile()
    }

    /// Whether the values of one parameter or header (empty when absent) satisfy the condition.
    public func isSatisfied(by values: [String]) -> Bool { evaluate(values) == .holds }

    /// Whether the values satisfy the condition: one value that does is enough; undecided when none does and a
    /// regular expression ran out of its budget on one.
    public func evaluate(_ values: [String]) -> ConditionOutcome {
        switch self {
        case .absent(let mustBeAbsent): return values.isEmpty == mustBeAbsent ? .holds : .fails
        case .equalTo(let text, let caseInsensitive):
            return values.contains { caseInsensitive ? $0.lowercased() == text.lowercased() : $0 == text }
                ? .holds : .fails
        case .matches(let regex): return .any(values) { regex.evaluate($0) }
        case .doesNotMatch(let regex): return .any(values) { regex.evaluate($0).negated }
        case .contains(let text): return values.contains { $0.contains(text) } ? .holds : .fails
        }
    }

    public var description: String {
        switch self {
        case .equalTo(let text, let caseInsensitive):
            return caseInsensitive ? "equal to \(text) (any case)" : "equal to \(text)"
        case .matches(let regex): return "matches \(regex.pattern)"
        case .doesNotMatch(let regex): return "does not match \(regex.pattern)"
        case .contains(let text): return "contains \(text)"
        case .absent(let mustBeAbsent): return mustBeAbsent ? "absent" : "present"
        }
    }
}

/// A JSONPath made of member names and array indexes only — `$.name`, `$.items[0].sku`, `$['a b']` — which
/// is as far as mockd evaluates JSONPath (no wildcards, filters, slices or recursive descent).
public struct SimpleJSONPath: Sendable, Equatable {
    public enum Step: Sendable, Equatable {
        case member(String)
        case index(Int)
    }

    /// The path as written.
    public let text: String
    public let steps: [Step]

    /// - Throws: `PatternError` for anything but `$` followed by `.name`, `['name']`, `["name"]` and `[n]` steps.
    public init(_ text: String) throws(PatternError) {
        let unsupported = PatternError(
            message:
                "'\(text)' is not a simple JSONPath (mockd evaluates $ followed by .name, ['name'] and [index] steps only)"
        )
        var characters = Substring(text.trimmingCharacters(in: .whitespaces))
        guard characters.first == "$" else { throw unsupported }
        characters = characters.dropFirst()
        var steps: [Step] = []
        while let first = characters.first {
            if first == "." {
                characters = characters.dropFirst()
                let name = characters.prefix { !".[]*?@()$ '\"".contains($0) }
                guard !name.isEmpty else { throw unsupported }
                steps.append(.member(String(name)))
                characters = characters.dropFirst(name.count)
            } else if first == "[" {
                guard let close = characters.firstIndex(of: "]") else { throw unsupported }
                let inside = characters[characters.index(after: characters.startIndex)..<close]
                if let quote = inside.first, quote == "'" || quote == "\"", inside.count >= 2, inside.last == quote {
                    let name = inside.dropFirst().dropLast()
                    guard !name.contains(quote) else { throw unsupported }
                    steps.append(.member(String(name)))
                } else if let index = Int(inside), index >= 0 {
                    steps.append(.index(index))
                } else {
                    throw unsupported
                }
                characters = characters[characters.index(after: close)...]
            } else {
                throw unsupported
            }
        }
        self.text = text
        self.steps = steps
    }

    /// The value the path leads to in `json`, or `nil` when a step finds nothing.
    public func value(in json: JSONValue) -> JSONValue? {
        var current = json
        for step in steps {
            switch (step, current) {
            case (.member(let name), .object(let members)):
                guard let next = members[name] else { return nil }
                current = next
            case (.index(let index), .array(let items)):
                guard items.indices.contains(index) else { return nil }
                current = items[index]
            default: return nil
            }
        }
        return current
    }

    /// WireMock's `matchesJsonPath` rule: the path leads to a value that is not null, not an empty array and
    /// not an empty object.
    public func hasValue(in json: JSONValue) -> Bool {
        switch value(in: json) {
        case nil, .null?: return false
        case .array(let items)?: return !items.isEmpty
        case .object(let members)?: return !members.isEmpty
        default: return true
        }
    }
}

extension ScenarioFile.BodyMatchEntry {
    /// The compiled condition.
    /// - Throws: `PatternError` when the entry gives no field or several, an invalid regex, a JSONPath mockd
    ///   cannot evaluate, or `absent: false`.
    func condition() throws(PatternError) -> RequestPattern.BodyCondition {
        let given = [
            json != nil, jsonEquals != nil, text != nil, contains != nil, matches != nil, doesNotMatch != nil,
            jsonPath != nil, absent != nil,
        ]
        guard given.filter({ $0 }).count == 1 else {
            throw PatternError(
                message:
                    #"give exactly one of "json", "jsonEquals", "text", "contains", "matches", "doesNotMatch", "jsonPath", "absent""#
            )
        }
        if let json { return .json(json) }
        if let jsonEquals { return .jsonEquals(jsonEquals) }
        if let text { return .text(text) }
        if let contains { return .contains(contains) }
        if let matches { return .matches(try FullMatchRegex(matches)) }
        if let doesNotMatch { return .doesNotMatch(try FullMatchRegex(doesNotMatch)) }
        if let jsonPath { return .jsonPath(try SimpleJSONPath(jsonPath)) }
        guard absent == true else {
            throw PatternError(message: #""absent" takes true (the body is empty); leave it out otherwise"#)
        }
        return .absent
    }
}
