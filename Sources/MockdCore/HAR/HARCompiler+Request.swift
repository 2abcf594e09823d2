import Foundation
import MockdFormat

/// `HARCompiler.add`'s request side: which entries are replayable and kept, and the request a stub matches.
extension HARCompiler {
    /// What a stub's request matches: the key, the header constraints (with the lines written for them), the
    /// recorded body and, for a GraphQL operation, the operation and the method it was sent with.
    struct StubRequest {
        var key: RequestKey
        var constraints: [HeaderConstraint] = []
        var constraintLines: [String] = []
        var body: RecordedRequestBody
        var graphQL: (operation: GraphQLOperation, method: String)? = nil
    }

    /// The entry's URL when it is an absolute HTTP(S) or WebSocket URL of a request with a method; otherwise the
    /// entry is skipped, saying why, and `nil`.
    mutating func replayableURL(of entry: HAREntry) -> RecordedURL? {
        let request = entry.request
        guard !request.method.isEmpty else {
            skip(entry, "request.method missing")
            return nil
        }
        guard HTTPToken.isToken(request.method) else {
            skip(entry, "request.method is not an HTTP method")
            return nil
        }
        guard let url = RecordedURL(request.url) else {
            skip(entry, request.url.isEmpty ? "request.url missing" : "request.url is not a valid URL")
            return nil
        }
        guard url.scheme == "http" || url.scheme == "https" || url.scheme == "ws" || url.scheme == "wss" else {
            skip(entry, "not an HTTP URL (\(url.scheme):)")
            return nil
        }
        guard !url.host.isEmpty, url.rawPath.hasPrefix("/") else {
            skip(entry, "request.url is not an absolute http(s) URL")
            return nil
        }
        return url
    }

    /// Whether `--host` keeps the entry's host; the others are counted for the report, not skipped one by one.
    mutating func isKeptHost(_ url: RecordedURL) -> Bool {
        if !hostFilter.isEmpty, !hostFilter.contains(url.host), !hostFilter.contains(url.hostAndPort) {
            report.otherHosts[url.hostAndPort, default: 0] += 1
            return false
        }
        return true
    }

    /// The query as recorded, secrets redacted unless `--keep-secrets`; noted as sent (for `finish()`'s sequence
    /// notes), and whether it used jQuery's `_` cache-buster (then the written rules say to ignore it).
    mutating func recordedQuery(of url: RecordedURL, entry: HAREntry) -> String {
        let rawQuery = options.keepSecrets ? url.rawQuery : redactor.redactQuery(url.rawQuery, entry: entry.index)
        let sent = RequestKey.normalizeQuery(rawQuery)
        // No query is noted as none (read back as ""): most entries of an API have none.
        if !sent.isEmpty { sentQueries[entry.index] = sent }
        if !sawCacheBuster, !url.rawQuery.isEmpty,
            RequestKey.queryPairs(url.rawQuery).contains(where: { $0.name == "_" })
        {
            sawCacheBuster = true
        }
        return rawQuery
    }

    /// A kept entry's host and origin, for the report and the set's `origins`.
    mutating func keep(_ url: RecordedURL) {
        report.keptHosts[url.hostAndPort, default: 0] += 1
        origins.insert(url.origin)
    }

    /// Takes back `keep(url)` for an entry dropped after its answer was read.
    mutating func unkeep(_ url: RecordedURL) {
        report.keptHosts[url.hostAndPort, default: 0] -= 1
        if report.keptHosts[url.hostAndPort] == 0 { report.keptHosts[url.hostAndPort] = nil }
    }

    /// Whether the entry is a WebSocket: a `ws:`/`wss:` URL, a 101 answer, Chrome's `websocket` resource type or
    /// recorded frames.
    static func isWebSocket(_ entry: HAREntry, url: RecordedURL) -> Bool {
        url.scheme == "ws" || url.scheme == "wss" || entry.response?.status == 101
            || entry.resourceType == "websocket"
            || entry.hasWebSocketMessages
    }

    /// A WebSocket entry as a `GET` stub whose 101 answer replays the recorded server frames (and, for a GraphQL
    /// subscription, notes its operations).
    mutating func addWebSocket(_ entry: HAREntry, url: RecordedURL, rawQuery: String) {
        keep(url)
        if entry.webSocketMessages.isEmpty { webSocketsWithoutFrames += 1 }
        let key = RequestKey(
            method: "GET",
            rawPath: url.rawPath,
            rawQuery: rawQuery,
            host: url.hostAndPort,
            normalizer: normalizer
        )
        let script = WebSocketScriptRecorder.script(
            entry,
            scale: options.webSocketTimeScale,
            waitForClient: options.webSocketWaitForClient
        )
        if script.graphql != nil,
            let operations = WebSocketScriptRecorder.graphQLScript(entry, scale: options.webSocketTimeScale)?
                .operations
        {
            for operation in operations {
                report.noteGraphQL(operation, path: key.path, requests: 1, stubs: 1)
            }
        }
        let recorded = RecordedResponse(
            status: 101,
            headers: [],
            body: Data(),
            mimeType: nil,
            time: entry.time,
            webSocket: script
        )
        let body = RecordedRequestBody(bytes: Data(), contentType: nil, normalizer: normalizer)
        append(StubRequest(key: key, body: body), recorded, entry: entry.index)
    }

    /// Why the exchange got no answer to replay (no response object, a producer's failure mark, status 0 or -1),
    /// or `nil` when it got one. A failure-marked answer that needs no body is that answer (noted for the report).
    mutating func failure(of entry: HAREntry) -> String? {
        guard let response = entry.response else {
            return
                "no response object (the request got no answer before the HAR was saved: aborted, blocked or still pending)"
        }
        if let text = entry.failureText {
            if (100...999).contains(response.status), HARCompiler.isBodiless(response, method: entry.request.method) {
                // Chrome marks every HEAD, 204 and 304 it received `net::ERR_ABORTED`: status and headers arrived,
                // and they are the whole answer.
                failedButComplete.append(entry.index)
                return nil
            }
            return response.status == 0 || response.status == -1
                ? "failed request (\(text), status \(response.status))"
                : "failed request (\(text)) although a status was recorded: the answer never completed"
        }
        if response.status == 0 || response.status == -1 {
            return "failed request (status \(response.status): no answer from the server)"
        }
        return nil
    }

    /// Why an answer that arrived is not one to replay (an invalid or interim status, a redirect Chrome made
    /// itself), or `nil`.
    static func unreplayableAnswer(_ response: HARResponse, url: RecordedURL) -> String? {
        guard (100...999).contains(response.status) else { return "invalid status \(response.status)" }
        guard response.status >= 200 else { return "interim response (\(response.status)) without a final one" }
        if isChromeInternalRedirect(response, url: url) {
            return "Chrome internal redirect (307 made by the browser, not the server)"
        }
        return nil
    }

    /// Chrome records its own HSTS upgrades and service-worker hops as `307 Internal Redirect` with a
    /// `Non-Authoritative-Reason` header; the server never sent them.
    static func isChromeInternalRedirect(_ response: HARResponse, url: RecordedURL) -> Bool {
        guard response.status == 307 else { return false }
        if response.headers["non-authoritative-reason"] != nil { return true }
        guard url.scheme == "http", let location = response.headers["location"] else { return false }
        return location.lowercased().hasPrefix("https://\(url.host)")
    }

    /// The request a kept entry's stub matches: its key, the `--match-header` constraints, its body (decoded and
    /// redacted) and, when it is one GraphQL operation, the operation keyed by name and variables.
    mutating func stubRequest(for entry: HAREntry, url: RecordedURL, rawQuery: String) -> StubRequest {
        let (constraints, lines) = matchConstraints(of: entry)
        var request = StubRequest(
            key: RequestKey(
                method: entry.request.method,
                rawPath: url.rawPath,
                rawQuery: rawQuery,
                host: url.hostAndPort,
                normalizer: normalizer
            ),
            constraints: constraints,
            constraintLines: lines,
            body: requestBody(of: entry)
        )
        keyByGraphQLOperation(&request, method: entry.request.method, url: url, rawQuery: rawQuery)
        return request
    }

    /// The `--match-header` fields the request carried, as constraints and the lines written for them; a header
    /// that holds a secret is never one (unless `--keep-secrets`), and the report says so.
    mutating func matchConstraints(of entry: HAREntry) -> ([HeaderConstraint], [String]) {
        var constraints: [HeaderConstraint] = []
        var lines: [String] = []
        for name in options.matchHeaders where !unstableHeaders.contains(name) {
            guard let field = entry.request.headers.first(where: { $0.name.caseInsensitiveEquals(name) }),
                !field.value.trimmingCharacters(in: .whitespaces).isEmpty
            else { continue }
            if !options.keepSecrets, SecretPatterns.placeholder(forHeader: name) != nil || name == "cookie" {
                report.warnings.append(
                    "entry \(entry.number): request header \(HARImporter.canonicalHeaderName(name)) holds a secret; not used for matching (--keep-secrets to keep it)"
                )
                continue
            }
            constraints.append(HeaderConstraint(name: name, value: field.value))
            lines.append("\(HARImporter.canonicalHeaderName(name)): \(field.value)")
        }
        return (constraints, lines)
    }

    /// The request body as recorded (decoded from its `Content-Encoding`), secrets redacted unless
    /// `--keep-secrets`, canonicalized under the set's rules; a lossy or coded body is noted for the report.
    mutating func requestBody(of entry: HAREntry) -> RecordedRequestBody {
        let body = RecordedRequestBody(entry.request)
        if body.lossy { lossyRequestBodies.append(entry.index) }
        switch body.coding {
        case .decoded: codedRequestBodies[.decoded, default: []].append(entry.index)
        case .alreadyDecoded: codedRequestBodies[.alreadyDecoded, default: []].append(entry.index)
        case .undecodable: codedRequestBodies[.undecodable, default: []].append(entry.index)
        case nil: break
        }
        if !options.keepSecrets,
            let redacted = redactor.redactRequestBody(body.bytes, contentType: body.contentType, entry: entry.index)
        {
            return body.with(bytes: redacted, normalizer: normalizer)
        }
        return body.with(bytes: body.bytes, normalizer: normalizer)
    }

    /// A GraphQL operation is keyed by its name and variables, sent by GET or POST alike (a batch keeps its body):
    /// the key becomes a `POST` of the query's other parameters, and the body's canonical form the operation's key.
    func keyByGraphQLOperation(_ request: inout StubRequest, method: String, url: RecordedURL, rawQuery: String) {
        guard method == "POST" || method == "GET",
            let operations = GraphQLRequest.operations(
                method: method,
                query: Substring(rawQuery),
                body: request.body.bytes,
                contentType: request.body.contentType,
                normalizer: normalizer
            ), operations.count == 1
        else { return }
        request.graphQL = (operations[0], method)
        // A GraphQL operation is the same by GET (no body, no Content-Type) or POST: never keyed by Content-Type.
        if let position = request.constraints.firstIndex(where: { $0.name == "content-type" }) {
            request.constraints.remove(at: position)
            request.constraintLines.remove(at: position)
        }
        request.key = RequestKey(
            method: "POST",
            rawPath: url.rawPath,
            rawQuery: GraphQLRequest.otherQuery(rawQuery),
            host: url.hostAndPort,
            normalizer: normalizer
        )
        request.body.canonical = Data(operations[0].key.utf8)
    }

    /// A failed attempt kept by `--failed keep`: the client fault its recorded error names, else a connection reset.
    mutating func failedAttempt(_ entry: HAREntry) -> RecordedResponse {
        var recorded = RecordedResponse(status: 0, headers: [], body: Data(), mimeType: nil, time: entry.time)
        if let clientFault = RecordedFailure.clientFault(entry.failureText) {
            recorded.fault = clientFault
            keptClientFaults[clientFault, default: []].append(entry.index)
        } else {
            recorded.fault = .connectionReset
        }
        return recorded
    }
}
