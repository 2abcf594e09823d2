import Foundation
public import MockdFormat
import MockdPlatform

/// Reads a mock set folder (`index.json` + body files) into `Stub`s.
public struct MockSetLoader: Sendable {
    /// Index files larger than this (4 MiB, about 20,000 stubs) skip the unknown-field check when served.
    public static let unknownFieldCheckLimit = 4 * 1024 * 1024

    public let root: MockdRoot
    /// Check for unknown fields whatever the file size (`mockd validate`).
    public var alwaysCheckUnknownFields = false
    /// Read small response body files when a stub first answers instead of at load (serving: a start then opens no
    /// body file; their existence and permissions are still checked, see `DeferredResponses`). Tools that inspect a
    /// set (`mockd validate`) read them at load, so an unreadable one is an error there.
    public var defersBodies = true
    /// A scenario's `rebaseDates`, which wins over each set's own; `nil`: the set's.
    public var rebaseDates: Bool?

    public init(
        root: MockdRoot,
        alwaysCheckUnknownFields: Bool = false,
        defersBodies: Bool = true,
        rebaseDates: Bool? = nil
    ) {
        self.root = root
        self.alwaysCheckUnknownFields = alwaysCheckUnknownFields
        self.defersBodies = defersBodies
        self.rebaseDates = rebaseDates
    }

    /// Loads mock set `name` from `mocks/<name>/`.
    ///
    /// - Returns: The set's stubs, in file order.
    /// - Throws: `ConfigError` naming the file and JSON path: `.fileNotFound` when the set or a body file is
    ///   missing, `.invalidJSON`, `.invalidValue` (bad method, header line, status, duplicate id, a body file
    ///   outside the set folder…), `.unsupportedVersion`.
    /// - Complexity: O(stubs + total body bytes).
    public func load(set name: String) throws -> [Stub] {
        try loadSet(name).stubs
    }

    /// A loaded set: its stubs and the set-wide settings a scenario combines.
    public struct LoadedSet: Sendable {
        public let stubs: [Stub]
        public let normalize: RequestNormalization
        public let cors: Bool
        public let conditionalRequests: Bool
    }

    /// Loads `mocks/<name>/index.json` with its stubs and set-wide settings.
    /// - Throws: `ConfigError` naming the file and JSON path of the first problem.
    public func loadSet(_ name: String) throws -> LoadedSet {
        let folder = root.setURL(name)
        let indexURL = folder.appendingPathComponent("index.json")
        let indexName = root.display(indexURL)
        guard MockdRoot.isValidName(name) else {
            throw ConfigError(
                .invalidValue,
                file: name,
                message: "not a valid mock set name (use letters, digits, '.', '_' and '-')"
            )
        }
        let data = try ConfigFile.read(
            at: indexURL,
            display: indexName,
            missing: "mock set '\(name)' not found (create it with `mockd import-har FILE --set \(name)`)"
        )
        let file: MockSetFile
        if let fast = MockSetFastDecoder.decode(data) {
            // Holds only known fields (the fast decoder gives up on any other), so needs no unknown-field check.
            file = fast
        } else {
            file = try ConfigFile.decode(MockSetFile.self, from: data, display: indexName)
            // The unknown-field check parses the file a second time; large (generated, imported) indexes skip it
            // when serving, and `mockd validate` always runs it.
            if data.count <= MockSetLoader.unknownFieldCheckLimit || alwaysCheckUnknownFields,
                let unknown = KnownFields.check(data, shape: KnownFields.mockSet, file: indexName).first
            {
                throw unknown
            }
        }
        guard file.acceptMatching == nil || ["negotiate", "exact"].contains(file.acceptMatching!) else {
            throw ConfigError(
                .invalidValue,
                file: indexName,
                jsonPath: "acceptMatching",
                message: "'\(file.acceptMatching!)' is not one of \"negotiate\", \"exact\""
            )
        }
        for (position, origin) in (file.origins ?? []).enumerated() where !OriginRewrite.isOrigin(origin) {
            throw ConfigError(
                .invalidValue,
                file: indexName,
                jsonPath: "origins[\(position)]",
                message:
                    "'\(origin)' is not an origin: write http(s)://host[:port], with no path (https://api.example.com)"
            )
        }
        let normalize = file.normalize ?? RequestNormalization()
        if let problem = normalize.problems().first {
            throw ConfigError(
                .invalidValue,
                file: indexName,
                jsonPath: "normalize.\(problem.path)",
                message: problem.message
            )
        }
        let loaded = LoadedSet(
            stubs: try stubs(from: file, setName: name, folder: folder, indexName: indexName),
            normalize: normalize,
            cors: file.cors ?? false,
            conditionalRequests: file.conditionalRequests ?? false
        )
        MockSetLoader.releaseInBackground(consume file)
        return loaded
    }

    /// Lets another thread free the decoded index once its stubs are built: tens of thousands of small objects,
    /// whose release was 12% of the instructions from start to the first response with 10,000 stubs.
    private static func releaseInBackground(_ file: consuming MockSetFile) {
        let owner = DecodedIndexOwner(file)
        pendingReleases.enter()
        DispatchQueue.global(qos: .utility).async {
            owner.release()
            pendingReleases.leave()
        }
    }

    private static let pendingReleases = DispatchGroup()

    /// Blocks until every decoded index is released: wait for it before handing freed memory back to the system
    /// (`malloc_trim` while an index is still being freed finds little to give back).
    public static func waitForReleases() { pendingReleases.wait() }

    /// Indexes with at least this many stubs are turned into stubs on several threads.
    static let parallelBuildThreshold = 4096

    /// Turns a decoded index into stubs, reading body files from `folder`.
    ///
    /// Large indexes are split into one slice per core (at most four) built at once: building was a third of the
    /// time from start to the first response with 10,000 stubs. The first error in index order is thrown, as a
    /// single pass would: slices stop at their first error, and a duplicate id is found beforehand.
    func stubs(from file: MockSetFile, setName: String, folder: URL, indexName: String) throws -> [Stub] {
        let bodyReader = BodyFileReader(folder: folder)
        let origins = file.rewriteURLs == false ? nil : file.origins.flatMap(OriginRewrite.init(origins:))
        let builder = StubBuilder(
            setName: setName,
            indexName: indexName,
            bodyReader: bodyReader,
            matchHeaders: Set((file.matchHeaders ?? MockSetFile.defaultMatchHeaders).map(\.asciiLowercased)),
            origins: origins,
            negotiatesAccept: file.acceptMatching != "exact",
            rebasesDates: rebaseDates ?? file.rebaseDates ?? false,
            firstDuplicateID: MockSetLoader.firstDuplicateID(in: file.stubs),
            deferred: defersBodies
                ? DeferredResponses.Context(read: bodyReader.readChecked, origins: origins, indexName: indexName) : nil
        )
        let entries = file.stubs
        guard entries.count >= MockSetLoader.parallelBuildThreshold, ParallelSlices.sliceCount > 1 else {
            return try builder.build(entries, entries.indices)
        }
        let slices = ParallelSlices.run(over: entries.count) { range in Result { try builder.build(entries, range) } }
        var stubs: [Stub] = []
        stubs.reserveCapacity(entries.count)
        for slice in slices { stubs.append(contentsOf: try slice.get()) }
        return stubs
    }

    /// A placeholder problem as a load error's message: the body file it is in, the problem, and how to send `{{…}}`
    /// as written instead.
    static func templateMessage(_ problem: TemplateProblem, in file: String?) -> String {
        (file.map { "'\($0)' " } ?? "") + problem.message
            + #" (docs/FORMAT.md lists the placeholders; "templated": false sends {{…}} as written)"#
    }

    /// A stub's id: its own, or `METHOD_path`.
    static func stubID(of entry: MockSetFile.StubEntry) -> String {
        entry.id ?? "\(entry.request.method)_\(entry.request.path)"
    }

    /// The position of the first stub whose id an earlier stub already has.
    static func firstDuplicateID(in entries: [MockSetFile.StubEntry]) -> Int? {
        var seen: Set<String> = []
        seen.reserveCapacity(entries.count)
        return entries.indices.first { !seen.insert(stubID(of: entries[$0])).inserted }
    }
}

/// Turns index entries into stubs; shared by the threads building one index (it holds nothing they write).
private struct StubBuilder: Sendable {
    let setName: String
    let indexName: String
    let bodyReader: BodyFileReader
    let matchHeaders: Set<String>
    /// The set's recorded origins, whose URLs responses rewrite per request (`nil`: `rewriteURLs` is false).
    let origins: OriginRewrite?
    /// Whether `Accept` constraints negotiate (`acceptMatching` is not `exact`).
    let negotiatesAccept: Bool
    /// Whether responses' recorded `dates` are served moved to the session's clock (`rebaseDates`).
    let rebasesDates: Bool
    let firstDuplicateID: Int?
    /// Set when small body files are read on first use (`MockSetLoader.defersBodies`).
    let deferred: DeferredResponses.Context?

    /// The stubs of `entries[range]`, in order.
    /// - Throws: `ConfigError` for the first invalid entry in `range`.
    func build(_ entries: [MockSetFile.StubEntry], _ range: Range<Int>) throws -> [Stub] {
        // Identical header lists (most stubs of a set share a few) are kept once, with whether they hold
        // placeholders; consecutive stubs usually share one, so the last is compared before hashing.
        var internedHeaders: [[String]: (headers: HTTPHeaders, hasPlaceholders: Bool)] = [:]
        var lastHeaders: (lines: [String], headers: HTTPHeaders, hasPlaceholders: Bool)?
        // Stubs of a set mostly share their constraints (`Accept: application/json`) and what they offer: kept once,
        // worked out once (the negotiation's parsing was a fifth of a 10,000-stub start).
        var internedConstraints: [[HeaderConstraint]: [HeaderConstraint]] = [:]
        var offeredTypes: [String: String?] = [:]
        let sharedExtras = ConstraintExtrasCache()
        var stubs: [Stub] = []
        stubs.reserveCapacity(range.count)
        for index in range {
            let entry = entries[index]
            // Built only for an error message, never for every stub.
            var path: String { "stubs[\(index)]" }
            func fail(_ field: String, _ message: String) -> ConfigError {
                ConfigError(.invalidValue, file: indexName, jsonPath: "\(path).\(field)", message: message)
            }
            let request = entry.request
            guard HTTPToken.isToken(request.method) else {
                throw fail("request.method", "'\(request.method)' is not an HTTP method token")
            }
            guard request.path.hasPrefix("/") else {
                throw fail("request.path", "must start with '/' (got '\(request.path)')")
            }
            if let host = request.host, host.isEmpty || host.contains(where: { $0 == "/" || $0 == " " }) {
                throw fail("request.host", "'\(host)' is not a host[:port]")
            }
            var graphQL: GraphQLOperation?
            if let entry = request.graphql {
                guard request.body == nil else {
                    throw fail(
                        "request.graphql",
                        #"a GraphQL stub is keyed by its operation: give "graphql" or "body", not both"#
                    )
                }
                do {
                    graphQL = try GraphQLOperation(entry: entry)
                } catch {
                    throw fail("request.graphql", error.message)
                }
            }
            let key = RequestKey(
                method: request.method,
                rawPath: request.path.detached,
                // A GraphQL stub's key holds the other parameters only; its operation is its GraphQL key.
                rawQuery: graphQL == nil ? request.query ?? "" : GraphQLRequest.otherQuery(request.query ?? ""),
                host: request.host.map(HostName.normalized) ?? ""
            )
            let id = MockSetLoader.stubID(of: entry).detached
            guard index != firstDuplicateID else { throw fail("id", "duplicate stub id '\(id)'") }

            var constraints: [HeaderConstraint] = []
            for (headerIndex, line) in (request.headers ?? []).enumerated() {
                guard let field = HeaderLine.parse(line) else {
                    throw fail("request.headers[\(headerIndex)]", "expected \"Name: value\", got '\(line)'")
                }
                guard matchHeaders.contains(field.name.asciiLowercased) else {
                    throw fail(
                        "request.headers[\(headerIndex)]",
                        "'\(field.name)' is not in matchHeaders \(matchHeaders.sorted()); add it there to match on it"
                    )
                }
                constraints.append(HeaderConstraint(name: field.name, value: field.value))
            }

            var canonicalBody: Data?
            var bodyContentType: String?
            if let body = request.body {
                let contentType = body.contentType ?? constraints.first { $0.name == "content-type" }?.value
                let raw: Data
                if let file = body.file {
                    raw = try bodyReader.read(file, indexName: indexName, jsonPath: "\(path).request.body.file")
                } else if let text = body.text {
                    raw = Data(text.utf8)
                } else if let json = body.json {
                    raw = try JSONValueEncoding.data(json)
                } else {
                    throw fail("request.body", "needs one of \"file\", \"text\" or \"json\"")
                }
                let isJSON = body.json != nil || (body.file?.hasSuffix(".json") ?? false)
                bodyContentType = contentType ?? (isJSON ? "application/json" : nil)
                canonicalBody = BodyCanonicalizer.canonicalize(raw, contentType: bodyContentType)
            }
            // Never matched; `mockd validate` (bodies read now) checks that its file is there for `mockd refresh`.
            if deferred == nil, let file = request.recordedBody?.file {
                _ = try bodyReader.read(file, indexName: indexName, jsonPath: "\(path).request.recordedBody.file")
            }

            guard !entry.responses.isEmpty else { throw fail("responses", "needs at least one response") }
            var responses: [MockResponse] = []
            var pendingBodies: [DeferredResponses.PendingBody?] = []
            for (stepIndex, step) in entry.responses.enumerated() {
                var stepPath: String { "\(path).responses[\(stepIndex)]" }
                let status = step.status ?? 200
                guard (100...999).contains(status) else {
                    throw ConfigError(
                        .invalidValue,
                        file: indexName,
                        jsonPath: "\(stepPath).status",
                        message: "\(status) is not an HTTP status code (100–999)"
                    )
                }
                guard status >= 200 || (status == 101 && step.websocket != nil) else {
                    throw ConfigError(
                        .invalidValue,
                        file: indexName,
                        jsonPath: "\(stepPath).status",
                        message: "\(status) is an interim (1xx) status; a stub needs a final one (200–999)"
                    )
                }
                let lines = step.headers ?? []
                var headers = HTTPHeaders()
                var headersHavePlaceholders = false
                // A HEAD answer keeps its Content-Length, so its header list is never shared with other stubs'.
                let isHead = request.method == "HEAD"
                if !isHead, let last = lastHeaders, last.lines == lines {
                    (headers, headersHavePlaceholders) = (last.headers, last.hasPlaceholders)
                } else if !isHead, let interned = internedHeaders[lines] {
                    (headers, headersHavePlaceholders) = interned
                } else {
                    for (headerIndex, line) in lines.enumerated() {
                        guard let field = HeaderLine.parse(line), HeaderLine.isValidValue(field.value) else {
                            throw ConfigError(
                                .invalidValue,
                                file: indexName,
                                jsonPath: "\(stepPath).headers[\(headerIndex)]",
                                message: "expected \"Name: value\" without CR, LF or NUL, got '\(line)'"
                            )
                        }
                        if !ResponseHeaderPolicy.isDropped(field.name, method: request.method) {
                            headers.add(name: field.name, value: field.value)
                        }
                    }
                    headersHavePlaceholders = headers.contains { $0.value.containsPlaceholderOpening }
                    if !isHead { internedHeaders[lines] = (headers, headersHavePlaceholders) }
                }
                if !isHead { lastHeaders = (lines, headers, headersHavePlaceholders) }
                let sources = [step.bodyFile != nil, step.body != nil, step.json != nil].filter { $0 }.count
                guard sources <= 1 else {
                    throw ConfigError(
                        .invalidValue,
                        file: indexName,
                        jsonPath: stepPath,
                        message: "give at most one of \"bodyFile\", \"body\" and \"json\""
                    )
                }
                var body = Data()
                var bodyTemplate: Template?
                var fileBody: FileBody?
                var pending: DeferredResponses.PendingBody?
                if let file = step.bodyFile, deferred != nil, step.events == nil, step.websocket == nil,
                    try bodyReader.isSmallReadableFile(file, indexName: indexName, jsonPath: "\(stepPath).bodyFile")
                {
                    // Read on first use; what depends on the bytes is done then (`DeferredResponses`).
                    pending = .init(relativePath: file.detached, templated: step.templated ?? .on)
                } else if let file = step.bodyFile {
                    (body, bodyTemplate, fileBody) = try bodyReader.readParsedOrReference(
                        file,
                        templated: step.templated ?? .on,
                        indexName: indexName,
                        jsonPath: "\(stepPath).bodyFile"
                    )
                } else {
                    if let text = step.body {
                        body = Data(text.utf8)
                    } else if let json = step.json {
                        body = try JSONValueEncoding.data(json)
                    }
                    bodyTemplate = Template.parse(body)
                }
                var response = MockResponse(
                    status: status,
                    headers: headers,
                    body: body,
                    recordedTimeMs: step.recordedTimeMs,
                    bodyTemplate: bodyTemplate,
                    headersHavePlaceholders: headersHavePlaceholders
                )
                if pending == nil {
                    response.applyTemplateMode(step.templated ?? .on)
                    if let (part, problem) = response.templateProblems.first {
                        let field =
                            part != "body"
                            ? "headers" : step.bodyFile != nil ? "bodyFile" : step.json != nil ? "json" : "body"
                        throw ConfigError(
                            .invalidValue,
                            file: indexName,
                            jsonPath: "\(stepPath).\(field)",
                            message: MockSetLoader.templateMessage(problem, in: part == "body" ? step.bodyFile : nil)
                        )
                    }
                }
                // Set only when present: the setter rebuilds the rare-fields box even for nil.
                if let fault = step.fault { response.fault = fault }
                if let dates = step.dates {
                    let shift: DateShift
                    do {
                        shift = try DateShift(
                            recordedAt: dates.recordedAt,
                            body: dates.body ?? [],
                            headers: dates.headers ?? []
                        )
                    } catch {
                        throw ConfigError(
                            .invalidValue,
                            file: indexName,
                            jsonPath: "\(stepPath).dates",
                            message: error.message
                        )
                    }
                    if let name = dates.headers?.first(where: { !HTTPToken.isToken($0) }) {
                        throw ConfigError(
                            .invalidValue,
                            file: indexName,
                            jsonPath: "\(stepPath).dates.headers",
                            message: "'\(name)' is not a header name"
                        )
                    }
                    if rebasesDates { response.dateShift = shift }
                }
                if let fileBody { response.fileBody = fileBody }
                if let origins, pending == nil { response.rewriteURLs(of: origins) }
                if let stream = step.events {
                    response.eventStream = stream
                    if response.headers["content-type"] == nil {
                        response.headers.add(name: "Content-Type", value: "text/event-stream; charset=utf-8")
                    }
                    response.headersChanged()
                }
                if let script = step.websocket {
                    if let problem = WebSocketScriptCheck.problems(script).first {
                        throw ConfigError(
                            .invalidValue,
                            file: indexName,
                            jsonPath: "\(stepPath).websocket",
                            message: problem
                        )
                    }
                    response.status = 101
                    response.webSocket = script
                }
                if let emit = step.emit {
                    switch Emissions.compile(emit) {
                    case .success(let emissions): response.emissions = emissions
                    case .failure(let problems):
                        throw ConfigError(
                            .invalidValue,
                            file: indexName,
                            jsonPath: "\(stepPath).emit\(problems.problems[0].field)",
                            message: problems.problems[0].message
                        )
                    }
                }
                responses.append(response)
                pendingBodies.append(pending)
            }
            if entry.responses.contains(where: {
                $0.miss != nil || $0.conditionalOnly == true || $0.rangeOnly == true || $0.cachedCopy != nil
            }) {
                try MockSetLoader.gate(&responses, entry.responses, path: path, indexName: indexName)
            }
            if negotiatesAccept, let position = constraints.firstIndex(where: { $0.name == "accept" }) {
                // A 304 whose body is the client's cached copy offers the copy's type.
                let contentType = responses[0].headers["content-type"] ?? entry.responses[0].cachedCopy
                let recordedAccept = constraints[position].value
                let memoKey = (contentType ?? "") + "\u{0}" + recordedAccept
                let offered: String?
                if let known = offeredTypes[memoKey] {
                    offered = known
                } else {
                    offered = AcceptNegotiation.offeredType(contentType: contentType, recordedAccept: recordedAccept)
                    offeredTypes[memoKey] = offered
                }
                if let offered {
                    constraints[position] = HeaderConstraint(
                        name: "accept",
                        value: constraints[position].value,
                        offeredType: offered
                    )
                }
            }
            if !constraints.isEmpty {
                constraints.sort { $0.name < $1.name }
                if let shared = internedConstraints[constraints] {
                    constraints = shared
                } else {
                    internedConstraints[constraints] = constraints
                }
            }
            stubs.append(
                Stub(
                    id: id,
                    setName: setName,
                    key: key,
                    headerConstraints: constraints,
                    body: canonicalBody,
                    bodyContentType: bodyContentType,
                    responses: responses,
                    afterLast: entry.afterLast ?? .repeatLast,
                    deferred: pendingBodies.contains { $0 != nil }
                        ? DeferredResponses(context: deferred!, pending: pendingBodies) : nil,
                    sharing: sharedExtras,
                    graphQL: graphQL
                )
            )
        }
        return stubs
    }
}

/// Reads body files of one mock set, refusing any path that leaves the set folder. Each file is read (and
/// its path checked) once, and stubs sharing a file share its bytes; safe to use from several threads.
final class BodyFileReader: Sendable {
    let folder: URL
    let resolvedFolder: String
    let cache = Mutex<[String: (data: Data, template: Template?)]>([:])
    /// Directories of body files (relative) and whether they resolve inside the folder; see `isSmallReadableFile`.
    let checkedDirectories = Mutex<[String: Bool]>([:])
    /// The set folder, held open while its stubs live (-1 if it could not be opened): body files read on first use
    /// are opened relative to it, so a set replaced on disk meanwhile (`import-har --force`) is never mixed into
    /// the loaded one.
    let directory: Int32

    init(folder: URL) {
        self.folder = folder
        let resolved = folder.resolvingSymlinksInPath().standardizedFileURL.path
        self.resolvedFolder = resolved.hasSuffix("/") ? resolved : resolved + "/"
        self.directory = open(resolved, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    }

    deinit { if directory >= 0 { close(directory) } }

    /// - Parameter jsonPath: Named in an error; built only then.
    func read(_ relativePath: String, indexName: String, jsonPath: @autoclosure () -> String) throws -> Data {
        try readParsed(relativePath, indexName: indexName, jsonPath: jsonPath()).data
    }

    /// The file's bytes and their placeholders (`Template.parse`), both worked out once per file.
    func readParsed(
        _ relativePath: String,
        indexName: String,
        jsonPath: @autoclosure () -> String
    ) throws -> (data: Data, template: Template?) {
        try parsedOnce(relativePath) { try readUncached(relativePath, indexName: indexName, jsonPath: jsonPath()) }
    }

    /// The bytes of `relativePath` and their placeholders from the cache, or from `read` (then kept): each file is
    /// read and parsed once, and stubs sharing it share its bytes.
    func parsedOnce(_ relativePath: String, read: () throws -> Data) rethrows -> (data: Data, template: Template?) {
        if let cached = cache.withLock({ $0[relativePath] }) { return cached }
        let data = try read()
        let parsed = (data, Template.parse(data))
        // Two threads may read a file at once; the first copy stored is the one every stub shares.
        return cache.withLock { cache in
            if let stored = cache[relativePath] { return stored }
            cache[relativePath] = parsed
            return parsed
        }
    }

    private func readUncached(_ relativePath: String, indexName: String, jsonPath: String) throws -> Data {
        if let problem = SetRelativePath.problem(relativePath) {
            throw ConfigError(.invalidValue, file: indexName, jsonPath: jsonPath, message: problem)
        }
        let url = folder.appendingPathComponent(relativePath).standardizedFileURL
        guard url.resolvingSymlinksInPath().standardizedFileURL.path.hasPrefix(resolvedFolder) else {
            throw ConfigError(
                .invalidValue,
                file: indexName,
                jsonPath: jsonPath,
                message: "'\(relativePath)' is outside the mock set folder; body files must stay inside it"
            )
        }
        do {
            return try Data(contentsOf: url)
        } catch {
            let exists = FileManager.default.fileExists(atPath: url.path)
            throw ConfigError(
                exists ? .unreadable : .fileNotFound,
                file: indexName,
                jsonPath: jsonPath,
                message: exists ? "cannot read '\(relativePath)'" : "body file '\(relativePath)' not found"
            )
        }
    }
}

/// Holds a decoded index until `release()` drops it; passed to the releasing thread so that the last reference
/// is let go there and not by whichever thread happens to finish last. `@unchecked Sendable`: touched by one
/// thread at a time, the loader, then the releaser.
private final class DecodedIndexOwner: @unchecked Sendable {
    private var file: MockSetFile?

    init(_ file: consuming MockSetFile) { self.file = file }

    func release() { file = nil }
}
