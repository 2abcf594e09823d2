import Foundation
import MockdTestSupport
import Testing

/// The bundled example that `scripts/run` serves: a chat app's happy path, end to end over HTTP.
struct ChatExampleTests {
    @Test func happyPathServesEveryEndpointInOrder() throws {
        let daemon = try RunningDaemon([
            "--config", "chat_happy_path", "--root", Paths.packageRoot.path, "--port", "0", "--quiet",
        ])
        defer { daemon.stop() }
        let base = daemon.baseURL
        let bodies = Paths.packageRoot.appendingPathComponent("mocks/chat/bodies")
        func file(_ name: String) throws -> Data { try Data(contentsOf: bodies.appendingPathComponent(name)) }
        let json = [("Content-Type", "application/json; charset=utf-8")]

        let responses = try Curl.batch([
            CurlRequest(
                method: "POST",
                url: base + "/v1/auth/sign-in",
                headers: json,
                body: Data(#"{"password": "correct horse", "email": "anna@example.com"}"#.utf8)
            ),
            CurlRequest(url: base + "/v1/me"),
            CurlRequest(url: base + "/v1/conversations"),
            CurlRequest(url: base + "/v1/conversations/c_1001/messages?limit=20"),
            CurlRequest(url: base + "/v1/conversations/c_1001/messages?limit=20&before=m_0990"),
            CurlRequest(
                method: "POST",
                url: base + "/v1/conversations/c_1001/messages",
                headers: json,
                body: Data(#"{"clientMessageId": "cm-1", "text": "Hi, my order #4521 has not arrived yet"}"#.utf8)
            ),
            CurlRequest(url: base + "/v1/conversations/c_1001/updates?after=m_1003"),
            CurlRequest(url: base + "/v1/conversations/c_1001/updates?after=m_1003"),
            CurlRequest(url: base + "/v1/conversations/c_1001/updates?after=m_1003"),
            CurlRequest(url: base + "/v1/conversations/c_1001/updates?after=m_1003"),
            CurlRequest(url: base + "/v1/users/u_olga/avatar.png"),
            CurlRequest(
                method: "POST",
                url: base + "/v1/auth/sign-in",
                headers: json,
                body: Data(#"{"email": "anna@example.com", "password": "wrong"}"#.utf8)
            ),
        ])
        #expect(responses.map(\.status) == [200, 200, 200, 200, 200, 201, 200, 200, 200, 200, 200, 404])
        #expect(responses[0].body == (try file("POST_v1_auth_sign-in.json")))
        #expect(responses[0].headers(named: "Set-Cookie").count == 2)
        #expect(responses[3].body == (try file("GET_v1_conversations_c_1001_messages__limit-20.json")))
        #expect(responses[4].body == (try file("GET_v1_conversations_c_1001_messages__before-m_0990_limit-20.json")))
        #expect(responses[5].body == (try file("POST_v1_conversations_c_1001_messages.json")))
        #expect(responses[6].body == (try file("GET_v1_conversations_c_1001_updates__after-m_1003_1.json")))
        #expect(responses[7].body == (try file("GET_v1_conversations_c_1001_updates__after-m_1003_2.json")))
        #expect(responses[8].body == (try file("GET_v1_conversations_c_1001_updates__after-m_1003_3.json")))
        #expect(responses[9].body == responses[8].body)
        #expect(responses[10].header("Content-Type") == "image/png")
        #expect(responses[10].body.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        #expect(responses[10].body == (try file("GET_v1_users_u_olga_avatar.png")))
        #expect(responses[11].text.contains(#""part" : "body""#))
    }
}
