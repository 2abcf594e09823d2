import Foundation
import MockdClient
import MockdTestSupport
import Testing

/// Issue 39's answers as an app's test steers them through the Swift kit, on the real daemon: a recorded "expires in
/// 5 minutes" served a week later on the session's virtual clock, seeded fake data that a seed reproduces, and
/// GraphQL operations stubbed by name and variables.
@Suite("Fresh dates, seeded fake data and GraphQL stubs from the kit")
struct AppShapedAnswerTests {
    /// The recording's own time: the HAR entry's `startedDateTime` and the answer's `Date`.
    static let recordedAt = "2026-11-27T09:00:00.000Z"

    /// A one-entry HAR: `POST /v1/auth/code` answering a code that expires 5 minutes after it was issued.
    static func recording() throws -> Data {
        let body = #"{"code":"482916","issuedAt":"2026-11-27T09:00:00Z","expiresAt":"2026-11-27T09:05:00Z"}"#
        let entry: [String: Any] = [
            "startedDateTime": recordedAt, "time": 12,
            "request": [
                "method": "POST", "url": "https://api.bank.test/v1/auth/code", "httpVersion": "HTTP/1.1",
                "headers": [["name": "Content-Type", "value": "application/json"]],
                "postData": ["mimeType": "application/json", "text": #"{"phone":"+15555550100"}"#],
            ],
            "response": [
                "status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
                "headers": [
                    ["name": "Content-Type", "value": "application/json"],
                    ["name": "Date", "value": "Fri, 27 Nov 2026 09:00:00 GMT"],
                ],
                "content": ["mimeType": "application/json", "size": body.utf8.count, "text": body],
            ],
        ]
        return try JSONSerialization.data(withJSONObject: [
            "log": ["version": "1.2", "creator": ["name": "test", "version": "1"], "entries": [entry]]
        ])
    }

    static func instant(_ text: String?) -> Date? {
        text.flatMap { ISO8601DateFormatter().date(from: $0) }
    }

    @Test func aCodeRecordedToExpireInFiveMinutesStillDoesAWeekLater() async throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let har = root.appendingPathComponent("auth.har")
        try Self.recording().write(to: har)
        let imported = try ProcessRunner.mockd([
            "import-har", har.path, "--set", "auth", "--root", root.path, "--rebase-dates",
        ])
        try #require(imported.status == 0, "\(imported.stderr)")
        // The report lists what it found.
        #expect(imported.stdout.contains("/expiresAt"), "\(imported.stdout)")
        #expect(imported.stdout.contains("/issuedAt"), "\(imported.stdout)")
        let daemon = try RunningDaemon(["--set", "auth", "--root", root.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        let client = MockdClient(baseURL: URL(string: daemon.baseURL)!, session: "a-week-later")
        let weekLater = try #require(Self.instant("2026-12-04T09:00:00Z"))
        try await client.setClock(to: weekLater)
        let answer = try Curl.send(
            CurlRequest(
                method: "POST",
                url: daemon.baseURL + "/v1/auth/code",
                headers: [(MockdClient.sessionHeader, client.session), ("Content-Type", "application/json")],
                body: Data(#"{"phone":"+15555550100"}"#.utf8)
            )
        )
        #expect(answer.status == 200)
        let json = try #require(try JSONSerialization.jsonObject(with: answer.body) as? [String: Any])
        #expect(json["code"] as? String == "482916")
        let issued = try #require(Self.instant(json["issuedAt"] as? String), "\(json)")
        let expires = try #require(Self.instant(json["expiresAt"] as? String), "\(json)")
        // Still 5 minutes, in the recorded layout, issued at the session's now (the clock runs on: between the set
        // and the clock read after the answer); the Date header on the same clock.
        let after = try await client.clock().date
        #expect(expires.timeIntervalSince(issued) == 300)
        #expect(issued >= weekLater.addingTimeInterval(-1) && issued <= after, "issued \(issued), clock \(after)")
        #expect((json["expiresAt"] as? String)?.hasSuffix("Z") == true)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let served = try #require(answer.header("Date").flatMap(formatter.date(from:)), "\(answer.headers)")
        #expect(served >= weekLater.addingTimeInterval(-1) && served <= after, "Date \(served), clock \(after)")
        // Another session on real time gets today's dates, the same 5 minutes apart.
        let today = try Curl.send(
            CurlRequest(
                method: "POST",
                url: daemon.baseURL + "/v1/auth/code",
                headers: [(MockdClient.sessionHeader, "today"), ("Content-Type", "application/json")],
                body: Data(#"{"phone":"+15555550100"}"#.utf8)
            )
        )
        let now = try #require(try JSONSerialization.jsonObject(with: today.body) as? [String: Any])
        let issuedToday = try #require(Self.instant(now["issuedAt"] as? String))
        #expect(abs(issuedToday.timeIntervalSinceNow) < 5)
        #expect(Self.instant(now["expiresAt"] as? String)?.timeIntervalSince(issuedToday) == 300)
    }

    static let person = StubDefinition(
        id: "person",
        method: "GET",
        path: "/v1/person",
        body: .string(
            #"{"name": "{{fake.name}}", "email": "{{fake.email}}", "phone": "{{fake.phone}}", "id": "{{fake.uuid}}", "age": {{fake.int min=18 max=90}}, "expires": "{{now offset="+1d" format="yyyy-MM-dd"}}"}"#
        )
    )

    @Test func fakeDataIsTheSameForTheSameSeed() async throws {
        try await withDaemon { harness in
            func people(_ session: String, seed: UInt64) async throws -> [[String: Any]] {
                let client = harness.client(session: session)
                try await client.addStub(Self.person)
                try await client.setSwitches(seed: seed)
                try await client.setClock(to: Self.instant("2030-01-31T12:00:00Z")!)
                return try (0..<2).map { _ in
                    let answer = try harness.app("/v1/person", as: client)
                    #expect(answer.status == 200)
                    return try #require(try JSONSerialization.jsonObject(with: answer.body) as? [String: Any])
                }
            }
            let first = try await people("seed-a", seed: 42)
            let again = try await people("seed-b", seed: 42)
            let other = try await people("seed-c", seed: 43)
            let text = { (person: [String: Any]) in
                String(
                    decoding: try! JSONSerialization.data(withJSONObject: person, options: .sortedKeys),
                    as: UTF8.self
                )
            }
            #expect(first.map(text) == again.map(text))
            #expect(first.map(text) != other.map(text))
            // The second call draws new values; the person's fields agree with each other.
            #expect(text(first[0]) != text(first[1]))
            let name = try #require(first[0]["name"] as? String)
            let email = try #require(first[0]["email"] as? String)
            #expect(email.hasPrefix(name.split(separator: " ")[0].lowercased()), "\(name) \(email)")
            #expect((first[0]["phone"] as? String)?.hasPrefix("+1") == true)
            #expect((18...90).contains(first[0]["age"] as? Int ?? 0))
            #expect(first[0]["expires"] as? String == "2030-02-01")
        }
    }

    @Test func graphQLOperationsAreStubbedByNameAndVariables() async throws {
        try await withDaemon { harness in
            let client = harness.client
            try await client.addStub(
                .graphQL("GetUser", variables: ["id": "7"], path: "/graphql", data: ["user": ["name": "Ada"]])
            )
            try await client.addStub(.graphQL("SendMessage", path: "/graphql", errors: "Rate limited"))
            try await client.addStub(
                .graphQL(
                    .init(matches: "Get.*"),
                    path: "/graphql",
                    data: ["feed": []],
                    errors: [["message": "partial", "path": ["feed"]]],
                    priority: -1
                )
            )
            func post(_ body: String) throws -> String {
                let answer = try harness.app("POST", "/graphql", json: body)
                return "\(answer.status) " + String(decoding: answer.body, as: UTF8.self)
            }
            #expect(
                try post(
                    #"{"query":"query GetUser($avatar: Boolean, $id: ID!) {\n user(id: $id) { name } }","variables":{"avatar":false,"id":"7"}}"#
                ) == #"200 {"data":{"user":{"name":"Ada"}}}"#
            )
            #expect(
                try post(#"{"operationName":"SendMessage","query":"mutation SendMessage { send }"}"#)
                    == #"200 {"data":null,"errors":[{"message":"Rate limited"}]}"#
            )
            let feed = try post(#"{"operationName":"GetFeed","query":"query GetFeed { feed }"}"#)
            #expect(feed == #"200 {"data":{"feed":[]},"errors":[{"message":"partial","path":["feed"]}]}"#)
            // GetUser with another id is not the first stub's: the fallback's partial answer.
            let otherUser = try post(
                #"{"query":"query GetUser($id: ID!) { user(id: $id) { name } }","variables":{"id":"8"}}"#
            )
            #expect(otherUser == feed)
        }
    }
}
