public import Foundation
import MockdFormat

/// Compiles HAR entries into a mock set, one entry at a time, so a reader can stream a large file
/// through it: one stub per request key (and header constraints), repeated requests as a sequence,
/// distinct request bodies as separate stubs.
///
/// Hygiene is on unless `options.keepSecrets`: secrets and personal data become placeholders (see
/// `Redactor`), with the matching rules written to the set's `normalize`; unstable headers (`Date`, trace
/// ids…) are never stored. Memory: the compiler keeps each kept entry's response body until `finish()`, which hands
/// them on in the set it builds.
public struct HARCompiler {
    let options: HARImportOptions
    let harDirectory: URL?
    private let hostFilter: Set<String>
    /// The origins of the kept entries (`https://api.example.com`), written as the set's `origins`.
    private var origins: Set<String> = []
    /// Each entry's query as sent (canonical encoding, secrets redacted, before the set's rules), by entry index:
    /// to report entries that share a stub although their queries differed in what the rules leave out.
    private var sentQueries: [Int: String] = [:]
    /// The user's rules; redaction rules are added to the written set, not used for grouping (redacted
    /// values are placeholders already).
    private let normalizer: RequestNormalizer
    private let unstableHeaders: Set<String>
    private var report = ImportReport()
    private var redactor = Redactor()
    private var groups: [GroupKey: Int] = [:]
    private var ordered: [Group] = []
    private var droppedHeaders: [String: Int] = [:]
    private var unstableDropped: [String: Int] = [:]
    private var bodyNotes: [String: [Int]] = [:]
    /// Entries whose body the HAR did not capture.
    private var missingBodies: [Int] = []
    private var webSocketsWithoutFrames = 0
    /// Header lines and constraints recur on most entries: each distinct list is kept once, shared by its stubs.
    private var sharedHeaderLines = ValueInterner<[String]>()
    private var sharedConstraints = ValueInterner<[HeaderConstraint]>()
    private var sawCacheBuster = false
    /// Entries a producer marked failed (`_error`, `_failureText`) whose answer needs no body: served as recorded.
    private var failedButComplete: [Int] = []
    /// Failed attempts kept (`--failed keep`) as the client fault their recorded error names, by fault.
    private var keptClientFaults: [Fault: [Int]] = [:]
    /// SPDY-era pseudo-headers written as plain `status`/`version` response headers, by name: never served.
    private var pseudoHeaders: [String: Int] = [:]
    /// Redirects whose `Location` came from `redirectURL` (the producer kept no such header).
    private var locationsFromRedirectURL: [Int] = []
    /// 206 answers that hold every byte of the representation, stored as the 200 they amount to.
    private var wholePartials: [Int] = []
    /// Request bodies an exporter wrote as text although they were not UTF-8 (U+FFFD for each invalid sequence).
    private var lossyRequestBodies: [Int] = []
    /// Request bodies recorded with a `Content-Encoding`, by what became of it.
    private var codedRequestBodies: [RecordedRequestBody.Coding: [Int]] = [:]

    /// - Parameters:
    ///   - options: Host filter, match headers, hygiene, normalisation, failed-entry policy, WebSocket timing.
    ///   - harDirectory: The HAR file's folder, for Playwright `content._file` side files (never outside it).
    public init(options: HARImportOptions = HARImportOptions(), harDirectory: URL? = nil) {
        self.options = options
        self.harDirectory = harDirectory
        hostFilter = Set(options.hosts.map(HostName.normalized))
        // jQuery's `_=<epoch ms>` cache-buster never means anything: always left out of recorded keys (and
        // written to the set's rules when the recording used it).
        normalizer = RequestNormalizer(options.normalization.merged(with: RequestNormalization(ignoreQuery: ["_"])))
        unstableHeaders = Set(options.unstableHeaders.map(\.asciiLowercased))
    }

    /// Entries seen so far.
    public var entriesRead: Int { report.entriesRead }

    /// Adds `log.entries[entry.index]`; entries that cannot be replayed are recorded in the report.
    public mutating func add(_ entry: HAREntry) {
        report.entriesRead += 1
        let request = entry.request
        guard !request.method.isEmpty else { return skip(entry, "request.method missing") }
        guard HTTPToken.isToken(request.method) else { return skip(entry, "request.method is not an HTTP method") }
        guard let url = RecordedURL(request.url) else {
            return skip(entry, request.url.isEmpty ? "request.url missing" : "request.url is not a valid URL")
        }
        let isWebSocket =
            url.scheme == "ws" || url.scheme == "wss" || entry.response?.status == 101
            || entry.resourceType == "websocket"
            || entry.hasWebSocketMessages
        guard url.scheme == "http" || url.scheme == "https" || url.scheme == "ws" || url.scheme == "wss" else {
            return skip(entry, "not an HTTP URL (\(url.scheme):)")
        }
        guard !url.host.isEmpty, url.rawPath.hasPrefix("/") else {
            return skip(entry, "request.url is not an absolute http(s) URL")
        }
        if !hostFilter.isEmpty, !hostFilter.contains(url.host), !hostFilter.contains(url.hostAndPort) {
            report.otherHosts[url.hostAndPort, default: 0] += 1
            return
        }
        let rawQuery = options.keepSecrets ? url.rawQuery : redactor.redactQuery(url.rawQuery, entry: entry.index)
        sentQueries[entry.index] = RequestKey.normalizeQuery(rawQuery)
        if !sawCacheBuster, !url.rawQuery.isEmpty,
            RequestKey.queryPairs(url.rawQuery).contains(where: { $0.name == "_" })
        {
            sawCacheBuster = true
        }
        if isWebSocket {
            report.keptHosts[url.hostAndPort, default: 0] += 1
            origins.insert(url.origin)
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
            append(
                key: key,
                constraints: [],
                lines: [],
                body: RecordedRequestBody(bytes: Data(), contentType: nil, normalizer: normalizer),
                recorded,
                entry: entry.index
            )
            return
        }
        if request.method == "CONNECT" {
            return skip(
                entry,
                "CONNECT tunnel (a proxy's TLS tunnel to \(url.hostAndPort), not an HTTP exchange; what went through it is recorded as entries of its own when the proxy decrypted it)"
            )
        }
        let failure: String?
        if entry.response == nil {
            failure =
                "no response object (the request got no answer before the HAR was saved: aborted, blocked or still pending)"
        } else if let text = entry.failureText {
            let response = entry.response!
            if (100...999).contains(response.status), HARCompiler.isBodiless(response, method: request.method) {
                // Chrome marks every HEAD, 204 and 304 it received `net::ERR_ABORTED`: status and headers arrived,
                // and they are the whole answer.
                failure = nil
                failedButComplete.append(entry.index)
            } else {
                failure =
                    response.status == 0 || response.status == -1
                    ? "failed request (\(text), status \(response.status))"
                    : "failed request (\(text)) although a status was recorded: the answer never completed"
            }
        } else if entry.response!.status == 0 || entry.response!.status == -1 {
            failure = "failed request (status \(entry.response!.status): no answer from the server)"
        } else {
            failure = nil
        }
        if let failure {
            guard options.failed == .keep else { return skip(entry, failure) }
        } else {
            let response = entry.response!
            guard (100...999).contains(response.status) else { return skip(entry, "invalid status \(response.status)") }
            guard response.status >= 200 else {
                return skip(entry, "interim response (\(response.status)) without a final one")
            }
            if HARCompiler.isChromeInternalRedirect(response, url: url) {
                return skip(entry, "Chrome internal redirect (307 made by the browser, not the server)")
            }
        }
        report.keptHosts[url.hostAndPort, default: 0] += 1
        origins.insert(url.origin)

        var key = RequestKey(
            method: request.method,
            rawPath: url.rawPath,
            rawQuery: rawQuery,
            host: url.hostAndPort,
            normalizer: normalizer
        )
        var constraints: [HeaderConstraint] = []
        var constraintLines: [String] = []
        for name in options.matchHeaders where !unstableHeaders.contains(name) {
            guard let field = request.headers.first(where: { $0.name.caseInsensitiveEquals(name) }),
                !field.value.trimmingCharacters(in: .whitespaces).isEmpty
            else { continue }
            if !options.keepSecrets, SecretPatterns.placeholder(forHeader: name) != nil || name == "cookie" {
                report.warnings.append(
                    "entry \(entry.number): request header \(HARImporter.canonicalHeaderName(name)) holds a secret; not used for matching (--keep-secrets to keep it)"
                )
                continue
            }
            constraints.append(HeaderConstraint(name: name, value: field.value))
            constraintLines.append("\(HARImporter.canonicalHeaderName(name)): \(field.value)")
        }
        var requestBody = RecordedRequestBody(request)
        if requestBody.lossy { lossyRequestBodies.append(entry.index) }
        switch requestBody.coding {
        case .decoded: codedRequestBodies[.decoded, default: []].append(entry.index)
        case .alreadyDecoded: codedRequestBodies[.alreadyDecoded, default: []].append(entry.index)
        case .undecodable: codedRequestBodies[.undecodable, default: []].append(entry.index)
        case nil: break
        }
        if !options.keepSecrets,
            let redacted = redactor.redactRequestBody(
                requestBody.bytes,
                contentType: requestBody.contentType,
                entry: entry.index
            )
        {
            requestBody = requestBody.with(bytes: redacted, normalizer: normalizer)
        } else {
            requestBody = requestBody.with(bytes: requestBody.bytes, normalizer: normalizer)
        }

        // A GraphQL operation is keyed by its name and variables, sent by GET or POST alike (a batch keeps its body).
        var graphQL: GraphQLOperation?
        if request.method == "POST" || request.method == "GET",
            let operations = GraphQLRequest.operations(
                method: request.method,
                query: Substring(rawQuery),
                body: requestBody.bytes,
                contentType: requestBody.contentType,
                normalizer: normalizer
            ), operations.count == 1
        {
            graphQL = operations[0]
            // A GraphQL operation is the same by GET (no body, no Content-Type) or POST: never keyed by Content-Type.
            if let position = constraints.firstIndex(where: { $0.name == "content-type" }) {
                constraints.remove(at: position)
                constraintLines.remove(at: position)
            }
            key = RequestKey(
                method: "POST",
                rawPath: url.rawPath,
                rawQuery: GraphQLRequest.otherQuery(rawQuery),
                host: url.hostAndPort,
                normalizer: normalizer
            )
            requestBody.canonical = Data(operations[0].key.utf8)
        }

        guard let response = entry.response, failure == nil else {
            var recorded = RecordedResponse(status: 0, headers: [], body: Data(), mimeType: nil, time: entry.time)
            if let clientFault = RecordedFailure.clientFault(entry.failureText) {
                recorded.fault = clientFault
                keptClientFaults[clientFault, default: []].append(entry.index)
            } else {
                recorded.fault = .connectionReset
            }
            append(
                key: key,
                constraints: constraints,
                lines: constraintLines,
                body: requestBody,
                recorded,
                entry: entry.index,
                graphQL: graphQL.map { ($0, request.method) }
            )
            return
        }
        var decoded = RecordedBody(
            response.content,
            headers: response.headers,
            harDirectory: harDirectory,
            hexBinary: entry.isPollyEntry
        )
        for note in decoded.notes { bodyNotes[note, default: []].append(entry.index) }
        if graphQL != nil, HARCompiler.isPersistedQueryNotFound(decoded.bytes) {
            report.keptHosts[url.hostAndPort, default: 0] -= 1
            if report.keptHosts[url.hostAndPort] == 0 { report.keptHosts[url.hostAndPort] = nil }
            return skip(
                entry,
                "GraphQL automatic persisted query handshake (PersistedQueryNotFound): the mock answers the operation by its hash, so the app never needs to send the document again"
            )
        }
        let mimeType = response.content.mimeType ?? response.headers["content-type"]
        var bodyNotRecorded: String?
        let recordedLength =
            (response.content.size ?? 0) > 0
            ? response.content.size! : Int(response.headers["content-length"] ?? "") ?? 0
        if decoded.bytes.isEmpty, recordedLength > 0, response.content.file == nil,
            response.content.text?.isEmpty != false, !HARCompiler.isBodiless(response, method: request.method)
        {
            missingBodies.append(entry.index)
            if options.missingBodies == .miss {
                bodyNotRecorded =
                    "body not recorded: HAR entry \(entry.number) says \(recordedLength) bytes but holds no text (re-record, or import with --missing-bodies empty to serve it empty)"
            }
        }
        let bodyBraces = ByteSearch.contains([0x7B, 0x7B], in: decoded.bytes)
        let headerBraces = response.headers.contains { $0.value.containsASCII("{{") }
        var redact = !options.keepSecrets
        // A recorded `{{email}}` (a client-side template) would be indistinguishable from a redaction.
        if redact, bodyBraces || headerBraces,
            Template.parse(decoded.bytes)?.usesFakeValues == true
                || response.headers.contains(where: { Template.parse(Data($0.value.utf8))?.usesFakeValues == true })
        {
            report.warnings.append(
                "entry \(entry.number): the response already contains placeholder-like {{…}} text; not redacted, check it with mockd lint"
            )
            redact = false
        }

        var headers: [String] = []
        var redactedHeaders = false
        // Chrome writes repeated fields (several Set-Cookie) as one value joined by newlines: one field each.
        // An empty value is a field all the same (`X-Feature-Flags:`): kept.
        let fields = response.headers.flatMap { field in
            field.value.isEmpty
                ? [field]
                : field.value.split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }).map {
                    HTTPHeaders.Field(name: field.name, value: String($0))
                }
        }
        for field in fields {
            if HARCompiler.isPseudoHeaderWithoutColon(field) {
                pseudoHeaders[field.name, default: 0] += 1
                continue
            }
            guard HTTPToken.isToken(field.name) || field.name.hasPrefix(":") else {
                droppedHeaders["(invalid name '\(field.name)')", default: 0] += 1
                continue
            }
            if ResponseHeaderPolicy.isDropped(field.name, method: request.method) {
                if !field.name.hasPrefix(":") { droppedHeaders[field.name.asciiLowercased, default: 0] += 1 }
                continue
            }
            let lower = field.name.asciiLowercased
            if unstableHeaders.contains(lower) {
                unstableDropped[lower, default: 0] += 1
                continue
            }
            var value = field.value
            if redact {
                value = redactor.redactHeader(name: field.name, value: value, entry: entry.index)
                if value != field.value { redactedHeaders = true }
            }
            headers.append(HeaderLine.format(.init(name: field.name, value: value)))
        }
        if (300..<400).contains(response.status), response.headers["location"] == nil,
            let target = response.redirectURL, HeaderLine.isValidValue(target)
        {
            // HAR 1.2: `redirectURL` is the target of the `Location` header; a producer that kept no headers still
            // recorded where the redirect went.
            headers.append(HeaderLine.format(.init(name: "Location", value: target)))
            locationsFromRedirectURL.append(entry.index)
        }
        var redactedBody = false
        if redact,
            let clean = redactor.redactResponseBody(
                decoded.bytes,
                mimeType: mimeType,
                entry: entry.index,
                path: url.rawPath
            )
        {
            decoded.bytes = clean
            redactedBody = true
        }
        var status = response.status
        var partial: String?
        if status == 206 {
            let contentRange = response.headers["content-range"]?.trimmingCharacters(in: .whitespaces)
            if let contentRange, HARCompiler.isWholeRange(contentRange, length: decoded.bytes.count) {
                // Every byte arrived: the whole representation, as a 200 answers it (a range request is cut from it).
                status = 200
                headers.removeAll { $0.asciiLowercased.hasPrefix("content-range:") }
                wholePartials.append(entry.index)
            } else {
                partial =
                    contentRange.map {
                        "recorded only as 206 Partial Content (Content-Range: \($0)): the recording holds part of the representation; a GET whose Range lies inside those bytes gets them"
                    }
                    ?? "recorded only as 206 Partial Content without a Content-Range: which part of the representation it holds is unknown"
            }
        }
        var recorded = RecordedResponse(
            status: status,
            headers: sharedHeaderLines.shared(headers),
            body: decoded.bytes,
            mimeType: mimeType,
            time: entry.time
        )
        recorded.partial = partial
        if status == 304 {
            recorded.validators = request.headers.fields.compactMap { field in
                let lower = field.name.asciiLowercased
                guard lower == "if-none-match" || lower == "if-modified-since",
                    !field.value.trimmingCharacters(in: .whitespaces).isEmpty
                else { return nil }
                return HeaderLine.format(.init(name: HARImporter.canonicalHeaderName(lower), value: field.value))
            }
        }
        if EventStreamRecorder.isEventStream(mimeType), request.method != "HEAD" {
            recorded.eventStream = EventStreamRecorder.stream(
                entry,
                body: decoded.bytes,
                scale: options.webSocketTimeScale
            )
        }
        // Recorded `{{…}}` is literal; placeholders written by redaction still render (their fixed fake values).
        if bodyBraces || headerBraces {
            recorded.templated = redactedBody || redactedHeaders ? .redactedOnly : .off
        }
        recorded.miss = bodyNotRecorded
        recorded.dates = recordedDates(
            entry,
            body: recorded.eventStream == nil && request.method != "HEAD" ? decoded.bytes : Data(),
            headers: headers
        )
        append(
            key: key,
            constraints: constraints,
            lines: constraintLines,
            body: requestBody,
            recorded,
            entry: entry.index,
            graphQL: graphQL.map { ($0, request.method) }
        )
    }

    /// The dates of a recorded answer (`DateFields`) relative to the entry's `startedDateTime` (else the answer's
    /// `Date`), noted for the report; `nil` when it holds none.
    private mutating func recordedDates(_ entry: HAREntry, body: Data, headers: [String]) -> MockSetFile.DatesEntry? {
        let reference =
            entry.startedDateTime
            ?? entry.response?.headers["date"].flatMap { DateText.parse($0.trimmingCharacters(in: .whitespaces))?.date }
        // A recording dated outside 1990–9999 (a broken or hostile `startedDateTime`) has no dates to keep relative
        // to it.
        guard let reference, let recordedAtMs = Int64(exactly: (reference.timeIntervalSince1970 * 1000).rounded()),
            DateFields.recordingTimesMs.contains(recordedAtMs)
        else { return nil }
        let inBody = DateFields.inJSON(body, recordedAtMs: recordedAtMs)
        let fields = headers.compactMap { HeaderLine.parse($0).map { (name: $0.name, value: $0.value) } }
        let inHeaders = DateFields.inHeaders(fields, recordedAtMs: recordedAtMs)
        guard !inBody.isEmpty || !inHeaders.isEmpty else { return nil }
        for found in inBody { report.noteDate("body \(found.location)", kind: found.kind, entry: entry.index) }
        for found in inHeaders {
            let name = HARImporter.canonicalHeaderName(found.location.asciiLowercased)
            report.noteDate("header \(name)", kind: found.kind, entry: entry.index)
        }
        report.datedResponses += 1
        return MockSetFile.DatesEntry(
            recordedAt: DateFormats.rfc3339Milliseconds(Date(timeIntervalSince1970: Double(recordedAtMs) / 1000)),
            body: inBody.isEmpty ? nil : inBody.map(\.location),
            headers: inHeaders.isEmpty ? nil : inHeaders.map(\.location)
        )
    }

    private mutating func skip(_ entry: HAREntry, _ reason: String) {
        report.skipped.append(.init(index: entry.index, reason: reason))
    }

    private mutating func append(
        key: RequestKey,
        constraints: [HeaderConstraint],
        lines: [String],
        body: RecordedRequestBody,
        _ recorded: RecordedResponse,
        entry: Int,
        graphQL: (operation: GraphQLOperation, method: String)? = nil
    ) {
        let groupKey = GroupKey(key: key, constraints: constraints, graphQL: graphQL?.operation.identity)
        if let position = groups[groupKey] {
            ordered[position].entries.append((body, recorded, entry))
            if let graphQL { ordered[position].graphQLOperations.append(graphQL.operation) }
        } else {
            let constraints = sharedConstraints.shared(constraints)
            let lines = sharedHeaderLines.shared(lines)
            groups[GroupKey(key: key, constraints: constraints, graphQL: groupKey.graphQL)] = ordered.count
            var group = Group(
                key: key,
                constraintLines: lines,
                constraints: constraints,
                entries: [(body, recorded, entry)]
            )
            if let graphQL {
                group.graphQLMethod = graphQL.method
                group.graphQLOperations = [graphQL.operation]
            }
            ordered.append(group)
        }
    }

    /// Whether a client reads no body of this answer, so that status and headers are the whole of it: the answer to
    /// a `HEAD`, a 1xx, 204 No Content, 205 Reset Content, 304 Not Modified (RFC 9110 §6.4.1, §15.3.5, §15.3.6,
    /// §15.4.5), and a redirect that names its target (`Location`, or the HAR's `redirectURL`), which a client
    /// follows without reading the body (§15.4).
    static func isBodiless(_ response: HARResponse, method: String) -> Bool {
        let status = response.status
        if method == "HEAD" || status < 200 || status == 204 || status == 205 || status == 304 { return true }
        guard (300..<400).contains(status) else { return false }
        let location = response.headers["location"]?.trimmingCharacters(in: .whitespaces) ?? ""
        return !location.isEmpty || response.redirectURL != nil
    }

    /// A GraphQL stub's `request.graphql`: its name, type, variables and persisted query; the document only when it is
    /// the key (no name, no persisted query).
    static func entry(for operation: GraphQLOperation) -> GraphQLEntry {
        let variables = try? JSONDecoder().decode(JSONValue.self, from: operation.variables)
        return GraphQLEntry(
            operationName: operation.operationName,
            operationType: operation.operationType,
            variables: variables == .object([:]) ? nil : variables,
            persistedQuery: operation.persistedQuery,
            document: operation.operationName == nil && operation.persistedQuery == nil ? operation.document : nil
        )
    }

    /// Whether a GraphQL answer is Apollo's automatic-persisted-query refusal (`PersistedQueryNotFound`, or
    /// `extensions.code` `PERSISTED_QUERY_NOT_FOUND`): the client sends the document next, which is what to keep.
    static func isPersistedQueryNotFound(_ body: Data) -> Bool {
        guard
            ByteSearch.contains(Array("ERSISTED".utf8), in: body)
                || ByteSearch.contains(Array("ersisted".utf8), in: body),
            let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let errors = object["errors"] as? [[String: Any]], !errors.isEmpty
        else { return false }
        return errors.allSatisfy { error in
            error["message"] as? String == "PersistedQueryNotFound"
                || (error["extensions"] as? [String: Any])?["code"] as? String == "PERSISTED_QUERY_NOT_FOUND"
        }
    }

    /// Whether `Content-Range: bytes 0-(N-1)/N` covers all `length` bytes of a body (RFC 9110 §14.4).
    static func isWholeRange(_ contentRange: String, length: Int) -> Bool {
        let lower = contentRange.lowercased()
        guard lower.hasPrefix("bytes ") else { return false }
        let numbers = lower.dropFirst(6).split(whereSeparator: { $0 == "-" || $0 == "/" })
        guard numbers.count == 3, let first = Int(numbers[0]), let last = Int(numbers[1]), let total = Int(numbers[2])
        else { return false }
        return first == 0 && last == total - 1 && total == length && length > 0
    }

    /// Whether a response header is a SPDY/HTTP/2 pseudo-header that an old Chrome (or a HAR tool reading its
    /// protocol log) wrote without its colon: a lower-case `status` holding a status code (`200`, `302 Found`) or
    /// a lower-case `version` holding `HTTP/1.1`. The status line says both; as fields they were never sent.
    static func isPseudoHeaderWithoutColon(_ field: HTTPHeaders.Field) -> Bool {
        let value = field.value.trimmingCharacters(in: .whitespaces)
        switch field.name {
        case "status":
            let digits = value.prefix(while: \.isASCII).prefix(3)
            return digits.count == 3 && digits.allSatisfy(\.isNumber)
                && (value.count == 3 || value.dropFirst(3).first == " ")
        case "version":
            let upper = value.uppercased()
            return upper.hasPrefix("HTTP/") && upper.dropFirst(5).allSatisfy { $0.isNumber || $0 == "." }
                && upper.count > 5
        default:
            return false
        }
    }

    /// Chrome records its own HSTS upgrades and service-worker hops as `307 Internal Redirect` with a
    /// `Non-Authoritative-Reason` header; the server never sent them.
    static func isChromeInternalRedirect(_ response: HARResponse, url: RecordedURL) -> Bool {
        guard response.status == 307 else { return false }
        if response.headers["non-authoritative-reason"] != nil { return true }
        guard url.scheme == "http", let location = response.headers["location"] else { return false }
        return location.lowercased().hasPrefix("https://\(url.host)")
    }

    /// The mock set to write and the report. The set may be empty; the caller decides whether that is an error.
    ///
    /// Ends the compilation: the recorded entries are let go as the set is built (so that they are not held
    /// beside it while it is written), and the compiler is left without them.
    public mutating func finish() -> (MockSetBuild, ImportReport) {
        var report = report
        let keepHosts = report.keptHosts.count > 1 && !options.flattenHosts
        var groups = ordered
        ordered = []
        self.groups = [:]
        // A GraphQL operation's requests differ in their text by design (whitespace, member order, the document):
        // one sequence per set of variables, nothing to note.
        for group in groups where group.entries.count > 1 && group.graphQLOperations.isEmpty {
            // Entries are one sequence when their canonical bodies agree: the first entry of each body is the one
            // later entries are compared with.
            var firstByBody: [Data: (entry: Int, bytes: Data)] = [:]
            for later in group.entries {
                guard let first = firstByBody[later.body.canonical] else {
                    firstByBody[later.body.canonical] = (later.entry, later.body.bytes)
                    continue
                }
                var differed: [String] = []
                if sentQueries[later.entry] != sentQueries[first.entry] {
                    differed.append(
                        "its query (\(sentQueries[later.entry] ?? "") vs \(sentQueries[first.entry] ?? ""))"
                    )
                }
                if later.body.bytes != first.bytes { differed.append("its body (in fields the rules leave out)") }
                guard !differed.isEmpty else { continue }
                report.sequenceNotes.append(
                    "entry \(later.entry + 1) answers as a later step of entry \(first.entry + 1)'s \(group.key.method) \(group.key.path) although \(differed.joined(separator: " and ")) differed; the set's normalize rules leave that out"
                )
            }
        }
        sentQueries = [:]
        if !keepHosts {
            groups = HARCompiler.mergingHosts(groups, report: &report, warn: report.keptHosts.count > 1)
            report.flattened = report.keptHosts.count > 1
        } else {
            // Only these need the request to name its host; every other key has one host that recorded it.
            var hostsByKey: [RequestKey: [String]] = [:]
            var order: [RequestKey] = []
            for group in groups {
                let key = group.key.with(host: "")
                if hostsByKey[key] == nil { order.append(key) }
                if !hostsByKey[key, default: []].contains(group.key.host) {
                    hostsByKey[key, default: []].append(group.key.host)
                }
            }
            report.sharedKeys = order.filter { hostsByKey[$0]!.count > 1 }.map {
                "\($0) recorded on \(hostsByKey[$0]!.sorted().joined(separator: ", "))"
            }
        }
        if !droppedHeaders.isEmpty {
            let parts = droppedHeaders.sorted { $0.key < $1.key }.map { name, count in
                let why =
                    name == "content-encoding"
                    ? "bodies are stored decoded"
                    : name == "content-length"
                        ? "recomputed when served" : name.hasPrefix("(") ? "not an HTTP field name" : "hop-by-hop"
                return "\(name) ×\(count) (\(why))"
            }
            report.warnings.append("response headers not stored: " + parts.joined(separator: ", "))
        }
        if !unstableDropped.isEmpty {
            report.unstableHeadersDropped = unstableDropped
        }
        if !failedButComplete.isEmpty {
            report.notes.append(
                "\(failedButComplete.count) answer\(failedButComplete.count == 1 ? "" : "s") without a body (HEAD, 204, 205, 304, a redirect) marked failed by the producer (_error, _failureText: Chrome's net::ERR_ABORTED) served as recorded: status and headers arrived, and are the whole answer (\(ImportReport.entryList(failedButComplete)))"
            )
        }
        if !keptClientFaults.isEmpty {
            let parts = keptClientFaults.sorted { $0.key.rawValue < $1.key.rawValue }.map {
                "\($0.key.rawValue) (\(ImportReport.entryList($0.value)))"
            }
            report.notes.append(
                "failed attempts replayed as the failure the client saw, which MockdAppRedirect raises as its URLError (other clients get a reset, or no answer for timeout): "
                    + parts.joined(separator: ", ")
            )
        }
        if !pseudoHeaders.isEmpty {
            let names = pseudoHeaders.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(
                separator: ", "
            )
            report.notes.append(
                "SPDY/HTTP/2 pseudo-headers written without their colon not stored (the status line says them): \(names)"
            )
        }
        if !locationsFromRedirectURL.isEmpty {
            report.notes.append(
                "Location taken from the HAR's redirectURL where the redirect's headers had none (\(ImportReport.entryList(locationsFromRedirectURL)))"
            )
        }
        if !lossyRequestBodies.isEmpty {
            report.warnings.append(
                "request bodies written as text with U+FFFD replacement characters (the exporter lost bytes that were not UTF-8): \(ImportReport.entryList(lossyRequestBodies)); they match a request whose body reads as the same text"
            )
        }
        if let entries = codedRequestBodies[.decoded] {
            report.notes.append(
                "request bodies recorded with Content-Encoding stored decoded; a request is matched on its decoded body (\(ImportReport.entryList(entries)))"
            )
        }
        if let entries = codedRequestBodies[.undecodable] {
            report.warnings.append(
                "request bodies recorded with Content-Encoding that do not decode (compressed bytes written as text): \(ImportReport.entryList(entries)); a live request is matched on its decoded body, which this text is not, so re-export with base64 request bodies"
            )
        }
        if !wholePartials.isEmpty {
            report.notes.append(
                "206 answers holding every byte of the representation stored as 200 (a range request is cut from them) (\(ImportReport.entryList(wholePartials)))"
            )
        }
        for (note, entries) in bodyNotes.sorted(by: { $0.value[0] < $1.value[0] }) {
            report.bodyNotes.append(.init(note: note, entries: entries))
        }
        if webSocketsWithoutFrames > 0 {
            report.warnings.append(
                "\(webSocketsWithoutFrames) WebSocket entr\(webSocketsWithoutFrames == 1 ? "y has" : "ies have") no recorded frames (_webSocketMessages); the endpoint accepts connections and sends nothing"
            )
        }
        if !missingBodies.isEmpty {
            let count = missingBodies.count
            report.warnings.append(
                "\(count) response\(count == 1 ? " has" : "s have") a recorded size but no captured body (\(ImportReport.entryList(missingBodies))); "
                    + (options.missingBodies == .miss
                        ? "answered as a miss that says so (--missing-bodies empty serves them empty)" : "served empty")
            )
        }
        report.redactions = redactor.log

        var namer = FileNamer()
        // At least one stub and usually one body file per group: reserved once, not doubled (and copied) as they grow.
        var stubs: [MockSetFile.StubEntry] = []
        stubs.reserveCapacity(groups.count)
        var files: [String: Data] = [:]
        files.reserveCapacity(groups.count)
        var conditional = false
        let rewrite = OriginRewrite(origins: origins.sorted())
        var urls = (rewritten: 0, rewrittenEntries: [Int](), kept: 0, keptEntries: [Int]())
        for position in groups.indices {
            let group = groups[position]
            // Only this iteration holds the group's entries now: they go with it, their bodies kept in `files`.
            groups[position].entries = []
            let graphQLByEntry = Dictionary(
                zip(group.entries.map(\.entry), group.graphQLOperations),
                uniquingKeysWith: { first, _ in first }
            )
            let variants = group.variants()
            if let first = group.graphQLOperations.first {
                report.noteGraphQL(first, path: group.key.path, requests: group.entries.count, stubs: variants.count)
            }
            for var variant in variants {
                HARCompiler.gateSteps(of: &variant, key: group.key, report: &report, conditional: &conditional)
                HARCompiler.refuseAmbiguousLossyBodies(&variant, key: group.key, report: &report)
                if let rewrite {
                    for (recorded, entry) in zip(variant.responses, variant.entries) where !recorded.body.isEmpty {
                        let hits = rewrite.urlOffsets(in: recorded.body)
                        guard !hits.isEmpty, String(data: recorded.body, encoding: .utf8) != nil else { continue }
                        let identifiers = IdentifierURLs.offsets(in: recorded.body, mimeType: recorded.mimeType)
                        let kept = hits.filter(identifiers.contains).count
                        if kept > 0 {
                            urls.kept += kept
                            urls.keptEntries.append(entry)
                        }
                        if hits.count > kept {
                            urls.rewritten += hits.count - kept
                            urls.rewrittenEntries.append(entry)
                        }
                    }
                }
                let operation = variant.entries.first.flatMap { graphQLByEntry[$0] }
                let id = namer.uniqueID(
                    for: group.key.with(method: operation == nil ? group.key.method : group.graphQLMethod ?? "POST"),
                    label: operation.map { $0.operationName ?? "anonymous" }
                )
                var requestEntry = MockSetFile.RequestEntry(
                    method: operation == nil ? group.key.method : group.graphQLMethod ?? "POST",
                    path: group.key.path,
                    query: group.key.query.isEmpty ? nil : group.key.readableQuery,
                    headers: group.constraintLines.isEmpty ? nil : group.constraintLines,
                    host: keepHosts ? group.key.host : nil
                )
                if let body = variant.requestBody ?? variant.sentBody {
                    let path = namer.uniqueFile("\(id).request", mimeType: body.contentType, body: body.bytes)
                    files[path] = body.bytes
                    let entry = MockSetFile.BodyEntry(
                        file: path,
                        contentType: MediaType.essence(of: body.contentType).nilIfEmpty
                    )
                    // Part of the key when the group's requests differed by body; otherwise kept as what was sent,
                    // for `mockd refresh` to send again. A GraphQL operation's body is never its key.
                    if variant.requestBody != nil, operation == nil {
                        requestEntry.body = entry
                    } else {
                        requestEntry.recordedBody = entry
                    }
                }
                if let operation { requestEntry.graphql = HARCompiler.entry(for: operation) }
                var responses: [MockSetFile.ResponseEntry] = []
                for (step, recorded) in variant.responses.enumerated() {
                    var entry = MockSetFile.ResponseEntry(
                        status: recorded.fault == nil ? recorded.status : nil,
                        headers: recorded.headers.isEmpty ? nil : recorded.headers,
                        recordedTimeMs: recorded.time.map { $0.rounded() }
                    )
                    entry.websocket = recorded.webSocket
                    entry.events = recorded.eventStream
                    entry.fault = recorded.fault
                    entry.miss = recorded.miss
                    entry.conditionalOnly = recorded.conditionalOnly ? true : nil
                    entry.validators =
                        recorded.conditionalOnly && !recorded.validators.isEmpty ? recorded.validators : nil
                    entry.rangeOnly = recorded.rangeOnly ? true : nil
                    entry.cachedCopy = recorded.cachedCopy
                    entry.dates = recorded.dates
                    // Recorded bytes are literal: a `{{` in a recorded page must never be rendered as a placeholder.
                    entry.templated = recorded.templated
                    if !recorded.body.isEmpty, recorded.eventStream == nil {
                        let path = namer.uniqueFile(
                            id,
                            suffix: step == 0 ? "" : "_\(step + 1)",
                            mimeType: recorded.mimeType,
                            body: recorded.body
                        )
                        files[path] = recorded.body
                        entry.bodyFile = path
                    }
                    responses.append(entry)
                }
                report.stubsWritten += 1
                report.responsesWritten += responses.count
                if responses.count > 1 { report.sequences += 1 }
                stubs.append(MockSetFile.StubEntry(id: id, request: requestEntry, responses: responses))
            }
        }
        if urls.rewritten + urls.kept > 0 {
            var line =
                "recorded origins' URLs in bodies: \(urls.rewritten) point at the mock when served, where a client fetches them"
            if !urls.rewrittenEntries.isEmpty { line += " (\(ImportReport.entryList(urls.rewrittenEntries.sorted())))" }
            line +=
                "; \(urls.kept) kept as recorded, identifiers compared as constants (RFC 9457 problem type, $schema, JSON-LD @context/@id, XML namespaces)"
            if !urls.keptEntries.isEmpty { line += " (\(ImportReport.entryList(urls.keptEntries.sorted())))" }
            report.notes.append(line)
        }
        var normalization = options.normalization
        if sawCacheBuster, !(normalization.ignoreQuery ?? []).contains("_") {
            // jQuery's `_=<epoch ms>` cache-buster: never part of what a request means.
            normalization.ignoreQuery = ["_"] + (normalization.ignoreQuery ?? [])
        }
        normalization = normalization.merged(with: redactor.rules)
        let file = MockSetFile(
            matchHeaders: options.matchHeaders == MockSetFile.defaultMatchHeaders ? nil : options.matchHeaders,
            normalize: normalization.isEmpty ? nil : normalization,
            cors: options.cors ? true : nil,
            conditionalRequests: conditional ? true : nil,
            origins: origins.isEmpty ? nil : origins.sorted(),
            rebaseDates: options.rebaseDates ? true : nil,
            stubs: stubs
        )
        report.rebaseDates = options.rebaseDates
        return (MockSetBuild(file: file, files: files), report)
    }

    /// Marks the steps of `variant` that hold no whole answer (a 304, a 206 of part of the representation), in
    /// their place in the sequence (a conditional poll's 200, 304, 304, 200 stays that sequence):
    /// - a 304: answers a conditional request whose validator is the recorded request's own, the 304's or the
    ///   representation's (`conditionalOnly`, `validators`); a plain request gets the stub's whole representation
    ///   (its nearest 2xx step, earlier first), or without one a miss that says why. A 304 that a plain request
    ///   got, with no validator on either side, is what the server answers that request: a step like any other.
    /// - a 206 (`rangeOnly`): answers a `GET` whose `Range` lies in the recorded bytes; others get the
    ///   representation, or a miss.
    fileprivate static func gateSteps(
        of variant: inout Group.Variant,
        key: RequestKey,
        report: inout ImportReport,
        conditional: inout Bool
    ) {
        let hasFull = variant.responses.contains(where: \.isWholeRepresentation)
        var notModified = 0
        var cachedCopies = 0
        for step in variant.responses.indices where variant.responses[step].miss == nil {
            let recorded = variant.responses[step]
            if recorded.status == 304 {
                let unconditional = recorded.validators.isEmpty && !recorded.hasValidators
                if unconditional && !hasFull { continue }
                notModified += 1
                variant.responses[step].conditionalOnly = true
                if !hasFull, !recorded.body.isEmpty {
                    // Browsers (Chrome, Firefox) write the copy the 304 confirmed into its content: what the client used.
                    variant.responses[step].cachedCopy =
                        recorded.mimeType.flatMap { $0.isEmpty ? nil : $0 } ?? "application/octet-stream"
                    cachedCopies += 1
                } else if !hasFull {
                    variant.responses[step].miss =
                        "recorded only as 304 Not Modified (the client had it cached, so the recording holds no body); a conditional request with the recorded validator (If-None-Match, If-Modified-Since) gets the 304"
                }
            } else if let partial = recorded.partial, !hasFull {
                variant.responses[step].miss = partial
                report.partialOnly.append("\(key)")
            }
        }
        guard notModified > 0 else { return }
        if hasFull {
            report.notModifiedAsConditional += notModified
            conditional = true
        } else if cachedCopies == notModified {
            report.notModifiedWithCachedCopy.append("\(key)")
        } else {
            report.notModifiedOnly.append("\(key)")
        }
    }

    /// Requests whose recorded bodies collapsed to the same text (binary written as text, U+FFFD for what was not
    /// UTF-8) and were answered differently: which answer belongs to which request is lost, so every step of the
    /// stub is a miss that says so. Answered alike, they are one answer whatever the bodies were.
    fileprivate static func refuseAmbiguousLossyBodies(
        _ variant: inout Group.Variant,
        key: RequestKey,
        report: inout ImportReport
    ) {
        guard variant.lossy, variant.responses.count > 1,
            let first = variant.responses.first,
            variant.responses.dropFirst().contains(where: {
                $0.status != first.status || $0.headers != first.headers || $0.body != first.body
            })
        else { return }
        let entries = variant.entries.map { String($0 + 1) }.joined(separator: ", ")
        let reason =
            "ambiguous request: entries \(entries) recorded request bodies the HAR holds as the same text (bytes that were not UTF-8 written as U+FFFD), and they were answered differently; which answer belongs to which body is lost (re-export with base64 request bodies, or record with mockd record)"
        for step in variant.responses.indices {
            variant.responses[step].miss = reason
            variant.responses[step].conditionalOnly = false
            variant.responses[step].partial = nil
        }
        report.ambiguousBodies.append("\(key) (entries \(entries))")
    }

    /// Folds host-keyed groups into host-less ones (one recorded host, or `--flatten-hosts`); a key recorded
    /// on several hosts is reported, its responses kept in recording order as one sequence.
    private static func mergingHosts(_ groups: [Group], report: inout ImportReport, warn: Bool) -> [Group] {
        var positions: [GroupKey: Int] = [:]
        var hostsByKey: [Int: [String]] = [:]
        var merged: [Group] = []
        for group in groups {
            let key = group.key.with(host: "")
            let groupKey = GroupKey(
                key: key,
                constraints: group.constraints,
                graphQL: group.graphQLOperations.first?.identity
            )
            if let position = positions[groupKey] {
                merged[position].entries += group.entries
                merged[position].graphQLOperations += group.graphQLOperations
                let order = merged[position].entries.indices.sorted {
                    merged[position].entries[$0].entry < merged[position].entries[$1].entry
                }
                merged[position].entries = order.map { merged[position].entries[$0] }
                if !merged[position].graphQLOperations.isEmpty {
                    merged[position].graphQLOperations = order.map { merged[position].graphQLOperations[$0] }
                }
                if !hostsByKey[position]!.contains(group.key.host) { hostsByKey[position]!.append(group.key.host) }
            } else {
                positions[groupKey] = merged.count
                hostsByKey[merged.count] = [group.key.host]
                var flattened = Group(
                    key: key,
                    constraintLines: group.constraintLines,
                    constraints: group.constraints,
                    entries: group.entries
                )
                flattened.graphQLMethod = group.graphQLMethod
                flattened.graphQLOperations = group.graphQLOperations
                merged.append(flattened)
            }
        }
        if warn {
            for (position, hosts) in hostsByKey.sorted(by: { $0.key < $1.key }) where hosts.count > 1 {
                report.hostCollisions.append("\(merged[position].key) recorded on \(hosts.joined(separator: ", "))")
            }
        }
        return merged
    }
}

// MARK: - Building blocks

/// Stubs are grouped by request key (with host) and header constraints.
private struct GroupKey: Hashable {
    let key: RequestKey
    let constraints: [HeaderConstraint]
    /// A GraphQL operation's identity (`GraphQLOperation.identity`): its requests are one group whatever their
    /// bodies, told apart by variables as body variants are.
    var graphQL: String? = nil
}

private struct RecordedResponse {
    let status: Int
    let headers: [String]
    let body: Data
    let mimeType: String?
    let time: Double?
    var webSocket: WebSocketScript? = nil
    /// A recorded `text/event-stream` answer as its events (`EventStreamRecorder`); then no body file is written.
    var eventStream: EventStream? = nil
    var fault: Fault? = nil
    var templated: TemplateMode? = nil
    /// Why this answer cannot be served (body not recorded, only a 304): written as the step's `miss`.
    var miss: String? = nil
    var conditionalOnly = false
    /// The recorded dates found in the answer (`DateFields`), written as the step's `dates`.
    var dates: MockSetFile.DatesEntry? = nil
    /// For a 304: the recorded request's `If-None-Match` / `If-Modified-Since` lines.
    var validators: [String] = []
    /// For a 304 whose body is the client's cached copy and no whole representation beside it: the copy's media type.
    var cachedCopy: String? = nil
    /// For a 206 holding part of the representation (or an unknown part), which part: it answers range requests
    /// inside it only, and this is the miss of any other request when no whole representation was recorded.
    var partial: String? = nil
    var rangeOnly: Bool { partial != nil }

    /// Whether the response carries `ETag` or `Last-Modified`.
    var hasValidators: Bool {
        headers.contains { line in
            let lower = line.asciiLowercased
            return lower.hasPrefix("etag:") || lower.hasPrefix("last-modified:")
        }
    }

    /// Whether this step is a whole representation a 304 or a partial 206 can stand for: a 2xx but 206, served.
    var isWholeRepresentation: Bool {
        (200..<300).contains(status) && status != 206 && miss == nil && fault == nil && webSocket == nil
    }
}

/// A recorded request body: the text (or params rebuilt as a form) and its canonical form.
private struct RecordedRequestBody {
    let bytes: Data
    let contentType: String?
    /// What tells requests apart: the canonical body, or a GraphQL operation's key.
    var canonical: Data
    /// Whether the exporter wrote bytes that were not UTF-8 as text, each invalid sequence a U+FFFD: the recorded
    /// text is all that is known of the body, and different bodies may have become the same text.
    var lossy = false
    /// What became of a `Content-Encoding` the request was recorded with.
    var coding: Coding?

    enum Coding {
        /// Stored decoded.
        case decoded
        /// The producer had decoded it already (the text is not coded data).
        case alreadyDecoded
        /// Neither decodes nor reads as decoded text (compressed bytes written as text).
        case undecodable
    }

    init(bytes: Data, contentType: String?, normalizer: RequestNormalizer) {
        self.bytes = bytes
        self.contentType = contentType
        canonical = BodyCanonicalizer.canonicalize(bytes, contentType: contentType, normalizer: normalizer)
    }

    /// The same bytes under `normalizer`, keeping what is known of how they were recorded.
    func with(bytes: Data, normalizer: RequestNormalizer) -> RecordedRequestBody {
        var body = RecordedRequestBody(bytes: bytes, contentType: contentType, normalizer: normalizer)
        body.lossy = lossy
        body.coding = coding
        return body
    }

    init(_ request: HARRequest) {
        self.init(decoding: request)
        guard let value = request.headers["content-encoding"], !bytes.isEmpty else { return }
        let codings = value.split(separator: ",").map { $0.trimmingWhitespace.asciiLowercased }.filter {
            !$0.isEmpty && $0 != "identity"
        }
        guard !codings.isEmpty else { return }
        var decoded: Data? = bytes
        for coding in codings.reversed() { decoded = decoded.flatMap { Decompression.decode($0, coding: coding) } }
        if let decoded {
            self = RecordedRequestBody(bytes: decoded, contentType: contentType, normalizer: .none)
            coding = .decoded
        } else {
            coding = lossy || String(data: bytes, encoding: .utf8) == nil ? .undecodable : .alreadyDecoded
        }
    }

    private init(decoding request: HARRequest) {
        let contentType = request.headers["content-type"] ?? request.postData?.mimeType
        var bytes = Data()
        if let post = request.postData {
            if let text = post.text, post.encoding == "base64",
                let decoded = Data(base64Encoded: text, options: .ignoreUnknownCharacters)
            {
                bytes = decoded
            } else if let text = post.text {
                bytes = Data(text.utf8)
            } else if !post.params.isEmpty {
                // Params only (urlencoded or multipart): the form body, which compares by sorted pairs.
                let pairs = post.params.map {
                    URLEncoding.encodeComponent(Array($0.name.utf8)) + "="
                        + URLEncoding.encodeComponent(Array($0.value.utf8))
                }
                bytes = Data(pairs.joined(separator: "&").utf8)
            }
        }
        self.init(bytes: bytes, contentType: contentType, normalizer: .none)
        if request.postData?.encoding != "base64", request.postData?.text?.unicodeScalars.contains("\u{FFFD}") == true {
            lossy = true
        }
    }
}

private struct Group {
    let key: RequestKey
    let constraintLines: [String]
    var constraints: [HeaderConstraint] = []
    var entries: [(body: RecordedRequestBody, response: RecordedResponse, entry: Int)]
    /// For a GraphQL operation's group: the first request's method (the stub's) and each entry's operation, in order.
    var graphQLMethod: String?
    var graphQLOperations: [GraphQLOperation] = []

    init(
        key: RequestKey,
        constraintLines: [String],
        constraints: [HeaderConstraint] = [],
        entries: [(body: RecordedRequestBody, response: RecordedResponse, entry: Int)]
    ) {
        self.key = key
        self.constraintLines = constraintLines
        self.constraints = constraints
        self.entries = entries
    }

    struct Variant {
        /// The body that tells this variant apart (part of the key), or `nil` when every entry sent the same.
        let requestBody: RecordedRequestBody?
        var responses: [RecordedResponse]
        /// For a variant without `requestBody`: the body its first entry sent, when it sent one (`recordedBody`).
        var sentBody: RecordedRequestBody? = nil
        /// The entries, in order.
        var entries: [Int] = []
        /// Whether some entry's body was written as text with U+FFFD (`RecordedRequestBody.lossy`).
        var lossy = false
    }

    /// One variant when every entry carried the same body; one per distinct body otherwise, so that
    /// POSTs with different bodies never collapse into one stub.
    func variants() -> [Variant] {
        var order: [Data] = []
        var byBody: [Data: Variant] = [:]
        for (body, response, entry) in entries {
            if byBody[body.canonical] == nil {
                order.append(body.canonical)
                byBody[body.canonical] = Variant(requestBody: body, responses: [])
            }
            byBody[body.canonical]!.responses.append(response)
            byBody[body.canonical]!.entries.append(entry)
            if body.lossy { byBody[body.canonical]!.lossy = true }
        }
        if order.count == 1 {
            let only = byBody[order[0]]!
            return [
                Variant(
                    requestBody: nil,
                    responses: only.responses,
                    sentBody: only.requestBody.flatMap { $0.bytes.isEmpty ? nil : $0 },
                    entries: only.entries,
                    lossy: only.lossy
                )
            ]
        }
        return order.map { byBody[$0]! }
    }
}
