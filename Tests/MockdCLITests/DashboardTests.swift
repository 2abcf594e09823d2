import Foundation
import MockdTestSupport
import Testing

/// What the dashboard reads from the daemon (issue 22), with curl against the real daemon: its three assets and
/// their headers, the live journal (`GET /__mockd/journal/stream`), one exchange in full, the sessions' last
/// activity. The page itself is driven in Chromium by Tests/Browser/dashboard_test.py (scripts/test's `browser`
/// step).
@Suite(.serialized)
struct DashboardTests {
    static let policy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    private func daemon(_ extra: [String] = []) throws -> (RunningDaemon, URL) {
        let root = try Paths.makeRoot(scenario: #"{"sets": ["chat"]}"#)
        let daemon = try RunningDaemon(["--config", "s", "--root", root.path, "--port", "0", "--quiet"] + extra)
        return (daemon, root)
    }

    @Test func theAssetsAreServedWithoutTheTokenWithTheirPolicyAndTheDataIsNot() throws {
        let (daemon, root) = try daemon(["--control-token", "t0ken-0123456789ab"])
        defer {
            daemon.stop()
            try? FileManager.default.removeItem(at: root)
        }
        let base = daemon.baseURL + "/__mockd/"
        let answers = try Curl.batch([
            CurlRequest(url: base + "ui"), CurlRequest(url: base + "ui/app.js"), CurlRequest(url: base + "ui/app.css"),
            CurlRequest(url: base + "ui/other"), CurlRequest(url: base + "sessions"),
            CurlRequest(url: base + "ui", headers: [("Origin", "http://attacker.example")]),
            CurlRequest(url: base + "ui", headers: [("Sec-Fetch-Site", "cross-site")]),
            CurlRequest(url: base + "sessions", headers: [("Authorization", "Bearer t0ken-0123456789ab")]),
        ])
        #expect(answers.map(\.status) == [200, 200, 200, 401, 401, 403, 403, 200])
        #expect(
            answers[0...2].map { $0.header("Content-Type") } == [
                "text/html; charset=utf-8", "text/javascript; charset=utf-8", "text/css; charset=utf-8",
            ]
        )
        for answer in answers[0...2] {
            #expect(answer.header("Content-Security-Policy") == Self.policy)
            #expect(answer.header("X-Frame-Options") == "DENY")
            #expect(answer.header("X-Content-Type-Options") == "nosniff")
            #expect(answer.header("Cache-Control") == "no-store")
        }
        // No inline script or style: the page loads its own two assets.
        let page = answers[0].text
        #expect(page.contains(#"<script src="/__mockd/ui/app.js" defer></script>"#))
        #expect(page.contains(#"<link rel="stylesheet" href="/__mockd/ui/app.css">"#))
        #expect(page.components(separatedBy: "<script").count == 2)
        #expect(!page.contains("style="))
        // The script writes data as text only.
        #expect(!answers[1].text.contains("innerHTML") && !answers[1].text.contains("insertAdjacentHTML"))
    }

    /// The dashboard's files are real files (Sources/MockdCore/ControlAPI/Dashboard/) compiled into the binary: each
    /// one is served byte for byte, and a file added to the folder but not to `Dashboard.files` fails here.
    /// (scripts/container-smoke checks the same of the stripped release binary alone in a folder.)
    @Test func everyFileOfTheDashboardFolderIsServedByteForByte() throws {
        let folder = Paths.packageRoot.appendingPathComponent("Sources/MockdCore/ControlAPI/Dashboard")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }
            .sorted()
        #expect(names.contains("index.html") && names.contains("app.js") && names.contains("app.css"))
        let (daemon, root) = try daemon()
        defer {
            daemon.stop()
            try? FileManager.default.removeItem(at: root)
        }
        let paths = names.map { $0 == "index.html" ? "/__mockd/ui" : "/__mockd/ui/" + $0 }
        let answers = try Curl.batch(paths.map { CurlRequest(url: daemon.baseURL + $0) })
        for (name, answer) in zip(names, answers) {
            let file = try Data(contentsOf: folder.appendingPathComponent(name))
            #expect(answer.status == 200, "\(name)")
            #expect(answer.body == file, "\(name): served \(answer.body.count) bytes, the file has \(file.count)")
        }
    }

    @Test func theLiveJournalSendsWhatIsThereThenEachNewRequestAndAReset() throws {
        let (daemon, root) = try daemon()
        defer {
            daemon.stop()
            try? FileManager.default.removeItem(at: root)
        }
        let base = daemon.baseURL
        _ = try Curl.send(CurlRequest(url: base + "/v1/me", headers: [("X-Mockd-Session", "live")]))
        let stream = try Curl.start(["--no-buffer", base + "/__mockd/journal/stream?session=live"])
        defer { stream.killAndWait() }
        try waitUntil(timeout: 10, "the first entry") { stream.standardOutput.contains("id: 1\n") }
        #expect(stream.standardOutput.hasPrefix("event: hello\ndata: {\"session\":\"live\"}\n\nid: 1\nevent: entry\n"))
        _ = try Curl.send(CurlRequest(url: base + "/v1/nothing-here", headers: [("X-Mockd-Session", "live")]))
        try waitUntil(timeout: 10, "the new entry") { stream.standardOutput.contains("id: 2\n") }
        let rows = stream.standardOutput.components(separatedBy: "\n").filter { $0.hasPrefix("data: {\"bodySize") }
        try #require(rows.count == 2)
        let second = try #require(
            try JSONSerialization.jsonObject(with: Data(rows[1].dropFirst("data: ".count).utf8)) as? [String: Any]
        )
        #expect(second["sequence"] as? Int == 2)
        #expect(second["target"] as? String == "/v1/nothing-here")
        #expect(second["status"] as? Int == 404)
        #expect(second["matched"] as? Bool == false)
        #expect(second["body"] == nil)
        #expect(second["nearMisses"] is [Any])
        // Another session's traffic is not in this feed.
        _ = try Curl.send(CurlRequest(url: base + "/v1/me", headers: [("X-Mockd-Session", "other")]))
        _ = try Curl.send(CurlRequest(method: "POST", url: base + "/__mockd/reset?session=live"))
        try waitUntil(timeout: 10, "the reset") { stream.standardOutput.contains("event: reset\n") }
        _ = try Curl.send(CurlRequest(url: base + "/v1/me", headers: [("X-Mockd-Session", "live")]))
        try waitUntil(timeout: 10, "numbering from 1 again") {
            stream.standardOutput.components(separatedBy: "event: reset\ndata: {}\n\n").last?.hasPrefix(
                "id: 1\nevent: entry\n"
            ) == true
        }
        #expect(stream.standardOutput.components(separatedBy: "event: entry").count == 4)
        let health = try daemon.health()
        #expect(health["liveJournals"] as? Int == 1)
        // A dashboard watching is not a request a test waits for.
        #expect(health["inFlight"] as? Int == 0)
    }

    @Test func aClientThatLeavesReleasesItsFeedAndTheNumberOpenIsBounded() throws {
        let (daemon, root) = try daemon()
        defer {
            daemon.stop()
            try? FileManager.default.removeItem(at: root)
        }
        let url = daemon.baseURL + "/__mockd/journal/stream"
        var streams: [ChildProcess] = []
        defer { streams.forEach { $0.killAndWait() } }
        for _ in 0..<32 { streams.append(try Curl.start(["--no-buffer", url])) }
        try waitUntil(timeout: 20, "32 open feeds") {
            streams.allSatisfy { $0.standardOutput.hasPrefix("event: hello") }
        }
        #expect(try daemon.health()["liveJournals"] as? Int == 32)
        let refused = try Curl.send(CurlRequest(url: url))
        #expect(refused.status == 503)
        #expect(
            refused.text.contains(
                "32 live journals are open already; close a dashboard tab and try again"
            )
        )
        // A client that goes away (its socket closed) frees its feed; the daemon serves as before.
        for stream in streams { stream.killAndWait() }
        try waitUntil(timeout: 10, "every feed released") { try daemon.health()["liveJournals"] as? Int == 0 }
        #expect(try Curl.send(CurlRequest(url: daemon.baseURL + "/v1/me")).status == 200)
        let again = try Curl.start(["--no-buffer", url])
        defer { again.killAndWait() }
        try waitUntil(timeout: 10, "a new feed") { again.standardOutput.hasPrefix("event: hello") }
    }

    @Test func anOpenFeedEndsWhenTheDaemonStops() throws {
        let (daemon, root) = try daemon()
        defer { try? FileManager.default.removeItem(at: root) }
        let stream = try Curl.start(["--no-buffer", daemon.baseURL + "/__mockd/journal/stream"])
        defer { stream.killAndWait() }
        try waitUntil(timeout: 10, "the feed") { stream.standardOutput.hasPrefix("event: hello") }
        let stopped = daemon.stop()
        #expect(stopped.status == 0)
        // The stream ended cleanly (curl exit 0: the chunked body was terminated).
        try #require(stream.waitForExit(timeout: 10))
        #expect(stream.result.status == 0, "\(stream.result.stderr)")
    }

    @Test func oneExchangeInFullAndTheSessionsLastActivity() throws {
        let (daemon, root) = try daemon()
        defer {
            daemon.stop()
            try? FileManager.default.removeItem(at: root)
        }
        let base = daemon.baseURL
        let me = try Curl.send(CurlRequest(url: base + "/v1/me", headers: [("X-Mockd-Session", "d")]))
        _ = try Curl.send(
            CurlRequest(
                method: "POST",
                url: base + "/v1/bytes",
                headers: [("X-Mockd-Session", "d")],
                body: Data([0, 1, 2, 255])
            )
        )
        let answers = try Curl.batch([
            CurlRequest(url: base + "/__mockd/journal/entries/1?session=d"),
            CurlRequest(url: base + "/__mockd/journal/entries/2?session=d"),
            CurlRequest(url: base + "/__mockd/journal/entries/3?session=d"),
            CurlRequest(url: base + "/__mockd/journal/entries/x?session=d"),
            CurlRequest(url: base + "/__mockd/sessions"),
            CurlRequest(url: base + "/__mockd/journal/stream?after=-1"),
        ])
        #expect(answers.map(\.status) == [200, 200, 404, 400, 200, 400])
        let first = try #require(try JSONSerialization.jsonObject(with: answers[0].body) as? [String: Any])
        let response = try #require(first["response"] as? [String: Any])
        #expect(first["session"] as? String == "d")
        #expect(first["stub"] as? String == "GET_v1_me")
        #expect(response["status"] as? Int == 200)
        #expect(response["body"] as? String == me.text)
        #expect(response["size"] as? Int == me.body.count)
        #expect((response["headers"] as? [String])?.contains(#"ETag: W/"me-u_anna-17""#) == true)
        #expect(response["truncated"] as? Bool == false)
        let second = try #require(try JSONSerialization.jsonObject(with: answers[1].body) as? [String: Any])
        #expect(second["bodyBase64"] as? String == "AAEC/w==")
        #expect(((second["nearMisses"] as? [Any])?.isEmpty) == false)
        #expect(
            answers[2].text.contains(
                "session 'd' has no journal entry 3 (reset, or dropped by --journal-limit)"
            )
        )
        #expect(answers[3].text.contains("journal entries are numbered from 1, got 'x'"))
        let sessions = try #require(
            (try JSONSerialization.jsonObject(with: answers[4].body) as? [String: Any])?["sessions"] as? [[String: Any]]
        )
        #expect(sessions.map { $0["id"] as? String } == ["default", "d"])
        #expect(sessions[0]["lastActivity"] is NSNull)
        #expect(sessions[1]["lastActivity"] as? String == second["time"] as? String)
        #expect(answers[5].text.contains("after must be a journal sequence number (a whole number ≥ 0), got '-1'"))
    }

    @Test func whatAnsweredAsAnIDIsDescribed() throws {
        let (daemon, root) = try daemon()
        defer {
            daemon.stop()
            try? FileManager.default.removeItem(at: root)
        }
        let base = daemon.baseURL + "/__mockd/"
        let added = try Curl.send(
            CurlRequest(
                method: "POST",
                url: base + "stubs?session=q",
                body: Data(#"{"id": "teapot", "match": {"path": "/v1/tea"}, "status": 418}"#.utf8)
            )
        )
        #expect(added.status == 201)
        let answers = try Curl.batch([
            CurlRequest(url: base + "scenario/answers/GET_v1_me?session=q"),
            CurlRequest(url: base + "scenario/answers/teapot?session=q"),
            CurlRequest(url: base + "scenario/answers/nothing?session=q"),
        ])
        #expect(answers.map(\.status) == [200, 200, 404])
        let stub = try #require(try JSONSerialization.jsonObject(with: answers[0].body) as? [String: Any])
        #expect(stub["kind"] as? String == "stub")
        #expect(stub["set"] as? String == "chat")
        #expect(stub["scenario"] as? String == "s")
        #expect(stub["afterLast"] as? String == "repeatLast")
        let request = try #require(stub["request"] as? [String: Any])
        #expect(request["method"] as? String == "GET")
        #expect(request["path"] as? String == "/v1/me")
        #expect(request["query"] as? String == "")
        let responses = try #require(stub["responses"] as? [[String: Any]])
        #expect(responses.map { $0["status"] as? Int } == [200])
        #expect((responses[0]["headers"] as? [String])?.contains(#"ETag: W/"me-u_anna-17""#) == true)
        let runtime = try #require(try JSONSerialization.jsonObject(with: answers[1].body) as? [String: Any])
        #expect(runtime["kind"] as? String == "runtimeStub")
        #expect((runtime["definition"] as? [String: Any])?["status"] as? Int == 418)
        #expect(
            answers[2].text.contains("nothing in session 'q' (scenario 's') answers as 'nothing'"),
            "\(answers[2].text)"
        )
    }
}
