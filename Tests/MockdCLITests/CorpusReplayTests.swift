import Foundation
import MockdTestSupport
import Testing

@testable import MockdCore

/// Every HAR of the shared corpus: import it with the real binary as a newcomer does (no options: hygiene on,
/// every host), serve it on a loopback port, replay every entry in HAR order with curl (with their recorded, real
/// credentials) naming no host, except where one method and target was recorded on several hosts (then with
/// `/__host/NAME/`, as an app with one base URL per backend), and compare status and exact body bytes.
///
/// What the recording justifies is decided here from the HAR as written (`ReplayEntry`, `ReplayExpectation`), never
/// with the importer's code for URLs:
/// - Targets: the URL's path and query exactly as written, percent-encoded only where a browser encodes (the URL
///   Standard's path and query percent-encode sets: controls, space, `"`, `#`, `<`, `>`, in a path also `?`, `` ` ``,
///   `{`, `}`, and non-ASCII as UTF-8); `[`, `]`, `|` and every `%XX` go out as written.
/// - `_failureText` / `_error` (Chrome's `net::ERR_ABORTED`): the answer never completed, so it is not replayed —
///   except where a client reads no body (a `HEAD`, 1xx, 204, 205, 304, a 3xx with `Location` or `redirectURL`):
///   then status and headers arrived and are the whole answer, expected as recorded with an empty body. Status 0
///   and -1, no response, WebSocket and non-HTTP entries are not replayed either.
/// - Missing bodies: a body the HAR sizes (`content.size` or `Content-Length`) but does not hold is expected as a
///   miss that says "body not recorded", except for those same bodiless answers, expected with an empty body.
/// - 304: a conditional request gets it; a plain request gets the nearest full 2xx answer recorded for the same
///   request (an earlier one first), else the 304 itself when neither the request nor the 304 carries a validator
///   (the server answered that plain request so), else a miss saying "recorded only as 304".
/// - 206: a request with `Range` gets the recorded bytes; one without gets the whole representation when
///   `Content-Range` says the body is all of it (as 200), else a miss saying "recorded only as 206".
/// - Bodies: the recorded bytes (redacted secrets replaced by their placeholders' fake values), the recorded hosts'
///   absolute URLs pointing at the mock except identifiers (a problem `type`, `$schema`, JSON-LD `@context`/`@id`,
///   XML namespaces), which keep the recorded origin.
///
/// Each file prints `justified answers served` (exact status and bytes) and `refused` (a miss that says why, where the
/// recording justifies no answer) out of the entries replayed; every one must hold.
@Suite(.serialized)
struct CorpusReplayTests {
    /// Files that are not HAR logs; import must fail with one line and write nothing.
    static let invalidFiles: Set<String> = [
        "mitmproxy__brokenfile.har", "harviewer__jsonp.har", "harviewer__not-valid.har",
        "har-validator__invalid-date.har", "har-validator__invalid-version.har",
    ]

    static let validFiles = Paths.corpusHARFiles(for: "CorpusReplayTests").filter {
        !invalidFiles.contains($0.lastPathComponent)
    }

    @Test(arguments: validFiles)
    func replaysWhatTheRecordingJustifies(_ harURL: URL) throws {
        let name = harURL.lastPathComponent
        let archive = try HARReader.read(contentsOf: harURL)
        let entries = archive.entries.compactMap(ReplayEntry.init)
        guard !entries.isEmpty else {
            let root = Paths.makeTemporaryDirectory()
            defer { try? FileManager.default.removeItem(at: root) }
            let result = try ProcessRunner.mockd(["import-har", harURL.path, "--set", "replay", "--root", root.path])
            if archive.entries.contains(where: { !$0.webSocketMessages.isEmpty }) {
                // Only WebSocket entries: they import as scripts (replayed in webSocketEntriesReplayTheirFrames).
                #expect(result.status == 0, "\(name): \(result.stderr)")
                print("replay \(name): 0 HTTP entries; WebSocket entries imported as scripts")
            } else {
                // Nothing replayable (a data: URL with status 1): import refuses with a one-line reason.
                #expect(result.status == 1, "\(name): \(result.stderr)")
                #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("mocks/replay").path))
                print(
                    "replay \(name): 0/0 (no replayable entry; import exits 1: \(result.stderr.split(separator: "\n").last ?? ""))"
                )
            }
            return
        }
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let imported = try ProcessRunner.mockd(["import-har", harURL.path, "--set", "replay", "--root", root.path])
        try #require(imported.status == 0, "\(name): import failed: \(imported.stderr)")

        let daemon = try RunningDaemon(["--set", "replay", "--root", root.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        let hosts = Set(entries.map(\.host))
        var hostsByTarget: [String: Set<String>] = [:]
        for entry in entries { hostsByTarget["\(entry.method) \(entry.target)", default: []].insert(entry.host) }
        let colliding = entries.filter { hostsByTarget["\($0.method) \($0.target)"]!.count > 1 }.count
        let responses = try Curl.batch(
            entries.map {
                $0.curlRequest(
                    baseURL: daemon.baseURL
                        + (hostsByTarget["\($0.method) \($0.target)"]!.count > 1 ? "/__host/\($0.host)" : "")
                )
            }
        )
        let rewriting = ExpectedURLs(hosts: hosts, mock: daemon.baseURL)
        var failures: [String] = []
        var served = 0
        var refused = 0
        var refusalFailures = 0
        var counts: [String: Int] = [:]
        for (position, response) in responses.enumerated() {
            let entry = entries[position]
            let expectation = ReplayExpectation(for: position, in: entries)
            counts[expectation.kind, default: 0] += 1
            switch expectation.outcome {
            case .miss(let saying):
                refused += 1
                // A HEAD answer has no body to read the reason in.
                if response.status != 404 || (entry.method != "HEAD" && !response.text.contains(saying)) {
                    refusalFailures += 1
                    failures.append(
                        "entry \(entry.index) \(entry.method) \(entry.target): expected a miss saying '\(saying)', got \(response.status) \(response.text.prefix(120))"
                    )
                }
            case .answer(let expected):
                served += 1
                var body = expected.body
                var redactor = Redactor()
                if let clean = redactor.redactResponseBody(
                    body,
                    mimeType: expected.mimeType,
                    entry: expected.index,
                    path: expected.path
                ) {
                    body = Template.renderingFakeValues(in: clean)
                    counts["redacted", default: 0] += 1
                }
                if let rewritten = rewriting.expected(body, mimeType: expected.mimeType) {
                    body = rewritten
                    counts["URLs pointing at the mock", default: 0] += 1
                }
                if response.status != expected.status {
                    failures.append(
                        "entry \(entry.index) \(entry.method) \(entry.target): status \(response.status), expected \(expected.status) (\(expectation.kind)) \(response.text.prefix(120))"
                    )
                } else if response.body != body {
                    failures.append(
                        "entry \(entry.index) \(entry.method) \(entry.target): body \(response.body.count) bytes, expected \(body.count) (\(expectation.kind))"
                    )
                } else if let location = expected.location,
                    response.header("location") != rewriting.expectedLocation(location)
                {
                    failures.append(
                        "entry \(entry.index) \(entry.method) \(entry.target): Location \(response.header("location") ?? "none"), expected \(rewriting.expectedLocation(location))"
                    )
                }
            }
        }
        let detail = counts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        print(
            "replay \(name): \(served - failures.count + refusalFailures)/\(served) justified answers served byte-exact, \(refused - refusalFailures)/\(refused) unjustified refused with a reason, of \(entries.count) entries replayed on \(hosts.count) host\(hosts.count == 1 ? "" : "s") (\(colliding) named a host; \(detail))"
        )
        #expect(failures.isEmpty, "\(name): \(failures.count) failures: \(failures.prefix(10).joined(separator: "; "))")
    }

    /// Corpus files with Chrome `_webSocketMessages`: each recorded connection, in HAR order, receives the
    /// recorded server frames (timing scaled to 0 so the test is quick).
    @Test(
        arguments: validFiles.filter {
            (try? HARReader.read(contentsOf: $0))?.entries.contains { !$0.webSocketMessages.isEmpty } == true
        }
    )
    func webSocketEntriesReplayTheirFrames(_ harURL: URL) throws {
        let archive = try HARReader.read(contentsOf: harURL)
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let imported = try ProcessRunner.mockd([
            "import-har", harURL.path, "--set", "ws", "--root", root.path, "--ws-time-scale", "0",
        ])
        try #require(imported.status == 0, "\(imported.stderr)")
        let daemon = try RunningDaemon(["--set", "ws", "--root", root.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        var expected: [[String]] = []
        var targets: [String] = []
        for entry in archive.entries where !entry.webSocketMessages.isEmpty {
            guard let target = WireTarget(entry.request.url) else { continue }
            targets.append(target.target)
            expected.append(entry.webSocketMessages.filter { $0.type == "receive" && $0.opcode == 1 }.map(\.data))
        }
        let script = """
            import asyncio, json, sys, websockets
            async def main():
                results = []
                for target, count in json.loads(sys.argv[2]):
                    async with websockets.connect(sys.argv[1].replace("http://", "ws://") + target) as ws:
                        results.append([await asyncio.wait_for(ws.recv(), 2) for _ in range(count)])
                print(json.dumps(results))
            asyncio.run(main())
            """
        let plan = String(
            decoding: try JSONSerialization.data(withJSONObject: zip(targets, expected).map { [$0.0, $0.1.count] }),
            as: UTF8.self
        )
        let result = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/python3"),
            ["-c", script, daemon.baseURL, plan]
        )
        try #require(result.status == 0, "\(result.stderr)")
        let received = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String]]
        #expect(received == expected)
        print(
            "replay \(harURL.lastPathComponent): \(expected.count) WebSocket connections, \(expected.joined().count) frames as recorded"
        )
    }

    @Test(
        arguments: Paths.corpusHARFiles(for: "CorpusReplayTests.invalid").filter {
            invalidFiles.contains($0.lastPathComponent)
        }
    )
    func invalidFileFailsWithOneLineAndWritesNothing(_ harURL: URL) throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let result = try ProcessRunner.mockd(["import-har", harURL.path, "--set", "broken", "--root", root.path])
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n")
        let errorLine = try #require(lines.last { $0.hasPrefix("mockd: ") })
        #expect(errorLine.hasPrefix("mockd: \(harURL.path): "))
        let mocks = root.appendingPathComponent("mocks")
        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: mocks.path)) ?? []
        #expect(leftovers.isEmpty, "left behind: \(leftovers)")
        print("invalid \(harURL.lastPathComponent): \(errorLine)")
    }
}
