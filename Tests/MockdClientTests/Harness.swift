import Foundation
import MockdAppRedirect
import MockdClient
import MockdTestSupport

/// A daemon on a free port (scenario `chat_happy_path`) with a client for a fresh session.
struct Harness {
    let daemon: RunningDaemon
    let client: MockdClient

    /// A client of the same daemon for another session.
    func client(session: String, token: String? = nil) -> MockdClient {
        MockdClient(baseURL: client.baseURL, session: session, controlToken: token)
    }

    /// What the app does: one request to the mocked API, sent with `X-Mockd-Session: client.session`.
    func app(_ path: String, as client: MockdClient? = nil) throws -> CurlResponse {
        try app("GET", path, as: client)
    }

    func app(
        _ method: String,
        _ path: String,
        headers: [(String, String)] = [],
        json: String? = nil,
        as client: MockdClient? = nil
    ) throws -> CurlResponse {
        try Curl.send(request(method, path, headers: headers, json: json, as: client))
    }

    func request(_ path: String, as client: MockdClient? = nil) -> CurlRequest {
        request("GET", path, as: client)
    }

    func request(
        _ method: String,
        _ path: String,
        headers: [(String, String)] = [],
        json: String? = nil,
        as client: MockdClient? = nil
    ) -> CurlRequest {
        var fields = [(MockdClient.sessionHeader, (client ?? self.client).session)] + headers
        if json != nil { fields.append(("Content-Type", "application/json")) }
        return CurlRequest(
            method: method,
            url: daemon.baseURL + path,
            headers: fields,
            body: json.map { Data($0.utf8) }
        )
    }
}

/// Starts `mockd --config chat_happy_path` (plus `extraArguments`), runs `body`, stops the daemon.
func withDaemon(
    _ extraArguments: [String] = [],
    token: String? = nil,
    session: String = "client-tests",
    _ body: (Harness) async throws -> Void
) async throws {
    let daemon = try RunningDaemon(
        ["--config", "chat_happy_path", "--root", Paths.packageRoot.path, "--port", "0", "--quiet"] + extraArguments
    )
    defer { daemon.stop() }
    let client = MockdClient(baseURL: URL(string: daemon.baseURL)!, session: session, controlToken: token)
    try await body(Harness(daemon: daemon, client: client))
}

/// The error `body` throws, or `nil` when it does not throw.
func caught(_ body: () async throws -> Void) async -> MockdClientError? {
    do {
        try await body()
        return nil
    } catch let error as MockdClientError {
        return error
    } catch {
        return .invalidResponse("unexpected error type: \(error)")
    }
}

/// One redirect at a time: `MockdRedirect.install` sets the process's one configuration, and the suites that install
/// one run in parallel with each other (each with its own daemon).
private actor RedirectInstallations {
    static let shared = RedirectInstallations()
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func acquire() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
    }
}

/// Runs `body` with `configuration` installed as the app's redirect, no other test's installed meanwhile.
func withRedirect<T>(
    _ configuration: MockdRedirect.Configuration,
    _ body: () async throws -> T
) async throws -> T {
    await RedirectInstallations.shared.acquire()
    MockdRedirect.install(configuration)
    do {
        let result = try await body()
        await RedirectInstallations.shared.release()
        return result
    } catch {
        await RedirectInstallations.shared.release()
        throw error
    }
}
