import Foundation
public import MockdFormat
import MockdPlatform

/// What a WireMock import writes: the mock set `mocks/<set>/` and the scenario `configs/<set>.json`.
public struct WireMockImport: Sendable {
    /// Exact method + URL stubs (and every body file) for `mocks/<set>/`.
    public var mockSet: MockSetBuild
    /// `sets: [<set>]` plus one override per mapping that needs a pattern, state, priority, delay or fault.
    public var scenario: ScenarioFile
    public var report: WireMockImportReport
}

/// Turns WireMock stub mappings (`mappings/*.json`: one mapping object, or `{"mappings": [...]}`) into a mock
/// set and a scenario that serves them.
///
/// Layout: a mapping that matches on an exact method and `url` only, and needs no state, delay or fault, becomes
/// a stub in the fast mock set index; every other mapping becomes a scenario override, in load order (files by
/// path, mappings in file order). Override priority is **−(WireMock priority)** (WireMock: 1 highest, default
/// 5, so default → −5); mockd's "higher wins, ties to the later one" then gives WireMock's "lower number wins,
/// ties to the one added later". Because overrides are tried before the index, an exact stub goes to the
/// index only when every override that could answer its method and URL comes first in WireMock too; otherwise
/// it stays an override. Of exact stubs with the same method and URL only the one WireMock would answer with
/// is written; the others are reported.
public enum WireMockImporter {
    /// Reads and maps every file of `source`.
    ///
    /// - Parameters:
    ///   - set: The mock set (and scenario) name; override `bodyFile`s point into `mocks/<set>/bodies/`.
    /// - Returns: What to write and the report. Either part may be empty; the caller decides whether an import
    ///   with nothing to write is an error.
    /// - Throws: `WireMockImportError` for the first malformed file (not JSON, wrong types, an invalid regex,
    ///   an unknown fault) — nothing should be written then.
    /// - Complexity: O(mappings² ) for the precedence check between exact stubs and overrides (cheap per pair).
    ///   - globalTemplating: Render `{{…}}` in every mapping's response, as WireMock does when started with
    ///     `--global-response-templating`; by default only mappings with the `response-template` transformer.
    ///   - redact: Replace secrets and personal data in responses with placeholders, as `import-har` does. Off by
    ///     default: mappings are hand-written fixtures (fake phone numbers, test tokens), served as written, as
    ///     WireMock serves them; `mockd lint` reports what looks like a secret either way.
    public static func build(
        _ source: WireMockSource,
        set: String,
        globalTemplating: Bool = false,
        redact: Bool = false
    ) throws(WireMockImportError) -> WireMockImport {
        var mapper = WireMockMapper(source: source, globalTemplating: globalTemplating)
        var report = WireMockImportReport()
        var candidates: [WireMockCandidate] = []
        var order = 0
        for file in source.files {
            let root = try WireMockNode.read(file.url, display: file.display)
            report.filesRead += 1
            let mappings: [(node: WireMockNode, id: String)]
            guard case .object(let members) = root.value else {
                throw root.fail(
                    "not a WireMock stub mapping (expected an object with \"request\" and \"response\", or \"mappings\": […]), got \(root.typeName)"
                )
            }
            if let list = root["mappings"] {
                mappings = try list.array().enumerated().map { ($0.element, "\(file.stem)[\($0.offset)]") }
                for key in members.keys.sorted() where key != "mappings" && key != "meta" {
                    report.unmapped.append(
                        .init(
                            file: file.display,
                            jsonPath: root.childPath(key),
                            reason: "unknown field beside \"mappings\"; ignored"
                        )
                    )
                }
            } else if members["request"] != nil || members["response"] != nil {
                mappings = [(root, file.stem)]
            } else {
                throw root.fail(
                    "not a WireMock stub mapping (expected \"request\" and \"response\", or \"mappings\": […])"
                )
            }
            for (node, id) in mappings {
                report.mappingsRead += 1
                let before = mapper.items.count
                let candidate = try mapper.map(node, id: id, order: order)
                order += 1
                report.unmapped += mapper.items[before...]
                if let candidate { candidates.append(candidate) } else { report.mappingsSkipped += 1 }
            }
        }

        // With `redact`, hygiene as `import-har` does by default: secrets and personal data in responses become
        // placeholders (rendered to fixed fake values when served), unstable headers are not kept. Responses sent
        // literally (`{{…}}` without WireMock's response-template) are left alone, since placeholders would not render.
        var redactor = Redactor()
        let unstable = Set(UnstableHeaders.defaults)
        for index in candidates.indices where redact && !candidates[index].response.literal {
            var response = candidates[index].response
            let entry = candidates[index].order
            response.headers = response.headers.compactMap { header in
                if unstable.contains(header.name.lowercased()) {
                    report.unstableHeadersDropped[header.name.lowercased(), default: 0] += 1
                    return nil
                }
                return (header.name, redactor.redactHeader(name: header.name, value: header.value, entry: entry))
            }
            let contentType = response.headers.first { $0.name.caseInsensitiveEquals("content-type") }?.value
            switch response.body {
            case .text(let text):
                if let clean = redactor.redactResponseBody(Data(text.utf8), mimeType: contentType, entry: entry) {
                    response.body = .text(String(decoding: clean, as: UTF8.self))
                }
            case .file(let path):
                if let data = mapper.files[path],
                    let clean = redactor.redactResponseBody(data, mimeType: contentType, entry: entry)
                {
                    mapper.files[path] = clean
                }
            case .empty, .json:
                break
            }
            candidates[index].response = response
        }
        report.redactions = redactor.log

        // Exact stubs sharing a method and URL: WireMock only ever answers with the one that comes first.
        var groups: [RequestKey: [WireMockCandidate]] = [:]
        for candidate in candidates {
            guard let exact = candidate.exact else { continue }
            groups[RequestKey(HTTPRequest(method: exact.method, target: exact.url)), default: []].append(candidate)
        }
        var winners: [WireMockCandidate] = []
        var shadowed: [(WireMockCandidate, by: WireMockCandidate)] = []
        for group in groups.values {
            let winner = group.dropFirst().reduce(group[0]) { $0.precedes($1) ? $0 : $1 }
            winners.append(winner)
            shadowed += group.filter { $0.order != winner.order }.map { ($0, by: winner) }
        }
        for (loser, winner) in shadowed.sorted(by: { $0.0.order < $1.0.order }) {
            report.unmapped.append(
                .init(
                    file: loser.file,
                    jsonPath: loser.jsonPath,
                    reason:
                        "never answers: \(winner.location) has the same method and URL and comes first (in WireMock too); mapping skipped"
                )
            )
            report.mappingsSkipped += 1
        }
        let shadowedOrders = Set(shadowed.map(\.0.order))
        let patterns = candidates.filter { $0.exact == nil }
        var indexed: Set<Int> = []
        for winner in winners {
            let exact = winner.exact!
            let overtaken = patterns.contains { other in
                !other.precedes(winner) && other.pattern.couldMatch(method: exact.method, target: exact.url)
            }
            if !overtaken { indexed.insert(winner.order) }
        }

        var stubs: [MockSetFile.StubEntry] = []
        var overrides: [ScenarioFile.OverrideEntry] = []
        for candidate in candidates.sorted(by: { $0.order < $1.order }) where !shadowedOrders.contains(candidate.order)
        {
            if indexed.contains(candidate.order) {
                stubs.append(stubEntry(candidate))
            } else {
                overrides.append(overrideEntry(candidate, set: set))
            }
        }
        report.stubsWritten = stubs.count
        report.overridesWritten = overrides.count
        let scenario = ScenarioFile(
            description:
                "Imported from WireMock mappings by mockd import-wiremock; overrides keep WireMock's order (priority = −WireMock priority).",
            sets: [set],
            overrides: overrides
        )
        return WireMockImport(
            mockSet: MockSetBuild(file: MockSetFile(stubs: stubs), files: mapper.files),
            scenario: scenario,
            report: report
        )
    }

    static func stubEntry(_ candidate: WireMockCandidate) -> MockSetFile.StubEntry {
        let exact = candidate.exact!
        let request = HTTPRequest(method: exact.method, target: exact.url)
        let response = candidate.response
        var entry = MockSetFile.ResponseEntry(
            status: response.status,
            headers: response.headers.map { "\($0.name): \($0.value)" }
        )
        if entry.headers?.isEmpty == true { entry.headers = nil }
        switch response.body {
        case .empty: break
        case .text(let text): entry.body = text
        case .json(let json): entry.json = json
        case .file(let path): entry.bodyFile = path
        }
        if response.literal { entry.templated = .off }
        entry.emit = response.emit
        return MockSetFile.StubEntry(
            id: candidate.id,
            request: MockSetFile.RequestEntry(
                method: exact.method,
                path: String(request.path),
                query: request.query.isEmpty ? nil : String(request.query)
            ),
            responses: [entry]
        )
    }

    static func overrideEntry(_ candidate: WireMockCandidate, set: String) -> ScenarioFile.OverrideEntry {
        let response = candidate.response
        var step = ResponseStepEntry(status: response.status)
        switch response.body {
        case .empty: if response.fault == nil { step.body = .string("") }
        case .text(let text): step.body = .string(text)
        case .json(.string(let text)):
            step.body = .string((try? String(decoding: JSONValueEncoding.data(.string(text)), as: UTF8.self)) ?? "")
        case .json(let json): step.body = json
        case .file(let path): step.bodyFile = "\(set)/\(path)"
        }
        // Single headers are set; repeated ones (several Set-Cookie) are added line by line.
        var headers: [String: String?] = [:]
        var addHeaders: [String] = []
        for (name, value) in response.headers {
            if response.headers.filter({ $0.name.caseInsensitiveEquals(name) }).count == 1 {
                headers[name] = value
            } else {
                addHeaders.append("\(name): \(value)")
            }
        }
        // A whole-response step adds a Content-Type for its body; the mapping's own headers are all it sends.
        if step.body != nil || step.bodyFile != nil,
            !response.headers.contains(where: { $0.name.caseInsensitiveEquals("Content-Type") })
        {
            headers["Content-Type"] = String?.none
        }
        if !headers.isEmpty { step.headers = headers }
        if !addHeaders.isEmpty { step.addHeaders = addHeaders }
        step.latency = response.latency
        step.throttle = response.throttle.map { ThrottleEntry(bytesPerSecond: $0) }
        step.fault = response.fault
        if response.literal { step.templated = false }
        step.emit = response.emit
        return ScenarioFile.OverrideEntry(
            id: candidate.id,
            priority: -candidate.wireMockPriority,
            match: candidate.match,
            step: step,
            state: candidate.state
        )
    }
}

/// Writes a `WireMockImport`: the mock set folder atomically (as `MockSetWriter`), then `configs/<set>.json`
/// atomically (written beside, renamed into place).
public struct WireMockWriter: Sendable {
    public let root: MockdRoot

    public init(root: MockdRoot) {
        self.root = root
    }

    /// - Parameters:
    ///   - replace: Replace an existing mock set or scenario of that name (`--force`).
    /// - Throws: `WireMockImportError` `.outputExists` (nothing written) when either exists and `replace` is
    ///   false, `.writeFailed` when the disk refuses.
    public func write(_ result: WireMockImport, set: String, replace: Bool) throws(WireMockImportError) {
        let fileManager = FileManager.default
        let configURL = root.configURL(set)
        let setDisplay = root.display(root.setURL(set)) + "/"
        let configDisplay = root.display(configURL)
        if !replace {
            for (url, display, what) in [
                (root.setURL(set), setDisplay, "mock set"), (configURL, configDisplay, "scenario"),
            ]
            where fileManager.fileExists(atPath: url.path) {
                throw WireMockImportError(
                    .outputExists,
                    file: display,
                    message:
                        "\(what) '\(set)' already exists; pass --force to replace it (hand edits there would be lost)"
                )
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let staging = root.configsURL.appendingPathComponent(
            ".\(set).json.importing-\(ProcessInfo.processInfo.processIdentifier)-\(UInt32.random(in: 0...UInt32.max))"
        )
        do {
            var data = try encoder.encode(result.scenario)
            data.append(0x0A)
            try fileManager.createDirectory(at: root.configsURL, withIntermediateDirectories: true)
            try data.write(to: staging)
        } catch {
            try? fileManager.removeItem(at: staging)
            throw WireMockImportError(
                .writeFailed,
                file: configDisplay,
                message: "could not write the scenario (\(oneLine(error.localizedDescription))); nothing was changed"
            )
        }
        do {
            try MockSetWriter(root: root).write(result.mockSet, set: set, replace: true, source: "")
        } catch {
            try? fileManager.removeItem(at: staging)
            throw WireMockImportError(.writeFailed, file: setDisplay, message: "\(error)")
        }
        do {
            try FileSystem.rename(staging.path, to: configURL.path)
        } catch {
            let reason = FileDescriptor.message(of: error)
            try? fileManager.removeItem(at: staging)
            throw WireMockImportError(
                .writeFailed,
                file: configDisplay,
                message: "could not write the scenario (\(reason)); the mock set was written"
            )
        }
    }
}
