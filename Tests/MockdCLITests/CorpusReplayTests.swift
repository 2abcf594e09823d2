import Foundation
import MockdTestSupport
import Testing

@testable import MockdCore

/// Every HAR of the shared corpus: import it with the real binary as a newcomer does (no options: hygiene on,
/// every host), serve it on a loopback port, replay every entry in HAR order with curl (with their recorded, real
/// credentials) naming no host, except where one method and target was recorded on several hosts (then with
/// `/__host/NAME/`, as an app with one base URL per backend), and compare status and exact body bytes: the
/// recorded bytes, or for a redacted body the recorded bytes with each secret replaced by its placeholder's fixed
/// fake value, with the recorded hosts' absolute URLs pointing at the mock.
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
    func replaysRecordedStatusAndBodyBytes(_ harURL: URL) throws {
        let name = harURL.lastPathComponent
        let archive = try HARReader.read(contentsOf: harURL)
        let replayable = archive.entries.compactMap(ReplayEntry.init)
        guard !replayable.isEmpty else {
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
        let entries = replayable
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
        var rewritten = 0
        var notRecorded = 0
        var notModifiedOnly = 0

        var failures: [String] = []
        var redacted = 0
        var conditionalOnly = 0
        for (position, recorded) in zip(entries, responses).enumerated() {
            var (entry, response) = recorded
            // A 304 with a full response recorded too is served only to conditional requests (issue 5); this
            // recording's request carried no validator, so the full response answers it.
            if entry.status == 304, !entry.isConditional,
                let full = entries[..<position].last(where: {
                    $0.method == entry.method && $0.target == entry.target && $0.host == entry.host
                        && (200..<300).contains($0.status)
                })
                    ?? entries[position...].first(where: {
                        $0.method == entry.method && $0.target == entry.target && $0.host == entry.host
                            && (200..<300).contains($0.status)
                    })
            {
                entry = full
                conditionalOnly += 1
            } else if entry.status == 304, !entry.isConditional,
                !entries.contains(where: {
                    $0.method == entry.method && $0.target == entry.target && $0.host == entry.host && $0.status != 304
                })
            {
                // Recorded only as 304: no body was on the wire, so a plain request misses and says why.
                if response.status != 404 || !response.text.contains("recorded only as 304 Not Modified") {
                    failures.append(
                        "entry \(entry.index): only a 304 recorded, got \(response.status) \(response.text.prefix(80))"
                    )
                }
                notModifiedOnly += 1
                continue
            }
            if entry.bodyNotRecorded {
                // The HAR says there was a body but holds none: a miss that says so, never an empty 200.
                if response.status != 404 || !response.text.contains("body not recorded: HAR entry ") {
                    failures.append(
                        "entry \(entry.index): body not recorded, got \(response.status) \(response.text.prefix(80))"
                    )
                }
                notRecorded += 1
                continue
            }
            var expected = entry.body
            var redactor = Redactor()
            if let clean = redactor.redactResponseBody(expected, mimeType: entry.mimeType, entry: entry.index) {
                expected = Template.renderingFakeValues(in: clean)
                redacted += 1
            }
            if let text = String(data: expected, encoding: .utf8), hosts.contains(where: { text.contains("://\($0)") })
            {
                // The recorded hosts' URLs point at the mock (with the host as a prefix when several were recorded).
                var replaced = text
                for host in hosts.sorted(by: { $0.count > $1.count }) {
                    let mock = daemon.baseURL + (hosts.count > 1 ? "/__host/\(host)" : "")
                    for scheme in ["https", "http"] {
                        replaced = replaced.replacingOccurrences(of: "\(scheme)://\(host)/", with: mock + "/")
                            .replacingOccurrences(of: "\(scheme)://\(host)\"", with: mock + "\"")
                    }
                }
                if replaced != text { rewritten += 1 }
                expected = Data(replaced.utf8)
            }
            if response.status != entry.status {
                failures.append(
                    "entry \(entry.index) \(entry.method) \(entry.target): status \(response.status), recorded \(entry.status)"
                )
            } else if response.body != expected {
                failures.append(
                    "entry \(entry.index) \(entry.method) \(entry.target): body \(response.body.count) bytes, expected \(expected.count)"
                )
            }
        }
        print(
            "replay \(name): \(entries.count - failures.count)/\(entries.count) entries of \(hosts.count) host\(hosts.count == 1 ? "" : "s") byte-exact with a plain import (\(colliding) named a host, \(redacted) with redacted secrets, \(rewritten) with recorded URLs pointing at the mock, \(conditionalOnly) unconditional 304s answered in full, \(notRecorded) bodies not recorded and \(notModifiedOnly) 304-only resources answered as misses that say so)"
        )
        #expect(failures.isEmpty, "\(name): \(failures.prefix(10).joined(separator: "; "))")
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
            guard let components = URLComponents(string: entry.request.url) else { continue }
            targets.append(components.percentEncodedPath + (components.percentEncodedQuery.map { "?\($0)" } ?? ""))
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

/// A HAR entry the replay expects mockd to answer, with the recorded outcome.
struct ReplayEntry {
    let index: Int
    let method: String
    let host: String
    /// Raw path and query as recorded.
    let target: String
    let headers: [(String, String)]
    let requestBody: Data?
    let status: Int
    /// The recorded body as mockd decodes it (base64, Polly hex, compressed, charsets: see `RecordedBody`).
    let body: Data
    let mimeType: String?
    /// Whether the recorded request carried `If-None-Match` or `If-Modified-Since`.
    let isConditional: Bool
    /// Whether the HAR gives a size (or `Content-Length`) for the body but holds no text.
    let bodyNotRecorded: Bool

    /// `nil` for entries mockd skips by design: failed (status 0/-1), WebSocket, non-HTTP URLs.
    init?(_ entry: HAREntry) {
        guard let response = entry.response, (100...999).contains(response.status), response.status != 101,
            entry.failureText == nil, entry.request.method != "CONNECT",
            entry.resourceType != "websocket", !entry.hasWebSocketMessages,
            let components = URLComponents(string: entry.request.url)
                ?? URLComponents(string: RecordedURL.escapingInvalid(entry.request.url)),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            !entry.request.method.isEmpty
        else { return nil }
        index = entry.index
        method = entry.request.method
        let hostName = (components.host ?? "").lowercased()
        host = components.port.map { "\(hostName):\($0)" } ?? hostName
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        target = components.percentEncodedQuery.map { "\(path)?\($0)" } ?? path
        let skipped: Set<String> = [
            "host", "content-length", "connection", "keep-alive", "transfer-encoding", "accept-encoding", "expect",
            "upgrade", "te", "proxy-connection",
        ]
        var headers = entry.request.headers.fields
            .filter { !$0.name.hasPrefix(":") && !skipped.contains($0.name.lowercased()) }
            .map { ($0.name, $0.value) }
        // curl adds its own Accept (and a form Content-Type for bodies); the recording had none.
        if entry.request.headers["accept"] == nil { headers.append(("Accept", "")) }
        if let post = entry.request.postData, post.text != nil || !post.params.isEmpty {
            if let text = post.text {
                requestBody = Data(text.utf8)
            } else {
                requestBody = Data(
                    post.params.map {
                        URLEncoding.encodeComponent(Array($0.name.utf8)) + "="
                            + URLEncoding.encodeComponent(Array($0.value.utf8))
                    }.joined(separator: "&").utf8
                )
            }
            if entry.request.headers["content-type"] == nil { headers.append(("Content-Type", "")) }
        } else {
            requestBody = nil
        }
        self.headers = headers
        status = response.status
        // RFC 9110 §6.4.1: HEAD answers, 1xx, 204 and 304 carry no content, even where a browser recorded
        // the cached body of a 304 in the HAR.
        mimeType = response.content.mimeType ?? response.headers["content-type"]
        isConditional =
            entry.request.headers["if-none-match"] != nil || entry.request.headers["if-modified-since"] != nil
        let size =
            (response.content.size ?? 0) > 0
            ? response.content.size! : Int(response.headers["content-length"] ?? "") ?? 0
        bodyNotRecorded =
            size > 0 && (response.content.text ?? "").isEmpty && response.content.file == nil
            && ![204, 304].contains(response.status) && method != "HEAD"
        if method == "HEAD" || response.status < 200 || response.status == 204 || response.status == 304 {
            body = Data()
        } else {
            body =
                RecordedBody(
                    response.content,
                    headers: response.headers,
                    harDirectory: nil,
                    hexBinary: entry.isPollyEntry
                ).bytes
        }
    }

    func curlRequest(baseURL: String) -> CurlRequest {
        CurlRequest(method: method, url: baseURL + target, headers: headers, body: requestBody)
    }
}
