import Foundation
import MockdFormat

/// Turns index entries into stubs, checking each; shared by the threads building one index (it holds nothing they
/// write: what one thread's builds share is in its `Interning`).
///
/// `build` reads as the steps of one entry: the request's key, its header constraints and body, then each response
/// step (status and headers, body, templates, dates, streams and pushes), then the steps' gates, the `Accept`
/// negotiation and the shared constraint list.
struct StubBuilder: Sendable {
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
    /// Set when body files are read on first use (`MockSetLoader.defersBodies`).
    let deferred: DeferredResponses.Context?

    private typealias BodyLocation = DeferredResponses.StepLocation

    /// What the stubs one thread builds share: identical header lists (most stubs of a set share a few), kept once
    /// with whether they hold placeholders; constraint lists (`Accept: application/json`) and the type each offers,
    /// kept and worked out once (the negotiation's parsing was a fifth of a 10,000-stub start).
    struct Interning {
        /// Keyed by bytes: lists equal only under canonical equivalence (`café` in NFC and NFD) are served as recorded.
        var headers: [ByteKeys: (headers: HTTPHeaders, hasPlaceholders: Bool)] = [:]
        /// Consecutive stubs usually share a header list, so the last is compared before hashing.
        var lastHeaders: (lines: [String], headers: HTTPHeaders, hasPlaceholders: Bool)?
        var constraints: [[HeaderConstraint]: [HeaderConstraint]] = [:]
        /// Request header lines already checked, as their constraint: most stubs of a set carry the same few
        /// (`Accept: application/json`), and parsing one was a tenth of a 10,000-stub start.
        var constraintLines: [String: HeaderConstraint] = [:]
        /// The last stub's request header lines and their constraints.
        var lastConstraintLines: (lines: [String], constraints: [HeaderConstraint])?
        var offeredTypes: [String: String?] = [:]
        /// The last stub's constraints as its entry gave them, the type its first response offers, and the shared list
        /// they became (negotiated, sorted): consecutive stubs of a set nearly always repeat them, and negotiating,
        /// sorting and hashing the list for every stub was a sixth of a 100,000-stub start.
        var lastConstraints: (recorded: [HeaderConstraint], contentType: String?, shared: [HeaderConstraint])?
        /// The last body file directory found inside the set folder (`BodyFileReader.mayDefer(_:lastInside:)`).
        var lastInsideDirectory: String?
        let extras = ConstraintExtrasCache()
        /// The set name and the rows of the body files read on first use, shared by the stubs this thread builds.
        let source: StubSource
    }

    /// The stubs of `entries[range]`, in order.
    ///
    /// Serving (`deferred` set) stops at the first invalid entry; a load that reads every body (`mockd validate`,
    /// `check`) goes on and reports the problem of every invalid entry, as validate's help promises.
    /// - Throws: `ConfigError` for the first invalid entry in `range`, or `ConfigErrors` (in index order) when a load
    ///   that reads every body finds more than one; `CompactIndex.MalformedRecord` (`StubEntries.forEach`).
    func build(_ entries: StubEntries, _ range: Range<Int>) throws -> [Stub] {
        var interning = Interning(
            source: StubSource(
                setName: setName,
                deferred: deferred.map { DeferredResponses(context: $0, expectedRows: range.count) },
                expectedStubs: range.count
            )
        )
        defer {
            interning.source.deferred?.finish()
            interning.source.text.finish()
        }
        var stubs: [Stub] = []
        stubs.reserveCapacity(range.count)
        var problems: [ConfigError] = []
        try entries.forEach(in: range) { entry, index in
            do {
                stubs.append(try stub(entry, at: index, interning: &interning))
            } catch let problem as ConfigError where deferred == nil {
                problems.append(problem)
            }
        }
        try Self.throwIfAny(problems)
        return stubs
    }

    /// Throws nothing for no problem, the problem itself for one, and `ConfigErrors` for several.
    static func throwIfAny(_ problems: [ConfigError]) throws {
        guard let first = problems.first else { return }
        throw problems.count == 1 ? first as any Error : ConfigErrors(problems)
    }

    /// Entry `index` as a stub.
    private func stub(_ entry: MockSetFile.StubEntry, at index: Int, interning: inout Interning) throws -> Stub {
        // Built only for an error message, never for every stub.
        var path: String { "stubs[\(index)]" }
        let (key, graphQL) = try requestKey(of: entry.request, at: index)
        let id = MockSetLoader.stubID(of: entry).detached
        guard index != firstDuplicateID else { throw fail(index, "id", "duplicate stub id '\(id)'") }
        let constraints = try headerConstraints(of: entry.request, at: index, interning: &interning)
        let (canonicalBody, bodyContentType) = try requestBody(of: entry.request, constraints: constraints, at: index)
        // Never matched; `mockd validate` (bodies read now) checks that its file is there for `mockd refresh`.
        if deferred == nil, let file = entry.request.recordedBody?.file {
            _ = try bodyReader.read(file, indexName: indexName, jsonPath: "\(path).request.recordedBody.file")
        }

        guard !entry.responses.isEmpty else { throw fail(index, "responses", "needs at least one response") }
        var responses: [MockResponse] = []
        var pendingBodies: [DeferredResponses.PendingBody?] = []
        // Each step read in place: iterating the array, or subscripting it, copied every step (a retain and release
        // per field).
        try entry.responses.withUnsafeBufferPointer { steps in
            for stepIndex in steps.indices {
                let (response, pending) = try self.response(
                    steps[stepIndex],
                    method: entry.request.method,
                    at: BodyLocation(entry: index, step: stepIndex),
                    interning: &interning
                )
                responses.append(response)
                pendingBodies.append(pending)
            }
        }
        if entry.responses.contains(where: {
            $0.miss != nil || $0.conditionalOnly == true || $0.rangeOnly == true || $0.cachedCopy != nil
        }) {
            try MockSetLoader.gate(&responses, entry.responses, path: path, indexName: indexName)
        }
        // A 304 whose body is the client's cached copy offers the copy's type.
        let offered = responses[0].headers["content-type"] ?? entry.responses[0].cachedCopy
        return Stub(
            id: id,
            source: interning.source,
            key: key,
            headerConstraints: negotiatedAndShared(constraints, contentType: offered, interning: &interning),
            body: canonicalBody,
            bodyContentType: bodyContentType,
            responses: responses,
            afterLast: entry.afterLast ?? .repeatLast,
            deferredRow: pendingBodies.contains { $0 != nil }
                ? interning.source.deferred!.append(pendingBodies, stubID: id) : nil,
            sharing: interning.extras,
            graphQL: graphQL
        )
    }

    private func fail(_ index: Int, _ field: String, _ message: String) -> ConfigError {
        ConfigError(.invalidValue, file: indexName, jsonPath: "stubs[\(index)].\(field)", message: message)
    }

    private func fail(at jsonPath: String, _ message: String) -> ConfigError {
        ConfigError(.invalidValue, file: indexName, jsonPath: jsonPath, message: message)
    }

    // MARK: The request

    /// The request's method, path and host checked, as the key it is routed by, with its GraphQL operation if any.
    private func requestKey(
        of request: MockSetFile.RequestEntry,
        at index: Int
    ) throws -> (key: RequestKey, graphQL: GraphQLOperation?) {
        guard HTTPToken.isToken(request.method) else {
            throw fail(index, "request.method", "'\(request.method)' is not an HTTP method token")
        }
        guard request.path.hasPrefix("/") else {
            throw fail(index, "request.path", "must start with '/' (got '\(request.path)')")
        }
        if let host = request.host, host.isEmpty || host.contains(where: { $0 == "/" || $0 == " " }) {
            throw fail(index, "request.host", "'\(host)' is not a host[:port]")
        }
        var graphQL: GraphQLOperation?
        if let entry = request.graphql {
            guard request.body == nil else {
                throw fail(
                    index,
                    "request.graphql",
                    #"a GraphQL stub is keyed by its operation: give "graphql" or "body", not both"#
                )
            }
            do {
                graphQL = try GraphQLOperation(entry: entry)
            } catch {
                throw fail(index, "request.graphql", error.message)
            }
        }
        let key = RequestKey(
            method: request.method,
            rawPath: request.path.detached,
            // A GraphQL stub's key holds the other parameters only; its operation is its GraphQL key.
            rawQuery: graphQL == nil ? request.query ?? "" : GraphQLRequest.otherQuery(request.query ?? ""),
            host: request.host.map(HostName.normalized) ?? ""
        )
        return (key, graphQL)
    }

    /// The request's header lines as constraints, each named in `matchHeaders` (not yet sorted or negotiated).
    private func headerConstraints(
        of request: MockSetFile.RequestEntry,
        at index: Int,
        interning: inout Interning
    ) throws -> [HeaderConstraint] {
        let lines = request.headers ?? []
        // The last stub's lines again (a shared list read from the compact index is the same array): its constraints.
        if let last = interning.lastConstraintLines, ByteKeys.sameBytes(last.lines, lines) { return last.constraints }
        var constraints: [HeaderConstraint] = []
        for (headerIndex, line) in lines.enumerated() {
            if let known = interning.constraintLines[line] {
                constraints.append(known)
                continue
            }
            guard let field = HeaderLine.parse(line) else {
                throw fail(index, "request.headers[\(headerIndex)]", "expected \"Name: value\", got '\(line)'")
            }
            guard matchHeaders.contains(field.name.asciiLowercased) else {
                throw fail(
                    index,
                    "request.headers[\(headerIndex)]",
                    "'\(field.name)' is not in matchHeaders \(matchHeaders.sorted()); add it there to match on it"
                )
            }
            let constraint = HeaderConstraint(name: field.name, value: field.value)
            interning.constraintLines[line] = constraint
            constraints.append(constraint)
        }
        // Kept only for lines that all passed: a list with a refused line is refused again for every stub.
        interning.lastConstraintLines = (lines, constraints)
        return constraints
    }

    /// The body the request must carry, canonicalized for matching, with its content type; `nil`s without one.
    private func requestBody(
        of request: MockSetFile.RequestEntry,
        constraints: [HeaderConstraint],
        at index: Int
    ) throws -> (body: Data?, contentType: String?) {
        guard let body = request.body else { return (nil, nil) }
        let contentType = body.contentType ?? constraints.first { $0.name == "content-type" }?.value
        let raw: Data
        if let file = body.file {
            raw = try bodyReader.read(file, indexName: indexName, jsonPath: "stubs[\(index)].request.body.file")
        } else if let text = body.text {
            raw = Data(text.utf8)
        } else if let json = body.json {
            raw = try JSONValueEncoding.data(json)
        } else {
            throw fail(index, "request.body", "needs one of \"file\", \"text\" or \"json\"")
        }
        let isJSON = body.json != nil || (body.file?.hasSuffix(".json") ?? false)
        let bodyContentType = contentType ?? (isJSON ? "application/json" : nil)
        return (BodyCanonicalizer.canonicalize(raw, contentType: bodyContentType), bodyContentType)
    }

    /// `constraints` negotiated against `contentType` (when the set negotiates) and sorted, as the one copy every stub
    /// with the same list shares; the last stub's answer again when its constraints and type were the same.
    private func negotiatedAndShared(
        _ constraints: [HeaderConstraint],
        contentType: String?,
        interning: inout Interning
    ) -> [HeaderConstraint] {
        if let last = interning.lastConstraints, last.contentType == contentType, last.recorded == constraints {
            return last.shared
        }
        var negotiated = constraints
        if negotiatesAccept { negotiate(&negotiated, contentType: contentType, interning: &interning) }
        let shared = shared(negotiated, interning: &interning)
        interning.lastConstraints = (constraints, contentType, shared)
        return shared
    }

    /// `constraints`' `Accept` (if any) with the type the stub's first response offers (`contentType`), worked out
    /// once per content type and recorded `Accept`.
    private func negotiate(_ constraints: inout [HeaderConstraint], contentType: String?, interning: inout Interning) {
        guard let position = constraints.firstIndex(where: { $0.name == "accept" }) else { return }
        let recordedAccept = constraints[position].value
        let memoKey = (contentType ?? "") + "\u{0}" + recordedAccept
        let offered: String?
        if let known = interning.offeredTypes[memoKey] {
            offered = known
        } else {
            offered = AcceptNegotiation.offeredType(contentType: contentType, recordedAccept: recordedAccept)
            interning.offeredTypes[memoKey] = offered
        }
        if let offered {
            constraints[position] = HeaderConstraint(name: "accept", value: recordedAccept, offeredType: offered)
        }
    }

    /// `constraints` sorted by name, as the one copy every stub with the same list shares.
    private func shared(_ constraints: [HeaderConstraint], interning: inout Interning) -> [HeaderConstraint] {
        guard !constraints.isEmpty else { return constraints }
        let sorted = constraints.sorted { $0.name < $1.name }
        if let shared = interning.constraints[sorted] { return shared }
        interning.constraints[sorted] = sorted
        return sorted
    }

    // MARK: A response step

    /// One response step, checked, with its body file to read on first use (`nil`: read now or none).
    private func response(
        _ step: MockSetFile.ResponseEntry,
        method: String,
        at location: BodyLocation,
        interning: inout Interning
    ) throws -> (MockResponse, DeferredResponses.PendingBody?) {
        // Built only for an error message, never for every step.
        var stepPath: String { location.stepPath }
        let status = try self.status(of: step, stepPath: stepPath)
        let (headers, headersHavePlaceholders) = try self.headers(
            step.headers ?? [],
            method: method,
            stepPath: stepPath,
            interning: &interning
        )
        let (body, bodyTemplate, fileBody, pending) = try self.body(of: step, at: location, interning: &interning)
        var response = MockResponse(
            status: status,
            headers: headers,
            body: body,
            recordedTimeMs: step.recordedTimeMs,
            bodyTemplate: bodyTemplate,
            headersHavePlaceholders: headersHavePlaceholders
        )
        if pending == nil { try applyTemplateMode(to: &response, of: step, stepPath: stepPath) }
        // Set only when present: the setter rebuilds the rare-fields box even for nil.
        if let fault = step.fault { response.fault = fault }
        if let dates = step.dates {
            // Checked either way; built only when served (`rebaseDates`).
            let shift = try dateShift(dates, building: rebasesDates, stepPath: stepPath)
            if let shift { response.dateShift = shift }
        }
        if let fileBody { response.fileBody = fileBody }
        if let origins, pending == nil { response.rewriteURLs(of: origins) }
        try applyStreams(of: step, to: &response, stepPath: stepPath)
        return (response, pending)
    }

    /// The step's status (200 when absent): a final one, or 101 for a WebSocket.
    private func status(of step: MockSetFile.ResponseEntry, stepPath: @autoclosure () -> String) throws -> Int {
        let status = step.status ?? 200
        guard (100...999).contains(status) else {
            throw fail(at: "\(stepPath()).status", "\(status) is not an HTTP status code (100–999)")
        }
        guard status >= 200 || (status == 101 && step.websocket != nil) else {
            throw fail(
                at: "\(stepPath()).status",
                "\(status) is an interim (1xx) status; a stub needs a final one (200–999)"
            )
        }
        return status
    }

    /// The step's header lines as headers (those `ResponseHeaderPolicy` drops left out), with whether any holds a
    /// placeholder; parsed once per distinct list, except a HEAD answer's, which keeps its Content-Length.
    private func headers(
        _ lines: [String],
        method: String,
        stepPath: @autoclosure () -> String,
        interning: inout Interning
    ) throws -> (HTTPHeaders, hasPlaceholders: Bool) {
        let isHead = method == "HEAD"
        if !isHead, let last = interning.lastHeaders, ByteKeys.sameBytes(last.lines, lines) {
            return (last.headers, last.hasPlaceholders)
        }
        if !isHead, let known = interning.headers[ByteKeys(lines)] {
            interning.lastHeaders = (lines, known.headers, known.hasPlaceholders)
            return known
        }
        var headers = HTTPHeaders()
        for (headerIndex, line) in lines.enumerated() {
            guard let field = HeaderLine.parse(line), HeaderLine.isValidValue(field.value) else {
                throw fail(
                    at: "\(stepPath()).headers[\(headerIndex)]",
                    "expected \"Name: value\" without CR, LF or NUL, got '\(line)'"
                )
            }
            if !ResponseHeaderPolicy.isDropped(field.name, method: method) {
                headers.add(name: field.name, value: field.value)
            }
        }
        let hasPlaceholders = headers.contains { $0.value.containsPlaceholderOpening }
        if !isHead {
            interning.headers[ByteKeys(lines)] = (headers, hasPlaceholders)
            interning.lastHeaders = (lines, headers, hasPlaceholders)
        }
        return (headers, hasPlaceholders)
    }

    /// The step's body: left to read on first use (`pending`: a body file, when the loader defers them), or its file
    /// read now (bytes and placeholders, or a `FileBody` served from disk), or its inline `body` / `json`.
    ///
    /// A deferred body file is not looked at here, not even with `stat` (a start with 100,000 stubs then makes no
    /// system call per body file): its path is checked as written (`BodyFileReader.mayDefer`), and a file missing
    /// or unreadable is found at first use (`DeferredResponses`) and by `mockd validate`, with the same error.
    private func body(
        of step: MockSetFile.ResponseEntry,
        at location: BodyLocation,
        interning: inout Interning
    ) throws -> (body: Data, template: Template?, file: FileBody?, pending: DeferredResponses.PendingBody?) {
        var stepPath: String { location.stepPath }
        let sources = (step.bodyFile != nil ? 1 : 0) + (step.body != nil ? 1 : 0) + (step.json != nil ? 1 : 0)
        guard sources <= 1 else { throw fail(at: stepPath, "give at most one of \"bodyFile\", \"body\" and \"json\"") }
        if let file = step.bodyFile, deferred != nil, step.events == nil, step.websocket == nil,
            bodyReader.mayDefer(file, lastInside: &interning.lastInsideDirectory)
        {
            // Read on first use; what depends on the bytes is done then (`DeferredResponses`).
            // Not detached: the row copies the bytes (`DeferredResponses.append`).
            let pending = DeferredResponses.PendingBody(
                relativePath: file,
                templated: step.templated ?? .on,
                location: location
            )
            return (Data(), nil, nil, pending)
        }
        if let file = step.bodyFile {
            let (body, template, fileBody) = try bodyReader.readParsedOrReference(
                file,
                templated: step.templated ?? .on,
                indexName: indexName,
                jsonPath: "\(stepPath).bodyFile"
            )
            return (body, template, fileBody, nil)
        }
        var body = Data()
        if let text = step.body {
            body = Data(text.utf8)
        } else if let json = step.json {
            body = try JSONValueEncoding.data(json)
        }
        return (body, Template.parse(body), nil, nil)
    }

    /// The step's `templated` mode applied to a response whose body is known; its first placeholder problem thrown.
    private func applyTemplateMode(
        to response: inout MockResponse,
        of step: MockSetFile.ResponseEntry,
        stepPath: @autoclosure () -> String
    ) throws {
        response.applyTemplateMode(step.templated ?? .on)
        guard let (part, problem) = response.templateProblems.first else { return }
        let field = part != "body" ? "headers" : step.bodyFile != nil ? "bodyFile" : step.json != nil ? "json" : "body"
        throw fail(
            at: "\(stepPath()).\(field)",
            problem.loadMessage(in: part == "body" ? step.bodyFile : nil)
        )
    }

    /// The step's recorded `dates`, checked, as the shift that serves them moved to the session's clock when
    /// `building`, else `nil`.
    private func dateShift(
        _ dates: MockSetFile.DatesEntry,
        building: Bool,
        stepPath: @autoclosure () -> String
    ) throws -> DateShift? {
        var shift: DateShift?
        do {
            if building {
                shift = try DateShift(
                    recordedAt: dates.recordedAt,
                    body: dates.body ?? [],
                    headers: dates.headers ?? []
                )
            } else {
                try DateShift.check(recordedAt: dates.recordedAt, body: dates.body ?? [])
            }
        } catch {
            throw fail(at: "\(stepPath()).dates", error.message)
        }
        if let name = dates.headers?.first(where: { !HTTPToken.isToken($0) }) {
            throw fail(at: "\(stepPath()).dates.headers", "'\(name)' is not a header name")
        }
        return shift
    }

    /// The step's event stream, WebSocket script and pushes (`emit`), checked, set on `response`.
    private func applyStreams(
        of step: MockSetFile.ResponseEntry,
        to response: inout MockResponse,
        stepPath: @autoclosure () -> String
    ) throws {
        if let stream = step.events {
            response.eventStream = stream
            if response.headers["content-type"] == nil {
                response.headers.add(name: "Content-Type", value: "text/event-stream; charset=utf-8")
            }
            response.headersChanged()
        }
        if let script = step.websocket {
            if let problem = WebSocketScriptCheck.problems(script).first {
                throw fail(at: "\(stepPath()).websocket", problem)
            }
            response.status = 101
            response.webSocket = script
        }
        if let emit = step.emit {
            switch Emissions.compile(emit) {
            case .success(let emissions): response.emissions = emissions
            case .failure(let problems):
                throw fail(at: "\(stepPath()).emit\(problems.problems[0].field)", problems.problems[0].message)
            }
        }
    }
}
