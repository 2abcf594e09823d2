public import Foundation

/// Compiles HAR entries into a mock set, one entry at a time, so a reader can stream a large file
/// through it: one stub per request key (and header constraints), repeated requests as a sequence,
/// distinct request bodies as separate stubs.
///
/// Memory: the compiler keeps each kept entry's response body until `finish()`; nothing else of the HAR.
public struct HARCompiler {
    let options: HARImportOptions
    let harDirectory: URL?
    private let hostFilter: Set<String>
    private var report = ImportReport()
    private var groups: [GroupKey: Int] = [:]
    private var ordered: [Group] = []
    private var droppedHeaders: [String: Int] = [:]
    private var missingBodies = 0
    private var webSocketsWithoutFrames = 0

    /// - Parameters:
    ///   - options: Host filter, match headers, WebSocket timing.
    ///   - harDirectory: The HAR file's folder, for Playwright `content._file` side files (never outside it).
    public init(options: HARImportOptions = HARImportOptions(), harDirectory: URL? = nil) {
        self.options = options
        self.harDirectory = harDirectory
        hostFilter = Set(options.hosts.map(\.asciiLowercased))
    }

    /// Entries seen so far.
    public var entriesRead: Int { report.entriesRead }

    /// Adds `log.entries[entry.index]`; entries that cannot be replayed are recorded in the report.
    public mutating func add(_ entry: HAREntry) {
        report.entriesRead += 1
        let request = entry.request
        func skip(_ reason: String) { report.skipped.append(.init(index: entry.index, reason: reason)) }
        guard !request.method.isEmpty else {
            skip("request.method missing")
            return
        }
        guard HTTPToken.isToken(request.method) else {
            skip("request.method is not an HTTP method")
            return
        }
        guard let url = RecordedURL(request.url) else {
            skip(request.url.isEmpty ? "request.url missing" : "request.url is not a valid URL")
            return
        }
        let isWebSocket =
            url.scheme == "ws" || url.scheme == "wss" || entry.response?.status == 101 || entry.resourceType == "websocket"
            || entry.hasWebSocketMessages
        guard url.scheme == "http" || url.scheme == "https" || url.scheme == "ws" || url.scheme == "wss" else {
            skip("not an HTTP URL (\(url.scheme):)")
            return
        }
        guard !url.host.isEmpty, url.rawPath.hasPrefix("/") else {
            skip("request.url is not an absolute http(s) URL")
            return
        }
        if !hostFilter.isEmpty, !hostFilter.contains(url.host), !hostFilter.contains(url.hostAndPort) {
            report.otherHosts[url.hostAndPort, default: 0] += 1
            return
        }
        if isWebSocket {
            report.keptHosts[url.hostAndPort, default: 0] += 1
            if entry.webSocketMessages.isEmpty { webSocketsWithoutFrames += 1 }
            let key = RequestKey(method: "GET", rawPath: url.rawPath, rawQuery: url.rawQuery)
            let script = WebSocketScriptRecorder.script(
                entry, scale: options.webSocketTimeScale, waitForClient: options.webSocketWaitForClient
            )
            let recorded = RecordedResponse(status: 101, headers: [], body: Data(), mimeType: nil, time: entry.time, webSocket: script)
            let groupKey = GroupKey(key: key, constraints: [])
            if let position = groups[groupKey] {
                ordered[position].entries.append((RecordedRequestBody(request), recorded))
            } else {
                groups[groupKey] = ordered.count
                ordered.append(Group(key: key, constraintLines: [], entries: [(RecordedRequestBody(request), recorded)]))
            }
            return
        }
        guard let response = entry.response else {
            skip("no response recorded (failed request)")
            return
        }
        if response.status == 0 || response.status == -1 {
            skip("failed request (status \(response.status))")
            return
        }
        guard (100...999).contains(response.status) else {
            skip("invalid status \(response.status)")
            return
        }
        guard response.status >= 200 else {
            skip("interim response (\(response.status)) without a final one")
            return
        }
        report.keptHosts[url.hostAndPort, default: 0] += 1

        let key = RequestKey(method: request.method, rawPath: url.rawPath, rawQuery: url.rawQuery)
        var constraints: [HeaderConstraint] = []
        var constraintLines: [String] = []
        for name in options.matchHeaders {
            guard let field = request.headers.first(where: { $0.name.caseInsensitiveEquals(name) }),
                !field.value.trimmingCharacters(in: .whitespaces).isEmpty
            else { continue }
            constraints.append(HeaderConstraint(name: name, value: field.value))
            constraintLines.append("\(HARImporter.canonicalHeaderName(name)): \(field.value)")
        }
        let requestBody = RecordedRequestBody(request)

        var headers: [String] = []
        // Chrome writes repeated fields (several Set-Cookie) as one value joined by newlines: one field each.
        let fields = response.headers.flatMap { field in
            field.value.split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }).map {
                HTTPHeaders.Field(name: field.name, value: String($0))
            }
        }
        for field in fields {
            guard HTTPToken.isToken(field.name) || field.name.hasPrefix(":") else {
                droppedHeaders["(invalid name '\(field.name)')", default: 0] += 1
                continue
            }
            if ResponseHeaderPolicy.isDropped(field.name) {
                if !field.name.hasPrefix(":") { droppedHeaders[field.name.asciiLowercased, default: 0] += 1 }
                continue
            }
            headers.append(HeaderLine.format(field))
        }
        var warnings: [String] = []
        let body = HARImporter.responseBody(response.content, harDirectory: harDirectory, warnings: &warnings)
        for warning in warnings { report.warnings.append("entry \(entry.index): \(warning)") }
        if body.isEmpty, (response.content.size ?? 0) > 0, response.content.file == nil,
            response.status != 304, request.method != "HEAD"
        {
            missingBodies += 1
        }
        let recorded = RecordedResponse(
            status: response.status,
            headers: headers,
            body: body,
            mimeType: response.content.mimeType ?? response.headers["content-type"],
            time: entry.time
        )
        let groupKey = GroupKey(key: key, constraints: constraints)
        if let position = groups[groupKey] {
            ordered[position].entries.append((requestBody, recorded))
        } else {
            groups[groupKey] = ordered.count
            ordered.append(Group(key: key, constraintLines: constraintLines, entries: [(requestBody, recorded)]))
        }
    }

    /// The mock set to write and the report. The set may be empty; the caller decides whether that is an error.
    public func finish() -> (MockSetBuild, ImportReport) {
        var report = report
        if hostFilter.isEmpty, report.keptHosts.count > 1 {
            let hosts = report.keptHosts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            report.warnings.append(
                "\(hosts.count) hosts kept (" + hosts.prefix(4).map { "\($0.key) \($0.value)" }.joined(separator: ", ")
                    + (hosts.count > 4 ? ", …" : "")
                    + "); requests with the same path on different hosts share one stub; pick one with --host"
            )
        }
        if !droppedHeaders.isEmpty {
            let parts = droppedHeaders.sorted { $0.key < $1.key }.map { name, count in
                let why =
                    name == "content-encoding"
                    ? "bodies are stored decoded"
                    : name == "content-length" ? "recomputed when served" : name.hasPrefix("(") ? "not an HTTP field name" : "hop-by-hop"
                return "\(name) ×\(count) (\(why))"
            }
            report.warnings.append("response headers not stored: " + parts.joined(separator: ", "))
        }
        if webSocketsWithoutFrames > 0 {
            report.warnings.append(
                "\(webSocketsWithoutFrames) WebSocket entr\(webSocketsWithoutFrames == 1 ? "y has" : "ies have") no recorded frames (_webSocketMessages); the endpoint accepts connections and sends nothing"
            )
        }
        if missingBodies > 0 {
            report.warnings.append(
                "\(missingBodies) response\(missingBodies == 1 ? " has" : "s have") a recorded size but no captured body; served empty"
            )
        }

        var namer = FileNamer()
        var stubs: [MockSetFile.StubEntry] = []
        var files: [String: Data] = [:]
        for group in ordered {
            for variant in group.variants() {
                let id = namer.uniqueID(for: group.key)
                var requestEntry = MockSetFile.RequestEntry(
                    method: group.key.method,
                    path: group.key.path,
                    query: group.key.query.isEmpty ? nil : group.key.query,
                    headers: group.constraintLines.isEmpty ? nil : group.constraintLines
                )
                if let body = variant.requestBody {
                    let path = namer.uniqueFile("\(id).request", mimeType: body.contentType, body: body.bytes)
                    files[path] = body.bytes
                    requestEntry.body = MockSetFile.BodyEntry(file: path, contentType: MediaType.essence(of: body.contentType).nilIfEmpty)
                }
                var responses: [MockSetFile.ResponseEntry] = []
                for (step, recorded) in variant.responses.enumerated() {
                    var entry = MockSetFile.ResponseEntry(
                        status: recorded.status,
                        headers: recorded.headers.isEmpty ? nil : recorded.headers,
                        recordedTimeMs: recorded.time.map { $0.rounded() }
                    )
                    entry.websocket = recorded.webSocket
                    // Recorded bytes are literal: a `{{` in a recorded page must never be rendered as a placeholder.
                    if ByteSearch.contains([0x7B, 0x7B], in: recorded.body) || recorded.headers.contains(where: { $0.contains("{{") }) {
                        entry.templated = false
                    }
                    if !recorded.body.isEmpty {
                        let base = step == 0 ? id : "\(id)_\(step + 1)"
                        let path = namer.uniqueFile(base, mimeType: recorded.mimeType, body: recorded.body)
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
        let file = MockSetFile(
            matchHeaders: options.matchHeaders == MockSetFile.defaultMatchHeaders ? nil : options.matchHeaders,
            stubs: stubs
        )
        return (MockSetBuild(file: file, files: files), report)
    }
}

// MARK: - Building blocks

/// Stubs are grouped by request key and header constraints.
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
}

/// A recorded request body: the text (or params rebuilt as a form) and its canonical form.
private struct RecordedRequestBody {
    let bytes: Data
    let contentType: String?
    let canonical: Data

    init(_ request: HARRequest) {
        let contentType = request.headers["content-type"] ?? request.postData?.mimeType
        var bytes = Data()
        if let post = request.postData {
            if let text = post.text {
                bytes = Data(text.utf8)
            } else if !post.params.isEmpty {
                // Params only (urlencoded or multipart): the form body, which compares by sorted pairs.
                let pairs = post.params.map {
                    URLEncoding.encodeComponent(Array($0.name.utf8)) + "=" + URLEncoding.encodeComponent(Array($0.value.utf8))
                }
                bytes = Data(pairs.joined(separator: "&").utf8)
            }
        }
        self.bytes = bytes
        self.contentType = contentType
        self.canonical = BodyCanonicalizer.canonicalize(bytes, contentType: contentType)
    }
}

private struct Group {
    let key: RequestKey
    let constraintLines: [String]
    var entries: [(RecordedRequestBody, RecordedResponse)]

    struct Variant {
        let requestBody: RecordedRequestBody?
        var responses: [RecordedResponse]
    }

    /// One variant when every entry carried the same body; one per distinct body otherwise, so that
    /// POSTs with different bodies never collapse into one stub.
    func variants() -> [Variant] {
        var order: [Data] = []
        var byBody: [Data: Variant] = [:]
        for (body, response) in entries {
            if byBody[body.canonical] == nil {
                order.append(body.canonical)
                byBody[body.canonical] = Variant(requestBody: body, responses: [])
            }
            byBody[body.canonical]!.responses.append(response)
        }
        if order.count == 1 {
            return [Variant(requestBody: nil, responses: byBody[order[0]]!.responses)]
        }
        return order.map { byBody[$0]! }
    }
}

