public import Foundation
public import MockdClient

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// One test's session on a running mockd, with the chores around it done: named after the test, switched to the
/// scenario the test plan names, its journal saved as a HAR when the test ends, the session dropped.
///
/// Works with any test framework (XCTest, Swift Testing) on Apple platforms and on Linux. `MockdTestCase` (XCTest)
/// and `withMockdSession` (any framework) call `start` and `finish` for the test.
///
/// The environment (the test plan's, or the CI job's) supplies what the test does not:
/// - `MOCKD_BASE_URL`: the daemon (`http://127.0.0.1:8080` when unset);
/// - `MOCKD_SCENARIO`: the scenario to start from (the daemon's startup scenario when unset);
/// - `MOCKD_CONTROL_TOKEN`: the daemon's `--control-token`, if it has one;
/// - `MOCKD_JOURNAL_DIR`: where journals are written as files (the temporary directory's `mockd-journals/` when
///   unset; on Apple platforms `MockdTestCase` attaches them to the test result instead).
public struct MockdTestSession: Sendable {
    /// The client of this session; every `MockdClient` call is available on it.
    public let client: MockdClient
    /// The test's name as given to `start`.
    public let testName: String

    /// The session id the app must send: `client.session`.
    public var session: String { client.session }
    /// What `XCUIApplication.launchEnvironment` needs: `MOCKD_BASE_URL` and `MOCKD_SESSION`.
    public var launchEnvironment: [String: String] { client.launchEnvironment }

    /// Environment key of the scenario to start from: `MOCKD_SCENARIO`.
    public static let scenarioEnvironmentKey = "MOCKD_SCENARIO"
    /// Environment key of the control token: `MOCKD_CONTROL_TOKEN`.
    public static let controlTokenEnvironmentKey = "MOCKD_CONTROL_TOKEN"
    /// Environment key of the journal folder: `MOCKD_JOURNAL_DIR`.
    public static let journalDirectoryEnvironmentKey = "MOCKD_JOURNAL_DIR"
    /// Environment key that keeps secrets in saved journals: `MOCKD_JOURNAL_KEEP_SECRETS=1` (see `finish`).
    public static let journalKeepsSecretsEnvironmentKey = "MOCKD_JOURNAL_KEEP_SECRETS"

    /// Starts a session for the test `testName`.
    ///
    /// The session id is the test name reduced to its ASCII letters, digits and `_`, each run of other characters one `.` (`OrdersTests.testCancel`
    /// from `-[OrdersTests testCancel]`, `cancelShowsBanner` from `cancelShowsBanner()`), cut to 100 characters,
    /// plus `-` and 8 random hex digits, so that the same test run on several simulators at once gets separate
    /// sessions. The session starts empty (a reset), then switches to `scenario`.
    /// - Parameters:
    ///   - testName: The test's name (`self.name` in XCTest, `#function` or the test's display name otherwise).
    ///   - baseURL: The daemon; `MOCKD_BASE_URL`, else `http://127.0.0.1:8080`, when `nil`.
    ///   - scenario: The scenario to use; `MOCKD_SCENARIO`, else the daemon's startup scenario, when `nil`.
    ///   - environment: Where the `MOCKD_…` values are read (the process environment by default).
    ///   - urlSession: The session the control calls go through (`URLSession.shared` by default).
    /// - Throws: `MockdClientError` when the daemon refuses the scenario (404 `unknown_scenario`), `URLError` when it
    ///   is not reachable, `MockdTestKitError.badBaseURL` for a `MOCKD_BASE_URL` that is not a URL.
    public static func start(
        testName: String,
        baseURL: URL? = nil,
        scenario: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        urlSession: URLSession = .shared
    ) async throws -> MockdTestSession {
        let url: URL
        if let baseURL {
            url = baseURL
        } else if let text = environment[MockdClient.baseURLEnvironmentKey] {
            guard let parsed = URL(string: text), parsed.scheme != nil, parsed.host != nil else {
                throw MockdTestKitError.badBaseURL(text)
            }
            url = parsed
        } else {
            url = URL(string: "http://127.0.0.1:8080")!
        }
        let client = MockdClient(
            baseURL: url,
            session: sessionID(for: testName),
            controlToken: environment[controlTokenEnvironmentKey],
            urlSession: urlSession
        )
        try await client.reset()
        if let name = scenario ?? environment[scenarioEnvironmentKey], !name.isEmpty {
            try await client.useScenario(name)
        }
        return MockdTestSession(client: client, testName: testName)
    }

    /// The session id for a test name (see `start`).
    public static func sessionID(for testName: String) -> String {
        var id = ""
        var pendingSeparator = false
        for character in testName {
            if character.isASCII, character.isLetter || character.isNumber || character == "_" {
                if pendingSeparator, !id.isEmpty { id.append(".") }
                pendingSeparator = false
                id.append(character)
            } else {
                pendingSeparator = true
            }
        }
        if id.isEmpty { id = "test" }
        let suffix = UUID().uuidString.lowercased().prefix(8)
        return String(id.prefix(100)) + "-" + suffix
    }

    /// Saves the journal as a HAR file and drops the session on the daemon. Call it once, when the test ends.
    ///
    /// The HAR goes through the same hygiene as `mockd import-har` (the journal holds the real password and tokens the
    /// app sent, and the file is attached to test results): they become placeholders, unless `keepSecrets` (or
    /// `MOCKD_JOURNAL_KEEP_SECRETS=1` in the environment) asks for the values as sent.
    ///
    /// - Parameters:
    ///   - directory: Where the file goes; `MOCKD_JOURNAL_DIR`, else `<temporary directory>/mockd-journals`.
    ///   - keepSecrets: `true` keeps the values as sent; `nil` reads `MOCKD_JOURNAL_KEEP_SECRETS` from `environment`.
    ///   - environment: Where `MOCKD_JOURNAL_DIR` and `MOCKD_JOURNAL_KEEP_SECRETS` are read (the process environment
    ///     by default).
    /// - Returns: The HAR's bytes and the file written (`<session>.har`).
    /// - Throws: What reading the journal or writing the file throws; the session is dropped in any case when the
    ///   daemon is reachable.
    @discardableResult
    public func finish(
        directory: URL? = nil,
        keepSecrets: Bool? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws -> (har: Data, file: URL) {
        do {
            let keep =
                keepSecrets
                ?? (environment[Self.journalKeepsSecretsEnvironmentKey].map { $0 == "1" || $0 == "true" } ?? false)
            let har = try await client.journalHAR(keepSecrets: keep)
            let folder =
                directory
                ?? environment[Self.journalDirectoryEnvironmentKey].map { URL(fileURLWithPath: $0, isDirectory: true) }
                ?? FileManager.default.temporaryDirectory.appendingPathComponent("mockd-journals", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let file = folder.appendingPathComponent("\(session).har")
            try har.write(to: file, options: .atomic)
            try await client.dropSession()
            return (har, file)
        } catch {
            try? await client.dropSession()
            throw error
        }
    }
}

/// What the test kit throws besides `MockdClientError` and transport errors.
public enum MockdTestKitError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `MOCKD_BASE_URL` is not an absolute URL.
    case badBaseURL(String)
    /// An expectation on the journal failed; the message says what was asked, what the journal holds, and the
    /// near misses: the closest requests with the part of the key that differed (`method: expected POST, got PUT`),
    /// and for requests no stub answered, the closest stubs and what differed from them.
    case expectationFailed(String)

    public var description: String {
        switch self {
        case .badBaseURL(let text):
            return "MOCKD_BASE_URL '\(text)' is not an absolute URL such as http://127.0.0.1:8080"
        case .expectationFailed(let message): return message
        }
    }
}

/// Runs `body` with a session for the test `testName` (`start`), then `finish`es it, whether `body` throws or not.
/// What `body` throws is rethrown after the journal is saved, so a failing test keeps its evidence.
///
/// ```swift
/// @Test func cancelledOrderShowsBanner() async throws {
///     try await withMockdSession { mockd in
///         try await mockd.client.replace(.orders([.open(1), .cancelled(2)]))
///         …
///         try await mockd.verify(method: "POST", path: "/v1/orders/2/cancel", count: 1)
///     }
/// }
/// ```
/// - Parameters:
///   - testName: `#function` by default.
///   - baseURL: The daemon, as for `MockdTestSession.start`: `MOCKD_BASE_URL`, else `http://127.0.0.1:8080`.
///   - scenario: The scenario, as for `MockdTestSession.start`: `MOCKD_SCENARIO`, else the daemon's own.
///   - body: The test, given the started session.
/// - Returns: What `body` returns.
@discardableResult
public func withMockdSession<T>(
    _ testName: String = #function,
    baseURL: URL? = nil,
    scenario: String? = nil,
    _ body: (MockdTestSession) async throws -> T
) async throws -> T {
    let session = try await MockdTestSession.start(testName: testName, baseURL: baseURL, scenario: scenario)
    let result: T
    do {
        result = try await body(session)
    } catch {
        _ = try? await session.finish()
        throw error
    }
    try await session.finish()
    return result
}
