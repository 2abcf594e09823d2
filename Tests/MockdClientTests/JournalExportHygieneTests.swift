import Foundation
import MockdClient
import MockdTestKit
import MockdTestSupport
import Testing

/// Exported journals (`GET /__mockd/journal.har`, the HAR `MockdTestKit` saves and attaches) go through the same
/// hygiene as `mockd import-har`: the password, tokens and cookies the app really sent are placeholders, unless the
/// caller asks to keep them.
@Suite("Journal export hygiene")
struct JournalExportHygieneTests {
    static let jwt =
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1X2FubmEiLCJuYW1lIjoiQW5uYSJ9.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg"
    /// What the app sent and received that must not leave the machine in a journal by default.
    static let secrets = [
        "live-token-7f3a9c2d", "correct horse battery", "8f2c1d7e9a55", jwt, "anna.keller@corp.io", "AKlive1234567890",
    ]

    @Test func theSavedJournalHasPlaceholdersWhereTheAppSentSecretsUnlessKeptOnPurpose() async throws {
        let folder = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let daemon = try RunningDaemon([
            "--config", "chat_happy_path", "--root", Paths.packageRoot.path, "--port", "0", "--quiet",
        ])
        defer { daemon.stop() }
        let base = try #require(URL(string: daemon.baseURL))
        func signIn(_ session: MockdTestSession) async throws {
            _ = try await session.client.addStub(
                StubDefinition(
                    match: .init(method: "POST", path: "/v1/auth/sign-in"),
                    response: .init(
                        addHeaders: ["Set-Cookie: sid=8f2c1d7e9a55; Path=/; HttpOnly"],
                        body: [
                            "access_token": .string(Self.jwt),
                            "user": ["email": "anna.keller@corp.io", "plan": "pro"],
                        ]
                    )
                )
            )
            let answer = try Curl.send(
                CurlRequest(
                    method: "POST",
                    url: daemon.baseURL + "/v1/auth/sign-in?api_key=AKlive1234567890",
                    headers: [
                        (MockdClient.sessionHeader, session.session), ("Authorization", "Bearer live-token-7f3a9c2d"),
                        ("Cookie", "sid=8f2c1d7e9a55"), ("Content-Type", "application/json"),
                    ],
                    body: Data(#"{"email":"anna.keller@corp.io","password":"correct horse battery"}"#.utf8)
                )
            )
            #expect(answer.status == 200)
            #expect(answer.text.contains(Self.jwt))  // the app gets what the stub says; only the export is cleaned
        }

        let cleaned = try await MockdTestSession.start(testName: "HygieneTests.testSignIn", baseURL: base)
        try await signIn(cleaned)
        let raw = try Curl.send(
            CurlRequest(
                url: daemon.baseURL + "/__mockd/journal.har?keepSecrets=true",
                headers: [(MockdClient.sessionHeader, cleaned.session)]
            )
        )
        let saved = try await cleaned.finish(directory: folder)
        let text = String(decoding: saved.har, as: UTF8.self)
        for secret in Self.secrets { #expect(!text.contains(secret), "the saved journal holds \(secret)") }
        let log = try #require(
            (try JSONSerialization.jsonObject(with: saved.har) as? [String: Any])?["log"] as? [String: Any]
        )
        let entry = try #require((log["entries"] as? [[String: Any]])?.first)
        let request = try #require(entry["request"] as? [String: Any])
        let headers = (request["headers"] as? [[String: String]] ?? []).map { "\($0["name"]!): \($0["value"]!)" }
        #expect(headers.contains("Authorization: Bearer {{token}}"))
        #expect(headers.contains("Cookie: sid={{cookie}}"))
        #expect(request["url"] as? String == daemon.baseURL + "/v1/auth/sign-in?api_key={{apiKey}}")
        #expect(
            (request["postData"] as? [String: Any])?["text"] as? String
                == #"{"email":"{{email}}","password":"{{password}}"}"#
        )
        let response = try #require(entry["response"] as? [String: Any])
        let sentHeaders = (response["headers"] as? [[String: String]] ?? []).map { "\($0["name"]!): \($0["value"]!)" }
        #expect(sentHeaders.contains("Set-Cookie: sid={{cookie}}; Path=/; HttpOnly"))
        #expect(
            log["comment"] as? String
                == "mockd journal; 8 secret or personal values replaced by placeholders (?keepSecrets=true keeps them)"
        )
        // Asked for on purpose, the values are as sent.
        for secret in Self.secrets { #expect(raw.text.contains(secret), "?keepSecrets=true lost \(secret)") }

        let kept = try await MockdTestSession.start(testName: "HygieneTests.testSignInKept", baseURL: base)
        try await signIn(kept)
        let keptText = String(decoding: try await kept.finish(directory: folder, keepSecrets: true).har, as: UTF8.self)
        for secret in Self.secrets { #expect(keptText.contains(secret), "keepSecrets: true lost \(secret)") }

        // The cleaned journal is a HAR mockd imports into a set that lints clean even without import's own hygiene.
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let imported = try ProcessRunner.mockd([
            "import-har", saved.file.path, "--set", "journal", "--root", root.path, "--keep-secrets",
        ])
        #expect(imported.status == 0, "\(imported.stderr)")
        let lint = try ProcessRunner.mockd(["lint", "journal", "--root", root.path])
        #expect(lint.status == 0, "\(lint.stdout)\(lint.stderr)")
    }
}
