import Foundation
import MockdTestSupport
import Testing

/// Hosts as first-class parts of a recording (issue 18): a plain import of a two-host HAR answers requests that
/// name no host, default ports and case do not matter, recorded URLs point at the mock, overrides, runtime stubs,
/// the journal and `verify` know hosts, both prefix orders work, and `--merge` replaces what it re-recorded
/// whatever the host layout. The real binary imports a hand-made HAR; the real daemon serves; curl asks.
@Suite(.serialized)
struct HostTests {
    typealias HAR = ImportHygieneTests

    /// api.shop.test (twice with `:443`) and cdn.shop.test; `GET /v1/status` is recorded on both hosts.
    static var twoHostEntries: [[String: Any]] {
        [
            HAR.entry(
                "GET",
                "https://api.shop.test:443/v1/products",
                text:
                    #"{"items":[{"id":1,"image":"https://cdn.shop.test/img/1.png"},{"id":2,"self":"https://api.shop.test/v1/products/2"},{"id":3,"other":"https://cdn.shop.test.evil.example/x","escaped":"https:\/\/cdn.shop.test\/img\/3.png"}]}"#
            ),
            HAR.entry(
                "GET",
                "https://api.shop.test/v1/old-profile",
                status: 302,
                headers: [("Location", "https://api.shop.test/v1/profile"), ("Content-Type", "text/plain")],
                text: ""
            ),
            HAR.entry("GET", "https://api.shop.test/v1/status", text: #"{"service":"api"}"#),
            HAR.entry(
                "GET",
                "https://cdn.shop.test/img/1.png",
                headers: [("Content-Type", "image/png")],
                text: "iVBORw0KGgo=",
                encoding: "base64"
            ),
            HAR.entry("GET", "https://cdn.shop.test/v1/status", text: #"{"service":"cdn"}"#),
        ]
    }

    private func withImportedSet(
        _ entries: [[String: Any]] = HostTests.twoHostEntries,
        arguments: [String] = [],
        _ body: (URL) throws -> Void
    ) throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let har = root.appendingPathComponent("shop.har")
        try HAR.write(entries, to: har)
        let imported = try ProcessRunner.mockd(
            ["import-har", har.path, "--set", "shop", "--root", root.path] + arguments
        )
        try #require(imported.status == 0, "\(imported.stderr)")
        try body(root)
    }

    @Test func aPlainImportAnswersRequestsThatNameNoHostAndReportsOnlyRealCollisions() throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let har = root.appendingPathComponent("shop.har")
        try HAR.write(HostTests.twoHostEntries, to: har)
        let imported = try ProcessRunner.mockd(["import-har", har.path, "--set", "shop", "--root", root.path])
        try #require(imported.status == 0, "\(imported.stderr)")
        #expect(
            imported.stdout.contains(
                "  hosts:          2 (api.shop.test 3, cdn.shop.test 2); a request naming no host is answered by the only host that recorded it\n  recorded on several hosts (requests name one: /__host/NAME/ or X-Forwarded-Host):\n    GET /v1/status recorded on api.shop.test, cdn.shop.test\n"
            ),
            "\(imported.stdout)"
        )
        let index = try String(contentsOf: root.appendingPathComponent("mocks/shop/index.json"), encoding: .utf8)
        #expect(index.contains(#""origins" : ["#))
        #expect(index.contains(#""https://api.shop.test""#) && index.contains(#""https://cdn.shop.test""#))
        #expect(!index.contains(":443"))

        let daemon = try RunningDaemon(["--set", "shop", "--root", root.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        let base = daemon.baseURL
        let responses = try Curl.batch([
            CurlRequest(url: base + "/img/1.png"),
            CurlRequest(url: base + "/v1/status"),
            CurlRequest(url: base + "/__host/cdn.shop.test:443/v1/status"),
            CurlRequest(url: base + "/v1/status", headers: [("X-Forwarded-Host", "API.shop.test:443")]),
            CurlRequest(url: base + "/__host/api.shop.test/v1/status"),
        ])
        #expect(responses.map(\.status) == [200, 404, 200, 200, 200])
        #expect(responses[0].body == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        #expect(
            responses[1].text.contains(
                #""actual" : "(none; GET /v1/status was recorded on api.shop.test, cdn.shop.test: choose one with /__host/NAME/ or X-Forwarded-Host)""#
            )
        )
        #expect(responses[2].text == #"{"service":"cdn"}"#)
        #expect(responses[3].text == #"{"service":"api"}"#)
        #expect(responses[4].text == #"{"service":"api"}"#)
    }

    @Test func aHostFilterDownToOneHostGivesHostFreeKeys() throws {
        try withImportedSet(arguments: ["--host", "api.shop.test:443"]) { root in
            let index = try String(contentsOf: root.appendingPathComponent("mocks/shop/index.json"), encoding: .utf8)
            #expect(!index.contains(#""host" :"#))
            #expect(index.contains(#""origins" : [\#n    "https://api.shop.test"\#n  ]"#))
            let daemon = try RunningDaemon(["--set", "shop", "--root", root.path, "--port", "0", "--quiet"])
            defer { daemon.stop() }
            let responses = try Curl.batch([
                CurlRequest(url: daemon.baseURL + "/v1/status"),
                CurlRequest(url: daemon.baseURL + "/v1/old-profile"),
            ])
            #expect(responses[0].text == #"{"service":"api"}"#)
            // One recorded host: rewritten URLs need no host prefix.
            #expect(responses[1].status == 302)
            #expect(responses[1].header("Location") == daemon.baseURL + "/v1/profile")
        }
    }

    @Test func recordedURLsPointAtTheMockInBodiesAndLocationHeaders() throws {
        try withImportedSet { root in
            let daemon = try RunningDaemon(["--set", "shop", "--root", root.path, "--port", "0", "--quiet"])
            defer { daemon.stop() }
            let base = daemon.baseURL
            let escapedBase = base.replacingOccurrences(of: "/", with: #"\/"#)
            let responses = try Curl.batch([
                CurlRequest(url: base + "/v1/products"),
                CurlRequest(url: base + "/__session/t1/v1/old-profile"),
                // A client that names a recorded host reaches mockd through a proxy: URLs stay as recorded.
                CurlRequest(url: base + "/v1/products", headers: [("Host", "api.shop.test")]),
                CurlRequest(url: base + "/v1/old-profile", headers: [("X-Forwarded-Proto", "https")]),
            ])
            #expect(
                responses[0].text
                    == #"{"items":[{"id":1,"image":"\#(base)/__host/cdn.shop.test/img/1.png"},{"id":2,"self":"\#(base)/__host/api.shop.test/v1/products/2"},{"id":3,"other":"https://cdn.shop.test.evil.example/x","escaped":"\#(escapedBase)\/__host\/cdn.shop.test\/img\/3.png"}]}"#
            )
            #expect(responses[1].status == 302)
            #expect(responses[1].header("Location") == base + "/__session/t1/__host/api.shop.test/v1/profile")
            #expect(responses[2].text.contains(#""image":"https://cdn.shop.test/img/1.png""#))
            #expect(
                responses[3].header("Location")
                    == "https://" + base.dropFirst("http://".count) + "/__host/api.shop.test/v1/profile"
            )
            // The rewritten link is served.
            let image = try Curl.send(CurlRequest(url: base + "/__host/cdn.shop.test/img/1.png"))
            #expect(image.status == 200 && image.body.count == 8)
        }
    }

    @Test func rewriteURLsFalseServesRecordedURLsAsRecorded() throws {
        try withImportedSet { root in
            let indexURL = root.appendingPathComponent("mocks/shop/index.json")
            let index = try String(contentsOf: indexURL, encoding: .utf8)
            try index.replacingOccurrences(of: #""origins" :"#, with: #""rewriteURLs" : false, "origins" :"#)
                .write(to: indexURL, atomically: true, encoding: .utf8)
            let daemon = try RunningDaemon(["--set", "shop", "--root", root.path, "--port", "0", "--quiet"])
            defer { daemon.stop() }
            let response = try Curl.send(CurlRequest(url: daemon.baseURL + "/v1/old-profile"))
            #expect(response.header("Location") == "https://api.shop.test/v1/profile")
        }
    }

    /// URLs a client fetches point at the mock; URLs that are identifiers compared as constants keep the recorded
    /// origin (issue 33): an RFC 9457 problem `type` and `instance`, `$schema`, JSON-LD `@context`/`@id` (in JSON and
    /// in an HTML page's JSON-LD block), XML namespaces, an Atom `<id>`. The import report counts both kinds.
    @Test func identifiersKeepTheRecordedOriginLinksPointAtTheMock() throws {
        let problem =
            #"{"type":"https://api.shop.test/problems/out-of-stock","title":"Out of stock","status":409,"instance":"https://api.shop.test/orders/9/attempts/1","detail":"See https://api.shop.test/help","links":{"retry":"https://api.shop.test/v1/orders/9"}}"#
        let linked =
            #"{"$schema":"https://api.shop.test/schemas/product.json","@context":{"@vocab":"https://api.shop.test/vocab#","img":{"@id":"https://api.shop.test/vocab#img","@type":"@id"}},"@id":"https://api.shop.test/products/1","img":"https://api.shop.test/img/1.png"}"#
        let feed =
            #"<feed xmlns="https://api.shop.test/ns/feed" xmlns:x="https://api.shop.test/ns/x"><id>https://api.shop.test/feed</id><link href="https://api.shop.test/feed.xml"/><x:n xmlns="http://www.w3.org/2005/Atom"/></feed>"#
        let page =
            #"<a href="https://api.shop.test/about">About</a><script type="application/ld+json">{"@context":"https://api.shop.test/ctx","@id":"https://api.shop.test/#org","logo":"https://api.shop.test/logo.png"}</script>"#
        let entries = [
            HAR.entry(
                "GET",
                "https://api.shop.test/v1/orders/9",
                status: 409,
                headers: [("Content-Type", "application/problem+json")],
                text: problem
            ),
            HAR.entry(
                "GET",
                "https://api.shop.test/v1/products/1",
                headers: [("Content-Type", "application/ld+json")],
                text: linked
            ),
            HAR.entry(
                "GET",
                "https://api.shop.test/feed.xml",
                headers: [("Content-Type", "application/atom+xml")],
                text: feed
            ),
            HAR.entry("GET", "https://api.shop.test/about", headers: [("Content-Type", "text/html")], text: page),
        ]
        try withImportedSet(entries) { root in
            let report = try ProcessRunner.mockd([
                "import-har", root.appendingPathComponent("shop.har").path, "--set", "again", "--root", root.path,
            ]).stdout
            #expect(
                report.contains(
                    "  note: recorded origins' URLs in bodies: 6 point at the mock when served, where a client fetches them (entries 1, 2, 3, 4); 11 kept as recorded, identifiers compared as constants (RFC 9457 problem type, $schema, JSON-LD @context/@id, XML namespaces) (entries 1, 2, 3, 4)\n"
                ),
                "\(report)"
            )
            let daemon = try RunningDaemon(["--set", "shop", "--root", root.path, "--port", "0", "--quiet"])
            defer { daemon.stop() }
            let base = daemon.baseURL
            let responses = try Curl.batch(
                ["/v1/orders/9", "/v1/products/1", "/feed.xml", "/about"].map { CurlRequest(url: base + $0) }
            )
            #expect(responses.map(\.status) == [409, 200, 200, 200])
            let mock = { (text: String) in text.replacingOccurrences(of: "{MOCK}", with: base) }
            #expect(
                responses[0].text
                    == mock(
                        #"{"type":"https://api.shop.test/problems/out-of-stock","title":"Out of stock","status":409,"instance":"https://api.shop.test/orders/9/attempts/1","detail":"See {MOCK}/help","links":{"retry":"{MOCK}/v1/orders/9"}}"#
                    )
            )
            #expect(
                responses[1].text
                    == linked.replacingOccurrences(of: "https://api.shop.test/img/1.png", with: base + "/img/1.png")
            )
            #expect(
                responses[2].text
                    == feed.replacingOccurrences(of: "https://api.shop.test/feed.xml", with: base + "/feed.xml")
            )
            #expect(
                responses[3].text
                    == mock(
                        #"<a href="{MOCK}/about">About</a><script type="application/ld+json">{"@context":"https://api.shop.test/ctx","@id":"https://api.shop.test/#org","logo":"{MOCK}/logo.png"}</script>"#
                    )
            )
        }
    }

    @Test func overridesRuntimeStubsJournalAndVerifyKnowHosts() throws {
        try withImportedSet { root in
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent("configs"),
                withIntermediateDirectories: true
            )
            try #"""
            {"sets": ["shop"], "overrides": [
              {"id": "cdn-down", "match": {"host": "CDN.shop.test:443", "path": "/v1/status"}, "status": 503}
            ]}
            """#.write(to: root.appendingPathComponent("configs/s.json"), atomically: true, encoding: .utf8)
            let daemon = try RunningDaemon(["--config", "s", "--root", root.path, "--port", "0", "--quiet"])
            defer { daemon.stop() }
            let base = daemon.baseURL
            let added = try Curl.send(
                CurlRequest(
                    method: "POST",
                    url: base + "/__mockd/stubs",
                    headers: [("X-Mockd-Session", "t1"), ("Content-Type", "application/json")],
                    body: Data(
                        #"{"id": "api-img", "match": {"host": "api.shop.test", "path": "/img/1.png"}, "status": 410}"#
                            .utf8
                    )
                )
            )
            #expect(added.status == 201, "\(added.text)")
            let responses = try Curl.batch([
                CurlRequest(url: base + "/__host/cdn.shop.test/v1/status"),
                CurlRequest(url: base + "/__host/api.shop.test/v1/status"),
                // Both prefix orders.
                CurlRequest(url: base + "/__host/api.shop.test/__session/t1/img/1.png"),
                CurlRequest(url: base + "/__session/t1/__host/cdn.shop.test/img/1.png"),
                // No host named: the only host that recorded the path is the request's host.
                CurlRequest(url: base + "/img/1.png"),
                CurlRequest(url: base + "/__session/t1/img/1.png"),
            ])
            #expect(responses.map(\.status) == [503, 200, 410, 200, 200, 200])

            let journal = try Curl.send(
                CurlRequest(url: base + "/__mockd/journal", headers: [("X-Mockd-Session", "t1")])
            )
            let entries =
                ((try JSONSerialization.jsonObject(with: journal.body) as? [String: Any])?["entries"]
                    as? [[String: Any]]) ?? []
            #expect(entries.map { $0["host"] as? String } == ["api.shop.test", "cdn.shop.test", "cdn.shop.test"])
            #expect(entries.map { $0["target"] as? String } == ["/img/1.png", "/img/1.png", "/img/1.png"])

            func verify(_ body: String) throws -> CurlResponse {
                try Curl.send(
                    CurlRequest(
                        method: "POST",
                        url: base + "/__mockd/verify",
                        headers: [("X-Mockd-Session", "t1")],
                        body: Data(body.utf8)
                    )
                )
            }
            #expect(try verify(#"{"path": "/img/1.png", "host": "cdn.shop.test:443", "count": 2}"#).status == 200)
            let failed = try verify(#"{"path": "/img/1.png", "host": "api.shop.test", "count": 2}"#)
            #expect(failed.status == 409)
            #expect(failed.text.contains(#"expected exactly 2 any method //api.shop.test/img/1.png, journal has 1"#))
            #expect(try verify(#"{"path": "/img/1.png", "host": "", "count": 2}"#).status == 400)
        }
    }

    @Test func mergingAOneHostRecordingReplacesWhatThatHostRecorded() throws {
        try withImportedSet { root in
            let rerecorded = root.appendingPathComponent("cdn.har")
            try HAR.write(
                [HAR.entry("GET", "https://cdn.shop.test/v1/status", text: #"{"service":"cdn","v":2}"#)],
                to: rerecorded
            )
            let merged = try ProcessRunner.mockd([
                "import-har", rerecorded.path, "--set", "shop", "--root", root.path, "--merge",
            ])
            try #require(merged.status == 0, "\(merged.stderr)")
            #expect(
                merged.stdout.contains("  merged:         1 stubs replaced, 0 added, 4 kept as they were"),
                "\(merged.stdout)"
            )
            let index = try String(contentsOf: root.appendingPathComponent("mocks/shop/index.json"), encoding: .utf8)
            #expect(index.components(separatedBy: #""path" : "/v1/status""#).count - 1 == 2)
            let daemon = try RunningDaemon(["--set", "shop", "--root", root.path, "--port", "0", "--quiet"])
            defer { daemon.stop() }
            let responses = try Curl.batch([
                CurlRequest(url: daemon.baseURL + "/__host/cdn.shop.test/v1/status"),
                CurlRequest(url: daemon.baseURL + "/__host/api.shop.test/v1/status"),
            ])
            #expect(responses.map(\.text) == [#"{"service":"cdn","v":2}"#, #"{"service":"api"}"#])
        }
    }

    @Test func mergingASecondHostIntoAOneHostSetKeysBothByHost() throws {
        try withImportedSet(arguments: ["--host", "api.shop.test"]) { root in
            let other = root.appendingPathComponent("cdn.har")
            try HAR.write(
                [HAR.entry("GET", "https://cdn.shop.test/v1/status", text: #"{"service":"cdn","v":2}"#)],
                to: other
            )
            let merged = try ProcessRunner.mockd([
                "import-har", other.path, "--set", "shop", "--root", root.path, "--merge",
            ])
            try #require(merged.status == 0, "\(merged.stderr)")
            let daemon = try RunningDaemon(["--set", "shop", "--root", root.path, "--port", "0", "--quiet"])
            defer { daemon.stop() }
            let responses = try Curl.batch([
                CurlRequest(url: daemon.baseURL + "/__host/cdn.shop.test/v1/status"),
                CurlRequest(url: daemon.baseURL + "/__host/api.shop.test/v1/status"),
                CurlRequest(url: daemon.baseURL + "/v1/products"),
            ])
            #expect(responses.map(\.status) == [200, 200, 200])
            #expect(responses.map(\.text).prefix(2) == [#"{"service":"cdn","v":2}"#, #"{"service":"api"}"#])
        }
    }

    /// After a hostile review: a client reaching mockd by a non-loopback name (the Android emulator's 10.0.2.2, a
    /// LAN address, a compose service) names no recorded host; a path naming a host twice, a verify host that is not
    /// a host and an origin that is not an origin are refused with one line.
    @Test func clientsOnOtherAddressesAndBadHostInput() throws {
        try withImportedSet { root in
            let daemon = try RunningDaemon(["--set", "shop", "--root", root.path, "--port", "0", "--quiet"])
            defer { daemon.stop() }
            let base = daemon.baseURL
            let responses = try Curl.batch([
                CurlRequest(url: base + "/img/1.png", headers: [("Host", "10.0.2.2:\(daemon.port)")]),
                CurlRequest(url: base + "/v1/old-profile", headers: [("Host", "mockd:\(daemon.port)")]),
                CurlRequest(url: base + "/__host/cdn.shop.test/__host/api.shop.test/v1/status"),
                CurlRequest(
                    method: "POST",
                    url: base + "/__mockd/verify",
                    body: Data(#"{"path": "/v1/status", "host": "https://cdn.shop.test", "count": 0}"#.utf8)
                ),
                CurlRequest(url: base + "/v1/old-profile", headers: [("Host", #"127.0.0.1"x"#)]),
            ])
            #expect(responses.map(\.status) == [200, 302, 400, 400, 302])
            // The rewritten URL uses the address the client reached mockd at.
            #expect(responses[1].header("Location") == "http://mockd:\(daemon.port)/__host/api.shop.test/v1/profile")
            #expect(responses[2].text.contains("the path names a host twice"))
            #expect(
                responses[3].text.contains(
                    #"\"host\" must be a host[:port] such as \"api.example.com\" (no scheme or path)"#
                )
            )
            // A Host that is not host[:port] is never written into a body or header.
            #expect(responses[4].header("Location") == "https://api.shop.test/v1/profile")
        }
        try withImportedSet { root in
            let indexURL = root.appendingPathComponent("mocks/shop/index.json")
            let index = try String(contentsOf: indexURL, encoding: .utf8)
            try index.replacingOccurrences(of: #""https://api.shop.test""#, with: #""https://api.shop.test/""#)
                .write(to: indexURL, atomically: true, encoding: .utf8)
            let result = try ProcessRunner.mockd(["--set", "shop", "--root", root.path, "--port", "0"])
            #expect(result.status == 1)
            #expect(
                result.stderr
                    == "mockd: mocks/shop/index.json: origins[0]: 'https://api.shop.test/' is not an origin: write http(s)://host[:port], with no path (https://api.example.com)\n"
            )
        }
    }
}
