import Foundation
import MockdFormat
import MockdPlatform

/// A loaded scenario: mock sets layered into one `StubIndex`, plus overrides and defaults.
///
/// Immutable, and a class so that taking the session's scenario on every request is one retain rather than a copy
/// of every field.
public final class Scenario: Sendable {
    public let name: String
    public let description: String?
    public let sets: [String]
    public let index: StubIndex
    /// Sorted for matching: highest priority first, then later position first.
    public let overrides: [Override]
    let defaults: ResponseRecipe?
    public let conditionalRequests: Bool
    /// Whether unmatched CORS preflights get a permissive 204 and every answer allows the request's origin (a set's or
    /// the scenario's `cors`).
    public let cors: Bool
    /// No overrides, defaults, conditional requests or CORS: a matched stub's response is served as loaded (decided
    /// once, as every request asks).
    let servesStubsAsLoaded: Bool
    /// Whether some override names a host (`match.host`): only then is a request's host worked out for overrides.
    let overridesNameHosts: Bool
    /// Stateful REST collections (`resources[]`), tried after the overrides and before the mock sets.
    let resources: [Resource]
    /// The file and index in its `overrides` of each override, by `position`, for messages.
    let overrideSources: [(file: String, index: Int)]
    /// Whether this scenario is a mock set served alone (`mockd --set NAME`, `Scenario.single`): its name is the set's.
    public let isSingleSet: Bool
    /// Which of `index.stubs` (by ordinal) ever answered, directly or edited by an override, in any session: coverage
    /// over the daemon's life (`CoverageReport`). The overrides keep their own flag (`Override.wasUsed`).
    let stubUsage: AtomicFlags

    public convenience init(
        name: String,
        description: String? = nil,
        sets: [String],
        index: StubIndex,
        cors: Bool = false
    ) {
        self.init(
            name: name,
            description: description,
            sets: sets,
            index: index,
            overrides: [],
            defaults: nil,
            conditionalRequests: false,
            cors: cors
        )
    }

    init(
        name: String,
        description: String?,
        sets: [String],
        index: StubIndex,
        overrides: [Override],
        defaults: ResponseRecipe?,
        conditionalRequests: Bool,
        cors: Bool = false,
        resources: [Resource] = [],
        isSingleSet: Bool = false,
        overrideSources: [(file: String, index: Int)] = []
    ) {
        self.overrideSources = overrideSources
        self.cors = cors
        self.resources = resources
        self.isSingleSet = isSingleSet
        self.stubUsage = AtomicFlags(count: index.stubs.count)
        self.name = name
        self.description = description
        self.sets = sets
        self.index = index
        self.overrides = overrides.sorted {
            $0.priority != $1.priority ? $0.priority > $1.priority : $0.position > $1.position
        }
        self.overridesNameHosts = overrides.contains { $0.pattern.host != nil }
        self.defaults = defaults
        self.conditionalRequests = conditionalRequests
        self.servesStubsAsLoaded =
            overrides.isEmpty && defaults == nil && !conditionalRequests && !cors && resources.isEmpty
    }

    /// Loads `configs/<name>.json` (or a `.json` path), its includes and every mock set it names.
    ///
    /// - Parameter defersBodies: Read small body files on first use (serving) rather than now (`mockd validate`);
    ///   see `MockSetLoader.defersBodies`.
    /// - Throws: `ConfigErrors` listing every problem found, each as `file: JSON path: message` — a missing
    ///   or malformed scenario, an include cycle, an unknown set, a bad override.
    public static func load(named name: String, root: MockdRoot, defersBodies: Bool = true) throws -> Scenario {
        var problems: [ConfigError] = []
        let resolved = ScenarioResolver(root: root).resolve(name, chain: [], problems: &problems)
        guard let resolved else { throw ConfigErrors(problems) }
        if resolved.sets.isEmpty {
            problems.append(
                ConfigError(
                    .invalidValue,
                    file: resolved.display,
                    jsonPath: "sets",
                    message: "name at least one mock set (directly or through include)"
                )
            )
        }
        let loader = MockSetLoader(root: root, defersBodies: defersBodies, rebaseDates: resolved.rebaseDates)
        var layers: [[Stub]] = []
        var normalization = RequestNormalization()
        var cors = resolved.cors ?? false
        var setsAnswerConditionals = false
        for set in resolved.sets {
            do {
                let loaded = try loader.loadSet(set.name)
                layers.append(loaded.stubs)
                normalization = normalization.merged(with: loaded.normalize)
                cors = cors || loaded.cors
                setsAnswerConditionals = setsAnswerConditionals || loaded.conditionalRequests
            } catch let error as ConfigError {
                problems.append(error)
            }
        }
        if let own = resolved.normalize {
            for problem in own.value.problems() {
                problems.append(
                    ConfigError(
                        .invalidValue,
                        file: own.display,
                        jsonPath: "normalize.\(problem.path)",
                        message: problem.message
                    )
                )
            }
            normalization = normalization.merged(with: own.value)
        }
        let compiler = RecipeCompiler(root: root)
        var defaults: ResponseRecipe?
        if let entry = resolved.defaults {
            defaults = compiler.compile(entry.value, file: entry.display, path: "defaults", problems: &problems)
        }
        var overrides: [Override] = []
        for (position, source) in resolved.overrides.enumerated() {
            if let override = compiler.compileOverride(
                source.entry,
                file: source.display,
                path: "overrides[\(source.index)]",
                position: position,
                problems: &problems
            ) {
                overrides.append(override)
            }
        }
        let index = StubIndex(layers: layers, normalizer: RequestNormalizer(normalization))
        let resourceCompiler = ResourceCompiler(root: root, index: index)
        var resources: [Resource] = []
        for source in resolved.resources {
            let path = "resources[\(source.index)]"
            if resources.contains(where: { $0.name == source.entry.name }) {
                problems.append(
                    ConfigError(
                        .invalidValue,
                        file: source.display,
                        jsonPath: "\(path).name",
                        message: "another resource is named '\(source.entry.name)'"
                    )
                )
            }
            if resources.contains(where: { $0.path == source.entry.path }) {
                problems.append(
                    ConfigError(
                        .invalidValue,
                        file: source.display,
                        jsonPath: "\(path).path",
                        message: "another resource already answers '\(source.entry.path)'"
                    )
                )
            }
            if let resource = resourceCompiler.compile(
                source.entry,
                file: source.display,
                path: path,
                problems: &problems
            ) {
                resources.append(resource)
            }
        }
        guard problems.isEmpty else { throw ConfigErrors(problems) }
        return Scenario(
            name: resolved.name,
            description: resolved.description,
            sets: resolved.sets.map(\.name),
            index: index,
            overrides: overrides,
            defaults: defaults,
            conditionalRequests: resolved.conditionalRequests ?? setsAnswerConditionals,
            cors: cors,
            resources: resources,
            overrideSources: resolved.overrides.map { ($0.display, $0.index) }
        )
    }

    /// The overrides that others keep from answering (`OverrideShadows`): one line each, `file: overrides[N] ('id'):
    /// …`; empty when every override can answer all it matches.
    /// - Complexity: O(n²) in the overrides.
    public func shadowWarnings() -> [String] {
        OverrideShadows.warnings(overrides, sources: overrideSources)
    }

    /// A scenario serving one mock set, for `mockd --set NAME`.
    public static func single(set name: String, root: MockdRoot) throws -> Scenario {
        let loaded = try MockSetLoader(root: root).loadSet(name)
        return Scenario(
            name: name,
            description: nil,
            sets: [name],
            index: StubIndex(layers: [loaded.stubs], normalizer: RequestNormalizer(loaded.normalize)),
            overrides: [],
            defaults: nil,
            conditionalRequests: loaded.conditionalRequests,
            cors: loaded.cors,
            isSingleSet: true
        )
    }
}

/// Follows `include` chains and merges scenario files: included content first, the including file last.
struct ScenarioResolver {
    let root: MockdRoot

    struct SetReference {
        let name: String
    }

    struct OverrideSource {
        let entry: ScenarioFile.OverrideEntry
        let display: String
        let index: Int
    }

    struct Resolved {
        var name: String
        var display: String
        var description: String?
        var sets: [SetReference] = []
        var defaults: (value: ResponseStepEntry, display: String)?
        var conditionalRequests: Bool?
        var overrides: [OverrideSource] = []
        var normalize: (value: RequestNormalization, display: String)?
        var cors: Bool?
        var resources: [(entry: ResourceEntry, display: String, index: Int)] = []
        var rebaseDates: Bool?
    }

    func resolve(_ name: String, chain: [String], problems: inout [ConfigError]) -> Resolved? {
        let url = root.configURL(name)
        let display = root.display(url)
        if chain.contains(url.path) {
            problems.append(
                ConfigError(
                    .invalidValue,
                    file: display,
                    jsonPath: "include",
                    message:
                        "include cycle: \((chain + [url.path]).map { root.display(URL(fileURLWithPath: $0)) }.joined(separator: " → "))"
                )
            )
            return nil
        }
        let file: ScenarioFile
        do {
            file = try ScenarioResolver.read(url, display: display, name: name, problems: &problems)
        } catch let error as ConfigError {
            problems.append(error)
            return nil
        } catch {
            problems.append(ConfigError(.unreadable, file: display, message: "\(error)"))
            return nil
        }
        var resolved = Resolved(
            name: url.deletingPathExtension().lastPathComponent,
            display: display,
            description: file.description
        )
        for (position, included) in (file.include ?? []).enumerated() {
            guard MockdRoot.isValidName(included) else {
                problems.append(
                    ConfigError(
                        .invalidValue,
                        file: display,
                        jsonPath: "include[\(position)]",
                        message: "'\(included)' is not a valid scenario name"
                    )
                )
                continue
            }
            guard let base = resolve(included, chain: chain + [url.path], problems: &problems) else { continue }
            for set in base.sets where !resolved.sets.contains(where: { $0.name == set.name }) {
                resolved.sets.append(set)
            }
            if let defaults = base.defaults { resolved.defaults = defaults }
            resolved.conditionalRequests = base.conditionalRequests ?? resolved.conditionalRequests
            resolved.overrides += base.overrides
            if let normalize = base.normalize {
                resolved.normalize = (
                    resolved.normalize?.value.merged(with: normalize.value) ?? normalize.value, normalize.display
                )
            }
            resolved.cors = base.cors ?? resolved.cors
            resolved.rebaseDates = base.rebaseDates ?? resolved.rebaseDates
            resolved.resources += base.resources
            resolved.description = resolved.description ?? base.description
        }
        for (position, set) in (file.sets ?? []).enumerated() {
            guard MockdRoot.isValidName(set) else {
                problems.append(
                    ConfigError(
                        .invalidValue,
                        file: display,
                        jsonPath: "sets[\(position)]",
                        message: "'\(set)' is not a valid mock set name"
                    )
                )
                continue
            }
            // A set named again moves to the later position, so it wins over the sets before it.
            resolved.sets.removeAll { $0.name == set }
            resolved.sets.append(SetReference(name: set))
        }
        if let defaults = file.defaults {
            resolved.defaults = (ResponseStepEntry.merging(defaults, over: resolved.defaults?.value), display)
        }
        if let conditional = file.conditionalRequests { resolved.conditionalRequests = conditional }
        if let normalize = file.normalize {
            resolved.normalize = (resolved.normalize?.value.merged(with: normalize) ?? normalize, display)
        }
        if let cors = file.cors { resolved.cors = cors }
        if let rebaseDates = file.rebaseDates { resolved.rebaseDates = rebaseDates }
        for (index, entry) in (file.overrides ?? []).enumerated() {
            resolved.overrides.append(OverrideSource(entry: entry, display: display, index: index))
        }
        for (index, entry) in (file.resources ?? []).enumerated() {
            // A resource named again replaces the included one.
            resolved.resources.removeAll { $0.entry.name == entry.name }
            resolved.resources.append((entry, display, index))
        }
        return resolved
    }

    static func read(_ url: URL, display: String, name: String, problems: inout [ConfigError]) throws -> ScenarioFile {
        let (file, data) = try ConfigFile.decode(
            ScenarioFile.self,
            at: url,
            display: display,
            missing: "scenario '\(name)' not found (looked for \(url.path))"
        )
        problems += KnownFields.check(data, shape: KnownFields.scenario, file: display)
        return file
    }
}

extension ResponseStepEntry {
    /// `own` fields where set, else `base` fields.
    static func merging(_ own: ResponseStepEntry, over base: ResponseStepEntry?) -> ResponseStepEntry {
        guard let base else { return own }
        var headers = base.headers ?? [:]
        for (name, value) in own.headers ?? [:] { headers[name] = value }
        return ResponseStepEntry(
            status: own.status ?? base.status,
            headers: headers.isEmpty ? nil : headers,
            addHeaders: (base.addHeaders ?? []) + (own.addHeaders ?? []),
            body: own.body ?? base.body,
            bodyFile: own.bodyFile ?? base.bodyFile,
            bodyPatch: own.bodyPatch ?? base.bodyPatch,
            latency: own.latency ?? base.latency,
            throttle: own.throttle ?? base.throttle,
            fault: own.fault ?? base.fault,
            serverUnavailable: own.serverUnavailable ?? base.serverUnavailable,
            websocket: own.websocket ?? base.websocket,
            events: own.events ?? base.events,
            hold: own.hold ?? base.hold,
            templated: own.templated ?? base.templated,
            emit: own.emit ?? base.emit,
            graphqlErrors: own.graphqlErrors ?? base.graphqlErrors
        )
    }
}

/// Compiles override and defaults entries into `Override`s and `ResponseRecipe`s, reporting problems.
struct RecipeCompiler {
    let root: MockdRoot

    func compileOverride(
        _ entry: ScenarioFile.OverrideEntry,
        file: String,
        path: String,
        position: Int,
        problems: inout [ConfigError]
    ) -> Override? {
        let before = problems.count
        let pattern = RequestPattern.compile(entry.match, file: file, path: path, problems: &problems)
        var stateRule: StateRule?
        if let state = entry.state {
            if state.name.isEmpty {
                problems.append(
                    ConfigError(
                        .invalidValue,
                        file: file,
                        jsonPath: "\(path).state.name",
                        message: "name the state machine"
                    )
                )
            } else if state.requires == nil && state.next == nil {
                problems.append(
                    ConfigError(
                        .invalidValue,
                        file: file,
                        jsonPath: "\(path).state",
                        message: #"give "requires", "next" or both"#
                    )
                )
            }
            var stateProblems: [(field: String, message: String)] = []
            func fail(_ field: String, _ message: String) { stateProblems.append((field, message)) }
            if let requires = state.requires, requires.names.isEmpty || requires.names.contains(where: \.isEmpty) {
                fail("requires", "name a state, or a non-empty list of states")
            }
            if let after = state.after {
                if after < 1 { fail("after", "must be ≥ 1 (the answer that makes the transition)") }
                if state.next == nil { fail("after", #"counts toward a transition: give "next" too"#) }
            }
            if let timeout = state.timeout {
                if timeout.afterMs < 1 { fail("timeout.afterMs", "must be ≥ 1 ms") }
                if timeout.next.isEmpty { fail("timeout.next", "name the state to move to") }
                if state.next == nil { fail("timeout", #"runs once the machine is in "next": give "next" too"#) }
            }
            for (field, message) in stateProblems {
                problems.append(
                    ConfigError(.invalidValue, file: file, jsonPath: "\(path).state.\(field)", message: message)
                )
            }
            stateRule = StateRule(
                name: state.name,
                requires: state.requires?.names,
                next: state.next,
                after: max(1, state.after ?? 1),
                timeout: state.timeout.map { (afterMs: Double($0.afterMs), next: $0.next) }
            )
        }
        var steps: [ResponseRecipe] = []
        if let responses = entry.responses {
            if responses.isEmpty {
                problems.append(
                    ConfigError(
                        .invalidValue,
                        file: file,
                        jsonPath: "\(path).responses",
                        message: "needs at least one response"
                    )
                )
            }
            for (index, step) in responses.enumerated() {
                if let recipe = compile(step, file: file, path: "\(path).responses[\(index)]", problems: &problems) {
                    steps.append(recipe)
                }
            }
        } else if let recipe = compile(entry.step, file: file, path: path, problems: &problems) {
            steps.append(recipe)
        }
        var rateLimit: RateLimitRule?
        if let rule = entry.rateLimit {
            if rule.limit < 0 || (rule.windowMs ?? 1) <= 0 || (rule.retryAfter ?? 0) < 0 {
                problems.append(
                    ConfigError(
                        .invalidValue,
                        file: file,
                        jsonPath: "\(path).rateLimit",
                        message: "limit and retryAfter must be ≥ 0 and windowMs > 0"
                    )
                )
            }
            if let key = rule.key, !RateLimitRule.isValidKey(key) {
                problems.append(
                    ConfigError(
                        .invalidValue,
                        file: file,
                        jsonPath: "\(path).rateLimit.key",
                        message:
                            "'\(key)' is not a request expression (request.json.PATH, request.header.NAME, request.query.NAME, request.method, request.path, request.body)"
                    )
                )
            }
            var body: (data: Data, contentType: String)?
            switch rule.body {
            case nil: body = nil
            case .string(let text)?: body = (Data(text.utf8), "text/plain; charset=utf-8")
            case let json?: body = ((try? JSONValueEncoding.data(json)) ?? Data(), "application/json; charset=utf-8")
            }
            if let data = body?.data, let problem = Template.parse(data)?.problems.first {
                problems.append(
                    ConfigError(
                        .invalidValue,
                        file: file,
                        jsonPath: "\(path).rateLimit.body",
                        message: MockSetLoader.templateMessage(problem, in: nil)
                    )
                )
            }
            rateLimit = RateLimitRule(
                limit: rule.limit,
                windowMs: Double(rule.windowMs ?? 60_000),
                retryAfter: rule.retryAfter,
                key: rule.key,
                body: body
            )
        }
        if let chance = entry.chance, !(0...1).contains(chance) {
            problems.append(
                ConfigError(
                    .invalidValue,
                    file: file,
                    jsonPath: "\(path).chance",
                    message: "must be a share of calls from 0 to 1, got \(chance)"
                )
            )
        }
        guard problems.count == before, !steps.isEmpty, let pattern else { return nil }
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

    func compile(
        _ entry: ResponseStepEntry,
        file: String,
        path: String,
        problems: inout [ConfigError]
    ) -> ResponseRecipe? {
        let before = problems.count
        func fail(_ field: String, _ message: String) {
            problems.append(
                ConfigError(
                    .invalidValue,
                    file: file,
                    jsonPath: field.isEmpty ? path : "\(path).\(field)",
                    message: message
                )
            )
        }
        var recipe = ResponseRecipe()
        if let status = entry.status {
            if (100...999).contains(status) {
                recipe.status = status
            } else {
                fail("status", "\(status) is not an HTTP status code (100–999)")
            }
        }
        for (name, value) in (entry.headers ?? [:]).sorted(by: { $0.key < $1.key }) {
            if !HTTPToken.isToken(name) { fail("headers", "'\(name)' is not a header name") }
            if let value, !HeaderLine.isValidValue(value) {
                fail("headers.\(name)", "a header value cannot contain CR, LF or NUL")
            }
            recipe.headerEdits.append((name, value))
        }
        for (index, line) in (entry.addHeaders ?? []).enumerated() {
            guard let field = HeaderLine.parse(line), HTTPToken.isToken(field.name),
                HeaderLine.isValidValue(field.value)
            else {
                fail("addHeaders[\(index)]", "expected \"Name: value\" without CR, LF or NUL, got '\(line)'")
                continue
            }
            recipe.addHeaders.append(field)
        }
        if let retryAfter = entry.serverUnavailable?.retryAfter, retryAfter < 0 {
            fail("serverUnavailable.retryAfter", "must be ≥ 0 s")
        }
        if entry.body != nil && entry.bodyFile != nil { fail("", #"give "body" or "bodyFile", not both"#) }
        if let errors = entry.graphqlErrors {
            if entry.body != nil || entry.bodyFile != nil {
                fail("", #"give "graphqlErrors" or "body"/"bodyFile", not both"#)
            }
            switch RecipeCompiler.graphQLErrorsBody(errors) {
            case .success(let body):
                recipe.body = body
                recipe.bodyContentType = "application/json; charset=utf-8"
                recipe.bodyIsJSONValue = true
            case .failure(let problem):
                fail("graphqlErrors", problem.message)
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
        if let bodyFile = entry.bodyFile {
            let reader = BodyFileReader(folder: root.mocksURL)
            do {
                recipe.body = try reader.read(bodyFile, indexName: file, jsonPath: "\(path).bodyFile")
                if bodyFile.hasSuffix(".json") { recipe.bodyContentType = "application/json; charset=utf-8" }
            } catch let error as ConfigError {
                problems.append(
                    ConfigError(
                        error.code,
                        file: file,
                        jsonPath: error.jsonPath,
                        message: error.message.replacingOccurrences(of: "mock set folder", with: "mocks/ folder")
                    )
                )
            } catch {}
        }
        if let patch = entry.bodyPatch {
            if case .object = patch {
                recipe.bodyPatch = patch
            } else {
                fail("bodyPatch", "must be a JSON object (RFC 7386 merge patch)")
            }
        }
        if let latency = entry.latency {
            let limit = TimeLimits.maxDelayMs
            switch latency {
            case .uniform(let low, let high, _) where low > high:
                fail("latency", "min (\(low)) must not exceed max (\(high))")
            case .uniform(let low, let high, _) where low < 0 || high > limit:
                fail("latency", "min and max must be within 0–\(Int(limit)) ms")
            case .fixed(let value) where value < 0 || value > limit || !value.isFinite:
                fail("latency", "must be within 0–\(Int(limit)) ms")
            case .logNormal(let median, let sigma, _) where !(0...limit).contains(median) || !(0...5).contains(sigma):
                fail("latency", "median must be within 0–\(Int(limit)) ms and sigma within 0–5")
            case .recorded(let factor) where !(0...1000).contains(factor):
                fail("latency", "recorded factor must be within 0–1000")
            default: recipe.latency = LatencyModel(latency)
            }
        }
        if let rate = entry.throttle?.bytesPerSecond, rate > TimeLimits.maxBytesPerSecond {
            fail("throttle", "at most \(TimeLimits.maxBytesPerSecond) bytes per second")
        }
        recipe.throttle = entry.throttle?.bytesPerSecond
        recipe.fault = entry.fault
        recipe.serverUnavailableRetryAfter = entry.serverUnavailable?.retryAfter
        if let stream = entry.events {
            if stream.items.contains(where: { !(0...TimeLimits.maxDelayMs).contains($0.after ?? 0) }) {
                fail("events", "after must be within 0–\(Int(TimeLimits.maxDelayMs)) ms")
            }
            recipe.eventStream = stream
        }
        if let hold = entry.hold {
            if let timeout = hold.timeoutMs, !(timeout > 0 && timeout <= TimeLimits.maxDelayMs) {
                fail("hold.timeoutMs", "must be within 1–\(Int(TimeLimits.maxDelayMs)) ms")
            }
            recipe.holdMs = hold.timeoutMs ?? 30_000
        }
        if let script = entry.websocket {
            for problem in WebSocketScriptCheck.problems(script) { fail("websocket", problem) }
            recipe.webSocket = script
        }
        recipe.literal = entry.templated == false
        if let emit = entry.emit {
            if path == "defaults" {
                fail("emit", "pushes belong to an override or a stub, not to defaults (they would follow every answer)")
            }
            switch Emissions.compile(emit) {
            case .success(let emissions): recipe.emissions = emissions
            case .failure(let emitProblems):
                for problem in emitProblems.problems { fail("emit" + problem.field, problem.message) }
            }
        }
        if !recipe.literal {
            // A placeholder that cannot render is refused here, never sent as written.
            func check(_ data: Data?, jsonValues: Bool, _ field: String) {
                guard let data, let problem = Template.parse(data, jsonValues: jsonValues)?.problems.first else {
                    return
                }
                fail(field, MockSetLoader.templateMessage(problem, in: field == "bodyFile" ? entry.bodyFile : nil))
            }
            check(
                recipe.body,
                jsonValues: recipe.bodyIsJSONValue,
                entry.bodyFile != nil ? "bodyFile" : entry.graphqlErrors != nil ? "graphqlErrors" : "body"
            )
            check(entry.bodyPatch.flatMap { try? JSONValueEncoding.data($0) }, jsonValues: true, "bodyPatch")
            for (name, value) in recipe.headerEdits {
                if let value, let problem = Template.problems(in: value).first {
                    fail("headers.\(name)", MockSetLoader.templateMessage(problem, in: nil))
                }
            }
            for (index, field) in recipe.addHeaders.enumerated() {
                if let problem = Template.problems(in: field.value).first {
                    fail("addHeaders[\(index)]", MockSetLoader.templateMessage(problem, in: nil))
                }
            }
        }
        return problems.count == before ? recipe : nil
    }
}
