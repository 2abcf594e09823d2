import Foundation
import MockdCore
import MockdServer

/// `mockd record --upstream URL --set NAME`: a reverse proxy that records every exchange, then writes a HAR
/// and compiles it into `mocks/NAME/` on SIGINT/SIGTERM and on `POST /__mockd/record/flush`.
///
/// It serves an empty scenario with the upstream proxy on, so every request but the control API's is an
/// unmatched one the proxy forwards.
enum RecordCommand {
    static func run(_ options: RecordOptions) -> ExitCode {
        let root = MockdRoot.resolve(option: options.serve.root)
        if let problem = ServeCommand.rootProblem(root, option: options.serve.root) {
            Output.error("mockd: \(problem)")
            return .failure
        }
        let setURL = root.setURL(options.set)
        let existing: Recorder.ExistingSet
        if FileManager.default.fileExists(atPath: setURL.path) {
            guard options.merge || options.force else {
                Output.error(
                    "mockd: mock set '\(options.set)' already exists (\(root.display(setURL))/); pass --merge to merge the recording into it or --force to replace it"
                )
                return .failure
            }
            existing = options.merge ? .merge : .replace
        } else {
            existing = .create
        }
        let harURL: URL
        if let har = options.har {
            harURL = URL(fileURLWithPath: har)
            if FileManager.default.fileExists(atPath: harURL.path), !options.force {
                Output.error("mockd: --har \(har): the file exists; pass --force to overwrite it, or choose another name")
                return .failure
            }
        } else {
            harURL = defaultHAR(root: root, set: options.set)
        }
        let origin = options.serve.upstream.origin ?? ""
        let recorder = makeRecorder(set: options.set, root: root, harURL: harURL, existing: existing, upstream: origin)
        let scenario = Scenario(name: "record-\(options.set)", sets: [], index: StubIndex(layers: []))
        let mode = existing == .merge ? " (merged into the existing set)" : existing == .replace ? " (replacing the existing set)" : ""
        return ServeCommand.serve(
            options.serve, scenario: scenario, root: root, loader: nil, recorder: recorder,
            banner: "mockd: recording \(origin) into mocks/\(options.set)/\(mode), HAR \(recorder.harDisplay); "
                + "Ctrl-C or POST /__mockd/record/flush writes them"
        )
    }

    /// A recorder whose flushes print the import report to stdout.
    static func makeRecorder(set: String, root: MockdRoot, harURL: URL, existing: Recorder.ExistingSet, upstream: String) -> Recorder {
        Recorder(set: set, root: root, harURL: harURL, existing: existing, upstream: upstream) { result in
            Output.standard(result.report)
            if result.entries > 0, !result.report.hasPrefix("nothing new") {
                Output.standard("  har:            \(result.har) (\(result.entries) exchanges, \(result.failed) failed; unredacted: keep it out of git)")
            }
        }
    }

    /// `<root>/recordings/<set>-<yyyyMMdd-HHmmss>.har` in UTC, with `-2`, `-3`… when taken.
    static func defaultHAR(root: MockdRoot, set: String) -> URL {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        let folder = root.url.appendingPathComponent("recordings", isDirectory: true)
        let base = "\(set)-\(formatter.string(from: Date()))"
        var candidate = folder.appendingPathComponent(base + ".har")
        var counter = 2
        while FileManager.default.fileExists(atPath: candidate.path) {
            candidate = folder.appendingPathComponent("\(base)-\(counter).har")
            counter += 1
        }
        return candidate
    }
}
