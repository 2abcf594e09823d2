import Foundation
import MockdTestSupport
import Testing

/// `mockd import-wiremock` with the real binary: usage, one-line errors with nothing written, refusing to
/// overwrite, and output that `mockd validate` and the JSON Schemas accept.
struct WireMockImportCLITests {
    /// A temporary root holding `files` (path → text).
    static func root(_ files: [String: String]) throws -> URL {
        let root = Paths.makeTemporaryDirectory()
        for (path, text) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        return root
    }

    static func contents(_ root: URL) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: root.path)
        return ((enumerator?.allObjects as? [String]) ?? []).sorted()
    }

    @Test func usageErrors() throws {
        // The help itself is its snapshot (HelpTextTests).
        let noSet = try ProcessRunner.mockd(["import-wiremock", "x.json"])
        #expect(noSet.status == 64)
        #expect(
            noSet.stderr
                == "mockd: import-wiremock needs --set <name> to name the mock set and scenario to write (see mockd import-wiremock --help)\n"
        )
        let noSource = try ProcessRunner.mockd(["import-wiremock", "--set", "s"])
        #expect(noSource.status == 64)
        #expect(
            noSource.stderr
                == "mockd: import-wiremock needs a WireMock folder or mapping file: mockd import-wiremock <dir|file.json> --set <name> (see mockd import-wiremock --help)\n"
        )
        let badName = try ProcessRunner.mockd(["import-wiremock", "x.json", "--set", "../up"])
        #expect(badName.status == 64)
        #expect(
            badName.stderr
                == "mockd: --set '../up' is not a valid mock set name (use letters, digits, '.', '_' and '-')\n"
        )
    }

    @Test(arguments: [
        ("not-json.json", #"{"request": {"url": "/a""#, "not valid JSON (Unexpected end of file during JSON parse.)"),
        (
            "types.json", #"{"request": {"method": "GET", "url": "/a"}, "response": {"status": "200"}}"#,
            "response.status: expected a whole number, got a string"
        ),
        (
            "regex.json",
            #"{"mappings": [{"request": {"url": "/ok"}, "response": {}}, {"request": {"urlPathPattern": "/cases/(.*"}, "response": {}}]}"#,
            "mappings[1].request.urlPathPattern: invalid regular expression '/cases/(.*'"
        ),
    ])
    func badInputIsOneLineExit1AndNothingWritten(_ name: String, _ content: String, _ message: String) throws {
        // A good file beside the bad one: the whole import fails, nothing of it is written.
        let root = try Self.root([
            "wm/a-good.json": #"{"request": {"method": "GET", "url": "/fine"}, "response": {"body": "fine"}}"#,
            "wm/\(name)": content,
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = root.appendingPathComponent("wm").path
        let result = try ProcessRunner.mockd(["import-wiremock", folder, "--set", "wm", "--root", root.path])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "mockd: \(folder)/\(name): \(message)\n")
        #expect(Self.contents(root) == ["wm", "wm/a-good.json", "wm/\(name)"])
    }

    /// A WireMock webhook, imported, is sent by the daemon after the answer: to a test server on loopback (a second
    /// mockd, whose journal shows what it received), with the triggering request's values and WireMock's delay.
    @Test func anImportedWebhookReachesALoopbackServer() throws {
        let receiverRoot = try Paths.makeRoot(
            scenario: #"{"sets": ["chat"], "overrides": [{"match": {"path": "/callback"}, "status": 204}]}"#
        )
        defer { try? FileManager.default.removeItem(at: receiverRoot) }
        let receiver = try RunningDaemon(
            ["--config", "s", "--root", receiverRoot.path, "--port", "0", "--quiet"]
        )
        defer { receiver.stop() }
        let root = try Self.root([
            "wm/mappings/pay.json": """
            {"request": {"method": "POST", "url": "/payments"}, "response": {"status": 202},
             "serveEventListeners": [{"name": "webhook", "parameters": {"method": "POST",
               "url": "http://127.0.0.1:\(receiver.port)/callback", "headers": {"Content-Type": "application/json"},
               "body": "{\\"order\\": \\"{{jsonPath originalRequest.body '$.order'}}\\", \\"status\\": \\"paid\\"}",
               "delay": {"type": "fixed", "milliseconds": 200}}}]}
            """
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let imported = try ProcessRunner.mockd([
            "import-wiremock", root.appendingPathComponent("wm").path, "--set", "wm", "--root", root.path,
        ])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("  unmapped:          0\n"), "\(imported.stdout)")
        let validated = try ProcessRunner.mockd(["validate", "--config", "wm", "--root", root.path])
        #expect(validated.status == 0, "\(validated.stdout)\(validated.stderr)")

        let daemon = try RunningDaemon(["--config", "wm", "--root", root.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        let answer = try Curl.send(
            CurlRequest(
                method: "POST",
                url: daemon.baseURL + "/payments",
                headers: [("Content-Type", "application/json")],
                body: Data(#"{"order": "o-7"}"#.utf8)
            )
        )
        #expect(answer.status == 202)
        var received: [[String: Any]] = []
        try waitUntil(timeout: 10, interval: 0.05, "the receiver got the webhook") {
            received = try LiveClient(receiver).control("GET", "journal").json["entries"] as? [[String: Any]] ?? []
            return !received.isEmpty
        }
        #expect(
            received.map { "\($0["method"] ?? "") \($0["target"] ?? "") \($0["body"] ?? "")" } == [
                #"POST /callback {"order": "o-7", "status": "paid"}"#
            ]
        )
        let sent = try LiveClient(daemon).control("GET", "journal").json["entries"] as? [[String: Any]] ?? []
        let hook = try #require(sent.first { $0["method"] as? String == "WEBHOOK" })
        #expect(hook["status"] as? Int == 204)
        #expect(hook["causedBy"] as? Int == 1)
        #expect(hook["stub"] as? String == "pay")
    }

    @Test func existingOutputNeedsForceAndIsReplacedWhole() throws {
        let root = try Self.root([
            "wm/mappings/a.json":
                #"{"request": {"method": "GET", "url": "/a"}, "response": {"bodyFileName": "a.txt"}}"#,
            "wm/__files/a.txt": "A",
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let source = root.appendingPathComponent("wm").path
        let first = try ProcessRunner.mockd(["import-wiremock", source, "--set", "wm", "--root", root.path])
        #expect(first.status == 0)
        #expect(
            first.stdout == """
                imported \(source) into mocks/wm/ and configs/wm.json (serve with: mockd --config wm --root \(root.path))
                  files read:        1
                  mappings read:     1
                  stubs written:     1 (mocks/wm/index.json: exact method and URL)
                  overrides written: 0 (configs/wm.json: patterns, states, priorities, delays, faults)
                  mappings skipped:  0
                  unmapped:          0

                """
        )
        #expect(
            Self.contents(root).filter { !$0.hasPrefix("wm") } == [
                "configs", "configs/wm.json", "mocks", "mocks/wm", "mocks/wm/.gitignore", "mocks/wm/bodies",
                "mocks/wm/bodies/__files", "mocks/wm/bodies/__files/a.txt", "mocks/wm/index.cache",
                "mocks/wm/index.json",
            ]
        )
        let index = try String(contentsOf: root.appendingPathComponent("mocks/wm/index.json"), encoding: .utf8)
        let config = try String(contentsOf: root.appendingPathComponent("configs/wm.json"), encoding: .utf8)

        let again = try ProcessRunner.mockd(["import-wiremock", source, "--set", "wm", "--root", root.path])
        #expect(again.status == 1)
        #expect(
            again.stderr
                == "mockd: mocks/wm/: mock set 'wm' already exists; pass --force to replace it (hand edits there would be lost)\n"
        )
        try FileManager.default.removeItem(at: root.appendingPathComponent("mocks"))
        let configOnly = try ProcessRunner.mockd(["import-wiremock", source, "--set", "wm", "--root", root.path])
        #expect(configOnly.status == 1)
        #expect(
            configOnly.stderr
                == "mockd: configs/wm.json: scenario 'wm' already exists; pass --force to replace it (hand edits there would be lost)\n"
        )
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("mocks/wm").path))

        try #"{"request": {"method": "GET", "urlPattern": "/b/.*"}, "response": {"body": "b"}}"#
            .write(to: root.appendingPathComponent("wm/mappings/a.json"), atomically: true, encoding: .utf8)
        let forced = try ProcessRunner.mockd(["import-wiremock", source, "--set", "wm", "--root", root.path, "--force"])
        #expect(forced.status == 0)
        #expect(
            forced.stdout.contains(
                "  stubs written:     0 (mocks/wm/index.json: exact method and URL)\n  overrides written: 1"
            )
        )
        #expect(try String(contentsOf: root.appendingPathComponent("mocks/wm/index.json"), encoding: .utf8) != index)
        #expect(try String(contentsOf: root.appendingPathComponent("configs/wm.json"), encoding: .utf8) != config)
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("mocks/wm/bodies").path))
        #expect(Self.contents(root.appendingPathComponent("configs")) == ["wm.json"])
        let validate = try ProcessRunner.mockd(["validate", "--config", "wm", "--root", root.path])
        #expect(validate.stdout == "ok: configs/wm.json: sets wm; 0 stubs, 1 overrides\n")
    }

    /// Mappings are fixtures (issue 33): served as written by default (a fake phone number, an e-mail, a test token,
    /// unstable headers), redacted only with `--redact`, and `lint` reports them either way; a missing body file
    /// answers 500 as WireMock 3 does and is reported; `{{…}}` without the response-template transformer is sent as
    /// written with a report line pointing at `--global-templating`; WireMock's common request helpers render.
    @Test func mappingsAreFixturesServedAsWrittenWithTheirRequestHelpers() throws {
        let contact =
            #"{"name":"Test User","phone":"+14155551234","email":"anna.tester@corp.io","token":"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl"}"#
        let root = try Self.root([
            "wm/mappings/all.json": #"""
            {"mappings": [
              {"request": {"method": "GET", "url": "/contact"},
               "response": {"jsonBody": \#(contact), "headers": {"Content-Type": "application/json", "Date": "Tue, 01 Dec 2026 10:00:00 GMT"}}},
              {"request": {"method": "GET", "url": "/report"}, "response": {"bodyFileName": "reports/q4.json"}},
              {"request": {"method": "GET", "urlPath": "/literal"}, "response": {"body": "Hello {{request.query.name}}"}},
              {"request": {"method": "POST", "urlPathPattern": "/users/[0-9]+/orders/[a-z]+"},
               "response": {"transformers": ["response-template"], "headers": {"X-Trace": "{{request.headers.X-Trace-Id}}"},
                 "body": "user={{request.path.[1]}} order={{request.pathSegments.[3]}} q={{request.query.q}} second={{request.query.q.[1]}} session={{request.cookies.sid}} model={{jsonPath request.body '$.car.model'}} url={{request.url}}"}}
            ]}
            """#
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let source = root.appendingPathComponent("wm").path
        let mappings = "\(source)/mappings/all.json"
        let imported = try ProcessRunner.mockd(["import-wiremock", source, "--set", "wm", "--root", root.path])
        try #require(imported.status == 0, "\(imported.stderr)")
        #expect(
            imported.stdout.contains(
                """
                  unmapped:          2
                    \(mappings): mappings[1].response.bodyFileName: body file 'reports/q4.json' not found (no __files/ folder beside the mappings); answers 500 'reports/q4.json not found', as WireMock 3 does
                    \(mappings): mappings[2].response: {{…}} sent as written: the mapping has no "transformers": ["response-template"], as WireMock does by default; if the WireMock server ran with --global-response-templating, import with --global-templating to render them

                """
            ),
            "\(imported.stdout)"
        )
        #expect(!imported.stdout.contains("redacted"))
        let lint = try ProcessRunner.mockd(["lint", root.appendingPathComponent("mocks/wm").path])
        #expect(lint.status == 1)
        #expect(lint.stdout.contains("e-mail address"), "\(lint.stdout)")

        let daemon = try RunningDaemon(["--config", "wm", "--root", root.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        let base = daemon.baseURL
        let responses = try Curl.batch([
            CurlRequest(url: base + "/contact"), CurlRequest(url: base + "/report"),
            CurlRequest(url: base + "/literal?name=Ana"),
            CurlRequest(
                method: "POST",
                url: base + "/users/42/orders/abc?q=first&q=second",
                headers: [
                    ("X-Trace-Id", "t-9"), ("Cookie", "theme=dark; sid=s-1"), ("Content-Type", "application/json"),
                ],
                body: Data(#"{"car": {"model": "Model T"}}"#.utf8)
            ),
        ])
        #expect(responses.map(\.status) == [200, 500, 200, 200])
        #expect(responses[0].text == contact)
        #expect(responses[0].header("Date") == "Tue, 01 Dec 2026 10:00:00 GMT")
        #expect(responses[1].text == "reports/q4.json not found")
        #expect(responses[1].header("Content-Type") == "text/plain; charset=utf-8")
        #expect(responses[2].text == "Hello {{request.query.name}}")
        #expect(
            responses[3].text
                == "user=42 order=abc q=first second=second session=s-1 model=Model T url=/users/42/orders/abc?q=first&q=second"
        )
        #expect(responses[3].header("X-Trace") == "t-9")

        let redacted = try ProcessRunner.mockd([
            "import-wiremock", source, "--set", "clean", "--root", root.path, "--redact",
        ])
        try #require(redacted.status == 0, "\(redacted.stderr)")
        #expect(redacted.stdout.contains("  redacted:          "), "\(redacted.stdout)")
        #expect(redacted.stdout.contains("  unstable headers not stored: date ×1"))
        let index = try String(contentsOf: root.appendingPathComponent("mocks/clean/index.json"), encoding: .utf8)
        #expect(index.contains("{{email}}") && index.contains("{{phone}}") && index.contains("{{token}}"), "\(index)")
        #expect(!index.contains("anna.tester@corp.io"))
    }

    @Test func nothingToImportWritesNothing() throws {
        let root = try Self.root([
            "proxy.json": #"{"request": {"urlPattern": "/.*"}, "response": {"proxyBaseUrl": "http://example.com"}}"#
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("proxy.json").path
        let result = try ProcessRunner.mockd(["import-wiremock", file, "--set", "wm", "--root", root.path])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderr == """
                read \(file); nothing written
                  files read:        1
                  mappings read:     1
                  stubs written:     0 (mocks/wm/index.json: exact method and URL)
                  overrides written: 0 (configs/wm.json: patterns, states, priorities, delays, faults)
                  mappings skipped:  1
                  unmapped:          1
                    \(file): response.proxyBaseUrl: proxy stubs are not imported (mockd --on-miss proxy --upstream URL proxies what no stub answers); mapping skipped
                mockd: \(file): none of the 1 mappings can be served by mockd; nothing was written

                """
        )
        #expect(Self.contents(root) == ["proxy.json"])
    }

    @Test func importedFilesPassValidateAndTheSchemas() throws {
        let root = try Self.root([
            "wm/mappings/all.json": #"""
            {"mappings": [
              {"request": {"method": "GET", "url": "/exact"}, "response": {"jsonBody": {"a": 1}, "headers": {"Content-Type": "application/json"}}},
              {"priority": 2, "scenarioName": "s", "requiredScenarioState": "Started", "newScenarioState": "Next",
               "request": {"method": "POST", "urlPathPattern": "/p/[0-9]+", "queryParameters": {"q": {"absent": true}},
                 "headers": {"Authorization": {"matches": "Bearer .*"}}, "bodyPatterns": [{"matchesJsonPath": "$.a"}, {"equalToJson": {"a": 1}}]},
               "response": {"status": 201, "base64Body": "AP8=", "fixedDelayMilliseconds": 10, "headers": {"Set-Cookie": ["a=1", "b=2"]}}},
              {"request": {"url": "/fault"}, "response": {"fault": "EMPTY_RESPONSE"}},
              {"request": {"method": "GET", "url": "/lit"}, "response": {"body": "{{uuid}}"}}
            ]}
            """#
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let result = try ProcessRunner.mockd([
            "import-wiremock", root.appendingPathComponent("wm").path, "--set", "wm", "--root", root.path,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let validateConfig = try ProcessRunner.mockd(["validate", "--config", "wm", "--root", root.path])
        #expect(validateConfig.stdout == "ok: configs/wm.json: sets wm; 2 stubs, 2 overrides\n")
        let validateSet = try ProcessRunner.mockd(["validate", "--set", "wm", "--root", root.path])
        #expect(validateSet.stdout == "ok: mocks/wm/index.json: 2 stubs\n")
        let config = root.appendingPathComponent("configs/wm.json").path
        let index = root.appendingPathComponent("mocks/wm/index.json").path
        #expect(
            try SchemaTests.validate([(SchemaTests.scenarioSchema, config), (SchemaTests.mockSetSchema, index)]) == [
                "ok \(config)", "ok \(index)",
            ]
        )
        #expect(
            try String(contentsOf: URL(fileURLWithPath: config), encoding: .utf8) == #"""
                {
                  "description" : "Imported from WireMock mappings by mockd import-wiremock; overrides keep WireMock's order (priority = −WireMock priority).",
                  "overrides" : [
                    {
                      "addHeaders" : [
                        "Set-Cookie: a=1",
                        "Set-Cookie: b=2"
                      ],
                      "bodyFile" : "wm/bodies/all_1_.bin",
                      "headers" : {
                        "Content-Type" : null
                      },
                      "id" : "all[1]",
                      "latency" : {
                        "fixed" : 10
                      },
                      "match" : {
                        "body" : [
                          {
                            "jsonPath" : "$.a"
                          },
                          {
                            "jsonEquals" : {
                              "a" : 1
                            }
                          }
                        ],
                        "headers" : {
                          "Authorization" : {
                            "matches" : "Bearer .*"
                          }
                        },
                        "method" : "POST",
                        "pathPattern" : "/p/[0-9]+",
                        "query" : {
                          "q" : {
                            "absent" : true
                          }
                        }
                      },
                      "priority" : -2,
                      "state" : {
                        "name" : "s",
                        "next" : "Next",
                        "requires" : "Started"
                      },
                      "status" : 201
                    },
                    {
                      "fault" : "emptyResponse",
                      "id" : "all[2]",
                      "match" : {
                        "url" : "/fault"
                      },
                      "priority" : -5,
                      "status" : 200
                    }
                  ],
                  "sets" : [
                    "wm"
                  ],
                  "version" : 1
                }

                """#
        )
    }

    /// WireMock 3 serves `jsonBody` as written (keys in order, `550.00` as spelt); `--global-templating` renders
    /// `{{…}}` in mappings without the `response-template` transformer, as `--global-response-templating` does.
    @Test func jsonBodyIsServedAsWrittenAndGlobalTemplatingIsAnOption() throws {
        let mappings = #"""
            {"mappings": [
              {"request": {"method": "GET", "url": "/order"},
               "response": {"status": 200, "headers": {"Content-Type": "application/json"},
                            "jsonBody": {"z": 1, "total": 550.00, "big": 12345678901234567890, "n": {"b": true, "a": null, "s": "x\"y"}}}},
              {"request": {"method": "GET", "url": "/greet"}, "response": {"status": 200, "body": "hi {{request.path}}"}}
            ]}
            """#
        for global in [false, true] {
            let root = try Self.root(["wm/mappings/all.json": mappings])
            defer { try? FileManager.default.removeItem(at: root) }
            let imported = try ProcessRunner.mockd(
                ["import-wiremock", root.appendingPathComponent("wm").path, "--set", "wm", "--root", root.path]
                    + (global ? ["--global-templating"] : [])
            )
            try #require(imported.status == 0, "\(imported.stderr)")
            let daemon = try RunningDaemon(["--config", "wm", "--root", root.path, "--port", "0", "--quiet"])
            defer { daemon.stop() }
            let responses = try Curl.batch([
                CurlRequest(url: daemon.baseURL + "/order"), CurlRequest(url: daemon.baseURL + "/greet"),
            ])
            #expect(
                responses[0].text
                    == #"{"z":1,"total":550.00,"big":12345678901234567890,"n":{"b":true,"a":null,"s":"x\"y"}}"#
            )
            #expect(responses[1].text == (global ? "hi /greet" : "hi {{request.path}}"))
        }
    }
}
