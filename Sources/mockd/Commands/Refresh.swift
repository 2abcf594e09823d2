import Foundation
import MockdCore
import MockdFormat
import MockdServer

/// `mockd refresh --upstream URL --set NAME [--into NEW]`: ask the live API every recorded request of a set again
/// and compile the answers into a new set (or the old one), printing what changed.
struct Refresh: MockdCommand, Equatable {
    var set: String
    var into: String?
    var upstream: UpstreamFlags
    /// `Name: value` headers sent with every request and written nowhere.
    var headers: [String]
    var concurrency = 4
    var force = false
    var root: String?

    static let name = "refresh"
    static let abstract: String? = "Replay a set's recorded requests against the live API and show what changed"
    static let synopsis = [
        "mockd refresh --upstream <url> --set <name> [--into <new-name>] [--header 'Name: value']..."
    ]
    static let help = """
        OVERVIEW: Replay every stub's recorded request (method, path and query, matched headers, body) against the
        live API and compile the answers through the importer (hygiene on) into a new set, keeping the old one
        for regression (--into), or merged into the old set. Prints the requests the upstream refused (401, 403)
        or that now fail (5xx, a 4xx where a success was recorded, no answer), the stubs that cannot be replayed
        (no recorded request: hand-written or WireMock sets; placeholders in the request), then the diff of the
        two sets as `mockd diff` prints it.

        Credentials go in --header (or $MOCKD_UPSTREAM_AUTHORIZATION): they are sent with every request and
        written to no set, HAR or log.

        USAGE: mockd refresh --upstream <url> --set <name> [--into <new-name>] [--header 'Name: value']...
                             [--concurrency <n>] [--upstream-timeout <s>] [--upstream-insecure] [--upstream-ca <file>]
                             [--force] [--root <dir>]

        OPTIONS:
          --upstream <url>        The live API's origin (http or https, no path).
          --set <name>            The recorded set to refresh.
          --into <new-name>       Write the answers to this new set and keep the old one. (default: merge into --set)
          --header <line>         A header sent with every request, such as 'Authorization: Bearer …'; repeatable.
                                  (default: Authorization from $MOCKD_UPSTREAM_AUTHORIZATION when set)
          --concurrency <n>       Requests in flight at once. (default: 4)
          --upstream-timeout <s>  Seconds for each request. (default: 30)
          --upstream-insecure     Do not verify the upstream's TLS certificate.
          --upstream-ca <file>    PEM file of extra CA certificates for the upstream.
          --force                 Replace the --into set if it exists.
          --root <dir>            Folder holding mocks/. (default: $MOCKD_ROOT, else the current directory)
          -h, --help              Show help information.
        """

    static func parse(_ arguments: [String], environment: [String: String]) throws -> Refresh {
        var command = Refresh(set: "", upstream: UpstreamFlags(), headers: [])
        var set: String?
        var reader = ArgumentReader(arguments)
        while let argument = try reader.next() {
            switch argument {
            case "--set": set = try reader.value(for: argument)
            case "--into": command.into = try reader.value(for: argument)
            case "--upstream": command.upstream.origin = try ServerFlags.upstreamOrigin(try reader.value(for: argument))
            case "--upstream-timeout":
                command.upstream.timeoutSeconds = try reader.seconds(for: argument, in: 0.001...3600)
            case "--upstream-insecure": command.upstream.insecure = true
            case "--upstream-ca": command.upstream.caFile = try reader.value(for: argument)
            case "--header":
                let line = try reader.value(for: argument)
                guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
                    throw UsageError("--header must be 'Name: value'; got a line without a name and a colon")
                }
                command.headers.append(line)
            case "--concurrency": command.concurrency = try reader.integer(for: argument, in: 1...256)
            case "--force": command.force = true
            case "--root": command.root = try reader.value(for: argument)
            default: throw UsageError.unknown(argument)
            }
        }
        guard let set else { throw UsageError("refresh needs --set <name>: the recorded set to refresh") }
        guard command.upstream.origin != nil else { throw UsageError("refresh needs --upstream <url>: the live API") }
        if command.headers.isEmpty, let token = environment["MOCKD_UPSTREAM_AUTHORIZATION"], !token.isEmpty {
            command.headers.append("Authorization: \(token)")
        }
        command.set = set
        return command
    }

    func run() -> ExitCode {
        let root = MockdRoot.resolve(option: self.root)
        let destination = into ?? set
        for name in [set, destination] where !MockdRoot.isValidName(name) {
            Output.error("mockd: '\(name)' is not a valid mock set name (use letters, digits, '.', '_' and '-')")
            return .usage
        }
        if let into, !force, FileManager.default.fileExists(atPath: root.setURL(into).path) {
            Output.error(
                "mockd: \(root.display(root.setURL(into))): mock set '\(into)' already exists; pass --force to replace it"
            )
            return .failure
        }
        let origin = upstream.origin!
        do {
            let old = try MockSetSource.read(root.setURL(set), display: root.display(root.setURL(set)))
            let plan = RefreshPlan(old, upstream: origin)
            let exchanges = replay(plan, origin: origin)
            var refused: [String] = []
            var failing: [String] = []
            // Answers that are refusals, failures or no answer never replace a recording: an expired token or a
            // broken staging server must not wreck a set. Those stubs keep their recorded answers.
            var kept: [ProxiedExchange] = []
            for (replay, exchange) in zip(plan.replays, exchanges) {
                let what = "\(replay.method) \(replay.target)"
                switch exchange.result {
                case .failure(let failure): failing.append("\(what): no answer (\(failure.message))")
                case .success(let response) where response.status == 401 || response.status == 403:
                    refused.append("\(what): \(response.status)")
                case .success(let response)
                where response.status >= 500 || (response.status >= 400 && replay.previousStatus < 400):
                    failing.append("\(what): \(response.status) (was \(replay.previousStatus))")
                default: kept.append(exchange)
                }
            }
            var lines = [
                "refreshed \(root.display(root.setURL(set)))/ from \(origin) into \(root.display(root.setURL(destination)))/: \(plan.replays.count) requests replayed"
            ]
            lines.append("  refused:        \(refused.count)")
            lines += refused.map { "    " + $0 }
            lines.append("  now failing:    \(failing.count)")
            lines += failing.map { "    " + $0 }
            lines.append("  not replayed:   \(plan.skipped.count)")
            lines += plan.skipped.map { "    " + $0 }
            guard !exchanges.isEmpty else {
                lines.append("  nothing written: no request could be replayed")
                Output.standard(lines.joined(separator: "\n"))
                return .failure
            }
            guard !kept.isEmpty else {
                lines.append(
                    "  nothing written: no request got an answer worth keeping; the recordings stay as they are"
                )
                Output.standard(lines.joined(separator: "\n"))
                return .failure
            }
            let troubled = refused.count + failing.count
            if troubled > 0 {
                lines.append(
                    "  kept the recorded answers of the \(troubled) refused or failing request\(troubled == 1 ? "" : "s") (exit 1)"
                )
            }
            // --into starts from a copy of the old set, so what was not re-recorded (or was refused) is still there.
            if into != nil {
                let target = root.setURL(destination)
                if FileManager.default.fileExists(atPath: target.path) {
                    try FileManager.default.removeItem(at: target)
                }
                try FileManager.default.copyItem(at: root.setURL(set), to: target)
            }
            let har = FileManager.default.temporaryDirectory.appendingPathComponent(
                "mockd-refresh-\(ProcessInfo.processInfo.processIdentifier)-\(UInt32.random(in: 0...UInt32.max)).har"
            )
            defer { try? FileManager.default.removeItem(at: har) }
            // The HAR holds the recorded headers only: the credentials of --header are never written.
            try RecordingHAR.document(kept).write(to: har)
            let result = try HARImportPipeline.run(
                har: har,
                displayName: "refresh of \(set) from \(origin)",
                into: destination,
                root: root,
                options: HARImportOptions(),
                merge: true,
                replace: true
            )
            guard result.setWritten else {
                lines.append("  nothing written: no answer could be compiled")
                Output.standard(lines.joined(separator: "\n"))
                return .failure
            }
            let new = try MockSetSource.read(root.setURL(destination), display: destination)
            let changelog = MockSetDiff.changelog(from: old, to: new)
            lines.append(changelog.rendered(.text, old: set, new: destination))
            Output.standard(lines.joined(separator: "\n"))
            return troubled > 0 ? .failure : .success
        } catch {
            Output.error("mockd: \(error)")
            return .failure
        }
    }

    /// Sends every replay through the recorder's libcurl client, `concurrency` at a time; the answers in plan order.
    private func replay(_ plan: RefreshPlan, origin: String) -> [ProxiedExchange] {
        let client = UpstreamClient(
            configuration: UpstreamClient.Configuration(
                origin: origin,
                timeoutSeconds: upstream.timeoutSeconds,
                insecure: upstream.insecure,
                caFile: upstream.caFile
            )
        )
        defer { client.stop() }
        let slots = DispatchSemaphore(value: concurrency)
        let group = DispatchGroup()
        let results = ResultBox(count: plan.replays.count)
        for (index, replay) in plan.replays.enumerated() {
            var sent = replay.headers
            for line in headers {
                let colon = line.firstIndex(of: ":")!
                let name = String(line[..<colon])
                sent.remove(name: name)
                sent.add(name: name, value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            }
            slots.wait()
            group.enter()
            let started = Date()
            let request = UpstreamClient.Request(
                method: replay.method,
                target: replay.target,
                headers: sent,
                body: replay.body,
                hasBody: !replay.body.isEmpty
            )
            client.send(request) { result in
                results.set(
                    index,
                    ProxiedExchange(
                        order: UInt64(index),
                        startedAt: started,
                        elapsedMs: Date().timeIntervalSince(started) * 1000,
                        method: replay.method,
                        url: replay.recordedURL,
                        requestHeaders: replay.headers,
                        requestBody: replay.body,
                        result: result
                    )
                )
                slots.signal()
                group.leave()
            }
        }
        group.wait()
        return results.values
    }
}

/// The answers of a refresh, filled from the client's thread.
private final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [ProxiedExchange?]

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ exchange: ProxiedExchange) {
        lock.lock()
        slots[index] = exchange
        lock.unlock()
    }

    var values: [ProxiedExchange] {
        lock.lock()
        defer { lock.unlock() }
        return slots.compactMap { $0 }
    }
}
