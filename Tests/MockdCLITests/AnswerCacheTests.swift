import Foundation
import MockdTestSupport
import Testing

/// The per-worker answer cache (`AnswerCache`) on the real daemon, with one worker (`--threads 1`) and one keep-alive
/// connection, so every repeat goes through the very cache the first request filled: a cached answer never outlives
/// what it depended on, and a cached answer is the routed one, byte for byte, in the response and in the journal.
@Suite(.serialized)
struct AnswerCacheTests {
    /// A set `web` (and `web2`) whose `/item` answers are told apart by body, with configs `a` (web) and `b` (web2).
    static func makeRoot(itemBody: String = "from set") throws -> HandWrittenSet {
        let set = try HandWrittenSet(index: index(itemBody: itemBody))
        let web2 = set.root.appendingPathComponent("mocks/web2")
        try FileManager.default.createDirectory(at: web2, withIntermediateDirectories: true)
        try JSONSerialization.data(
            withJSONObject: [
                "version": 1,
                // `/item` at another position than in `web`: an answer kept by position would name the wrong stub.
                "stubs": [
                    [
                        "id": "web2-other", "request": ["method": "GET", "path": "/other"],
                        "responses": [["body": "other"]],
                    ],
                    [
                        "id": "web2-item", "request": ["method": "GET", "path": "/item"],
                        "responses": [["body": "from web2"]],
                    ],
                ],
            ]
        ).write(to: web2.appendingPathComponent("index.json"))
        let configs = set.root.appendingPathComponent("configs")
        try FileManager.default.createDirectory(at: configs, withIntermediateDirectories: true)
        try Data(#"{"sets": ["web"]}"#.utf8).write(to: configs.appendingPathComponent("a.json"))
        try Data(#"{"sets": ["web2"]}"#.utf8).write(to: configs.appendingPathComponent("b.json"))
        return set
    }

    /// - Parameter shifted: With a stub first, so every other stub is one position further.
    static func index(itemBody: String, shifted: Bool = false) -> [String: Any] {
        let first: [[String: Any]] =
            shifted
            ? [["id": "first", "request": ["method": "GET", "path": "/first"], "responses": [["body": "first"]]]] : []
        return [
            "version": 1,
            "matchHeaders": ["accept", "x-client"],
            "stubs": first + [
                [
                    "id": "item", "request": ["method": "GET", "path": "/item"],
                    "responses": [["headers": ["Content-Type: text/plain", "X-Kind: plain"], "body": itemBody]],
                ],
                [
                    "id": "item-ios", "request": ["method": "GET", "path": "/item", "headers": ["X-Client: ios"]],
                    "responses": [["body": "ios"]],
                ],
                [
                    "id": "seq", "request": ["method": "GET", "path": "/seq"],
                    "responses": [["body": "one"], ["body": "two"]],
                ],
                [
                    "id": "query", "request": ["method": "GET", "path": "/q", "query": "a=1&b=2"],
                    "responses": [["body": "query"]],
                ],
            ],
        ]
    }

    static func get(_ base: String, _ target: String, _ headers: [(String, String)] = []) -> CurlRequest {
        CurlRequest(url: base + target, headers: headers)
    }

    static func session(_ id: String) -> [(String, String)] { [("X-Mockd-Session", id)] }

    static func addStub(_ base: String, id: String, body: String, session: String? = nil) -> CurlRequest {
        CurlRequest(
            method: "POST",
            url: base + "/__mockd/stubs",
            headers: [("Content-Type", "application/json")] + (session.map(Self.session) ?? []),
            body: Data(#"{"id": "\#(id)", "match": {"method": "GET", "path": "/item"}, "body": "\#(body)"}"#.utf8)
        )
    }

    @Test func aCachedAnswerNeverOutlivesWhatItDependedOn() throws {
        let set = try Self.makeRoot()
        let daemon = try RunningDaemon([
            "--config", "a", "--root", set.root.path, "--port", "0", "--quiet", "--threads", "1",
        ])
        defer { daemon.stop() }
        let base = daemon.baseURL
        let steps: [(CurlRequest, Int, String?)] = [
            (Self.get(base, "/item"), 200, "from set"),
            (Self.get(base, "/item"), 200, "from set"),
            // A header the set matches on is part of the key; one it does not match on is not.
            (Self.get(base, "/item", [("X-Client", "ios")]), 200, "ios"),
            (Self.get(base, "/item", [("X-Client", "ios")]), 200, "ios"),
            (Self.get(base, "/item", [("X-Other", "1")]), 200, "from set"),
            (Self.get(base, "/item", [("X-Client", "android")]), 200, "from set"),
            // The query, in another order, and a HEAD.
            (Self.get(base, "/q?b=2&a=1"), 200, "query"),
            (Self.get(base, "/q?a=1&b=2"), 200, "query"),
            (Self.get(base, "/q?a=1&b=3"), 404, nil),
            (Self.get(base, "/q?a=1&b=3"), 404, nil),
            // A sequence is never cached.
            (Self.get(base, "/seq"), 200, "one"),
            (Self.get(base, "/seq"), 200, "two"),
            // A runtime stub added, then removed.
            (Self.addStub(base, id: "rt", body: "runtime"), 201, nil),
            (Self.get(base, "/item"), 200, "runtime"),
            (Self.get(base, "/item"), 200, "runtime"),
            (CurlRequest(method: "DELETE", url: base + "/__mockd/stubs/rt"), 204, nil),
            (Self.get(base, "/item"), 200, "from set"),
            (Self.get(base, "/item"), 200, "from set"),
            // A session's runtime stub, chosen by header, cookie or path prefix; the default session is untouched.
            (Self.get(base, "/item", Self.session("s1")), 200, "from set"),
            (Self.addStub(base, id: "rt1", body: "runtime s1", session: "s1"), 201, nil),
            (Self.get(base, "/item", Self.session("s1")), 200, "runtime s1"),
            (Self.get(base, "/item", [("Cookie", "mockd_session=s1")]), 200, "runtime s1"),
            (Self.get(base, "/__session/s1/item"), 200, "runtime s1"),
            (Self.get(base, "/item"), 200, "from set"),
            (Self.get(base, "/item", Self.session("s2")), 200, "from set"),
            // Reset and delete of the session.
            (CurlRequest(method: "POST", url: base + "/__mockd/reset", headers: Self.session("s1")), 200, nil),
            (Self.get(base, "/item", Self.session("s1")), 200, "from set"),
            (Self.addStub(base, id: "rt1", body: "runtime s1 again", session: "s1"), 201, nil),
            (Self.get(base, "/__session/s1/item"), 200, "runtime s1 again"),
            (CurlRequest(method: "DELETE", url: base + "/__mockd/session", headers: Self.session("s1")), 200, nil),
            (Self.get(base, "/__session/s1/item"), 200, "from set"),
            // A scenario switch, and back.
            (
                CurlRequest(
                    method: "PUT",
                    url: base + "/__mockd/scenario",
                    headers: [("Content-Type", "application/json")],
                    body: Data(#"{"name": "b"}"#.utf8)
                ), 200, nil
            ),
            (Self.get(base, "/item"), 200, "from web2"),
            (Self.get(base, "/item"), 200, "from web2"),
            (Self.get(base, "/item", Self.session("s2")), 200, "from set"),
            (
                CurlRequest(
                    method: "PUT",
                    url: base + "/__mockd/scenario",
                    headers: [("Content-Type", "application/json")],
                    body: Data(#"{"name": "a"}"#.utf8)
                ), 200, nil
            ),
            (Self.get(base, "/item"), 200, "from set"),
            (Self.get(base, "/item"), 200, "from set"),
        ]
        let answers = try Curl.batch(steps.map(\.0))
        for (index, (answer, step)) in zip(answers, steps).enumerated() {
            #expect(answer.status == step.1, "step \(index): \(step.0.method) \(step.0.url)")
            if let body = step.2 { #expect(answer.text == body, "step \(index): \(step.0.method) \(step.0.url)") }
        }

        // The set changes on disk and is reloaded: the next repeat gets the new answer.
        try JSONSerialization.data(withJSONObject: Self.index(itemBody: "reloaded", shifted: true))
            .write(to: set.folder.appendingPathComponent("index.json"))
        let reloaded = try Curl.batch([
            CurlRequest(method: "POST", url: base + "/__mockd/reload"), Self.get(base, "/item"),
            Self.get(base, "/item"),
        ])
        #expect(reloaded.map(\.status) == [200, 200, 200])
        #expect(reloaded.dropFirst().map(\.text) == ["reloaded", "reloaded"])
    }

    @Test func aCachedAnswerIsTheRoutedOneByteForByteInResponseJournalAndCoverage() throws {
        let set = try Self.makeRoot()
        let daemon = try RunningDaemon([
            "--config", "a", "--root", set.root.path, "--port", "0", "--quiet", "--threads", "1",
        ])
        defer { daemon.stop() }
        let base = daemon.baseURL
        // The first of each is routed (and fills the cache), the others are answered from it.
        let answers = try Curl.batch(
            Array(repeating: Self.get(base, "/item", [("Accept", "text/plain")]), count: 4)
                + Array(repeating: Self.get(base, "/__session/s9/q?b=2&a=1"), count: 3)
        )
        #expect(answers.map(\.status) == [200, 200, 200, 200, 200, 200, 200])
        for group in [0..<4, 4..<7] {
            let first = answers[group.lowerBound]
            for answer in answers[group].dropFirst() {
                #expect(answer.body == first.body)
                #expect(Self.headers(answer) == Self.headers(first))
            }
        }
        #expect(answers[0].text == "from set")
        #expect(answers[4].text == "query")

        for (session, count, stub) in [("default", 4, "item"), ("s9", 3, "query")] {
            let journal = try Curl.send(
                CurlRequest(url: base + "/__mockd/journal", headers: Self.session(session))
            )
            let entries =
                (try JSONSerialization.jsonObject(with: journal.body) as? [String: Any])?["entries"] as? [[String: Any]]
                ?? []
            #expect(entries.count == count, "\(session)")
            #expect(entries.map { $0["stub"] as? String } == Array(repeating: stub, count: count))
            let stable = entries.map(Self.withoutTimes)
            for entry in stable.dropFirst() { #expect(entry == stable[0], "\(session)") }
        }
        let coverage = try Curl.send(CurlRequest(url: base + "/__mockd/coverage"))
        #expect(coverage.status == 200)
        let used = (try JSONSerialization.jsonObject(with: coverage.body) as? [String: Any]).map { "\($0)" } ?? ""
        #expect(used.contains("item"))
    }

    /// Each request three times on one keep-alive connection and one worker (the repeats answered from the cache),
    /// against a second daemon where every request carries a header of its own (never cached): the same answers byte
    /// for byte (status, headers but `Date`, body) for HEAD, ranges, validators, encodings, negotiation, CORS and
    /// odd query spellings, and for a body file missing at first, then put back; every request journaled once.
    @Test func everyRepeatAnswersAsARequestTheCacheCannotHelp() throws {
        let requests: [(String, String, [(String, String)])] = [
            ("GET", "/etag", []), ("HEAD", "/etag", []), ("GET", "/etag", [("Range", "bytes=0-9")]),
            ("GET", "/etag", [("Range", "bytes=5-1")]), ("GET", "/etag", [("Accept-Encoding", "gzip")]),
            ("GET", "/etag", [("If-None-Match", #""v1""#)]),
            ("GET", "/etag", [("If-Modified-Since", "Tue, 01 Dec 2026 10:00:00 GMT")]),
            ("GET", "/etag", [("Range", "bytes=0-9"), ("If-Range", #""v0""#)]),
            ("GET", "/etag", [("Origin", "http://example.com")]),
            ("OPTIONS", "/etag", [("Origin", "http://example.com"), ("Access-Control-Request-Method", "GET")]),
            ("GET", "/neg", [("Accept", "text/html")]), ("GET", "/neg", [("accept", "text/html")]),
            ("GET", "/neg", [("Accept", "application/json")]),
            ("GET", "/neg", [("Accept", "text/html"), ("Accept", "application/json")]),
            ("GET", "/q?a=1&b=%20x", []), ("GET", "/q?b=%20x&a=1", []), ("GET", "/q?a=1&b=+x", []),
            ("GET", "/q?a=%31&b=%20x", []), ("HEAD", "/h", []), ("GET", "/h", []), ("HEAD", "/late", []),
            ("GET", "/late", []),
        ]
        func run(varying: Bool) throws -> (answers: [[String]], journaled: Int) {
            let set = try HandWrittenSet(
                index: [
                    "version": 1, "matchHeaders": ["accept"],
                    "stubs": [
                        [
                            "id": "etag", "request": ["method": "GET", "path": "/etag"],
                            "responses": [
                                [
                                    "headers": [
                                        "Content-Type: application/json", #"ETag: "v1""#,
                                        "Last-Modified: Tue, 01 Dec 2026 10:00:00 GMT",
                                    ],
                                    "bodyFile": "bodies/etag.json",
                                ]
                            ],
                        ],
                        [
                            "id": "html",
                            "request": ["method": "GET", "path": "/neg", "headers": ["Accept: text/html"]],
                            "responses": [["body": "<p>html</p>"]],
                        ],
                        ["id": "json", "request": ["method": "GET", "path": "/neg"], "responses": [["body": "{}"]]],
                        [
                            "id": "q", "request": ["method": "GET", "path": "/q", "query": "a=1&b=%20x"],
                            "responses": [["body": "q"]],
                        ],
                        [
                            "id": "head", "request": ["method": "HEAD", "path": "/h"],
                            "responses": [["status": 204, "headers": ["X-H: head"]]],
                        ],
                        ["id": "get-h", "request": ["method": "GET", "path": "/h"], "responses": [["body": "get"]]],
                        [
                            "id": "late", "request": ["method": "GET", "path": "/late"],
                            "responses": [["bodyFile": "bodies/late.json"]],
                        ],
                    ],
                ],
                bodies: ["bodies/etag.json": Data(String(repeating: #"{"item":1}"#, count: 300).utf8)]
            )
            let daemon = try set.start(["--threads", "1"])
            defer { daemon.stop() }
            var serial = 0
            func batch() throws -> [[String]] {
                let sent = requests.flatMap { request in Array(repeating: request, count: 3) }.map { request in
                    serial += 1
                    let nonce = varying ? [("X-Nonce", "\(serial)")] : []
                    return CurlRequest(method: request.0, url: daemon.baseURL + request.1, headers: request.2 + nonce)
                }
                return try Curl.batch(sent).map { ["\($0.status)"] + Self.headers($0) + [$0.text] }
            }
            var answers = try batch()
            try Data(#"{"late":true}"#.utf8).write(to: set.folder.appendingPathComponent("bodies/late.json"))
            answers += try batch()
            let journal = try Curl.send(CurlRequest(url: daemon.baseURL + "/__mockd/journal"))
            let entries =
                (try JSONSerialization.jsonObject(with: journal.body) as? [String: Any])?["entries"] as? [[String: Any]]
            return (answers, entries?.count ?? -1)
        }
        let cached = try run(varying: false)
        let routed = try run(varying: true)
        #expect(cached.answers.count == requests.count * 6)
        for (index, (fromCache, fromRouting)) in zip(cached.answers, routed.answers).enumerated() {
            #expect(fromCache == fromRouting, "request \(index): \(requests[(index / 3) % requests.count])")
        }
        // `GET /late`, last: a 500 naming the missing file, then the file put back.
        let late = (requests.count - 1) * 3
        #expect(cached.answers[late].first == "500")
        #expect(cached.answers[late].last?.contains("body file 'bodies/late.json' not found") == true)
        #expect(cached.answers[requests.count * 3 + late].last == #"{"late":true}"#)
        #expect(cached.journaled == requests.count * 6)
        #expect(routed.journaled == requests.count * 6)
    }

    /// A session whose clock was moved answers a plain stub with its own `Date`, as it does any other answer; one
    /// whose clock was not moved, or was reset, answers with the host's. The plain stub was answered (and cached)
    /// before the move, so the move must reach the thread's cached answers.
    @Test func aMovedClockGivesAPlainStubsAnswerTheSessionsDate() throws {
        let set = try Self.makeRoot()
        let daemon = try RunningDaemon([
            "--config", "a", "--root", set.root.path, "--port", "0", "--quiet", "--threads", "1",
        ])
        defer { daemon.stop() }
        let base = daemon.baseURL
        let moveClock = CurlRequest(
            method: "POST",
            url: base + "/__mockd/clock",
            headers: [("Content-Type", "application/json")],
            body: Data(#"{"set": "2020-01-01T00:00:00Z"}"#.utf8)
        )
        let answers = try Curl.batch([
            Self.get(base, "/item"), Self.get(base, "/item"), moveClock, Self.get(base, "/item"),
            Self.get(base, "/item"), Self.get(base, "/item", Self.session("s2")),
            CurlRequest(method: "POST", url: base + "/__mockd/reset"), Self.get(base, "/item"),
        ])
        #expect(answers.map(\.status) == [200, 200, 200, 200, 200, 200, 200, 200])
        let years = answers.map { $0.header("Date")?.split(separator: " ").dropFirst(3).first.map(String.init) }
        let thisYear = String(Calendar(identifier: .gregorian).component(.year, from: Date()))
        #expect(years[3] == "2020", "\(answers[3].headers)")
        #expect(years[4] == "2020", "\(answers[4].headers)")
        #expect(answers[3].header("Date")?.hasPrefix("Wed, 01 Jan 2020 00:00:") == true)
        for index in [0, 1, 5, 7] { #expect(years[index] == thisYear, "answer \(index): \(answers[index].headers)") }
        #expect(answers[3].text == "from set")
        #expect(answers[4].body == answers[0].body)
    }

    /// Every response header but `Date` (the clock's), in order.
    static func headers(_ response: CurlResponse) -> [String] {
        response.headers.filter { $0.name.lowercased() != "date" }.map { "\($0.name): \($0.value)" }
    }

    /// A journal entry as canonical JSON without its times and sequence number.
    static func withoutTimes(_ entry: [String: Any]) -> String {
        var entry = entry
        for key in ["time", "durationMs", "sequence", "seq", "id"] { entry[key] = nil }
        let data = (try? JSONSerialization.data(withJSONObject: entry, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
