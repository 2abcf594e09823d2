public import Foundation

/// Options for turning a HAR into a mock set.
public struct HARImportOptions: Sendable {
    /// Keep only entries whose URL host (or `host:port`) is one of these; empty keeps every host.
    public var hosts: [String]
    /// Request headers recorded as match constraints (lower-case names).
    public var matchHeaders: [String]
    /// Recorded WebSocket frame delays are multiplied by this (0 sends everything at once).
    public var webSocketTimeScale: Double
    /// Replay each recorded server frame only after the client frame that preceded it in the recording.
    public var webSocketWaitForClient: Bool

    public init(
        hosts: [String] = [], matchHeaders: [String] = MockSetFile.defaultMatchHeaders, webSocketTimeScale: Double = 1,
        webSocketWaitForClient: Bool = false
    ) {
        self.hosts = hosts
        self.matchHeaders = matchHeaders.map(\.asciiLowercased)
        self.webSocketTimeScale = webSocketTimeScale
        self.webSocketWaitForClient = webSocketWaitForClient
    }
}

/// A mock set ready to be written: the index and its files, by path relative to the set folder.
public struct MockSetBuild: Sendable {
    public var file: MockSetFile
    /// `bodies/…` path → bytes.
    public var files: [String: Data]
}

/// Compiles HAR entries into a mock set: one stub per request key, repeated requests as a sequence.
///
/// Faithful by default: recorded status, headers and exact body bytes (`content.text`, base64-decoded
/// when `encoding` is `base64`). Entries that cannot be replayed (failed requests with status 0 or -1,
/// WebSocket handshakes, non-HTTP URLs) are skipped and reported with their index.
public enum HARImporter {
    /// Builds the mock set for `archive`.
    ///
    /// - Parameters:
    ///   - archive: The parsed HAR.
    ///   - options: Host filter and match headers.
    ///   - harDirectory: The folder of the HAR file, for Playwright `content._file` side files; a side file
    ///     must stay inside it.
    /// - Returns: The set to write and the report. The set may be empty; the caller decides whether that
    ///   is an error.
    /// - Complexity: O(entries + body bytes).
    public static func build(
        _ archive: HARArchive, options: HARImportOptions = HARImportOptions(), harDirectory: URL? = nil
    ) -> (MockSetBuild, ImportReport) {
        var report = ImportReport()
        report.entriesRead = archive.entries.count
        let hostFilter = Set(options.hosts.map(\.asciiLowercased))
        var groups: [GroupKey: Int] = [:]
        var ordered: [Group] = []
        var droppedHeaders: [String: Int] = [:]
        var missingBodies = 0
        var webSocketsWithoutFrames = 0

        for entry in archive.entries {
            let request = entry.request
            func skip(_ reason: String) { report.skipped.append(.init(index: entry.index, reason: reason)) }
            guard !request.method.isEmpty else {
                skip("request.method missing")
                continue
            }
            guard HTTPToken.isToken(request.method) else {
                skip("request.method is not an HTTP method")
                continue
            }
            guard let url = RecordedURL(request.url) else {
                skip(request.url.isEmpty ? "request.url missing" : "request.url is not a valid URL")
                continue
            }
            let isWebSocket =
                url.scheme == "ws" || url.scheme == "wss" || entry.response?.status == 101 || entry.resourceType == "websocket"
                || entry.hasWebSocketMessages
            guard url.scheme == "http" || url.scheme == "https" || url.scheme == "ws" || url.scheme == "wss" else {
                skip("not an HTTP URL (\(url.scheme):)")
                continue
            }
            guard !url.host.isEmpty, url.rawPath.hasPrefix("/") else {
                skip("request.url is not an absolute http(s) URL")
                continue
            }
            if !hostFilter.isEmpty, !hostFilter.contains(url.host), !hostFilter.contains(url.hostAndPort) {
                report.otherHosts[url.hostAndPort, default: 0] += 1
                continue
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
                continue
            }
            guard let response = entry.response else {
                skip("no response recorded (failed request)")
                continue
            }
            if response.status == 0 || response.status == -1 {
                skip("failed request (status \(response.status))")
                continue
            }
            guard (100...999).contains(response.status) else {
                skip("invalid status \(response.status)")
                continue
            }
            guard response.status >= 200 else {
                skip("interim response (\(response.status)) without a final one")
                continue
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
                constraintLines.append("\(canonicalHeaderName(name)): \(field.value)")
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
            let body = responseBody(response.content, harDirectory: harDirectory, warnings: &warnings)
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

    /// The response body bytes an entry recorded.
    static func responseBody(_ content: HARContent, harDirectory: URL?, warnings: inout [String]) -> Data {
        if let text = content.text {
            if content.encoding?.asciiLowercased == "base64" {
                if let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) { return data }
                warnings.append("content.text is marked base64 but does not decode; kept as text")
            }
            return Data(text.utf8)
        }
        if let file = content.file {
            guard let harDirectory else {
                warnings.append("content._file '\(file)' cannot be resolved; served empty")
                return Data()
            }
            // Resolve symlinks on both sides: a side file must really live inside the HAR's folder.
            let base = harDirectory.resolvingSymlinksInPath().standardizedFileURL.path
            let url = harDirectory.appendingPathComponent(file).standardizedFileURL.resolvingSymlinksInPath()
            guard !file.hasPrefix("/"), url.path.hasPrefix(base.hasSuffix("/") ? base : base + "/") else {
                warnings.append("content._file '\(file)' points outside the HAR's folder; served empty")
                return Data()
            }
            guard let data = try? Data(contentsOf: url) else {
                warnings.append("content._file '\(file)' not found next to the HAR; served empty")
                return Data()
            }
            return data
        }
        return Data()
    }

    /// `content-type` → `Content-Type` for readable index files.
    static func canonicalHeaderName(_ name: String) -> String {
        name.split(separator: "-", omittingEmptySubsequences: false)
            .map { $0.prefix(1).uppercased() + $0.dropFirst() }
            .joined(separator: "-")
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

/// A recorded absolute URL split into the parts a request key needs.
struct RecordedURL {
    let scheme: String
    let host: String
    let hostAndPort: String
    let rawPath: String
    let rawQuery: String

    init?(_ text: String) {
        guard let components = URLComponents(string: text) ?? URLComponents(string: RecordedURL.escapingInvalid(text)),
            let scheme = components.scheme?.asciiLowercased
        else { return nil }
        self.scheme = scheme
        let host = (components.host ?? "").asciiLowercased
        self.host = host
        hostAndPort = components.port.map { "\(host):\($0)" } ?? host
        rawPath = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        rawQuery = components.percentEncodedQuery ?? ""
    }

    /// Percent-encodes characters that URLComponents rejects (spaces, `|`, raw non-ASCII) but browsers record.
    static func escapingInvalid(_ text: String) -> String {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.insert(charactersIn: "#%")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}

/// Readable, stable, unique stub ids and body file names.
private struct FileNamer {
    private var usedIDs: Set<String> = []
    private var usedFiles: Set<String> = []
    /// The next suffix to try per base name, so many ids sharing a truncated prefix stay linear.
    private var nextSuffix: [String: Int] = [:]

    /// `GET_v1_messages__limit-20`; a repeat gets `-2`, `-3` in order of appearance.
    mutating func uniqueID(for key: RequestKey) -> String {
        var base = key.method + "_" + FileNamer.sanitize(key.path.split(separator: "/").joined(separator: "_"))
        if key.path == "/" { base += "root" }
        if !key.query.isEmpty {
            let query = key.query.replacingOccurrences(of: "=", with: "-").replacingOccurrences(of: "&", with: "_")
            base += "__" + FileNamer.sanitize(query)
        }
        base = FileNamer.truncate(base, to: 96)
        var candidate = base
        var counter = nextSuffix[base.asciiLowercased, default: 2]
        while !usedIDs.insert(candidate.asciiLowercased).inserted {
            candidate = "\(base)-\(counter)"
            counter += 1
        }
        nextSuffix[base.asciiLowercased] = counter
        return candidate
    }

    /// `bodies/<base>.<ext>`, unique case-insensitively (for case-insensitive file systems).
    mutating func uniqueFile(_ base: String, mimeType: String?, body: Data) -> String {
        let ext = FileNamer.fileExtension(mimeType: mimeType, body: body)
        var candidate = "bodies/\(base).\(ext)"
        let key = candidate.asciiLowercased
        var counter = nextSuffix[key, default: 2]
        while !usedFiles.insert(candidate.asciiLowercased).inserted {
            candidate = "bodies/\(base)-\(counter).\(ext)"
            counter += 1
        }
        nextSuffix[key] = counter
        return candidate
    }

    static func sanitize(_ text: String) -> String {
        var output = ""
        var lastWasUnderscore = false
        for scalar in text.unicodeScalars {
            let keep = scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "-" || scalar == ".")
            if keep {
                output.unicodeScalars.append(scalar)
                lastWasUnderscore = false
            } else if !lastWasUnderscore {
                output += "_"
                lastWasUnderscore = true
            }
        }
        while output.hasPrefix(".") { output.removeFirst() }
        return output
    }

    static func truncate(_ text: String, to length: Int) -> String {
        text.count <= length ? text : String(text.prefix(length))
    }

    /// A file extension from the media type, else `txt` for UTF-8 text and `bin` for anything else.
    static func fileExtension(mimeType: String?, body: Data) -> String {
        let essence = MediaType.essence(of: mimeType)
        let known: [String: String] = [
            "application/json": "json", "text/html": "html", "text/css": "css", "text/javascript": "js",
            "application/javascript": "js", "application/x-javascript": "js", "text/plain": "txt",
            "text/xml": "xml", "application/xml": "xml", "image/png": "png", "image/jpeg": "jpg", "image/jpg": "jpg",
            "image/gif": "gif", "image/webp": "webp", "image/avif": "avif", "image/svg+xml": "svg",
            "image/x-icon": "ico", "image/vnd.microsoft.icon": "ico", "font/woff2": "woff2", "font/woff": "woff",
            "application/font-woff": "woff", "application/font-woff2": "woff2", "font/ttf": "ttf",
            "application/pdf": "pdf", "text/event-stream": "txt", "application/x-www-form-urlencoded": "form",
            "multipart/form-data": "multipart", "video/mp4": "mp4", "application/wasm": "wasm",
        ]
        if let ext = known[essence] { return ext }
        if MediaType.isJSON(essence) { return "json" }
        if essence.hasSuffix("+xml") { return "xml" }
        return String(validatingUTF8: body) != nil ? "txt" : "bin"
    }
}

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }

    /// Whether `data` is valid UTF-8 text.
    init?(validatingUTF8 data: Data) {
        guard let text = String(data: data, encoding: .utf8) else { return nil }
        self = text
    }
}
