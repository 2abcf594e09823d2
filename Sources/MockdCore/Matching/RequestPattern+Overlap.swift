import Foundation
import MockdFormat

/// How two request patterns relate, for `mockd validate`'s warnings about overrides that can never answer or that
/// another override of equal priority takes requests from. Both answers are certain or absent: a pattern whose
/// conditions cannot be compared as written (two different regexes, body conditions) is never said to cover another,
/// and two patterns are said to share requests only when a request matching both could be built.
extension RequestPattern {
    /// Whether this pattern matches every request `narrower` matches.
    func covers(_ narrower: RequestPattern) -> Bool {
        if let host, host != narrower.host { return false }
        if let method, method != narrower.method { return false }
        guard bodies.isEmpty else { return false }
        // A GraphQL condition covers only the same condition (operators are not compared).
        if let graphQL, graphQL.entry != narrower.graphQL?.entry { return false }
        guard coversPath(of: narrower) else { return false }
        for condition in query where !narrower.query.contains(where: { $0 == condition }) { return false }
        for (name, matcher) in queryMatchers {
            guard let value = narrower.query.first(where: { $0.name == name })?.value,
                matcher.isSatisfied(by: [value])
            else { return false }
        }
        for constraint in headers where !narrower.headers.contains(where: { $0 == constraint }) { return false }
        for (name, matcher) in headerMatchers {
            guard let constraint = narrower.headers.first(where: { $0.name.asciiLowercased == name }),
                matcher.isSatisfied(by: [constraint.value])
            else { return false }
        }
        return true
    }

    /// A request that both this pattern and `other` match, built from their conditions (method, a path one names
    /// exactly, their query and header values, a JSON or text body); `nil` when none can be built.
    func sharedRequest(with other: RequestPattern) -> HTTPRequest? {
        guard let target = sharedTarget(with: other) ?? other.sharedTarget(with: self) else { return nil }
        var fields: [(String, String)] = []
        for constraint in headers + other.headers where !fields.contains(where: { $0.0 == constraint.name }) {
            fields.append((constraint.name, constraint.value))
        }
        for (name, matcher) in headerMatchers + other.headerMatchers {
            if case .equalTo(let value, _) = matcher, !fields.contains(where: { $0.0.asciiLowercased == name }) {
                fields.append((name, value))
            }
        }
        var body = Data()
        for condition in bodies + other.bodies {
            switch condition {
            case .json(let value), .jsonEquals(let value):
                body = (try? JSONValueEncoding.data(value)) ?? body
                if !fields.contains(where: { $0.0.asciiLowercased == "content-type" }) {
                    fields.append(("Content-Type", "application/json"))
                }
            case .text(let text): body = Data(text.utf8)
            default: break
            }
        }
        let request = HTTPRequest(
            method: method ?? other.method ?? "GET",
            target: target,
            headers: HTTPHeaders(fields),
            body: body
        )
        let key = RequestKey(request)
        let host = self.host ?? other.host
        guard matches(request, key: key, host: host), other.matches(request, key: key, host: host) else { return nil }
        return request
    }

    /// The path as written when it names one path exactly (no `{name}` segment, no regex).
    private var literalPath: String? {
        if let exactURL { return exactURL.path }
        guard let pathSegments, pathRegex == nil, urlRegex == nil, !pathSegments.contains(where: { $0 == nil })
        else { return nil }
        return pathSegments.map { $0 ?? "" }.joined(separator: "/")
    }

    /// Whether this pattern's path conditions (path, template, regex, URL) hold for every path `narrower` allows.
    private func coversPath(of narrower: RequestPattern) -> Bool {
        if let exactURL {
            guard let other = narrower.exactURL else { return false }
            return other.path == exactURL.path && other.query == exactURL.query
        }
        if let urlRegex {
            guard let other = narrower.exactURL else { return false }
            return urlRegex.matches(other.query.isEmpty ? other.path : "\(other.path)?\(other.query)")
        }
        if let pathRegex {
            if let path = narrower.literalPath { return pathRegex.matches(path) }
            return narrower.pathRegex?.pattern == pathRegex.pattern && narrower.urlRegex == nil
        }
        guard let pathSegments else { return true }
        let other =
            narrower.exactURL.map { $0.path.split(separator: "/", omittingEmptySubsequences: false).map(String.init) }
            ?? narrower.pathSegments
        guard let other, narrower.pathRegex == nil, narrower.urlRegex == nil, other.count == pathSegments.count
        else { return false }
        // A `{name}` here takes any non-empty segment; a literal here needs the same literal there.
        return zip(pathSegments, other).allSatisfy { mine, theirs in
            guard let mine else { return theirs.map { !$0.isEmpty } ?? true }
            return theirs == mine
        }
    }

    /// A request-target for `sharedRequest`: this pattern's path (its `{name}` segments filled from `other`'s literal
    /// segments, else `1`) or, when it has none, `other`'s literal path; with both patterns' plain query values.
    private func sharedTarget(with other: RequestPattern) -> String? {
        var path: String
        if let literal = literalPath {
            path = literal
        } else if let pathSegments, pathRegex == nil, urlRegex == nil {
            let theirs = other.pathSegments?.count == pathSegments.count ? other.pathSegments : nil
            path = pathSegments.enumerated().map { index, segment in
                segment ?? theirs?[index].flatMap { $0 } ?? "1"
            }.joined(separator: "/")
        } else if pathSegments == nil, pathRegex == nil, urlRegex == nil, exactURL == nil,
            let literal = other.literalPath
        {
            path = literal
        } else {
            return nil
        }
        var pairs: [String] = []
        if let exactURL = exactURL ?? other.exactURL, !exactURL.query.isEmpty { pairs.append(exactURL.query) }
        for (name, value) in query + other.query {
            pairs.append(
                URLEncoding.encodeComponent(Array(name.utf8)) + "=" + URLEncoding.encodeComponent(Array(value.utf8))
            )
        }
        for (name, matcher) in queryMatchers + other.queryMatchers {
            if case .equalTo(let value, _) = matcher {
                pairs.append(
                    URLEncoding.encodeComponent(Array(name.utf8)) + "=" + URLEncoding.encodeComponent(Array(value.utf8))
                )
            }
        }
        if path.isEmpty { path = "/" }
        return pairs.isEmpty ? path : path + "?" + pairs.joined(separator: "&")
    }
}
