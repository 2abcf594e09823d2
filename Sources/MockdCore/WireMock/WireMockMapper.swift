import Foundation
import MockdFormat

/// One WireMock mapping as mockd will write it, before the importer decides between the mock set index and
/// a scenario override.
struct WireMockCandidate {
    let file: String
    /// JSON path of the mapping in its file (`""` or `mappings[3]`).
    let jsonPath: String
    let id: String
    /// Load order: files by path, mappings in file order (WireMock's "added later").
    let order: Int
    /// WireMock priority: 1 is highest, default 5.
    let wireMockPriority: Int
    let match: ScenarioFile.MatchEntry
    /// `match` compiled, to tell which mappings could answer the same request.
    let pattern: RequestPattern
    /// Method and `url` when the mapping matches on nothing else and needs nothing a mock set index cannot
    /// hold (state, delay, fault): a candidate for the index.
    let exact: (method: String, url: String)?
    let state: ScenarioFile.StateEntry?
    var response: WireMockResponse

    /// Whether WireMock tries `self` before `other`: a smaller priority number, or the same priority and
    /// added later.
    func precedes(_ other: WireMockCandidate) -> Bool {
        wireMockPriority != other.wireMockPriority ? wireMockPriority < other.wireMockPriority : order > other.order
    }

    /// `file: JSON path` of the mapping, for messages.
    var location: String { jsonPath.isEmpty ? file : "\(file): \(jsonPath)" }
}

/// A WireMock response as mockd will serve it.
struct WireMockResponse {
    enum Body {
        case empty
        case text(String)
        case json(JSONValue)
        /// A file in the mock set folder (`bodies/…`).
        case file(path: String)
    }

    var status = 200
    /// In order; repeated names kept.
    var headers: [(name: String, value: String)] = []
    var body = Body.empty
    /// `{{…}}` in the body or headers must be sent as written (no `response-template` transformer).
    var literal = false
    var latency: LatencyEntry?
    var throttle: Int?
    var fault: Fault?
    /// WireMock webhooks (`serveEventListeners`, `postServeActions`) as pushes the answer causes.
    var emit: [EmitEntry]?

    /// Whether only a scenario override can express it.
    var needsOverride: Bool { latency != nil || throttle != nil || fault != nil }
}

/// Turns WireMock stub mappings into `WireMockCandidate`s, collecting body files and report items.
///
/// A request matcher mockd cannot reproduce skips the whole mapping (dropping it would make the stub answer
/// requests WireMock would not); a response feature it cannot reproduce is dropped or approximated and the
/// mapping kept. Either way the report names the file, JSON path and reason. Malformed input (wrong types, an
/// invalid regex, unknown faults) throws instead.
struct WireMockMapper {
    let source: WireMockSource
    /// Body files for the mock set folder, by path relative to it (`bodies/__files/x.json`).
    var files: [String: Data] = [:]
    var items: [WireMockImportReport.Item] = []

    /// Whether every mapping is templated, as WireMock runs with `--global-response-templating`.
    let globalTemplating: Bool

    init(source: WireMockSource, globalTemplating: Bool = false) {
        self.source = source
        self.globalTemplating = globalTemplating
    }

    static let metadataFields: Set<String> = ["id", "uuid", "name", "persistent", "insertionIndex", "metadata"]
    static let mappingFields: Set<String> = [
        "request", "response", "priority", "scenarioName", "requiredScenarioState", "newScenarioState",
    ]
    static let valueOperators: Set<String> = ["equalTo", "matches", "doesNotMatch", "contains", "absent"]
    /// WireMock faults and the mockd fault each becomes; `exact` tells whether it is the same behaviour.
    static let faults: [String: (fault: Fault, exact: Bool)] = [
        "CONNECTION_RESET_BY_PEER": (.connectionReset, true),
        "EMPTY_RESPONSE": (.emptyResponse, true),
        "MALFORMED_RESPONSE_CHUNK": (.malformedChunk, true),
        "RANDOM_DATA_THEN_CLOSE": (.malformedChunk, false),
    ]

    mutating func note(_ node: WireMockNode, _ reason: String) {
        items.append(WireMockImportReport.Item(file: node.file, jsonPath: node.path, reason: reason))
    }

    private mutating func note(_ file: String, _ path: String, _ reason: String) {
        items.append(WireMockImportReport.Item(file: file, jsonPath: path, reason: reason))
    }

    /// Maps one mapping object.
    /// - Returns: `nil` when the mapping is skipped (the reasons are in `items`).
    /// - Throws: `WireMockImportError.invalidMapping` for malformed input.
    mutating func map(_ node: WireMockNode, id: String, order: Int) throws(WireMockImportError) -> WireMockCandidate? {
        let members = try node.object()
        var skips: [(WireMockNode, String)] = []
        guard let requestNode = node["request"] else {
            throw WireMockImportError(
                .invalidMapping,
                file: node.file,
                jsonPath: node.childPath("request"),
                message: "required field is missing"
            )
        }
        guard let responseNode = node["response"] else {
            throw WireMockImportError(
                .invalidMapping,
                file: node.file,
                jsonPath: node.childPath("response"),
                message: "required field is missing"
            )
        }
        let request = try mapRequest(requestNode, skips: &skips)
        var response = try mapResponse(responseNode, id: id, skips: &skips)

        var priority = 5
        if let priorityNode = node["priority"] {
            if let number = priorityNode.integer {
                guard (Int(Int32.min + 1)...Int(Int32.max)).contains(number) else {
                    throw priorityNode.fail("\(number) is out of range (WireMock priorities are 32-bit integers)")
                }
                priority = number
            } else {
                skips.append(
                    (
                        priorityNode,
                        "\(priorityNode.quoted) is not a whole-number priority (WireMock priorities are integers, 1 highest, default 5; WireMock rejects this mapping too); mapping skipped"
                    )
                )
            }
        }
        var state: ScenarioFile.StateEntry?
        let required = try node["requiredScenarioState"]?.string()
        let next = try node["newScenarioState"]?.string()
        if let nameNode = node["scenarioName"] {
            let name = try nameNode.string()
            guard !name.isEmpty else { throw nameNode.fail("must not be empty") }
            if required != nil || next != nil {
                state = ScenarioFile.StateEntry(
                    name: name,
                    requires: required.map { ScenarioFile.StateNames([$0]) },
                    next: next
                )
            }
        } else {
            for key in ["requiredScenarioState", "newScenarioState"] {
                if let ignored = node[key] { note(ignored, "no scenarioName, so WireMock ignores it too; ignored") }
            }
        }
        for key in members.keys.sorted() where !Self.mappingFields.contains(key) && !Self.metadataFields.contains(key) {
            let child = node[key]!
            if key == "postServeActions" || key == "serveEventListeners" {
                let hooks = try webhooks(child)
                if !hooks.isEmpty, response.fault != nil {
                    note(child, "mockd makes no pushes after a fault; webhooks left out")
                } else if !hooks.isEmpty {
                    response.emit = (response.emit ?? []) + hooks
                }
            } else {
                note(child, "unknown WireMock mapping field; ignored")
            }
        }
        response.emit = response.emit.map(Self.sequenced)
        if !skips.isEmpty {
            for (skipped, reason) in skips { note(skipped, reason) }
            return nil
        }
        let match = request.match
        var problems: [ConfigError] = []
        guard let pattern = RequestPattern.compile(match, file: node.file, path: node.path, problems: &problems) else {
            throw WireMockImportError(
                .invalidMapping,
                file: node.file,
                jsonPath: requestNode.path,
                message: problems.first?.message ?? "invalid request"
            )
        }
        if response.fault != nil { response.body = .empty }
        let onlyURL =
            match.query == nil && match.headers == nil && match.body == nil && match.path == nil
            && match.pathPattern == nil && match.urlPattern == nil
        let exact: (String, String)? =
            if let method = match.method, let url = match.url, onlyURL, state == nil, !response.needsOverride {
                (method, url)
            } else { nil }
        return WireMockCandidate(
            file: node.file,
            jsonPath: node.path,
            id: id,
            order: order,
            wireMockPriority: priority,
            match: match,
            pattern: pattern,
            exact: exact,
            state: state,
            response: response
        )
    }

    // MARK: Request

    private struct MappedRequest {
        var match = ScenarioFile.MatchEntry()
    }

    private mutating func mapRequest(
        _ node: WireMockNode,
        skips: inout [(WireMockNode, String)]
    ) throws(WireMockImportError) -> MappedRequest {
        var result = MappedRequest()
        let members = try node.object()
        if let methodNode = node["method"] {
            let method = try methodNode.string()
            guard HTTPToken.isToken(method) else { throw methodNode.fail("'\(method)' is not an HTTP method token") }
            result.match.method = method == "ANY" ? nil : method
        }
        let urlKeys = ["url", "urlPath", "urlPattern", "urlPathPattern", "urlPathTemplate"].filter {
            members[$0] != nil
        }
        if urlKeys.count > 1 {
            throw node.fail(
                "give at most one of url, urlPath, urlPattern, urlPathPattern, urlPathTemplate (got \(urlKeys.joined(separator: ", ")))"
            )
        }
        if let urlNode = node["url"] {
            let url = try urlNode.string()
            guard url.hasPrefix("/") else { throw urlNode.fail("must start with '/' (got '\(url)')") }
            result.match.url = url
        }
        if let pathNode = node["urlPath"] {
            let path = try pathNode.string()
            guard path.hasPrefix("/") else { throw pathNode.fail("must start with '/' (got '\(path)')") }
            // Braces are literal in WireMock's urlPath; escaped, they cannot read as a mockd path template.
            result.match.path = path.contains("{") || path.contains("}") ? RequestKey.normalizePath(path) : path
        }
        if let patternNode = node["urlPattern"] {
            result.match.urlPattern = try regex(patternNode)
        }
        if let patternNode = node["urlPathPattern"] {
            result.match.pathPattern = try regex(patternNode)
        }
        if let templateNode = node["urlPathTemplate"] {
            let template = try templateNode.string()
            guard template.hasPrefix("/") else { throw templateNode.fail("must start with '/' (got '\(template)')") }
            let partial = template.split(separator: "/").contains { segment in
                (segment.contains("{") || segment.contains("}"))
                    && !(segment.hasPrefix("{") && segment.hasSuffix("}") && segment.count > 2)
            }
            if partial {
                skips.append(
                    (
                        templateNode,
                        "a template variable inside a path segment has no mockd equivalent (mockd's {name} is a whole segment); mapping skipped"
                    )
                )
            }
            result.match.path = template
        }
        if let queryNode = node["queryParameters"] {
            var query: [String: ValueMatchEntry] = [:]
            for (name, matcher) in try queryNode.members() {
                if let entry = try valueMatch(matcher, skips: &skips) { query[name] = entry }
            }
            if !query.isEmpty { result.match.query = query }
        }
        var headers: [String: ValueMatchEntry] = [:]
        if let headersNode = node["headers"] {
            for (name, matcher) in try headersNode.members() {
                guard HTTPToken.isToken(name) else { throw headersNode.fail("'\(name)' is not a header name") }
                if let entry = try valueMatch(matcher, skips: &skips) { headers[name] = entry }
            }
        }
        for key in ["basicAuthCredentials", "basicAuth"] {
            guard let authNode = node[key] else { continue }
            guard let user = authNode["username"], let password = authNode["password"] else {
                throw authNode.fail(#"expected {"username": …, "password": …}"#)
            }
            let credentials = Data("\(try user.string()):\(try password.string())".utf8).base64EncodedString()
            if headers.keys.contains(where: { $0.caseInsensitiveEquals("Authorization") }) {
                skips.append((authNode, "an Authorization header matcher is given too; mapping skipped"))
            }
            headers["Authorization"] = ValueMatchEntry(equalTo: "Basic \(credentials)")
        }
        if !headers.isEmpty { result.match.headers = headers }
        if let bodyNode = node["bodyPatterns"] {
            var bodies: [ScenarioFile.BodyMatchEntry] = []
            for pattern in try bodyNode.array() {
                if let entry = try bodyMatch(pattern, skips: &skips) { bodies.append(entry) }
            }
            if !bodies.isEmpty { result.match.body = ScenarioFile.BodyMatchList(conditions: bodies, isList: true) }
        }
        let handled: Set<String> = [
            "method", "url", "urlPath", "urlPattern", "urlPathPattern", "urlPathTemplate", "queryParameters", "headers",
            "bodyPatterns",
            "basicAuthCredentials", "basicAuth",
        ]
        let unsupported: [String: String] = [
            "cookies": "cookie matchers have no mockd equivalent",
            "multipartPatterns": "multipart matchers have no mockd equivalent",
            "formParameters": "form parameter matchers have no mockd equivalent",
            "pathParameters": "path parameter matchers have no mockd equivalent",
            "customMatcher": "custom matchers (WireMock extensions) are not available in mockd",
            "host": "mockd does not match on the host", "port": "mockd does not match on the port",
            "scheme": "mockd does not match on the scheme",
            "clientIp": "mockd does not match on the client address",
        ]
        for key in members.keys.sorted() where !handled.contains(key) {
            skips.append(
                (
                    node[key]!,
                    "\(unsupported[key] ?? "unknown WireMock request field (it could narrow the match)"); mapping skipped"
                )
            )
        }
        return result
    }

    private func regex(_ node: WireMockNode) throws(WireMockImportError) -> String {
        let pattern = try node.string()
        do {
            _ = try FullMatchRegex(pattern)
        } catch {
            throw node.fail(error.message)
        }
        return pattern
    }

    /// A query or header matcher object; `nil` (and a skip) for operators mockd does not have.
    private mutating func valueMatch(
        _ node: WireMockNode,
        skips: inout [(WireMockNode, String)]
    ) throws(WireMockImportError) -> ValueMatchEntry? {
        guard case .object(let members) = node.value else {
            throw node.fail(#"expected a matcher object such as {"equalTo": "…"}, got \#(node.typeName)"#)
        }
        let operators = members.keys.filter { $0 != "caseInsensitive" }.sorted()
        let unknown = operators.filter { !Self.valueOperators.contains($0) }
        if let first = unknown.first {
            skips.append((node[first]!, "'\(first)' has no mockd equivalent; mapping skipped"))
            return nil
        }
        guard operators.count == 1 else {
            throw node.fail(
                "give exactly one matcher (equalTo, matches, doesNotMatch, contains, absent…), got \(operators.count)"
            )
        }
        var entry = ValueMatchEntry()
        if let caseNode = node["caseInsensitive"] {
            let flag = try caseNode.bool()
            if flag && operators[0] != "equalTo" {
                skips.append(
                    (caseNode, "caseInsensitive with \(operators[0]) has no mockd equivalent; mapping skipped")
                )
                return nil
            }
            if flag { entry.caseInsensitive = true }
        }
        let operand = node[operators[0]]!
        switch operators[0] {
        case "equalTo": entry.equalTo = try operand.string()
        case "matches": entry.matches = try regex(operand)
        case "doesNotMatch": entry.doesNotMatch = try regex(operand)
        case "contains": entry.contains = try operand.string()
        default: entry.absent = try operand.bool()
        }
        return entry
    }

    /// One `bodyPatterns` entry; `nil` (and a skip) for what mockd cannot evaluate.
    private mutating func bodyMatch(
        _ node: WireMockNode,
        skips: inout [(WireMockNode, String)]
    ) throws(WireMockImportError) -> ScenarioFile.BodyMatchEntry? {
        let members = try node.object()
        let options: Set<String> = [
            "caseInsensitive", "ignoreArrayOrder", "ignoreExtraElements", "enablePlaceholders", "serializeFormat",
        ]
        let operators = members.keys.filter { !options.contains($0) }.sorted()
        guard operators.count == 1 else {
            throw node.fail(
                "give exactly one body matcher (equalTo, contains, matches, equalToJson…), got \(operators.count)"
            )
        }
        let name = operators[0]
        let operand = node[name]!
        func flag(_ option: String) throws(WireMockImportError) -> Bool { try node[option]?.bool() ?? false }
        var entry = ScenarioFile.BodyMatchEntry()
        switch name {
        case "equalTo":
            entry.text = try operand.string()
            if try flag("caseInsensitive") {
                skips.append(
                    (
                        node["caseInsensitive"]!,
                        "a case-insensitive body comparison has no mockd equivalent; mapping skipped"
                    )
                )
                return nil
            }
        case "contains": entry.contains = try operand.string()
        case "matches": entry.matches = try regex(operand)
        case "doesNotMatch": entry.doesNotMatch = try regex(operand)
        case "absent":
            // `absent: false` means a body must be there: any non-empty text.
            if try operand.bool() { entry.absent = true } else { entry.matches = "(?s).+" }
        case "equalToJson":
            var expected = operand.value
            if case .string(let text) = operand.value {
                guard let parsed = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else {
                    throw operand.fail("not valid JSON")
                }
                expected = parsed
            }
            if try flag("ignoreArrayOrder") {
                skips.append(
                    (
                        node["ignoreArrayOrder"]!,
                        "ignoreArrayOrder has no mockd equivalent (mockd compares arrays in order); mapping skipped"
                    )
                )
                return nil
            }
            if try flag("enablePlaceholders") {
                skips.append(
                    (
                        node["enablePlaceholders"]!,
                        "JSON placeholders (${json-unit…}) have no mockd equivalent; mapping skipped"
                    )
                )
                return nil
            }
            if try flag("ignoreExtraElements") {
                if Self.containsArray(expected) {
                    skips.append(
                        (
                            node["ignoreExtraElements"]!,
                            "ignoreExtraElements with arrays has no mockd equivalent (mockd's json subset compares arrays element by element); mapping skipped"
                        )
                    )
                    return nil
                }
                entry.json = expected
            } else {
                entry.jsonEquals = expected
            }
        case "matchesJsonPath":
            guard case .string(let expression) = operand.value else {
                skips.append(
                    (operand, "matchesJsonPath with a nested matcher has no mockd equivalent; mapping skipped")
                )
                return nil
            }
            do {
                _ = try SimpleJSONPath(expression)
            } catch {
                skips.append((operand, "\(error.message); mapping skipped"))
                return nil
            }
            entry.jsonPath = expression
        default:
            skips.append((operand, "'\(name)' has no mockd equivalent; mapping skipped"))
            return nil
        }
        return entry
    }

    static func containsArray(_ value: JSONValue) -> Bool {
        switch value {
        case .array: return true
        case .object(let members): return members.values.contains(where: containsArray)
        default: return false
        }
    }

    // MARK: Response

    /// The response fields `mapResponse` reads; any other is reported (`noteUnreadResponseFields`).
    static let responseFields: Set<String> = [
        "status", "headers", "body", "jsonBody", "base64Body", "bodyFileName", "fixedDelayMilliseconds",
        "delayDistribution",
        "chunkedDribbleDelay", "fault", "proxyBaseUrl", "transformers", "transformerParameters", "statusMessage",
    ]
    /// Proxy settings that mean something only beside `proxyBaseUrl`.
    static let proxyOnlyFields: Set<String> = [
        "proxyUrlPrefixToRemove", "additionalProxyRequestHeaders", "removeProxyRequestHeaders",
    ]

    /// A WireMock response definition as a `WireMockResponse`, in named steps: whether it is a template, the status,
    /// the headers, the body, the untranslated template expressions, the latency, the dribble, the fault, the fields
    /// left unread, and WireMock's 500 for a body file it cannot read. Report items come in that order.
    private mutating func mapResponse(
        _ node: WireMockNode,
        id: String,
        skips: inout [(WireMockNode, String)]
    ) throws(WireMockImportError) -> WireMockResponse {
        var response = WireMockResponse()
        let members = try node.object()
        let templated = try isTemplated(node)
        if let status = try mapStatus(node, skips: &skips) { response.status = status }
        if let proxy = node["proxyBaseUrl"] {
            _ = try proxy.string()
            skips.append(
                (
                    proxy,
                    "proxy stubs are not imported (mockd --on-miss proxy --upstream URL proxies what no stub answers); mapping skipped"
                )
            )
        }
        var untranslated: [(WireMockNode, String)] = []
        response.headers = try mapHeaders(node, templated: templated, &untranslated)
        let body = try mapBody(node, members, id: id, into: &response, templated: templated, &untranslated)
        for (at, expression) in untranslated {
            note(at, "template \(expression) has no mockd equivalent; sent as written")
        }
        response.literal = !templated && containsPlaceholder(response)
        if response.literal {
            note(
                node,
                "{{…}} sent as written: the mapping has no \"transformers\": [\"response-template\"], as WireMock does by default; if the WireMock server ran with --global-response-templating, import with --global-templating to render them"
            )
        }
        response.latency = try mapLatency(node)
        response.throttle = try mapDribble(node, bodyBytes: body.bytes)
        response.fault = try mapFault(node)
        noteUnreadResponseFields(node, members)
        if let missingFile = body.missingFile {
            // WireMock 3 fails the request when the file cannot be read: 500, naming the file. Never an empty 200.
            response.status = 500
            response.headers = [("Content-Type", "text/plain; charset=utf-8")]
            response.body = .text("\(missingFile) not found")
            response.literal = true
        }
        return response
    }

    /// Whether the response is a template: `"transformers": ["response-template"]`, or every response with
    /// `--global-templating`. Other transformers are reported and ignored.
    private mutating func isTemplated(_ node: WireMockNode) throws(WireMockImportError) -> Bool {
        var templated = globalTemplating
        if let transformersNode = node["transformers"] {
            for transformer in try transformersNode.array() {
                let name = try transformer.string()
                if name == "response-template" {
                    templated = true
                } else {
                    note(transformer, "transformer '\(name)' is not available in mockd; ignored")
                }
            }
        }
        return templated
    }

    /// The `status`, or `nil` when absent (200). An interim (1xx) status skips the mapping.
    /// - Throws: When it is not a number in 100–999.
    private func mapStatus(
        _ node: WireMockNode,
        skips: inout [(WireMockNode, String)]
    ) throws(WireMockImportError) -> Int? {
        guard let statusNode = node["status"] else { return nil }
        let status = try statusNode.int()
        guard (100...999).contains(status) else {
            throw statusNode.fail("\(status) is not an HTTP status code (100–999)")
        }
        if status < 200 {
            skips.append(
                (
                    statusNode,
                    "\(status) is an interim (1xx) status; mockd answers with final ones only; mapping skipped"
                )
            )
        }
        return status
    }

    /// The `headers`, in order, a list value as repeated fields; those mockd never sends (hop-by-hop, or computed
    /// from the body) are reported and dropped.
    /// - Throws: On a name that is not an RFC 9110 token or a value with CR, LF or NUL.
    private mutating func mapHeaders(
        _ node: WireMockNode,
        templated: Bool,
        _ untranslated: inout [(WireMockNode, String)]
    ) throws(WireMockImportError) -> [(name: String, value: String)] {
        guard let headersNode = node["headers"] else { return [] }
        var headers: [(name: String, value: String)] = []
        for (name, valueNode) in try headersNode.members() {
            guard HTTPToken.isToken(name) else { throw headersNode.fail("'\(name)' is not a header name") }
            let values: [WireMockNode]
            if case .array = valueNode.value { values = try valueNode.array() } else { values = [valueNode] }
            for value in values {
                let text = try value.string()
                guard HeaderLine.isValidValue(text) else {
                    throw value.fail("a header value cannot contain CR, LF or NUL")
                }
                if ResponseHeaderPolicy.isDropped(name) {
                    note(
                        value,
                        "mockd never sends '\(name)' (hop-by-hop, or computed from the body it sends); dropped"
                    )
                    continue
                }
                headers.append((name, translated(text, value, templated: templated, &untranslated)))
            }
        }
        return headers
    }

    /// Sets `response.body` from `body`, `jsonBody`, `base64Body` or `bodyFileName` (at most one), keeping a file's
    /// bytes in `files`.
    /// - Returns: The body's size in bytes (for the dribble), and the name of a body file that could not be read.
    /// - Throws: When more than one body is given, `body` is not a string or `base64Body` not base64.
    private mutating func mapBody(
        _ node: WireMockNode,
        _ members: [String: JSONValue],
        id: String,
        into response: inout WireMockResponse,
        templated: Bool,
        _ untranslated: inout [(WireMockNode, String)]
    ) throws(WireMockImportError) -> (bytes: Int, missingFile: String?) {
        let bodyKeys = ["body", "jsonBody", "base64Body", "bodyFileName"].filter { members[$0] != nil }
        if bodyKeys.count > 1 {
            throw node.fail(
                "give at most one of body, jsonBody, base64Body, bodyFileName (got \(bodyKeys.joined(separator: ", ")))"
            )
        }
        if let bodyNode = node["body"] {
            guard case .string(let text) = bodyNode.value else {
                throw bodyNode.fail("expected a string, got \(bodyNode.typeName) (jsonBody takes JSON)")
            }
            response.body = .text(translated(text, bodyNode, templated: templated, &untranslated))
            return (text.utf8.count, nil)
        } else if let jsonNode = node["jsonBody"] {
            if let written = jsonNode.writtenText {
                // WireMock 3 sends jsonBody as written: keys in their order, numbers as spelt (`550.00`); a
                // template's expressions are translated where they stand.
                response.body = .text(translated(written, jsonNode, templated: templated, &untranslated))
                return (written.utf8.count, nil)
            }
            let json = templated ? translatedJSON(jsonNode.value, jsonNode, &untranslated) : jsonNode.value
            response.body = .json(json)
            return ((try? JSONValueEncoding.data(json).count) ?? 0, nil)
        } else if let base64Node = node["base64Body"] {
            guard let data = Data(base64Encoded: try base64Node.string(), options: .ignoreUnknownCharacters) else {
                throw base64Node.fail("not valid base64")
            }
            let contentType = response.headers.first { $0.name.caseInsensitiveEquals("Content-Type") }?.value
            let path = "bodies/\(Self.fileName(id)).\(FileNamer.fileExtension(mimeType: contentType, body: data))"
            files[path] = translatedData(data, base64Node, templated: templated, &untranslated)
            response.body = .file(path: path)
            return (data.count, nil)
        } else if let fileNode = node["bodyFileName"] {
            let name = try fileNode.string()
            guard let (path, data) = bodyFile(name, fileNode) else { return (0, name) }
            files[path] = translatedData(data, fileNode, templated: templated, &untranslated)
            response.body = .file(path: path)
            return (data.count, nil)
        }
        return (0, nil)
    }

    /// The latency of `fixedDelayMilliseconds` (capped at `TimeLimits.maxDelayMs`, reported) or else of a
    /// `delayDistribution` (lognormal, uniform, fixed) within what mockd delays; anything else is reported and
    /// ignored.
    /// - Throws: When `fixedDelayMilliseconds` is negative or not finite, or a field has the wrong type.
    private mutating func mapLatency(_ node: WireMockNode) throws(WireMockImportError) -> LatencyEntry? {
        var latency: LatencyEntry?
        if let delayNode = node["fixedDelayMilliseconds"] {
            let delay = try delayNode.number()
            guard delay >= 0, delay.isFinite else { throw delayNode.fail("must be ≥ 0 ms") }
            if delay > TimeLimits.maxDelayMs {
                note(
                    delayNode,
                    "mockd delays at most \(Int(TimeLimits.maxDelayMs)) ms; mapped to latency \(Int(TimeLimits.maxDelayMs))"
                )
            }
            latency = .fixed(min(delay, TimeLimits.maxDelayMs))
        }
        guard let distributionNode = node["delayDistribution"] else { return latency }
        let type = try distributionNode["type"]?.string()
        var distribution: LatencyEntry?
        let limit = TimeLimits.maxDelayMs
        var inRange = true
        switch type {
        case "lognormal":
            if let median = try distributionNode["median"]?.number(),
                let sigma = try distributionNode["sigma"]?.number()
            {
                distribution = .logNormal(median: median, sigma: sigma, seed: nil)
                inRange = (0...limit).contains(median) && (0...5).contains(sigma)
            }
        case "uniform":
            if let lower = try distributionNode["lower"]?.number(),
                let upper = try distributionNode["upper"]?.number()
            {
                distribution = .uniform(min: lower, max: upper, seed: nil)
                inRange = lower >= 0 && lower <= upper && upper <= limit
            }
        case "fixed":
            if let milliseconds = try distributionNode["milliseconds"]?.number() {
                distribution = .fixed(milliseconds)
                inRange = (0...limit).contains(milliseconds)
            }
        default: break
        }
        if !inRange {
            note(
                distributionNode,
                "outside what mockd delays (0–\(Int(limit)) ms, sigma 0–5, lower ≤ upper); ignored"
            )
        } else if latency != nil {
            note(distributionNode, "mockd has one latency per response and fixedDelayMilliseconds is set; ignored")
        } else if let distribution {
            latency = distribution
        } else {
            note(
                distributionNode,
                "delay distribution \(type.map { "'\($0)'" } ?? "without a type") has no mockd equivalent; ignored"
            )
        }
        return latency
    }

    /// `chunkedDribbleDelay` as a throttle in bytes/s: the body of `bodyBytes` over `totalDuration` ms, or `nil`
    /// (reported) when there is nothing to dribble or it is faster than mockd throttles.
    private mutating func mapDribble(
        _ node: WireMockNode,
        bodyBytes: Int
    ) throws(WireMockImportError) -> Int? {
        guard let dribbleNode = node["chunkedDribbleDelay"] else { return nil }
        let total = try dribbleNode["totalDuration"]?.number() ?? 0
        guard bodyBytes > 0 && total > 0 else {
            note(dribbleNode, "nothing to dribble (empty body or no totalDuration); ignored")
            return nil
        }
        let rate = max(1, (Double(bodyBytes) * 1000 / total).rounded(.up))
        guard rate <= Double(TimeLimits.maxBytesPerSecond) else {
            note(
                dribbleNode,
                "faster than mockd throttles (at most \(TimeLimits.maxBytesPerSecond) bytes/s); ignored"
            )
            return nil
        }
        note(
            dribbleNode,
            "mapped to throttle \(Int(rate)) bytes/s (the body over about \(Int(total)) ms, in 50 ms chunks rather than WireMock's chunk count)"
        )
        return Int(rate)
    }

    /// The `fault` as a mockd fault (`faults`); one without an exact equivalent is reported as approximated.
    /// - Throws: On a fault WireMock does not have.
    private mutating func mapFault(_ node: WireMockNode) throws(WireMockImportError) -> Fault? {
        guard let faultNode = node["fault"] else { return nil }
        let name = try faultNode.string()
        guard let mapped = Self.faults[name] else {
            throw faultNode.fail(
                "unknown fault '\(name)' (WireMock faults: \(Self.faults.keys.sorted().joined(separator: ", ")))"
            )
        }
        if !mapped.exact {
            note(
                faultNode,
                "\(name) has no exact mockd equivalent; mapped to malformedChunk, the closest (a valid status line and headers, then an invalid chunk, then the connection closes)"
            )
        }
        return mapped.fault
    }

    /// Reports the response fields mockd does not use: `statusMessage`, `transformerParameters`, proxy settings
    /// without `proxyBaseUrl` and unknown fields.
    private mutating func noteUnreadResponseFields(_ node: WireMockNode, _ members: [String: JSONValue]) {
        if let message = node["statusMessage"] {
            note(message, "mockd sends the standard reason phrase; ignored")
        }
        if let parameters = node["transformerParameters"] {
            note(parameters, "transformer parameters are not available in mockd; ignored")
        }
        for key in members.keys.sorted() where !Self.responseFields.contains(key) {
            if Self.proxyOnlyFields.contains(key) {
                if members["proxyBaseUrl"] == nil { note(node[key]!, "a proxy setting without proxyBaseUrl; ignored") }
            } else {
                note(node[key]!, "unknown WireMock response field; ignored")
            }
        }
    }

    /// `text` with its template expressions translated when the response is a template; those mockd has no
    /// equivalent for are added to `untranslated`.
    private func translated(
        _ text: String,
        _ at: WireMockNode,
        templated: Bool,
        _ untranslated: inout [(WireMockNode, String)]
    ) -> String {
        guard templated else { return text }
        let result = WireMockTemplate.translate(text)
        for expression in result.untranslated { untranslated.append((at, expression)) }
        return result.text
    }

    private func translatedJSON(
        _ value: JSONValue,
        _ at: WireMockNode,
        _ untranslated: inout [(WireMockNode, String)]
    ) -> JSONValue {
        switch value {
        case .string(let text):
            let result = WireMockTemplate.translate(text)
            for expression in result.untranslated { untranslated.append((at, expression)) }
            return .string(result.text)
        case .array(let items): return .array(items.map { translatedJSON($0, at, &untranslated) })
        case .object(let members):
            // Key order, so the report lists untranslated expressions in a stable order.
            var translated: [String: JSONValue] = [:]
            for key in members.keys.sorted() { translated[key] = translatedJSON(members[key]!, at, &untranslated) }
            return .object(translated)
        default: return value
        }
    }

    private func translatedData(
        _ data: Data,
        _ at: WireMockNode,
        templated: Bool,
        _ untranslated: inout [(WireMockNode, String)]
    ) -> Data {
        guard templated, let text = String(data: data, encoding: .utf8) else { return data }
        let result = WireMockTemplate.translate(text)
        for expression in result.untranslated { untranslated.append((at, expression)) }
        return Data(result.text.utf8)
    }

    private func containsPlaceholder(_ response: WireMockResponse) -> Bool {
        if response.headers.contains(where: { $0.value.contains("{{") }) { return true }
        switch response.body {
        case .empty: return false
        case .text(let text): return text.contains("{{")
        case .json(let json): return ((try? JSONValueEncoding.data(json)) ?? Data()).range(of: Data("{{".utf8)) != nil
        case .file(let path): return files[path].map { ByteSearch.contains(Array("{{".utf8), in: $0) } ?? false
        }
    }

    /// Reads `__files/NAME`; `nil` (and a report item) when it is missing or outside `__files/`.
    private mutating func bodyFile(_ name: String, _ node: WireMockNode) -> (String, Data)? {
        if name.contains("{{") {
            note(
                node,
                "a templated body file name has no mockd equivalent; answers 500 '\(name) not found', as WireMock 3 does for a file it cannot read"
            )
            return nil
        }
        guard let folder = source.bodiesFolder, let display = source.bodiesDisplay else {
            note(
                node,
                "body file '\(name)' not found (no __files/ folder beside the mappings); answers 500 '\(name) not found', as WireMock 3 does"
            )
            return nil
        }
        let base = folder.resolvingSymlinksInPath().standardizedFileURL.path
        let url = folder.appendingPathComponent(name).standardizedFileURL
        let resolved = url.resolvingSymlinksInPath().standardizedFileURL.path
        guard SetRelativePath.problem(name) == nil, resolved.hasPrefix(base.hasSuffix("/") ? base : base + "/") else {
            note(node, "body file '\(name)' is outside \(display); answers 500 '\(name) not found'")
            return nil
        }
        guard let data = try? Data(contentsOf: url) else {
            note(
                node,
                "body file '\(name)' not found in \(display); answers 500 '\(name) not found', as WireMock 3 does"
            )
            return nil
        }
        let folderPath = folder.standardizedFileURL.path
        let relative =
            url.path.hasPrefix(folderPath + "/")
            ? String(url.path.dropFirst(folderPath.count + 1)) : url.lastPathComponent
        return ("bodies/__files/" + relative, data)
    }

    /// A stub id as a file name: letters, digits, `.`, `_`, `-`.
    static func fileName(_ id: String) -> String {
        String(
            id.unicodeScalars.map { scalar -> Character in
                scalar.isASCII
                    && (CharacterSet.alphanumerics.contains(scalar) || scalar == "-" || scalar == "." || scalar == "_")
                    ? Character(scalar) : "_"
            }
        )
    }
}
