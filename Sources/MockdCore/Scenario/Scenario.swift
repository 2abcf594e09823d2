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
            } catch let error as ConfigError
                where error.code == .fileNotFound
                && error.file == root.display(root.setURL(set.name).appendingPathComponent("index.json"))
            {
                // Named from where the set is named: the scenario's line is the one to fix, or the set to create.
                problems.append(
                    ConfigError(
                        .fileNotFound,
                        file: set.display,
                        jsonPath: "sets[\(set.position)]",
                        message:
                            "mock set '\(set.name)' not found: no \(error.file) (create it with `mockd import-har FILE --set \(set.name)`)"
                    )
                )
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
        /// The scenario file that names the set, and where in its `sets`.
        let display: String
        let position: Int
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
            resolved.sets.append(SetReference(name: set, display: display, position: position))
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
