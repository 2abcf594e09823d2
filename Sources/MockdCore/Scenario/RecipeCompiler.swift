import Foundation
import MockdFormat

/// Compiles override and defaults entries into `Override`s and `ResponseRecipe`s, reporting problems.
///
/// Each entry is compiled in named steps, in the order its problems are reported: for an override its request
/// pattern, state rule, response steps, rate limit and chance; for a response step its status, headers, fault, body,
/// latency, throttle, streams (events, hold, WebSocket script), pushes and templates.
struct RecipeCompiler {
    let root: MockdRoot

    /// An override entry as an `Override`; `nil` when it has a problem (each is reported at its JSON path).
    func compileOverride(
        _ entry: ScenarioFile.OverrideEntry,
        file: String,
        path: String,
        position: Int,
        problems: inout [ConfigError]
    ) -> Override? {
        var found = EntryProblems(file: file, path: path)
        let pattern = RequestPattern.compile(entry.match, file: file, path: path, problems: &found.list)
        let stateRule = entry.state.map { compileStateRule($0, &found) }
        let steps = compileSteps(of: entry, &found)
        let rateLimit = entry.rateLimit.map { compileRateLimit($0, &found) }
        if let chance = entry.chance, !(0...1).contains(chance) {
            found.fail("chance", "must be a share of calls from 0 to 1, got \(chance)")
        }
        problems += found.list
        guard found.list.isEmpty, !steps.isEmpty, let pattern else { return nil }
        return Override(
            id: entry.id ?? "override-\(position + 1)",
            priority: entry.priority ?? 0,
            position: position,
            pattern: pattern,
            steps: steps,
            afterLast: entry.afterLast ?? .repeatLast,
            rateLimit: rateLimit,
            state: stateRule,
            chance: entry.chance
        )
    }

    /// An override's `state`: the machine it names, the states it requires, the state it moves to (after how many
    /// answers) and its timeout.
    private func compileStateRule(_ state: ScenarioFile.StateEntry, _ found: inout EntryProblems) -> StateRule {
        if state.name.isEmpty {
            found.fail("state.name", "name the state machine")
        } else if state.requires == nil && state.next == nil {
            found.fail("state", #"give "requires", "next" or both"#)
        }
        if let requires = state.requires, requires.names.isEmpty || requires.names.contains(where: \.isEmpty) {
            found.fail("state.requires", "name a state, or a non-empty list of states")
        }
        if let after = state.after {
            if after < 1 { found.fail("state.after", "must be ≥ 1 (the answer that makes the transition)") }
            if state.next == nil { found.fail("state.after", #"counts toward a transition: give "next" too"#) }
        }
        if let timeout = state.timeout {
            if timeout.afterMs < 1 { found.fail("state.timeout.afterMs", "must be ≥ 1 ms") }
            if timeout.next.isEmpty { found.fail("state.timeout.next", "name the state to move to") }
            if state.next == nil {
                found.fail("state.timeout", #"runs once the machine is in "next": give "next" too"#)
            }
        }
        return StateRule(
            name: state.name,
            requires: state.requires?.names,
            next: state.next,
            after: max(1, state.after ?? 1),
            timeout: state.timeout.map { (afterMs: Double($0.afterMs), next: $0.next) }
        )
    }

    /// An override's sequence: its `responses`, or the one response written in the entry itself.
    private func compileSteps(
        of entry: ScenarioFile.OverrideEntry,
        _ found: inout EntryProblems
    ) -> [ResponseRecipe] {
        guard let responses = entry.responses else {
            return compile(entry.step, file: found.file, path: found.path, problems: &found.list).map { [$0] } ?? []
        }
        if responses.isEmpty { found.fail("responses", "needs at least one response") }
        return responses.enumerated().compactMap { index, step in
            compile(step, file: found.file, path: "\(found.path).responses[\(index)]", problems: &found.list)
        }
    }

    /// An override's `rateLimit`: how many calls per window (by key), and the answer past the limit.
    private func compileRateLimit(_ rule: ScenarioFile.RateLimitEntry, _ found: inout EntryProblems) -> RateLimitRule {
        if rule.limit < 0 || (rule.windowMs ?? 1) <= 0 || (rule.retryAfter ?? 0) < 0 {
            found.fail("rateLimit", "limit and retryAfter must be ≥ 0 and windowMs > 0")
        }
        if let key = rule.key, !RateLimitRule.isValidKey(key) {
            found.fail(
                "rateLimit.key",
                "'\(key)' is not a request expression (request.json.PATH, request.header.NAME, request.query.NAME, request.method, request.path, request.body)"
            )
        }
        var body: (data: Data, contentType: String)?
        switch rule.body {
        case nil: body = nil
        case .string(let text)?: body = (Data(text.utf8), "text/plain; charset=utf-8")
        case let json?: body = ((try? JSONValueEncoding.data(json)) ?? Data(), "application/json; charset=utf-8")
        }
        if let data = body?.data, let problem = Template.parse(data)?.problems.first {
            found.fail("rateLimit.body", problem.loadMessage(in: nil))
        }
        return RateLimitRule(
            limit: rule.limit,
            windowMs: Double(rule.windowMs ?? 60_000),
            retryAfter: rule.retryAfter,
            key: rule.key,
            body: body
        )
    }

    /// `{"data": null, "errors": [...]}` (GraphQL spec §7.1.2) for a step's `graphqlErrors`: a string is an error
    /// with that message, an object an error as written (with a string `message`), an array several of either.
    static func graphQLErrorsBody(_ errors: GraphQLErrorsEntry) -> Result<Data, PatternError> {
        let items: [JSONValue]
        if case .array(let list) = errors {
            items = list
        } else {
            items = [errors]
        }
        guard !items.isEmpty else { return .failure(PatternError(message: "give at least one error")) }
        var list: [JSONValue] = []
        for (index, item) in items.enumerated() {
            switch item {
            case .string(let message): list.append(.object(["message": .string(message)]))
            case .object(let members):
                guard case .string? = members["message"] else {
                    return .failure(
                        PatternError(message: "error \(index + 1) needs a string \"message\" (GraphQL spec §7.1.2)")
                    )
                }
                list.append(item)
            default:
                return .failure(PatternError(message: "write a message, an error object or an array of them"))
            }
        }
        guard let data = try? JSONValueEncoding.data(.object(["data": .null, "errors": .array(list)])) else {
            return .failure(PatternError(message: "cannot be written as JSON"))
        }
        return .success(data)
    }

    /// A response step (of an override, a stub or `defaults`) as a `ResponseRecipe`; `nil` when it has a problem
    /// (each is reported at its JSON path).
    func compile(
        _ entry: ResponseStepEntry,
        file: String,
        path: String,
        problems: inout [ConfigError]
    ) -> ResponseRecipe? {
        var found = EntryProblems(file: file, path: path)
        var recipe = ResponseRecipe()
        compileStatus(entry, into: &recipe, &found)
        compileHeaders(entry, into: &recipe, &found)
        compileFault(entry, into: &recipe, &found)
        compileBody(entry, into: &recipe, &found)
        compileLatency(entry, into: &recipe, &found)
        compileThrottle(entry, into: &recipe, &found)
        compileStreams(entry, into: &recipe, &found)
        recipe.literal = entry.templated == false
        compileEmissions(entry, into: &recipe, &found)
        // A placeholder that cannot render is refused here, never sent as written.
        if !recipe.literal { checkTemplates(of: entry, recipe, &found) }
        problems += found.list
        return found.list.isEmpty ? recipe : nil
    }

    /// The `status`, when it is an HTTP status code (100–999).
    private func compileStatus(
        _ entry: ResponseStepEntry,
        into recipe: inout ResponseRecipe,
        _ found: inout EntryProblems
    ) {
        guard let status = entry.status else { return }
        if (100...999).contains(status) {
            recipe.status = status
        } else {
            found.fail("status", "\(status) is not an HTTP status code (100–999)")
        }
    }

    /// `headers` (set, or removed by `null`), by name, and `addHeaders` (`Name: value` lines added as they are).
    private func compileHeaders(
        _ entry: ResponseStepEntry,
        into recipe: inout ResponseRecipe,
        _ found: inout EntryProblems
    ) {
        for (name, value) in (entry.headers ?? [:]).sorted(by: { $0.key < $1.key }) {
            if !HTTPToken.isToken(name) { found.fail("headers", "'\(name)' is not a header name") }
            if let value, !HeaderLine.isValidValue(value) {
                found.fail("headers.\(name)", "a header value cannot contain CR, LF or NUL")
            }
            recipe.headerEdits.append((name, value))
        }
        for (index, line) in (entry.addHeaders ?? []).enumerated() {
            guard let field = HeaderLine.parse(line), HTTPToken.isToken(field.name),
                HeaderLine.isValidValue(field.value)
            else {
                found.fail("addHeaders[\(index)]", "expected \"Name: value\" without CR, LF or NUL, got '\(line)'")
                continue
            }
            recipe.addHeaders.append(field)
        }
    }

    /// The `fault` and `serverUnavailable` (503 with its `Retry-After`, in s).
    private func compileFault(
        _ entry: ResponseStepEntry,
        into recipe: inout ResponseRecipe,
        _ found: inout EntryProblems
    ) {
        if let retryAfter = entry.serverUnavailable?.retryAfter, retryAfter < 0 {
            found.fail("serverUnavailable.retryAfter", "must be ≥ 0 s")
        }
        recipe.fault = entry.fault
        recipe.serverUnavailableRetryAfter = entry.serverUnavailable?.retryAfter
    }

    /// The body: `graphqlErrors`, `body` (text, or JSON) or `bodyFile` (read now, from mocks/), at most one; and
    /// `bodyPatch`, an RFC 7386 merge patch of the stub's body.
    private func compileBody(
        _ entry: ResponseStepEntry,
        into recipe: inout ResponseRecipe,
        _ found: inout EntryProblems
    ) {
        if entry.body != nil && entry.bodyFile != nil { found.fail("", #"give "body" or "bodyFile", not both"#) }
        if let errors = entry.graphqlErrors {
            if entry.body != nil || entry.bodyFile != nil {
                found.fail("", #"give "graphqlErrors" or "body"/"bodyFile", not both"#)
            }
            switch RecipeCompiler.graphQLErrorsBody(errors) {
            case .success(let body):
                recipe.body = body
                recipe.bodyContentType = "application/json; charset=utf-8"
                recipe.bodyIsJSONValue = true
            case .failure(let problem):
                found.fail("graphqlErrors", problem.message)
            }
        }
        if let body = entry.body {
            if case .string(let text) = body {
                recipe.body = Data(text.utf8)
                recipe.bodyContentType = "text/plain; charset=utf-8"
            } else {
                recipe.body = try? JSONValueEncoding.data(body)
                recipe.bodyContentType = "application/json; charset=utf-8"
                recipe.bodyIsJSONValue = true
            }
        }
        if let bodyFile = entry.bodyFile { readBodyFile(bodyFile, into: &recipe, &found) }
        if let patch = entry.bodyPatch {
            if case .object = patch {
                recipe.bodyPatch = patch
            } else {
                found.fail("bodyPatch", "must be a JSON object (RFC 7386 merge patch)")
            }
        }
    }

    /// A `bodyFile` under mocks/, read when the scenario loads (a `.json` file is served as JSON); a file that
    /// cannot be read is a problem at its own JSON path.
    private func readBodyFile(_ bodyFile: String, into recipe: inout ResponseRecipe, _ found: inout EntryProblems) {
        let reader = BodyFileReader(folder: root.mocksURL)
        do {
            recipe.body = try reader.read(bodyFile, indexName: found.file, jsonPath: "\(found.path).bodyFile")
            if bodyFile.hasSuffix(".json") { recipe.bodyContentType = "application/json; charset=utf-8" }
        } catch let error as ConfigError {
            found.list.append(
                ConfigError(
                    error.code,
                    file: found.file,
                    jsonPath: error.jsonPath,
                    message: error.message.replacingOccurrences(of: "mock set folder", with: "mocks/ folder")
                )
            )
        } catch {}
    }

    /// The `latency` model, each of its values within 0–`TimeLimits.maxDelayMs` ms.
    private func compileLatency(
        _ entry: ResponseStepEntry,
        into recipe: inout ResponseRecipe,
        _ found: inout EntryProblems
    ) {
        guard let latency = entry.latency else { return }
        let limit = TimeLimits.maxDelayMs
        switch latency {
        case .uniform(let low, let high, _) where low > high:
            found.fail("latency", "min (\(low)) must not exceed max (\(high))")
        case .uniform(let low, let high, _) where low < 0 || high > limit:
            found.fail("latency", "min and max must be within 0–\(Int(limit)) ms")
        case .fixed(let value) where value < 0 || value > limit || !value.isFinite:
            found.fail("latency", "must be within 0–\(Int(limit)) ms")
        case .logNormal(let median, let sigma, _) where !(0...limit).contains(median) || !(0...5).contains(sigma):
            found.fail("latency", "median must be within 0–\(Int(limit)) ms and sigma within 0–5")
        case .recorded(let factor) where !(0...1000).contains(factor):
            found.fail("latency", "recorded factor must be within 0–1000")
        default: recipe.latency = LatencyModel(latency)
        }
    }

    /// The `throttle`, in bytes per second, at most `TimeLimits.maxBytesPerSecond`.
    private func compileThrottle(
        _ entry: ResponseStepEntry,
        into recipe: inout ResponseRecipe,
        _ found: inout EntryProblems
    ) {
        if let rate = entry.throttle?.bytesPerSecond, rate > TimeLimits.maxBytesPerSecond {
            found.fail("throttle", "at most \(TimeLimits.maxBytesPerSecond) bytes per second")
        }
        recipe.throttle = entry.throttle?.bytesPerSecond
    }

    /// Answers sent over time: `events` (Server-Sent Events, delays within the limit), `hold` (until released or
    /// its timeout, 30 s unless given) and a `websocket` script.
    private func compileStreams(
        _ entry: ResponseStepEntry,
        into recipe: inout ResponseRecipe,
        _ found: inout EntryProblems
    ) {
        if let stream = entry.events {
            if stream.items.contains(where: { !(0...TimeLimits.maxDelayMs).contains($0.after ?? 0) }) {
                found.fail("events", "after must be within 0–\(Int(TimeLimits.maxDelayMs)) ms")
            }
            recipe.eventStream = stream
        }
        if let hold = entry.hold {
            if let timeout = hold.timeoutMs, !(timeout > 0 && timeout <= TimeLimits.maxDelayMs) {
                found.fail("hold.timeoutMs", "must be within 1–\(Int(TimeLimits.maxDelayMs)) ms")
            }
            recipe.holdMs = hold.timeoutMs ?? 30_000
        }
        if let script = entry.websocket {
            for problem in WebSocketScriptCheck.problems(script) { found.fail("websocket", problem) }
            recipe.webSocket = script
        }
    }

    /// The pushes (`emit`) sent after the answer; never in `defaults`, which follow every answer.
    private func compileEmissions(
        _ entry: ResponseStepEntry,
        into recipe: inout ResponseRecipe,
        _ found: inout EntryProblems
    ) {
        guard let emit = entry.emit else { return }
        if found.path == "defaults" {
            found.fail(
                "emit",
                "pushes belong to an override or a stub, not to defaults (they would follow every answer)"
            )
        }
        switch Emissions.compile(emit) {
        case .success(let emissions): recipe.emissions = emissions
        case .failure(let emitProblems):
            for problem in emitProblems.problems { found.fail("emit" + problem.field, problem.message) }
        }
    }

    /// The placeholders of a templated step's body, `bodyPatch` and header values: one that cannot render is a
    /// problem at the field that holds it.
    private func checkTemplates(of entry: ResponseStepEntry, _ recipe: ResponseRecipe, _ found: inout EntryProblems) {
        func check(_ data: Data?, jsonValues: Bool, _ field: String) {
            guard let data, let problem = Template.parse(data, jsonValues: jsonValues)?.problems.first else {
                return
            }
            found.fail(field, problem.loadMessage(in: field == "bodyFile" ? entry.bodyFile : nil))
        }
        check(
            recipe.body,
            jsonValues: recipe.bodyIsJSONValue,
            entry.bodyFile != nil ? "bodyFile" : entry.graphqlErrors != nil ? "graphqlErrors" : "body"
        )
        check(entry.bodyPatch.flatMap { try? JSONValueEncoding.data($0) }, jsonValues: true, "bodyPatch")
        for (name, value) in recipe.headerEdits {
            if let value, let problem = Template.problems(in: value).first {
                found.fail("headers.\(name)", problem.loadMessage(in: nil))
            }
        }
        for (index, field) in recipe.addHeaders.enumerated() {
            if let problem = Template.problems(in: field.value).first {
                found.fail("addHeaders[\(index)]", problem.loadMessage(in: nil))
            }
        }
    }
}

/// The problems of one entry, in the order found, each at a JSON path under the entry's own
/// (`overrides[2].responses[0].latency`).
private struct EntryProblems {
    let file: String
    let path: String
    var list: [ConfigError] = []

    /// An `.invalidValue` problem at `field` under the entry's path (the entry itself when `field` is empty).
    mutating func fail(_ field: String, _ message: String) {
        list.append(
            ConfigError(
                .invalidValue,
                file: file,
                jsonPath: field.isEmpty ? path : "\(path).\(field)",
                message: message
            )
        )
    }
}
