import Foundation
import MockdTestSupport
import Testing

/// The WireMock files of the shared corpus (`../shared/corpus/wiremock/`, or `$MOCKD_CORPUS/wiremock`): each file
/// imports without crashing with every mapping either written or reported with its exact reason, and the whole
/// folder, imported and served by the real daemon, answers curl as the mappings say.
@Suite(.serialized)
struct WireMockCorpusTests {
    /// A `bodyFileName` the corpus did not copy: answered as WireMock 3 answers a file it cannot read.
    static func missingFile(_ name: String) -> String {
        "body file '\(name)' not found (no __files/ folder beside the mappings); answers 500 '\(name) not found', as WireMock 3 does"
    }

    static let literalNote =
        #"{{…}} sent as written: the mapping has no "transformers": ["response-template"], as WireMock does by default; if the WireMock server ran with --global-response-templating, import with --global-templating to render them"#

    /// Per file: mappings read, stubs written (index), overrides written, mappings skipped, and the unmapped items
    /// (`JSON path: reason`).
    static let expected: [(file: String, read: Int, stubs: Int, overrides: Int, skipped: Int, items: [String])] = [
        (
            "hmcts-civil__civil-service-mapping.json", 13, 0, 13, 0,
            [
                "mappings[3].response.bodyFileName: \(missingFile("courtLocationsResponse.json"))",
                "mappings[4].response.bodyFileName: \(missingFile("dashboardNotification.json"))",
                "mappings[6].response.bodyFileName: \(missingFile("dashboardTask.json"))",
                "mappings[7].response.bodyFileName: \(missingFile("dashboardTask.json"))",
                "mappings[8].response.bodyFileName: \(missingFile("ssaResponseDeadline.json"))",
                "mappings[9].response.bodyFileName: \(missingFile("ssaResponseDeadline.json"))",
                "mappings[10].response.bodyFileName: \(missingFile("document.json"))",
            ]
        ),
        ("hmcts-civil__fees-lookup-money-claim.json", 1, 0, 1, 0, []),
        ("javantorres-wiremock-docker__error-400.json", 1, 0, 1, 0, []),
        (
            "sirech-recorder__todos_1-62da8736-2ff7-4982-b37b-df5bad7b28f5.json", 1, 1, 0, 0,
            [
                "response.headers.Connection: mockd never sends 'Connection' (hop-by-hop, or computed from the body it sends); dropped",
                "response.bodyFileName: \(missingFile("todos_1-62da8736-2ff7-4982-b37b-df5bad7b28f5.json"))",
            ]
        ),
        (
            "wiremock-docker__user.json", 2, 0, 2, 0,
            [
                "mappings[0].response: \(literalNote)",
                "mappings[1].response.bodyFileName: \(missingFile("user.json"))",
            ]
        ),
        (
            "wiremock-workshop__exercise203answer.json", 1, 0, 1, 0,
            [
                "response.fault: RANDOM_DATA_THEN_CLOSE has no exact mockd equivalent; mapped to malformedChunk, the closest (a valid status line and headers, then an invalid chunk, then the connection closes)"
            ]
        ),
        ("wiremock-workshop__exercise402answer.json", 1, 1, 0, 0, []),
        (
            "wiremock__proxy-sample.json", 1, 0, 0, 1,
            [
                "response.proxyBaseUrl: proxy stubs are not imported (mockd --on-miss proxy --upstream URL proxies what no stub answers); mapping skipped",
                #"priority: "LOW" is not a whole-number priority (WireMock priorities are integers, 1 highest, default 5; WireMock rejects this mapping too); mapping skipped"#,
            ]
        ),
        (
            "wiremock__slow-response.json", 1, 0, 1, 0,
            [
                "response.bodyFileName: \(missingFile("stuff.txt"))"
            ]
        ),
        ("wiremock__testjsonmapping.json", 1, 0, 1, 0, []),
        (
            "wiremock__with-binary-body-file-header.json", 1, 0, 1, 0,
            [
                "response.bodyFileName: \(missingFile("body.unknown"))"
            ]
        ),
        (
            "wiremock__with-several-mappings-in-one-file.json", 3, 0, 3, 0,
            [
                "mappings[2].response.bodyFileName: \(missingFile("body.xml"))"
            ]
        ),
    ]

    static func reportLines(
        file: String,
        _ entry: (file: String, read: Int, stubs: Int, overrides: Int, skipped: Int, items: [String]),
        set: String
    ) -> [String] {
        [
            "  files read:        1",
            "  mappings read:     \(entry.read)",
            "  stubs written:     \(entry.stubs) (mocks/\(set)/index.json: exact method and URL)",
            "  overrides written: \(entry.overrides) (configs/\(set).json: patterns, states, priorities, delays, faults)",
            "  mappings skipped:  \(entry.skipped)",
            "  unmapped:          \(entry.items.count)",
        ] + entry.items.map { "    \(file): \($0)" }
    }

    @Test func everyFileImportsWithEveryMappingWrittenOrReported() throws {
        guard let folder = Paths.corpusWireMockFolder(for: "WireMockCorpusTests.everyFile") else { return }
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
            .sorted()
        #expect(names == Self.expected.map(\.file))
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        for (index, entry) in Self.expected.enumerated() {
            let file = folder.appendingPathComponent(entry.file).path
            let set = "s\(index)"
            let result = try ProcessRunner.mockd(["import-wiremock", file, "--set", set, "--root", root.path])
            #expect(
                entry.read == entry.stubs + entry.overrides + entry.skipped,
                "\(entry.file): every mapping is written or skipped"
            )
            #expect(entry.items.filter { $0.hasSuffix("mapping skipped") }.count >= entry.skipped)
            if entry.stubs + entry.overrides == 0 {
                #expect(result.status == 1, "\(entry.file)")
                let lines = result.stderr.split(separator: "\n").map(String.init)
                #expect(lines.first == "read \(file); nothing written")
                #expect(Array(lines.dropFirst().dropLast()) == Self.reportLines(file: file, entry, set: set))
                #expect(
                    lines.last
                        == "mockd: \(file): none of the \(entry.read) mappings can be served by mockd; nothing was written"
                )
                continue
            }
            #expect(result.status == 0, "\(entry.file): \(result.stderr)")
            #expect(result.stderr.isEmpty)
            let lines = result.stdout.split(separator: "\n").map(String.init)
            #expect(
                lines.first
                    == "imported \(file) into mocks/\(set)/ and configs/\(set).json (serve with: mockd --config \(set) --root \(root.path))"
            )
            let report = Self.reportLines(file: file, entry, set: set)
            #expect(Array(lines.dropFirst().prefix(report.count)) == report, "\(entry.file)")
            // Mappings are fixtures, served as written: nothing redacted (`--redact` would), no header left out.
            #expect(Array(lines.dropFirst(1 + report.count)) == [], "\(entry.file)")
            let validate = try ProcessRunner.mockd(["validate", "--config", set, "--root", root.path])
            #expect(
                validate.stdout
                    == "ok: configs/\(set).json: sets \(set); \(entry.stubs) stubs, \(entry.overrides) overrides\n",
                "\(entry.file): \(validate.stderr)"
            )
        }
    }

    @Test func theWholeFolderServesWhatTheMappingsSay() throws {
        guard let folder = Paths.corpusWireMockFolder(for: "WireMockCorpusTests.theWholeFolder") else { return }
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let imported = try ProcessRunner.mockd(["import-wiremock", folder.path, "--set", "wm", "--root", root.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        let lines = imported.stdout.split(separator: "\n").map(String.init)
        #expect(
            Array(lines.prefix(7)) == [
                "imported \(folder.path) into mocks/wm/ and configs/wm.json (serve with: mockd --config wm --root \(root.path))",
                "  files read:        12",
                "  mappings read:     27",
                "  stubs written:     2 (mocks/wm/index.json: exact method and URL)",
                "  overrides written: 24 (configs/wm.json: patterns, states, priorities, delays, faults)",
                "  mappings skipped:  1",
                "  unmapped:          17",
            ]
        )
        let items = Self.expected.flatMap { entry in entry.items.map { "    \(folder.path)/\(entry.file): \($0)" } }
        #expect(Array(lines.dropFirst(7).prefix(items.count)) == items)
        #expect(Array(lines.dropFirst(7 + items.count)) == [])
        let config = root.appendingPathComponent("configs/wm.json").path
        let index = root.appendingPathComponent("mocks/wm/index.json").path
        #expect(
            try SchemaTests.validate([(SchemaTests.scenarioSchema, config), (SchemaTests.mockSetSchema, index)]) == [
                "ok \(config)", "ok \(index)",
            ]
        )

        let daemon = try RunningDaemon(["--config", "wm", "--root", root.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        let base = daemon.baseURL
        func get(
            _ path: String,
            _ headers: [(String, String)] = [],
            method: String = "GET",
            body: String? = nil
        ) -> CurlRequest {
            CurlRequest(method: method, url: base + path, headers: headers, body: body.map { Data($0.utf8) })
        }

        // hmcts civil-service: a `Bearer .*` header matcher on a urlPattern.
        let roles = try Curl.batch([
            get("/cases/1645/userCaseRoles", [("Authorization", "Bearer eyJ0eXAi.x.y")]),
            get("/cases/1645/userCaseRoles", [("Authorization", "Basic dTpw")]),
            get("/cases/1645/userCaseRoles"),
            get("/cases/draft/citizen/42/event", [("Content-Type", "application/json")], method: "POST", body: "{}"),
            get("/fees/claim/calculate-interest", [("Content-Type", "application/json")], method: "POST", body: "{}"),
        ])
        #expect(roles.map(\.status) == [200, 404, 404, 200, 200])
        #expect(roles[0].text == #"["APPLICANTSOLICITORONE","DEFENDANT","CLAIMANT"]"#)
        #expect(roles[0].header("Content-Type") == "application/json")
        #expect(roles[3].text == #"{"id":"1111222233334444"}"#)
        #expect(roles[4].text == "0.1")

        // hmcts fees lookup: six query parameters, in any order and encoding.
        let query =
            "service=civil+money+claims&jurisdiction1=civil&jurisdiction2=county%20court&channel=default&event=issue&keyword=MoneyClaim"
        let fees = try Curl.batch([
            get("/fees-register/fees/lookup?" + query), get("/fees-register/fees/lookup?" + query + "&extra=1"),
            get("/fees-register/fees/lookup?" + query.replacingOccurrences(of: "MoneyClaim", with: "Other")),
        ])
        #expect(fees.map(\.status) == [200, 200, 404])
        #expect(
            fees[0].text
                == #"{"code":"FEE0209","description":"Civil Court fees - Money Claims - Claim Amount - 10000.01 up to 200000 GBP. Fee - 5% of claim","version":3,"fee_amount":550.00}"#
        )
        #expect(fees[0].header("Content-Type") == "application/json")

        // The scenario of with-several-mappings-in-one-file.json steps through its states; reset returns it to Started.
        let session = [("X-Mockd-Session", "todo-1")]
        let cancel = "<item>Cancel newspaper subscription</item>"
        let steps = try Curl.batch([
            get("/todo/items", session),
            get("/todo/items", session, method: "POST", body: "<item>Something else</item>"),
            get("/todo/items", session, method: "POST", body: cancel), get("/todo/items", session),
            get("/todo/items", session, method: "POST", body: cancel),
            get("/todo/items", [("X-Mockd-Session", "todo-2")]),
            get("/__mockd/scenario", session),
        ])
        #expect(steps.map(\.status) == [200, 404, 201, 500, 404, 200, 200])
        #expect(steps[0].text == "<items><item>Buy milk</item></items>")
        #expect(steps[2].text.isEmpty)
        // body.xml is not in the corpus: the third mapping fails as WireMock 3 does, never an empty 200.
        #expect(steps[3].text == "body.xml not found")
        #expect(steps[3].header("Content-Type") == "text/plain; charset=utf-8")
        #expect(steps[5].text == "<items><item>Buy milk</item></items>", "another session is still in Started")
        let states =
            (try JSONSerialization.jsonObject(with: steps[6].body) as? [String: Any])?["states"] as? [String: String]
        #expect(states == ["To do list": "Cancel newspaper item added"])
        let reset = try Curl.batch([
            get("/__mockd/reset", session, method: "POST"), get("/__mockd/scenario", session),
            get("/todo/items", session),
        ])
        #expect(reset.map(\.status) == [200, 200, 200])
        #expect(
            (try JSONSerialization.jsonObject(with: reset[1].body) as? [String: Any])?["states"] as? [String: String]
                == ["To do list": "Started"]
        )
        #expect(reset[2].text == "<items><item>Buy milk</item></items>")

        // Sixteen parallel requests: the transition happens once.
        let racing = try Curl.parallel(
            (0..<16).map { _ in get("/todo/items", [("X-Mockd-Session", "race")], method: "POST", body: cancel) }
        )
        #expect(racing.filter { $0.status == 201 }.count == 1)
        #expect(racing.filter { $0.status == 404 }.count == 15)

        // slow-response.json: fixedDelayMilliseconds 500, then its missing stuff.txt's 500.
        let slow = try Curl.run(["-o", "/dev/null", "-w", "%{http_code} %{time_total}", base + "/slow-response"])
        let parts = slow.stdout.split(separator: " ")
        #expect(parts.first == "500")
        #expect((parts.last.flatMap { Double($0) } ?? 0) >= 0.5, "took \(slow.stdout)")

        // exercise203answer.json: RANDOM_DATA_THEN_CLOSE → malformedChunk, a broken response.
        let fault = try Curl.run([base + "/fault"])
        #expect(fault.status == 56)
        #expect(fault.stderr.contains("chunk"))

        // Templates, JSON bodies, matchers and literal bodies.
        let more = try Curl.batch([
            get(
                "/echo-car-model",
                [("Content-Type", "application/json")],
                method: "POST",
                body: #"{"car": {"model": "Model T"}}"#
            ),
            get("/api/bad-request", method: "POST", body: #"{"name": "Ana", "email": "ana@example.com"}"#),
            get("/api/bad-request", method: "POST", body: #"{"name": "Ana"}"#),
            get("/testjsonmapping"),
            get("/user"), get("/user?pretty=true"),
            get("/todos/1"),
            get("/binary-file-from-header", method: "DELETE"),
        ])
        #expect(more.map(\.status) == [200, 400, 404, 200, 200, 500, 500, 500])
        #expect(more[0].text == "Model T")
        #expect(
            more[1].text
                == #"{"error":"Bad Request","message":"Missing required field","code":400,"details":["Field 'cep' is required"]}"#
        )
        #expect(
            more[3].text
                == #"{"bignumber":1234567890.12,"integer_as_float":2.0,"array":[1,2,3],"integer":2,"key":"value"}"#
        )
        #expect(
            more[4].text
                == #"{"name":"{{ random 'Name.first_name' }}","surname":"{{ random 'Name.last_name' }}","country":"{{ random 'Address.country' }}","city":"{{ random 'Address.city' }}","favorite_tool":"WireMock"}"#
        )
        // Served as written: the literal `{{ random … }}` above, and WireMock 3's 500 for body files not copied.
        #expect(more[5].text == "user.json not found")
        #expect(more[6].text == "todos_1-62da8736-2ff7-4982-b37b-df5bad7b28f5.json not found")
        #expect(more[7].text == "body.unknown not found")
        #expect(more[7].header("content-type") == "text/plain; charset=utf-8")
    }
}
