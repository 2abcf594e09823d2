import Foundation
import MockdAppRedirect
import MockdClient
import MockdTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The app-side library: requests rewritten for mockd, and an app's URLSession sent to a real daemon.
@Suite("MockdAppRedirect")
struct AppRedirectTests {
    static let base = URL(string: "http://127.0.0.1:8080")!

    @Test func theLaunchEnvironmentNamesTheDaemonTheSessionAndTheRouting() throws {
        let configuration = try #require(
            MockdRedirect.Configuration(environment: [
                "MOCKD_BASE_URL": "http://127.0.0.1:8080", "MOCKD_SESSION": "ui-1", "MOCKD_HOST_ROUTING": "path",
                "MOCKD_HOSTS": "api.shop.test, CDN.shop.test",
            ])
        )
        #expect(
            configuration
                == MockdRedirect.Configuration(
                    baseURL: Self.base,
                    session: "ui-1",
                    keepsHost: true,
                    hosts: ["api.shop.test", "cdn.shop.test"]
                )
        )
        #expect(MockdRedirect.Configuration(environment: [:]) == nil)
        #expect(MockdRedirect.Configuration(environment: ["MOCKD_BASE_URL": "not a url"]) == nil)
        #expect(MockdRedirect.Configuration(environment: ["MOCKD_BASE_URL": "ftp://127.0.0.1"]) == nil)
    }

    @Test func requestsAreRewrittenKeepingPathQueryMethodAndBody() throws {
        let perHost = MockdRedirect.Configuration(baseURL: Self.base, session: "ui-1", keepsHost: true)
        var request = URLRequest(url: URL(string: "https://api.shop.test/v1/orders?status=open&page=2")!)
        request.httpMethod = "POST"
        request.httpBody = Data("{}".utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let rewritten = try #require(perHost.redirected(request))
        #expect(
            rewritten.url?.absoluteString == "http://127.0.0.1:8080/__host/api.shop.test/v1/orders?status=open&page=2"
        )
        #expect(rewritten.httpMethod == "POST")
        #expect(rewritten.httpBody == Data("{}".utf8))
        #expect(rewritten.value(forHTTPHeaderField: "X-Mockd-Session") == "ui-1")
        // The daemon answers client faults (offline, DNS…) to this library with a header it turns into URLError.
        #expect(rewritten.value(forHTTPHeaderField: "X-Mockd-Client-Faults") == "1")
        #expect(rewritten.value(forHTTPHeaderField: "Content-Type") == "application/json")
        // A port is part of the host name mockd keeps; WebSockets stay WebSockets.
        let socket = try #require(
            perHost.redirected(URLRequest(url: URL(string: "wss://live.shop.test:8443/v1/live")!))
        )
        #expect(socket.url?.absoluteString == "ws://127.0.0.1:8080/__host/live.shop.test:8443/v1/live")
        // Single-host sets: just the daemon's base, under a base path if it has one.
        let plain = MockdRedirect.Configuration(baseURL: URL(string: "http://127.0.0.1:9000/__session/s1/")!)
        #expect(
            plain.redirected(URLRequest(url: URL(string: "https://api.shop.test/v1/me")!))?.url?.absoluteString
                == "http://127.0.0.1:9000/__session/s1/v1/me"
        )
        // Never the daemon itself, never a host outside MOCKD_HOSTS, never anything but HTTP and WebSocket.
        #expect(perHost.redirected(URLRequest(url: URL(string: "http://127.0.0.1:8080/__mockd/health")!)) == nil)
        let only = MockdRedirect.Configuration(baseURL: Self.base, hosts: ["api.shop.test"])
        #expect(only.redirected(URLRequest(url: URL(string: "https://maps.example.com/tile")!)) == nil)
        #expect(only.redirected(URLRequest(url: URL(string: "file:///tmp/x")!)) == nil)
    }

    @Test func anAppsURLSessionReachesTheDaemonWithItsSession() async throws {
        try await withDaemon { harness in
            // Only the app's own (made-up) host: the other suites' clients in this process are left alone.
            let redirect = MockdRedirect.Configuration(
                baseURL: harness.client.baseURL,
                session: harness.client.session,
                hosts: ["api.redirect-test.invalid"]
            )
            let url = URL(string: "https://api.redirect-test.invalid/v1/me")!
            let (data, response) = try await withRedirect(redirect) {
                let configuration = URLSessionConfiguration.ephemeral
                MockdRedirect.apply(to: configuration)
                return try await URLSession(configuration: configuration).data(from: url)
            }
            let http = try #require(response as? HTTPURLResponse)
            #expect(http.statusCode == 200)
            #expect(http.url == url)
            let fields = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            #expect(fields?["email"] as? String == "anna@example.com")
            let journal = try await harness.client.journal()
            #expect(journal.map(\.target) == ["/v1/me"])
            #expect(journal.first?.header("X-Mockd-Session") == harness.client.session)
        }
    }
}
