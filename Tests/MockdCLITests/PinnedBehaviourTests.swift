import Foundation
import MockdTestSupport
import Testing

/// Behaviour teams rely on that no test pinned, or that rested on a single test (issue 35's mutation run: a change to
/// any of these passed the whole suite). Each against the real daemon with a real client.
@Suite(.serialized)
struct PinnedBehaviourTests {
    static func object(_ response: CurlResponse) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]) ?? [:]
    }

    /// A scripted `close` without a code closes with 1000 (normal closure, RFC 6455 §7.4.1), with the reason given.
    @Test func aCloseStepWithoutACodeClosesWith1000() throws {
        try RunningDaemon.serving(
            #"""
            {"sets": ["chat"], "overrides": [
              {"match": {"path": "/v1/bye"}, "websocket": {"steps": [{"send": "bye"}, {"close": {}}]}},
              {"match": {"path": "/v1/done"}, "websocket": {"steps": [{"close": {"reason": "done"}}]}}
            ]}
            """#
        ) { daemon in
            let result = try TimingWebSocketTests.python(
                daemon,
                """
                out = {}
                for path in ["/v1/bye", "/v1/done"]:
                    async with websockets.connect(URL + path) as ws:
                        messages = []
                        try:
                            while True:
                                messages.append(await asyncio.wait_for(ws.recv(), 5))
                        except websockets.ConnectionClosed as closed:
                            out[path] = {"code": closed.rcvd.code, "reason": closed.rcvd.reason, "messages": messages}
                return out
                """
            )
            #expect((result["/v1/bye"] as? [String: Any])?["code"] as? Int == 1000)
            #expect((result["/v1/bye"] as? [String: Any])?["reason"] as? String == "")
            #expect((result["/v1/bye"] as? [String: Any])?["messages"] as? [String] == ["bye"])
            #expect((result["/v1/done"] as? [String: Any])?["code"] as? Int == 1000)
            #expect((result["/v1/done"] as? [String: Any])?["reason"] as? String == "done")
        }
    }

    /// `verify` with `atLeast: N` holds at exactly N (and at more), and fails below.
    @Test func verifyAtLeastHoldsAtExactlyN() throws {
        try RunningDaemon.serving(#"{"sets": ["chat"]}"#) { daemon in
            let base = daemon.baseURL
            func verify(_ body: String) throws -> CurlResponse {
                try Curl.send(CurlRequest(method: "POST", url: base + "/__mockd/verify", body: Data(body.utf8)))
            }
            _ = try Curl.batch([CurlRequest(url: base + "/v1/me"), CurlRequest(url: base + "/v1/me")])
            let exactly = try verify(#"{"method": "GET", "path": "/v1/me", "atLeast": 2}"#)
            #expect(exactly.status == 200)
            #expect(Self.object(exactly)["count"] as? Int == 2)
            #expect(try verify(#"{"method": "GET", "path": "/v1/me", "atLeast": 1}"#).status == 200)
            #expect(try verify(#"{"method": "GET", "path": "/v1/me", "atLeast": 0}"#).status == 200)
            let above = try verify(#"{"method": "GET", "path": "/v1/me", "atLeast": 3}"#)
            #expect(above.status == 409)
            #expect(Self.object(above)["message"] as? String == "expected at least 3 GET /v1/me, journal has 2")
            #expect(try verify(#"{"method": "GET", "path": "/v1/me", "count": 2}"#).status == 200)
        }
    }

    /// The `mockd_session` cookie routes a request to its session (for WKWebView and image loaders that cannot set a
    /// header), among other cookies and in a second `Cookie` field; the header wins over it.
    @Test func theSessionCookieRoutesRequestsToTheirSession() throws {
        try RunningDaemon.serving(#"{"sets": ["chat"]}"#) { daemon in
            let base = daemon.baseURL
            let stub = CurlRequest(
                method: "POST",
                url: base + "/__mockd/stubs",
                headers: [("X-Mockd-Session", "web-1")],
                body: Data(#"{"match": {"path": "/v1/me"}, "status": 200, "body": {"session": "web-1"}}"#.utf8)
            )
            #expect(try Curl.send(stub).status == 201)
            let answers = try Curl.batch([
                CurlRequest(url: base + "/v1/me", headers: [("Cookie", "theme=dark; mockd_session=web-1; lang=en")]),
                CurlRequest(
                    url: base + "/v1/me",
                    headers: [("Cookie", "theme=dark"), ("Cookie", "mockd_session=web-1")]
                ),
                CurlRequest(url: base + "/v1/me", headers: [("Cookie", "mockd_session_old=web-1")]),
                CurlRequest(
                    url: base + "/v1/me",
                    headers: [("X-Mockd-Session", "other"), ("Cookie", "mockd_session=web-1")]
                ),
            ])
            #expect(answers.map(\.status) == [200, 200, 200, 200])
            #expect(answers.map { Self.object($0)["session"] as? String } == ["web-1", "web-1", nil, nil])
            func journalCount(_ session: String) throws -> Int? {
                Self.object(
                    try Curl.send(CurlRequest(url: base + "/__mockd/journal", headers: [("X-Mockd-Session", session)]))
                )["count"] as? Int
            }
            #expect(try journalCount("web-1") == 2)
            #expect(try journalCount("other") == 1)
            #expect(try journalCount("default") == 1)
        }
    }

    /// A recorded `HEAD` answers with the `Content-Length` the server sent (the size of the body a GET would get),
    /// not 0: a download manager sizes its progress bar from it.
    @Test func aRecordedHEADAnswersWithItsRecordedContentLength() throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let har = root.appendingPathComponent("files.har")
        try ImportHygieneTests.write(
            [
                ImportHygieneTests.entry(
                    "HEAD",
                    "https://cdn.test/files/manual.pdf",
                    headers: [("Content-Type", "application/pdf"), ("Content-Length", "5242880"), ("ETag", "\"m-1\"")],
                    text: nil
                )
            ],
            to: har
        )
        let imported = try ProcessRunner.mockd(["import-har", har.path, "--set", "files", "--root", root.path])
        try #require(imported.status == 0, "\(imported.stderr)")
        let daemon = try RunningDaemon(["--set", "files", "--root", root.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        let head = try Curl.send(CurlRequest(method: "HEAD", url: daemon.baseURL + "/files/manual.pdf"))
        #expect(head.status == 200)
        #expect(head.header("Content-Length") == "5242880")
        #expect(head.header("ETag") == "\"m-1\"")
        #expect(head.header("Content-Type") == "application/pdf")
    }

    /// Card numbers in a recorded request become `{{card}}` in its key, so any card the app sends matches (the rest of
    /// the key still counts), and the answer shows only the last four digits: served over HTTP from a default import.
    @Test func cardsInRequestsMatchAnyCardAndAnswersShowTheLastFour() throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let har = root.appendingPathComponent("pay.har")
        try ImportHygieneTests.write(
            [
                ImportHygieneTests.entry(
                    "POST",
                    "https://pay.test/v1/charges?pan=4242424242424242",
                    requestHeaders: [("Content-Type", "application/json")],
                    body: #"{"card": "4111 1111 1111 1111", "amount": 1250}"#,
                    text:
                        #"{"charged": "4111 1111 1111 1111", "receipt": "Card 5555-5555-5555-4444 on file", "ref": "1234567890123456"}"#
                ),
                ImportHygieneTests.entry(
                    "POST",
                    "https://pay.test/v1/charges?pan=4242424242424242",
                    requestHeaders: [("Content-Type", "application/json")],
                    body: #"{"card": "4111 1111 1111 1111", "amount": 990}"#,
                    text: #"{"charged": "4111 1111 1111 1111", "amount": 990}"#
                ),
            ],
            to: har
        )
        let imported = try ProcessRunner.mockd(["import-har", har.path, "--set", "pay", "--root", root.path])
        try #require(imported.status == 0, "\(imported.stderr)")
        #expect(try ProcessRunner.mockd(["lint", "pay", "--root", root.path]).status == 0)
        let daemon = try RunningDaemon(["--set", "pay", "--root", root.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        let json = [("Content-Type", "application/json")]
        let answers = try Curl.batch([
            CurlRequest(
                method: "POST",
                url: daemon.baseURL + "/v1/charges?pan=5105105105105100",
                headers: json,
                body: Data(#"{"card": "3782 822463 10005", "amount": 1250}"#.utf8)
            ),
            CurlRequest(
                method: "POST",
                url: daemon.baseURL + "/v1/charges?pan=4012888888881881",
                headers: json,
                body: Data(#"{"amount": 990, "card": "6011111111111117"}"#.utf8)
            ),
            CurlRequest(
                method: "POST",
                url: daemon.baseURL + "/v1/charges?pan=4012888888881881",
                headers: json,
                body: Data(#"{"amount": 1, "card": "6011111111111117"}"#.utf8)
            ),
        ])
        #expect(answers.map(\.status) == [200, 200, 404])
        #expect(
            answers[0].text
                == #"{"charged": "**** **** **** 1111", "receipt": "Card ****-****-****-4444 on file", "ref": "1234567890123456"}"#
        )
        #expect(answers[1].text == #"{"charged": "**** **** **** 1111", "amount": 990}"#)
    }

    /// `{{counter}}` is how many times that override answered in the session, from 1: each override and each session
    /// count on their own, and a reset starts over.
    @Test func theCounterCountsPerOverrideAndSessionFromOne() throws {
        try RunningDaemon.serving(
            #"""
            {"sets": ["chat"], "overrides": [
              {"match": {"path": "/v1/poll"}, "status": 200, "body": "poll {{counter}}", "templated": true},
              {"match": {"path": "/v1/ping"}, "status": 200, "body": {"ping": "{{counter}}", "text": "ping #{{counter}}"}}
            ]}
            """#
        ) { daemon in
            let base = daemon.baseURL
            let b = [("X-Mockd-Session", "b")]
            let answers = try Curl.batch([
                CurlRequest(url: base + "/v1/poll"), CurlRequest(url: base + "/v1/poll"),
                CurlRequest(url: base + "/v1/ping"), CurlRequest(url: base + "/v1/poll"),
                CurlRequest(url: base + "/v1/poll", headers: b),
                CurlRequest(method: "POST", url: base + "/__mockd/reset"),
                CurlRequest(url: base + "/v1/poll"), CurlRequest(url: base + "/v1/ping"),
            ])
            #expect(
                answers.map(\.text) == [
                    "poll 1", "poll 2", #"{"ping":1,"text":"ping #1"}"#, "poll 3", "poll 1", answers[5].text, "poll 1",
                    #"{"ping":1,"text":"ping #1"}"#,
                ]
            )
        }
    }
}
