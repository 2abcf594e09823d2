import Foundation
import MockdAppRedirect
import MockdClient
import MockdTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Failures only the client sees: a stub names a client fault, and the app's URLSession (through MockdAppRedirect's
/// URLProtocol, as on a device) fails that one request with the matching URLError; a client without the library gets
/// the wire fallback, and the journal says which happened.
@Suite("Client faults")
struct ClientFaultTests {
    static let host = "api.client-fault.invalid"

    /// Each fault, the URLError code the app gets, and what Apple's URL loading system says for it.
    static let faults: [(fault: Fault, code: URLError.Code, description: String)] = [
        (.offline, .notConnectedToInternet, "The Internet connection appears to be offline."),
        (.dnsFailure, .cannotFindHost, "A server with the specified hostname could not be found."),
        (
            .tlsFailure, .secureConnectionFailed,
            "An SSL error has occurred and a secure connection to the server cannot be made."
        ),
        (.timeout, .timedOut, "The request timed out."),
        (.cancelled, .cancelled, "cancelled"),
    ]

    /// What URLSession (made the way an app makes it, with the redirect applied) fails `url` with.
    static func urlError(_ url: URL) async -> URLError? {
        let configuration = URLSessionConfiguration.ephemeral
        MockdRedirect.apply(to: configuration)
        do {
            _ = try await URLSession(configuration: configuration).data(from: url)
            return nil
        } catch {
            return error as? URLError
        }
    }

    @Test func eachClientFaultIsRaisedInTheAppAsItsURLError() async throws {
        try await withDaemon { harness in
            for (fault, _, _) in Self.faults {
                try await harness.client.addStub(
                    StubDefinition(method: "GET", path: "/v1/fault/\(fault)", fault: fault)
                )
            }
            let redirect = MockdRedirect.Configuration(
                baseURL: harness.client.baseURL,
                session: harness.client.session,
                hosts: [Self.host]
            )
            try await withRedirect(redirect) {
                for (fault, code, description) in Self.faults {
                    let url = URL(string: "https://\(Self.host)/v1/fault/\(fault)")!
                    let error = try #require(await Self.urlError(url), "\(fault): the request did not fail")
                    #expect(error.code == code, "\(fault)")
                    #expect(error.errorCode == fault.clientError?.code, "\(fault)")
                    #expect(error.failingURL == url, "\(fault)")
                    #expect(error.userInfo[NSLocalizedDescriptionKey] as? String == description, "\(fault)")
                }
            }
            let journal = try await harness.client.journal()
            #expect(journal.map(\.target) == Self.faults.map { "/v1/fault/\($0.fault)" })
            #expect(journal.map(\.fault) == Self.faults.map { $0.fault.rawValue })
            #expect(journal.map(\.status) == Array(repeating: nil, count: Self.faults.count))
            #expect(
                journal.map(\.note)
                    == Self.faults.map {
                        "client fault \($0.fault): MockdAppRedirect raised URLError.\($0.fault.clientError!.name) (\($0.fault.clientError!.code)) in the app"
                    }
            )
        }
    }

    @Test func anOfflineSendFailsOnceAndTheAppsRetryGetsTheAnswer() async throws {
        try await withDaemon { harness in
            // What MockdClient.fail(…) adds: the fault for the next call, then the scenario's own answer.
            try await harness.client.fail("POST", "/v1/conversations/{id}/messages", with: .offline)
            let redirect = MockdRedirect.Configuration(
                baseURL: harness.client.baseURL,
                session: harness.client.session,
                hosts: [Self.host]
            )
            var request = URLRequest(url: URL(string: "https://\(Self.host)/v1/conversations/c_1001/messages")!)
            request.httpMethod = "POST"
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(LiveDaemonTests.messageBody.utf8)
            let outcomes = try await withRedirect(redirect) { () async throws -> [Result<Int, URLError>] in
                let configuration = URLSessionConfiguration.ephemeral
                MockdRedirect.apply(to: configuration)
                let session = URLSession(configuration: configuration)
                var outcomes: [Result<Int, URLError>] = []
                for _ in 0..<2 {
                    do {
                        let (_, response) = try await session.data(for: request)
                        outcomes.append(.success((response as? HTTPURLResponse)?.statusCode ?? 0))
                    } catch let error as URLError {
                        outcomes.append(.failure(error))
                    }
                }
                return outcomes
            }
            #expect(outcomes.count == 2)
            if case .failure(let error) = outcomes.first {
                #expect(error.code == .notConnectedToInternet)
            } else {
                Issue.record("the first send did not fail offline: \(outcomes)")
            }
            if case .success(let status) = outcomes.last {
                #expect(status == 201)
            } else {
                Issue.record("the retry did not get the scenario's answer: \(outcomes)")
            }
        }
    }

    @Test func withoutTheRedirectAClientGetsTheWireFallbackAndTheJournalSaysSo() async throws {
        try await withDaemon { harness in
            try await harness.client.addStub(StubDefinition(method: "GET", path: "/v1/fault/offline", fault: .offline))
            try await harness.client.addStub(StubDefinition(method: "GET", path: "/v1/fault/timeout", fault: .timeout))
            let session = [("X-Mockd-Session", harness.client.session)]
            let base = harness.daemon.baseURL
            // A real app without the library: the connection is reset (curl 56), or never answered (curl 28).
            let reset = try Curl.run([
                "--header", "X-Mockd-Session: \(harness.client.session)", base + "/v1/fault/offline",
            ])
            #expect(reset.status == 56)
            #expect(reset.stderr.contains("Connection reset by peer"))
            let hung = try Curl.run([
                "--max-time", "1", "--header", "X-Mockd-Session: \(harness.client.session)", base + "/v1/fault/timeout",
            ])
            #expect(hung.status == 28)
            // The header alone, as the library sends it: the answer names the fault for the library to raise.
            let told = try Curl.send(
                CurlRequest(url: base + "/v1/fault/offline", headers: session + [("X-Mockd-Client-Faults", "1")])
            )
            #expect(told.status == 503)
            #expect(told.header("X-Mockd-Client-Fault") == "offline")
            #expect(told.header("Cache-Control") == "no-store")
            let body = try #require(try JSONSerialization.jsonObject(with: told.body) as? [String: String])
            #expect(body["error"] == "client_fault")
            #expect(body["urlError"] == "notConnectedToInternet")
            let journal = try await harness.client.journal()
            #expect(journal.map(\.fault) == ["offline", "timeout", "offline"])
            #expect(
                journal.map(\.note) == [
                    "client fault offline: the request did not come through MockdAppRedirect, so the wire fallback connectionReset was sent: the client sees the connection reset (URLError.networkConnectionLost, curl 56)",
                    "client fault timeout: the request did not come through MockdAppRedirect, so the wire fallback noResponse was sent: the client sees no answer until it gives up",
                    "client fault offline: MockdAppRedirect raised URLError.notConnectedToInternet (-1009) in the app",
                ]
            )
        }
    }
}
