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

    /// A POST recorded once per endpoint has no body in its key: refresh still sends the body it was recorded with
    /// (before, it sent `Content-Type: application/json` and nothing, and the upstream's 422 read as an API change),
    /// and lists every stub it cannot replay with the reason.
    @Test func recordedBodiesAreSentAgainAndWhatCannotBeReplayedIsListed() throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        var profile = HAR.entry(
            "PUT",
            "https://api.shop.test/v1/profile",
            requestHeaders: [("Content-Type", "application/x-www-form-urlencoded")],
            text: #"{"name":"Anna","city":"Paris"}"#
        )
        var request = profile["request"] as! [String: Any]
        request["postData"] = ["mimeType": "application/x-www-form-urlencoded", "text": "name=Anna&city=Paris"]
        profile["request"] = request
        let entries: [[String: Any]] = [
            HAR.entry(
                "POST",
                "https://api.shop.test/v1/orders",
                requestHeaders: [("Content-Type", "application/json")],
                body: #"{"sku": "tea", "qty": 2}"#,
                status: 201,
                text: #"{"id":7,"sku":"tea","qty":2}"#
            ),
            profile,
            HAR.entry(
                "POST",
                "https://api.shop.test/v1/auth/sign-in",
                requestHeaders: [("Content-Type", "application/json")],
                body: #"{"email":"anna@shop.test","password":"hunter22"}"#,
                text: #"{"ok":true}"#
            ),
            HAR.entry(
                "POST",
                "https://api.shop.test/v1/cart/items",
                requestHeaders: [("Content-Type", "application/json")],
                body: #"{"sku": "cup"}"#,
                status: 201,
                text: #"{"items":1}"#
            ),
            HAR.entry("GET", "https://api.shop.test/v1/status", text: #"{"up":true}"#),
        ]
        let har = root.appendingPathComponent("shop.har")
        try HAR.write(entries, to: har)
        let imported = try ProcessRunner.mockd(["import-har", har.path, "--set", "shop", "--root", root.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        // The order's body is not part of its key, and is kept as what was sent.
        let indexURL = root.appendingPathComponent("mocks/shop/index.json")
        var index = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: indexURL)) as? [String: Any])
        var stubs = try #require(index["stubs"] as? [[String: Any]])
        let order = try #require(stubs.first { $0["id"] as? String == "POST_v1_orders" })
        let orderRequest = try #require(order["request"] as? [String: Any])
        #expect(orderRequest["body"] == nil)
        let recorded = try #require(orderRequest["recordedBody"] as? [String: String])
        #expect(recorded == ["file": "bodies/POST_v1_orders.request.json", "contentType": "application/json"])
        #expect(
            try String(
                contentsOf: root.appendingPathComponent("mocks/shop/bodies/POST_v1_orders.request.json"),
                encoding: .utf8
            )
                == #"{"sku": "tea", "qty": 2}"#
        )
        // A set imported before recorded bodies were kept: the cart stub without its recordedBody.
        for position in stubs.indices where stubs[position]["id"] as? String == "POST_v1_cart_items" {
            var request = stubs[position]["request"] as! [String: Any]
            request["recordedBody"] = nil
            stubs[position]["request"] = request
        }
        index["stubs"] = stubs
        try JSONSerialization.data(withJSONObject: index, options: [.prettyPrinted, .sortedKeys]).write(to: indexURL)
        #expect(try ProcessRunner.mockd(["validate", "--set", "shop", "--root", root.path]).status == 0)

        // The live API answers only the bodies it was sent (422 without one).
        let upstreamRoot = try Paths.makeRoot(
            scenario: #"""
                {"sets": ["chat"], "overrides": [
                  {"match": {"method": "POST", "path": "/v1/orders", "body": {"json": {"sku": "tea", "qty": 2}}}, "priority": 1,
                   "status": 201, "body": {"id": 8, "sku": "tea", "qty": 2, "status": "new"}},
                  {"match": {"method": "POST", "path": "/v1/orders"}, "status": 422, "body": {"error": "no body"}},
                  {"match": {"method": "PUT", "path": "/v1/profile", "body": {"text": "name=Anna&city=Paris"}}, "priority": 1,
                   "status": 200, "body": {"name": "Anna", "city": "Paris", "plan": "pro"}},
                  {"match": {"method": "PUT", "path": "/v1/profile"}, "status": 400, "body": {"error": "no body"}},
                  {"match": {"method": "GET", "path": "/v1/status"}, "status": 200, "body": {"up": true}}
                ]}
                """#
        )
        defer { try? FileManager.default.removeItem(at: upstreamRoot) }
        let upstream = try RunningDaemon(["--config", "s", "--root", upstreamRoot.path, "--port", "0", "--quiet"])
        defer { upstream.stop() }
        let refreshed = try ProcessRunner.mockd([
            "refresh", "--upstream", upstream.baseURL, "--set", "shop", "--into", "shop-v2", "--root", root.path,
        ])
        #expect(refreshed.status == 0, "\(refreshed.stdout)\(refreshed.stderr)")
        #expect(
            refreshed.stdout.hasPrefix(
                """
                refreshed mocks/shop/ from \(upstream.baseURL) into mocks/shop-v2/: 3 requests replayed
                  refused:        0
                  now failing:    0
                  not replayed:   2
                    POST_v1_auth_sign-in (POST /v1/auth/sign-in): the recorded request holds a placeholder (redacted at import); not sent
                    POST_v1_cart_items (POST /v1/cart/items): the set does not hold the body this request was recorded with (imported before mockd kept recorded bodies); import the HAR again to refresh it

                """
            ),
            "\(refreshed.stdout)"
        )
        // What the upstream received: each body exactly as recorded.
        let journal = try Curl.send(CurlRequest(url: upstream.baseURL + "/__mockd/journal"))
        let received = try #require(
            (try JSONSerialization.jsonObject(with: journal.body) as? [String: Any])?["entries"] as? [[String: Any]]
        )
        #expect(
            received.map { "\($0["method"] ?? "") \($0["target"] ?? "") \($0["body"] ?? "")" }.sorted() == [
                "GET /v1/status ", #"POST /v1/orders {"sku": "tea", "qty": 2}"#, "PUT /v1/profile name=Anna&city=Paris",
            ]
        )
        #expect(received.allSatisfy { ($0["status"] as? Int).map { $0 < 300 } == true })
    }
}
