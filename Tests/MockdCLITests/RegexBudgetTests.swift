import Foundation
import MockdTestSupport
import Testing

/// Every regular expression runs on a budget (issue 34): the shape check at load misses patterns such as
/// `[^/]*[^/]*[^/]*[^/]*x`, `\w*` six times, `a*` seven times or `a{0,1000}` three times, which took 1.1–2.3 s per
/// request on a value that almost matches; on the shared workers one session's stub slowed every other session.
/// A match that runs out of budget is a miss that says so — never a match, and never a `doesNotMatch` that holds —
/// and a pattern that needs no such effort is unaffected.
@Suite(.serialized)
struct RegexBudgetTests {
    static let hostile = [
        "[^/]*[^/]*[^/]*[^/]*x", #"\w*\w*\w*\w*\w*\w*x"#, "a*a*a*a*a*a*a*x", "a{0,1000}a{0,1000}a{0,1000}x",
    ]

    static func stub(_ id: String, _ match: String, status: Int = 200) -> String {
        #"{"id": "\#(id)", "match": \#(match), "status": \#(status), "body": "\#(id)"}"#
    }

    static func json(_ value: String) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: [value]), as: UTF8.self).dropFirst().dropLast()
            .description
    }

    @Test func aPatternOverItsBudgetIsAMissThatSaysSo() throws {
        let daemon = try RunningDaemon(["--set", "chat", "--root", Paths.packageRoot.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        let client = LiveClient(daemon)
        let almost = String(repeating: "a", count: 4000)
        for (index, pattern) in Self.hostile.enumerated() {
            let session = "attacker-\(index)"
            // A header matcher and a path pattern, each with a lower stub that would answer if they were skipped.
            let stubs = [
                Self.stub("fallback", #"{"path": "/h/\#(almost)"}"#, status: 299),
                Self.stub("by-path", #"{"pathPattern": \#(Self.json("/h/" + pattern))}"#),
                Self.stub("fallback-header", #"{"path": "/header"}"#, status: 299),
                Self.stub(
                    "by-header",
                    #"{"path": "/header", "headers": {"X-Value": {"matches": \#(Self.json(pattern))}}}"#
                ),
                Self.stub(
                    "not-header",
                    #"{"path": "/not", "headers": {"X-Value": {"doesNotMatch": \#(Self.json(pattern))}}}"#
                ),
            ]
            for stub in stubs {
                #expect(try client.control("POST", "stubs", session: session, body: stub).status == 201, "\(stub)")
            }
            let answers = try Curl.batch(
                [
                    CurlRequest(url: daemon.baseURL + "/h/" + almost, headers: [("X-Mockd-Session", session)]),
                    CurlRequest(
                        url: daemon.baseURL + "/header",
                        headers: [("X-Mockd-Session", session), ("X-Value", almost)]
                    ),
                    CurlRequest(
                        url: daemon.baseURL + "/not",
                        headers: [("X-Mockd-Session", session), ("X-Value", almost)]
                    ),
                ]
            )
            #expect(answers.map(\.status) == [404, 404, 404], "\(pattern): \(answers.map(\.text))")
            for answer in answers {
                #expect(answer.text.contains("ran out of its matching budget"), "\(pattern): \(answer.text)")
            }
            // The journal says why, and unmatched lists it.
            let unmatched = try client.control("GET", "unmatched", session: session)
            #expect(unmatched.json["count"] as? Int == 3)
        }
        // Patterns that need little effort still match, in another session, right away.
        let fair = [
            Self.stub("id", #"{"pathPattern": "/users/[0-9]+/orders/[a-z0-9-]{1,64}"}"#),
            Self.stub(
                "bearer",
                #"{"path": "/me", "headers": {"Authorization": {"matches": "Bearer [A-Za-z0-9._-]+"}}}"#
            ),
        ]
        for stub in fair { #expect(try client.control("POST", "stubs", session: "fair", body: stub).status == 201) }
        let answers = try Curl.batch([
            CurlRequest(url: daemon.baseURL + "/users/42/orders/ab-12", headers: [("X-Mockd-Session", "fair")]),
            CurlRequest(
                url: daemon.baseURL + "/me",
                headers: [
                    ("X-Mockd-Session", "fair"), ("Authorization", "Bearer " + String(repeating: "t", count: 4000)),
                ]
            ),
        ])
        #expect(answers.map(\.status) == [200, 200])
        #expect(answers.map(\.text) == ["id", "bearer"])
    }
}
