import Foundation
import MockdTestSupport
import Testing

/// `mockd refresh` end to end: a recorded set replayed against a local upstream (a second mockd serving the API's
/// new answers and refusing requests without credentials), a new set written, the diff printed, and the
/// credentials found in no file.
@Suite(.serialized)
struct RefreshTests {
    typealias HAR = ImportHygieneTests

    @Test func refreshWritesANewSetPrintsTheDiffAndWritesNoCredentials() throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let old = root.appendingPathComponent("v1.har")
        try HAR.write(DiffTests.oldEntries, to: old)
        #expect(try ProcessRunner.mockd(["import-har", old.path, "--set", "shop", "--root", root.path]).status == 0)

        // The live API, version 2, behind a bearer token.
        let upstreamRoot = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: upstreamRoot) }
        let new = upstreamRoot.appendingPathComponent("v2.har")
        try HAR.write(DiffTests.newEntries, to: new)
        #expect(
            try ProcessRunner.mockd(["import-har", new.path, "--set", "live", "--root", upstreamRoot.path]).status == 0
        )
        try FileManager.default.createDirectory(
            at: upstreamRoot.appendingPathComponent("configs"),
            withIntermediateDirectories: true
        )
        try Data(
            #"""
            {"sets": ["live"], "overrides": [
              {"priority": 10, "status": 401, "body": {"error": "unauthorized"},
               "match": {"headers": {"Authorization": {"doesNotMatch": "Bearer sekret-token-42"}}}},
              {"priority": 10, "status": 401, "body": {"error": "unauthorized"},
               "match": {"headers": {"Authorization": {"absent": true}}}}]}
            """#.utf8
        ).write(to: upstreamRoot.appendingPathComponent("configs/live.json"))
        let upstream = try RunningDaemon(["--config", "live", "--root", upstreamRoot.path, "--port", "0", "--quiet"])
        defer { upstream.stop() }

        let refreshed = try ProcessRunner.mockd([
            "refresh", "--upstream", upstream.baseURL, "--set", "shop", "--into", "shop-v2", "--root", root.path,
            "--header", "Authorization: Bearer sekret-token-42",
        ])
        // A request now failing keeps its recorded answer (an expired token or a broken server never wrecks a set),
        // and the run exits 1 so CI notices.
        #expect(refreshed.status == 1, "\(refreshed.stderr)")
        #expect(
            refreshed.stdout == """
                refreshed mocks/shop/ from \(upstream.baseURL) into mocks/shop-v2/: 3 requests replayed
                  refused:        0
                  now failing:    1
                    DELETE /v1/cart: 404 (was 204)
                  not replayed:   0
                  kept the recorded answers of the 1 refused or failing request (exit 1)
                shop → shop-v2: 0 endpoints added, 0 removed, 1 changed
                ~ GET /v1/users/{id} (api.shop.test)
                    200: field added $.fullName (string)
                    200: field removed $.name (string)

                """
        )
        // The old set is kept for regression; the new one serves the new answers.
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("mocks/shop/index.json").path))
        let unchanged = try ProcessRunner.mockd(["diff", "shop", old.path, "--root", root.path])
        #expect(unchanged.status == 0)
        // Never written: the token is in no file under the root, nor in the output.
        let files =
            FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.allObjects as? [URL] ?? []
        for file in files where (try? file.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
            let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
            #expect(!text.contains("sekret-token-42"), "\(file.path)")
        }
        #expect(!refreshed.stdout.contains("sekret") && !refreshed.stderr.contains("sekret"))

        // Without the credentials the upstream refuses every request, and the refresh says so.
        let refusedRun = try ProcessRunner.mockd([
            "refresh", "--upstream", upstream.baseURL, "--set", "shop", "--into", "shop-anon", "--root", root.path,
        ])
        #expect(refusedRun.status == 1)
        #expect(
            refusedRun.stdout.hasSuffix(
                "  nothing written: no request got an answer worth keeping; the recordings stay as they are\n"
            )
        )
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("mocks/shop-anon").path))
        #expect(
            refusedRun.stdout.hasPrefix(
                """
                refreshed mocks/shop/ from \(upstream.baseURL) into mocks/shop-anon/: 3 requests replayed
                  refused:        3
                    GET /v1/users/1042: 401
                    DELETE /v1/cart: 401
                    GET /v1/orders: 401
                """
            )
        )
    }

    @Test func stubsWithoutARecordedRequestAreListedNotGuessed() throws {
        let root = try Paths.makeRoot(scenario: #"{"sets": ["chat"]}"#)
        defer { try? FileManager.default.removeItem(at: root) }
        let upstream = try RunningDaemon(["--config", "s", "--root", root.path, "--port", "0", "--quiet"])
        defer { upstream.stop() }
        let index =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: root.appendingPathComponent("mocks/chat/index.json"))
            ) as? [String: Any]
        let stubs = index?["stubs"] as? [[String: Any]] ?? []
        let result = try ProcessRunner.mockd([
            "refresh", "--upstream", upstream.baseURL, "--set", "chat", "--into", "chat2", "--root", root.path,
        ])
        // The bundled set is hand-written (no origins): nothing is replayed, every stub is listed, nothing written.
        #expect(index?["origins"] == nil)
        #expect(result.status == 1)
        #expect(result.stdout.contains("  not replayed:   \(stubs.count)\n"), "\(result.stdout)")
        #expect(
            result.stdout.components(
                separatedBy: "no recorded request (the set names no origin: hand-written or WireMock)"
            )
            .count == stubs.count + 1
        )
        #expect(result.stdout.hasSuffix("  nothing written: no request could be replayed\n"))
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("mocks/chat2").path))
    }
}
