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
            let status = entry.response!.status
            failure =
                status == 0 || status == -1
                ? "failed request (\(text), status \(status))"
                : "failed request (\(text)) although a status was recorded: the answer never completed"
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

        let key = RequestKey(
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
        if !options.keepSecrets,
            let redacted = redactor.redactRequestBody(
                requestBody.bytes,
                contentType: requestBody.contentType,
                entry: entry.index
            )
        {
            requestBody = RecordedRequestBody(
                bytes: redacted,
                contentType: requestBody.contentType,
                normalizer: normalizer
            )
        } else {
            requestBody = RecordedRequestBody(
                bytes: requestBody.bytes,
                contentType: requestBody.contentType,
                normalizer: normalizer
            )
        }

        guard let response = entry.response, failure == nil else {
            var recorded = RecordedResponse(status: 0, headers: [], body: Data(), mimeType: nil, time: entry.time)
            recorded.fault = .connectionReset
            append(
                key: key,
                constraints: constraints,
                lines: constraintLines,
                body: requestBody,
                recorded,
                entry: entry.index
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
        let mimeType = response.content.mimeType ?? response.headers["content-type"]
        var bodyNotRecorded: String?
        let recordedLength =
            (response.content.size ?? 0) > 0
            ? response.content.size! : Int(response.headers["content-length"] ?? "") ?? 0
        if decoded.bytes.isEmpty, recordedLength > 0, response.content.file == nil,
            response.content.text?.isEmpty != false,
            ![204, 304].contains(response.status), request.method != "HEAD"
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
        var redactedBody = false
        if redact, let clean = redactor.redactResponseBody(decoded.bytes, mimeType: mimeType, entry: entry.index) {
            decoded.bytes = clean
            redactedBody = true
        }
        var recorded = RecordedResponse(
            status: response.status,
            headers: sharedHeaderLines.shared(headers),
            body: decoded.bytes,
            mimeType: mimeType,
            time: entry.time
        )
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
        append(
            key: key,
            constraints: constraints,
            lines: constraintLines,
            body: requestBody,
            recorded,
            entry: entry.index
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
        entry: Int
    ) {
        let groupKey = GroupKey(key: key, constraints: constraints)
        if let position = groups[groupKey] {
            ordered[position].entries.append((body, recorded, entry))
        } else {
            let constraints = sharedConstraints.shared(constraints)
            let lines = sharedHeaderLines.shared(lines)
            groups[GroupKey(key: key, constraints: constraints)] = ordered.count
            ordered.append(
                Group(key: key, constraintLines: lines, constraints: constraints, entries: [(body, recorded, entry)])
            )
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
        for group in groups where group.entries.count > 1 {
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
        for position in groups.indices {
            let group = groups[position]
            // Only this iteration holds the group's entries now: they go with it, their bodies kept in `files`.
            groups[position].entries = []
            for var variant in group.variants() {
                // A 304 answers a conditional request; with a full response recorded too, serve 304 only to
                // conditional requests (the set answers them from the full response's validators).
                let full = variant.responses.filter { $0.status != 304 }
                if full.count < variant.responses.count, full.contains(where: { (200..<300).contains($0.status) }) {
                    report.notModifiedAsConditional += variant.responses.count - full.count
                    variant.responses = full
                    conditional = true
                } else if full.isEmpty, !variant.responses.isEmpty {
                    // Recorded only as 304: the client had it cached, so no body was ever on the wire here.
                    report.notModifiedOnly.append("\(group.key)")
                    for step in variant.responses.indices {
                        variant.responses[step].conditionalOnly = true
                        variant.responses[step].miss =
                            "recorded only as 304 Not Modified (the client had it cached, so the recording holds no body); a conditional request whose validator matches the recorded one (If-None-Match, If-Modified-Since) gets the 304"
                    }
                }
                let id = namer.uniqueID(for: group.key)
                var requestEntry = MockSetFile.RequestEntry(
                    method: group.key.method,
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
                    // for `mockd refresh` to send again.
                    if variant.requestBody != nil {
                        requestEntry.body = entry
                    } else {
                        requestEntry.recordedBody = entry
                    }
                }
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
            stubs: stubs
        )
        return (MockSetBuild(file: file, files: files), report)
    }

    /// Folds host-keyed groups into host-less ones (one recorded host, or `--flatten-hosts`); a key recorded
    /// on several hosts is reported, its responses kept in recording order as one sequence.
    private static func mergingHosts(_ groups: [Group], report: inout ImportReport, warn: Bool) -> [Group] {
        var positions: [GroupKey: Int] = [:]
        var hostsByKey: [Int: [String]] = [:]
        var merged: [Group] = []
        for group in groups {
            let key = group.key.with(host: "")
            let groupKey = GroupKey(key: key, constraints: group.constraints)
            if let position = positions[groupKey] {
                merged[position].entries += group.entries
                merged[position].entries.sort { $0.entry < $1.entry }
                if !hostsByKey[position]!.contains(group.key.host) { hostsByKey[position]!.append(group.key.host) }
            } else {
                positions[groupKey] = merged.count
                hostsByKey[merged.count] = [group.key.host]
                merged.append(
                    Group(
                        key: key,
                        constraintLines: group.constraintLines,
                        constraints: group.constraints,
                        entries: group.entries
                    )
                )
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
}

/// A recorded request body: the text (or params rebuilt as a form) and its canonical form.
private struct RecordedRequestBody {
    let bytes: Data
    let contentType: String?
    let canonical: Data

    init(bytes: Data, contentType: String?, normalizer: RequestNormalizer) {
        self.bytes = bytes
        self.contentType = contentType
        canonical = BodyCanonicalizer.canonicalize(bytes, contentType: contentType, normalizer: normalizer)
    }

    init(_ request: HARRequest) {
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
    }
}

private struct Group {
    let key: RequestKey
    let constraintLines: [String]
    var constraints: [HeaderConstraint] = []
    var entries: [(body: RecordedRequestBody, response: RecordedResponse, entry: Int)]

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
    }

    /// One variant when every entry carried the same body; one per distinct body otherwise, so that
    /// POSTs with different bodies never collapse into one stub.
    func variants() -> [Variant] {
        var order: [Data] = []
        var byBody: [Data: Variant] = [:]
        for (body, response, _) in entries {
            if byBody[body.canonical] == nil {
                order.append(body.canonical)
                byBody[body.canonical] = Variant(requestBody: body, responses: [])
            }
            byBody[body.canonical]!.responses.append(response)
        }
        if order.count == 1 {
            let sent = byBody[order[0]]!.requestBody
            return [
                Variant(
                    requestBody: nil,
                    responses: byBody[order[0]]!.responses,
                    sentBody: sent.flatMap { $0.bytes.isEmpty ? nil : $0 }
                )
            ]
        }
        return order.map { byBody[$0]! }
    }
}
