#if canImport(XCTest)
public import XCTest
import MockdClient

/// An `XCTestCase` with a mockd session per test: created in `setUp` (named after the test, scenario from
/// `MOCKD_SCENARIO` or `scenario`), its journal kept and the session dropped in `tearDown`.
///
/// On Apple platforms the journal is attached to the test result as a HAR (`XCTAttachment`, kept on failure only
/// unless `keepsJournal` says always); on Linux it is written to `MOCKD_JOURNAL_DIR` (or the temporary directory's
/// `mockd-journals/`) and the path is printed for a failed test.
///
/// ```swift
/// final class CheckoutUITests: MockdTestCase {
///     func testPaysWithSavedCard() async throws {
///         try await mockd.client.replace(.cart(items: 3))
///         let app = XCUIApplication()
///         app.launchEnvironment.merge(mockd.launchEnvironment) { _, new in new }
///         app.launch()
///         …
///         try await mockd.verify(method: "POST", path: "/v1/payments", count: 1)
///     }
/// }
/// ```
open class MockdTestCase: XCTestCase {
    /// This test's session; set in `setUp`, valid until `tearDown`.
    public private(set) var mockd: MockdTestSession!

    /// The scenario each test starts from; `nil` uses `MOCKD_SCENARIO`, else the daemon's startup scenario.
    open var scenario: String? { nil }
    /// The daemon; `nil` uses `MOCKD_BASE_URL`, else `http://127.0.0.1:8080`.
    open var baseURL: URL? { nil }
    /// Whether a passing test's journal is attached too (Apple platforms; always written on Linux). `false`.
    open var keepsJournal: Bool { false }

    open override func setUp() async throws {
        try await super.setUp()
        mockd = try await MockdTestSession.start(testName: name, baseURL: baseURL, scenario: scenario)
    }

    open override func tearDown() async throws {
        if let mockd {
            let failed = (testRun?.failureCount ?? 0) + (testRun?.unexpectedExceptionCount ?? 0) > 0
            let saved = try? await mockd.finish()
            if let saved {
                #if canImport(ObjectiveC)  // Apple's XCTest, which has XCTAttachment
                let attachment = XCTAttachment(data: saved.har, uniformTypeIdentifier: "public.json")
                attachment.name = "mockd journal \(mockd.session).har"
                attachment.lifetime = keepsJournal ? .keepAlways : .deleteOnSuccess
                add(attachment)
                #else
                if failed { print("mockd journal of \(name): \(saved.file.path)") }
                #endif
            }
            _ = failed
        }
        mockd = nil
        try await super.tearDown()
    }

    /// Fails the test (at the caller's line) unless the app sent exactly `count` requests for `path`; the failure
    /// message names the near miss (see `MockdTestSession.verify`).
    public func assertRequested(
        method: String? = nil,
        path: String,
        host: String? = nil,
        count: Int,
        file: StaticString = #filePath,
        line: UInt = #line
    ) async {
        do {
            try await mockd.verify(method: method, path: path, host: host, count: count)
        } catch {
            XCTFail(String(describing: error), file: file, line: line)
        }
    }
}
#endif
