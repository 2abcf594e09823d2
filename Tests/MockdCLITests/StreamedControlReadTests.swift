import Foundation
import MockdTestSupport
import Testing

/// Large control answers are streamed (issue 34): `journal.har` of 10,000 entries took 5.9 s and `unmatched` 2.3 s on
/// the shared worker that built them whole, stalling every session on it. The journal, its HAR, the unmatched list
/// and a failed verify are now written as they are sent (chunked), a few entries per write, so the worker serves other
/// connections between writes; their content is what it was.
@Suite(.serialized)
struct StreamedControlReadTests {
    @Test func bigControlReadsAreStreamedWhole() throws {
        let daemon = try RunningDaemon(["--set", "chat", "--root", Paths.packageRoot.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        let session = [("X-Mockd-Session", "big")]
        let count = 600
        let requests = (0..<count).map { index in
            index % 2 == 0
                ? CurlRequest(url: daemon.baseURL + "/v1/me", headers: session)
                : CurlRequest(
                    method: "POST",
                    url: daemon.baseURL + "/missing/\(index)",
                    headers: session + [("Content-Type", "application/json")],
                    body: Data(#"{"n": \#(index), "text": "\#(String(repeating: "é", count: 200))"}"#.utf8)
                )
        }
        _ = try Curl.batch(requests)
        let base = daemon.baseURL + "/__mockd/"
        let answers = try Curl.batch([
            CurlRequest(url: base + "journal.har", headers: session),
            CurlRequest(url: base + "unmatched", headers: session),
            CurlRequest(url: base + "journal?limit=10000", headers: session),
            CurlRequest(
                method: "POST",
                url: base + "verify",
                headers: session,
                body: Data(#"{"method": "GET", "path": "/v1/me", "count": 1}"#.utf8)
            ),
        ])
        #expect(answers.map(\.status) == [200, 200, 200, 409])
        for answer in answers {
            #expect(answer.header("Transfer-Encoding") == "chunked", "\(answer.headers)")
            #expect(answer.header("Content-Length") == nil)
            #expect(answer.header("Content-Type") == "application/json; charset=utf-8")
        }
        let har = Recording.json(answers[0].body)
        let entries = (har["log"] as? [String: Any])?["entries"] as? [[String: Any]] ?? []
        #expect(entries.count == count)
        #expect((entries.last?["request"] as? [String: Any])?["url"] as? String == daemon.baseURL + "/missing/599")
        #expect(answers[0].header("Content-Disposition") == "attachment; filename=\"mockd-big.har\"")
        let unmatched = Recording.json(answers[1].body)
        #expect(unmatched["count"] as? Int == count / 2)
        #expect((unmatched["requests"] as? [[String: Any]])?.count == count / 2)
        #expect((unmatched["requests"] as? [[String: Any]])?.first?["nearMisses"] != nil)
        let journal = Recording.json(answers[2].body)
        #expect((journal["entries"] as? [[String: Any]])?.count == count)
        #expect(journal["count"] as? Int == count)
        let verify = Recording.json(answers[3].body)
        #expect(verify["actual"] as? Int == count / 2)
        #expect((verify["requests"] as? [[String: Any]])?.count == count / 2)
        // Small answers stay whole, with a length.
        let health = try Curl.send(CurlRequest(url: base + "health"))
        #expect(health.header("Content-Length") != nil)
    }
}
