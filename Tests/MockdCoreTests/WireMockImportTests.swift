import Foundation
import MockdFormat
import MockdTestSupport
import Testing

@testable import MockdCore

/// The WireMock mapper on small hand-made mappings: exact output for every request matcher, response feature,
/// scenario field and priority, what is reported as unmapped, and the index/override layout.
struct WireMockImportTests {
    /// A temporary folder with `files` (path → text or bytes).
    static func folder(_ files: [String: Any]) throws -> URL {
        let root = Paths.makeTemporaryDirectory()
        for (path, content) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            if let text = content as? String {
                try text.write(to: url, atomically: true, encoding: .utf8)
            } else {
                try (content as! Data).write(to: url)
            }
        }
        return root
    }

    static func build(_ files: [String: Any], at path: String = "", set: String = "wm") throws -> (WireMockImport, URL)
    {
        let root = try folder(files)
        let source = try WireMockSource.locate(root.appendingPathComponent(path).path)
        return (try WireMockImporter.build(source, set: set), root)
    }

    static func compact<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(value)) ?? Data(), as: UTF8.self)
    }

    static func items(_ result: WireMockImport, root: URL) -> [String] {
        result.report.unmapped.map { $0.description.replacingOccurrences(of: root.path, with: "$ROOT") }
    }

    @Test func requestMatchersBecomeOverridePatterns() throws {
        let (result, root) = try Self.build([
            "requests.json": #"""
            {"mappings": [
              {"request": {"method": "ANY", "urlPattern": "/any/.*"}, "response": {"status": 204}},
              {"request": {"urlPath": "/user", "queryParameters": {"pretty": {"absent": true}, "q": {"matches": "[a-z]+"}, "r": {"doesNotMatch": "x.*"},
                 "s": {"contains": "y"}, "t": {"equalTo": "ALL", "caseInsensitive": true}}}, "response": {"status": 200, "body": "users"}},
              {"request": {"method": "POST", "urlPathPattern": "/cases/[0-9]+", "headers": {"Authorization": {"matches": "Bearer .*"},
                 "Content-Type": {"equalTo": "application/json"}, "X-Debug": {"absent": true}}}, "response": {"status": 201}},
              {"request": {"method": "PUT", "url": "/items/1", "bodyPatterns": [{"equalTo": "exact"}, {"contains": "x"}, {"matches": ".*x.*"},
                 {"doesNotMatch": "y"}, {"absent": false}]}, "response": {"status": 200}},
              {"request": {"method": "POST", "url": "/json", "bodyPatterns": [{"equalToJson": "{\"a\": [1, 2]}"},
                 {"equalToJson": {"b": {"c": 1}}, "ignoreExtraElements": true}, {"matchesJsonPath": "$.a[0]"}]}, "response": {"status": 200}},
              {"request": {"method": "DELETE", "url": "/gone", "bodyPatterns": [{"absent": true}]}, "response": {"status": 204}},
              {"request": {"method": "GET", "urlPathTemplate": "/contacts/{id}", "basicAuthCredentials": {"username": "u", "password": "p"}},
               "response": {"status": 200}},
              {"request": {"method": "GET", "urlPath": "/literal/{braces}"}, "response": {"status": 200}}
            ]}
            """#
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(result.mockSet.file.stubs.isEmpty)
        #expect(
            result.scenario.overrides!.map(Self.compact) == [
                #"{"body":"","headers":{"Content-Type":null},"id":"requests[0]","match":{"urlPattern":"/any/.*"},"priority":-5,"status":204}"#,
                #"{"body":"users","headers":{"Content-Type":null},"id":"requests[1]","match":{"path":"/user","query":{"pretty":{"absent":true},"q":{"matches":"[a-z]+"},"r":{"doesNotMatch":"x.*"},"s":{"contains":"y"},"t":{"caseInsensitive":true,"equalTo":"ALL"}}},"priority":-5,"status":200}"#,
                #"{"body":"","headers":{"Content-Type":null},"id":"requests[2]","match":{"headers":{"Authorization":{"matches":"Bearer .*"},"Content-Type":{"equalTo":"application/json"},"X-Debug":{"absent":true}},"method":"POST","pathPattern":"/cases/[0-9]+"},"priority":-5,"status":201}"#,
                #"{"body":"","headers":{"Content-Type":null},"id":"requests[3]","match":{"body":[{"text":"exact"},{"contains":"x"},{"matches":".*x.*"},{"doesNotMatch":"y"},{"matches":"(?s).+"}],"method":"PUT","url":"/items/1"},"priority":-5,"status":200}"#,
                #"{"body":"","headers":{"Content-Type":null},"id":"requests[4]","match":{"body":[{"jsonEquals":{"a":[1,2]}},{"json":{"b":{"c":1}}},{"jsonPath":"$.a[0]"}],"method":"POST","url":"/json"},"priority":-5,"status":200}"#,
                #"{"body":"","headers":{"Content-Type":null},"id":"requests[5]","match":{"body":[{"absent":true}],"method":"DELETE","url":"/gone"},"priority":-5,"status":204}"#,
                #"{"body":"","headers":{"Content-Type":null},"id":"requests[6]","match":{"headers":{"Authorization":{"equalTo":"Basic dTpw"}},"method":"GET","path":"/contacts/{id}"},"priority":-5,"status":200}"#,
                #"{"body":"","headers":{"Content-Type":null},"id":"requests[7]","match":{"method":"GET","path":"/literal/%7Bbraces%7D"},"priority":-5,"status":200}"#,
            ]
        )
        #expect(Self.items(result, root: root) == [])
        #expect(result.report.mappingsRead == 8)
        #expect(result.report.overridesWritten == 8)

        // Served, the patterns behave as in WireMock.
        let engine = try Self.engine(result, files: [:])
        func status(_ method: String, _ target: String, _ headers: [(String, String)] = [], body: String = "") -> Int {
            engine.respond(
                to: HTTPRequest(method: method, target: target, headers: HTTPHeaders(headers), body: Data(body.utf8))
            ).status
        }
        #expect(status("PATCH", "/any/thing?x=1") == 204)
        #expect(status("GET", "/user?q=abc&r=abc&s=xyz&t=all") == 200)
        #expect(status("GET", "/user?q=abc&r=abc&s=xyz&t=all&pretty=1") == 404)
        #expect(status("GET", "/user?q=ABC&r=abc&s=xyz&t=all") == 404)
        #expect(
            status("POST", "/cases/42", [("Authorization", "Bearer t"), ("Content-Type", "application/json")]) == 201
        )
        #expect(
            status(
                "POST",
                "/cases/42",
                [("Authorization", "Bearer t"), ("Content-Type", "application/json; charset=utf-8")]
            ) == 404
        )
        #expect(
            status(
                "POST",
                "/cases/42",
                [("Authorization", "Bearer t"), ("Content-Type", "application/json"), ("X-Debug", "1")]
            ) == 404
        )
        #expect(status("PUT", "/items/1", body: "exact") == 200)
        #expect(status("PUT", "/items/1", body: "Exact") == 404)
        #expect(status("POST", "/json", body: #"{"a": [1, 2], "b": {"c": 1}}"#) == 404)
        #expect(status("POST", "/json", body: #"{"b": {"c": 1}, "a": [1, 2]}"#) == 404)
        #expect(status("DELETE", "/gone") == 204)
        #expect(status("DELETE", "/gone", body: "x") == 404)
        #expect(status("GET", "/contacts/7", [("Authorization", "Basic dTpw")]) == 200)
        #expect(status("GET", "/contacts/7", [("Authorization", "Basic eDp5")]) == 404)
        #expect(status("GET", "/literal/%7Bbraces%7D") == 200)
        #expect(status("GET", "/literal/anything") == 404)
    }

    /// Writes `result` to a temporary root and loads its scenario into an engine.
    static func engine(_ result: WireMockImport, files: [String: Data]) throws -> MockEngine {
        let root = MockdRoot(url: Paths.makeTemporaryDirectory())
        defer { try? FileManager.default.removeItem(at: root.url) }
        try WireMockWriter(root: root).write(result, set: "wm", replace: false)
        // The root goes when this returns, so body files are read now rather than on first use.
        return MockEngine(scenario: try Scenario.load(named: "wm", root: root, defersBodies: false))
    }

    @Test func unmappableMatchersSkipTheMappingAndSayWhy() throws {
        let (result, root) = try Self.build([
            "unmappable.json": #"""
            {"mappings": [
              {"request": {"url": "/xml", "bodyPatterns": [{"equalToXml": "<a/>"}]}, "response": {}},
              {"request": {"url": "/jp", "bodyPatterns": [{"matchesJsonPath": "$..name"}]}, "response": {}},
              {"request": {"url": "/jp2", "bodyPatterns": [{"matchesJsonPath": {"expression": "$.a", "equalTo": "1"}}]}, "response": {}},
              {"request": {"url": "/cookie", "cookies": {"session": {"equalTo": "1"}}}, "response": {}},
              {"request": {"url": "/multi", "queryParameters": {"id": {"hasExactly": [{"equalTo": "1"}]}}}, "response": {}},
              {"request": {"url": "/order", "bodyPatterns": [{"equalToJson": {"a": [1]}, "ignoreArrayOrder": true}]}, "response": {}},
              {"request": {"url": "/extra", "bodyPatterns": [{"equalToJson": {"a": [1]}, "ignoreExtraElements": true}]}, "response": {}},
              {"request": {"url": "/ci", "bodyPatterns": [{"equalTo": "A", "caseInsensitive": true}]}, "response": {}},
              {"request": {"url": "/proxy"}, "response": {"proxyBaseUrl": "http://example.com"}},
              {"request": {"url": "/low"}, "response": {}, "priority": "LOW"},
              {"request": {"url": "/typo", "urlPatern": "/x"}, "response": {}},
              {"request": {"url": "/contains-ci", "headers": {"X": {"contains": "a", "caseInsensitive": true}}}, "response": {}}
            ]}
            """#
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let file = "$ROOT/unmappable.json"
        #expect(
            Self.items(result, root: root) == [
                "\(file): mappings[0].request.bodyPatterns[0].equalToXml: 'equalToXml' has no mockd equivalent; mapping skipped",
                "\(file): mappings[1].request.bodyPatterns[0].matchesJsonPath: '$..name' is not a simple JSONPath (mockd evaluates $ followed by .name, ['name'] and [index] steps only); mapping skipped",
                "\(file): mappings[2].request.bodyPatterns[0].matchesJsonPath: matchesJsonPath with a nested matcher has no mockd equivalent; mapping skipped",
                "\(file): mappings[3].request.cookies: cookie matchers have no mockd equivalent; mapping skipped",
                "\(file): mappings[4].request.queryParameters.id.hasExactly: 'hasExactly' has no mockd equivalent; mapping skipped",
                "\(file): mappings[5].request.bodyPatterns[0].ignoreArrayOrder: ignoreArrayOrder has no mockd equivalent (mockd compares arrays in order); mapping skipped",
                "\(file): mappings[6].request.bodyPatterns[0].ignoreExtraElements: ignoreExtraElements with arrays has no mockd equivalent (mockd's json subset compares arrays element by element); mapping skipped",
                "\(file): mappings[7].request.bodyPatterns[0].caseInsensitive: a case-insensitive body comparison has no mockd equivalent; mapping skipped",
                "\(file): mappings[8].response.proxyBaseUrl: proxy stubs are not imported (mockd --on-miss proxy --upstream URL proxies what no stub answers); mapping skipped",
                #"\#(file): mappings[9].priority: "LOW" is not a whole-number priority (WireMock priorities are integers, 1 highest, default 5; WireMock rejects this mapping too); mapping skipped"#,
                "\(file): mappings[10].request.urlPatern: unknown WireMock request field (it could narrow the match); mapping skipped",
                "\(file): mappings[11].request.headers.X.caseInsensitive: caseInsensitive with contains has no mockd equivalent; mapping skipped",
            ]
        )
        #expect(result.report.mappingsRead == 12)
        #expect(result.report.mappingsSkipped == 12)
        #expect(result.report.stubsWritten + result.report.overridesWritten == 0)
    }

    /// The report line for a mapping whose `{{…}}` is sent as written.
    static let literalNote =
        #"{{…}} sent as written: the mapping has no "transformers": ["response-template"], as WireMock does by default; if the WireMock server ran with --global-response-templating, import with --global-templating to render them"#

    @Test func responsesBodiesDelaysAndFaults() throws {
        let (result, root) = try Self.build(
            [
                "wiremock/mappings/responses.json": #"""
                {"mappings": [
                  {"request": {"method": "GET", "url": "/text"}, "response": {"status": 200, "body": "hello {{request.path}}",
                   "headers": {"Content-Type": "text/plain", "Set-Cookie": ["a=1", "b=2"], "Connection": "keep-alive"}}},
                  {"request": {"method": "GET", "url": "/json"}, "response": {"status": 201, "jsonBody": {"id": 1, "tags": ["x"]}, "headers": {"Content-Type": "application/json"}}},
                  {"request": {"method": "GET", "url": "/b64"}, "response": {"base64Body": "AAEC/w==", "headers": {"Content-Type": "image/png"}}},
                  {"request": {"method": "GET", "url": "/file"}, "response": {"bodyFileName": "data/user.json", "headers": {"Content-Type": "application/json"}}},
                  {"request": {"method": "GET", "url": "/missing"}, "response": {"bodyFileName": "nope.json"}},
                  {"request": {"method": "GET", "url": "/escape"}, "response": {"bodyFileName": "../outside.txt"}},
                  {"request": {"method": "GET", "url": "/slow"}, "response": {"fixedDelayMilliseconds": 250, "body": "late"}},
                  {"request": {"method": "GET", "url": "/reset"}, "response": {"fault": "CONNECTION_RESET_BY_PEER"}},
                  {"request": {"method": "GET", "url": "/empty"}, "response": {"fault": "EMPTY_RESPONSE"}},
                  {"request": {"method": "GET", "url": "/chunk"}, "response": {"fault": "MALFORMED_RESPONSE_CHUNK"}},
                  {"request": {"method": "GET", "url": "/random"}, "response": {"fault": "RANDOM_DATA_THEN_CLOSE"}},
                  {"request": {"method": "GET", "url": "/status"}, "response": {"status": 418, "statusMessage": "I'm a teapot"}},
                  {"request": {"method": "GET", "url": "/dribble"}, "response": {"body": "0123456789", "chunkedDribbleDelay": {"numberOfChunks": 5, "totalDuration": 1000},
                   "delayDistribution": {"type": "lognormal", "median": 80, "sigma": 0.4}}},
                  {"request": {"method": "GET", "urlPath": "/json-text", "queryParameters": {"a": {"equalTo": "1"}}}, "response": {"jsonBody": "a string", "headers": {"Set-Cookie": ["x=1", "y=2"]}}}
                ]}
                """#,
                "wiremock/__files/data/user.json": #"{"name": "{{request.path}}"}"#,
                "wiremock/__files/ignored.json": #"{"request": {}}"#,
                "wiremock/outside.txt": "secret",
            ],
            at: "wiremock"
        )
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(
            result.mockSet.file.stubs.map(Self.compact) == [
                #"{"id":"responses[0]","request":{"method":"GET","path":"/text"},"responses":[{"body":"hello {{request.path}}","headers":["Content-Type: text/plain","Set-Cookie: a=1","Set-Cookie: b=2"],"status":200,"templated":false}]}"#,
                #"{"id":"responses[1]","request":{"method":"GET","path":"/json"},"responses":[{"body":"{\"id\":1,\"tags\":[\"x\"]}","headers":["Content-Type: application/json"],"status":201}]}"#,
                #"{"id":"responses[2]","request":{"method":"GET","path":"/b64"},"responses":[{"bodyFile":"bodies/responses_2_.png","headers":["Content-Type: image/png"],"status":200}]}"#,
                #"{"id":"responses[3]","request":{"method":"GET","path":"/file"},"responses":[{"bodyFile":"bodies/__files/data/user.json","headers":["Content-Type: application/json"],"status":200,"templated":false}]}"#,
                #"{"id":"responses[4]","request":{"method":"GET","path":"/missing"},"responses":[{"body":"nope.json not found","headers":["Content-Type: text/plain; charset=utf-8"],"status":500,"templated":false}]}"#,
                #"{"id":"responses[5]","request":{"method":"GET","path":"/escape"},"responses":[{"body":"../outside.txt not found","headers":["Content-Type: text/plain; charset=utf-8"],"status":500,"templated":false}]}"#,
                #"{"id":"responses[11]","request":{"method":"GET","path":"/status"},"responses":[{"status":418}]}"#,
            ]
        )
        #expect(
            result.mockSet.files == [
                "bodies/responses_2_.png": Data([0, 1, 2, 255]),
                "bodies/__files/data/user.json": Data(#"{"name": "{{request.path}}"}"#.utf8),
            ]
        )
        #expect(
            result.scenario.overrides!.map(Self.compact) == [
                #"{"body":"late","headers":{"Content-Type":null},"id":"responses[6]","latency":{"fixed":250},"match":{"method":"GET","url":"/slow"},"priority":-5,"status":200}"#,
                #"{"fault":"connectionReset","id":"responses[7]","match":{"method":"GET","url":"/reset"},"priority":-5,"status":200}"#,
                #"{"fault":"emptyResponse","id":"responses[8]","match":{"method":"GET","url":"/empty"},"priority":-5,"status":200}"#,
                #"{"fault":"malformedChunk","id":"responses[9]","match":{"method":"GET","url":"/chunk"},"priority":-5,"status":200}"#,
                #"{"fault":"malformedChunk","id":"responses[10]","match":{"method":"GET","url":"/random"},"priority":-5,"status":200}"#,
                #"{"body":"0123456789","headers":{"Content-Type":null},"id":"responses[12]","latency":{"median":80,"sigma":0.4},"match":{"method":"GET","url":"/dribble"},"priority":-5,"status":200,"throttle":{"bytesPerSecond":10}}"#,
                #"{"addHeaders":["Set-Cookie: x=1","Set-Cookie: y=2"],"body":"\"a string\"","headers":{"Content-Type":null},"id":"responses[13]","match":{"method":"GET","path":"/json-text","query":{"a":{"equalTo":"1"}}},"priority":-5,"status":200}"#,
            ]
        )
        let file = "$ROOT/wiremock/mappings/responses.json"
        #expect(
            Self.items(result, root: root) == [
                "\(file): mappings[0].response.headers.Connection: mockd never sends 'Connection' (hop-by-hop, or computed from the body it sends); dropped",
                "\(file): mappings[0].response: \(Self.literalNote)",
                "\(file): mappings[3].response: \(Self.literalNote)",
                "\(file): mappings[4].response.bodyFileName: body file 'nope.json' not found in $ROOT/wiremock/__files/; answers 500 'nope.json not found', as WireMock 3 does",
                "\(file): mappings[5].response.bodyFileName: body file '../outside.txt' is outside $ROOT/wiremock/__files/; answers 500 '../outside.txt not found'",
                "\(file): mappings[10].response.fault: RANDOM_DATA_THEN_CLOSE has no exact mockd equivalent; mapped to malformedChunk, the closest (a valid status line and headers, then an invalid chunk, then the connection closes)",
                "\(file): mappings[11].response.statusMessage: mockd sends the standard reason phrase; ignored",
                "\(file): mappings[12].response.chunkedDribbleDelay: mapped to throttle 10 bytes/s (the body over about 1000 ms, in 50 ms chunks rather than WireMock's chunk count)",
            ]
        )
        #expect(result.report.filesRead == 1)
        #expect(result.report.stubsWritten == 7)
        #expect(result.report.overridesWritten == 7)

        let engine = try Self.engine(result, files: result.mockSet.files)
        let text = engine.respond(to: HTTPRequest(method: "GET", target: "/text"))
        #expect(String(decoding: text.body, as: UTF8.self) == "hello {{request.path}}")
        #expect(text.headers.values(named: "Set-Cookie") == ["a=1", "b=2"])
        let file3 = engine.respond(to: HTTPRequest(method: "GET", target: "/file"))
        #expect(String(decoding: file3.body, as: UTF8.self) == #"{"name": "{{request.path}}"}"#)
        let jsonText = engine.respond(to: HTTPRequest(method: "GET", target: "/json-text?a=1"))
        #expect(String(decoding: jsonText.body, as: UTF8.self) == #""a string""#)
        // Mappings are fixtures, served as written (hygiene only with `redact`).
        #expect(jsonText.headers.fields.map { "\($0.name): \($0.value)" } == ["Set-Cookie: x=1", "Set-Cookie: y=2"])
        let missing = engine.respond(to: HTTPRequest(method: "GET", target: "/missing"))
        #expect(missing.status == 500)
        #expect(String(decoding: missing.body, as: UTF8.self) == "nope.json not found")
        let slow = engine.plan(HTTPRequest(method: "GET", target: "/slow"))
        #expect(slow.delayMs == 250)
        #expect(engine.plan(HTTPRequest(method: "GET", target: "/random")).fault == .malformedChunk)
    }

    /// Each mapping's `jsonBody` is its own text as written (key order, numbers as spelt, arrays inside), whichever
    /// mapping of a long `mappings` array holds it, with arrays before it on the way and a single mapping per file.
    @Test func eachJSONBodyIsItsOwnTextWhereverItStands() throws {
        let count = 300
        let mappings = (0..<count).map { index in
            #"{"request": {"method": "GET", "url": "/j\#(index)", "headers": {"X": {"matches": "[a-z]"}}}, "#
                + #""response": {"jsonBody": {"z": \#(index).50, "a": [[\#(index)], {"k": "]\"}"}], "s": "a, b"}}}"#
        }
        let (result, root) = try Self.build(
            [
                "wiremock/mappings/many.json": #"{"meta": [1, [2]], "mappings": ["# + mappings.joined(separator: ",\n ")
                    + "]}",
                "wiremock/mappings/one.json":
                    #"{"request": {"method": "GET", "url": "/one"}, "response": {"jsonBody": [ 1.0, {"b": 2, "a": 1} ]}}"#,
            ],
            at: "wiremock"
        )
        defer { try? FileManager.default.removeItem(at: root) }
        // A stub's first response's body, or an override's (a header pattern makes an override).
        let written = result.mockSet.file.stubs.map(Self.compact) + (result.scenario.overrides ?? []).map(Self.compact)
        func body(_ path: String) -> String? {
            guard let line = written.first(where: { $0.contains("\"\(path)\"") }),
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            else { return nil }
            let responses = object["responses"] as? [[String: Any]]
            return (responses?.first ?? object)["body"] as? String
        }
        for index in [0, 1, 150, count - 1] {
            #expect(body("/j\(index)") == #"{"z":\#(index).50,"a":[[\#(index)],{"k":"]\"}"}],"s":"a, b"}"#)
        }
        #expect(body("/one") == #"[1.0,{"b":2,"a":1}]"#)
    }

    @Test func responseTemplatesTranslateWhatMockdHas() throws {
        let (result, root) = try Self.build([
            "templates.json": #"""
            {"mappings": [
              {"request": {"method": "POST", "url": "/echo"}, "response": {"transformers": ["response-template"],
               "body": "{{request.path}} {{request.method}} {{request.query.q}} {{request.query.q.[0]}} {{request.headers.X-Id}} {{request.headers.[X-Id]}} {{jsonPath request.body '$.car.model'}} {{jsonPath request.body \"$.items[0]\"}} {{randomValue type='UUID'}} {{now}} {{request.body}}",
               "headers": {"X-Path": "{{request.path}}"}}},
              {"request": {"method": "POST", "url": "/rest"}, "response": {"transformers": ["response-template", "my-extension"],
               "jsonBody": {"url": "{{request.url}}", "n": "{{randomValue length=5 type='NUMERIC'}}", "when": "{{now offset='1 days'}}", "x": "{{{request.body}}}"}}}
            ]}
            """#
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(
            result.mockSet.file.stubs.map(Self.compact) == [
                #"{"id":"templates[0]","request":{"method":"POST","path":"/echo"},"responses":[{"body":"{{request.path}} {{request.method}} {{request.query.q}} {{request.query.q}} {{request.header.X-Id}} {{request.header.X-Id}} {{request.json.car.model}} {{request.json.items[0]}} {{uuid}} {{now}} {{request.body}}","headers":["X-Path: {{request.path}}"],"status":200}]}"#,
                #"{"id":"templates[1]","request":{"method":"POST","path":"/rest"},"responses":[{"body":"{\"url\":\"{{request.url}}\",\"n\":\"{{{{raw}}}}{{randomValue length=5 type='NUMERIC'}}{{{{/raw}}}}\",\"when\":\"{{{{raw}}}}{{now offset='1 days'}}{{{{/raw}}}}\",\"x\":\"{{{{raw}}}}{{{request.body}}}{{{{/raw}}}}\"}","status":200}]}"#,
            ]
        )
        let file = "$ROOT/templates.json"
        #expect(
            Self.items(result, root: root) == [
                "\(file): mappings[1].response.transformers[1]: transformer 'my-extension' is not available in mockd; ignored",
                "\(file): mappings[1].response.jsonBody: template {{randomValue length=5 type='NUMERIC'}} has no mockd equivalent; sent as written",
                "\(file): mappings[1].response.jsonBody: template {{now offset='1 days'}} has no mockd equivalent; sent as written",
                "\(file): mappings[1].response.jsonBody: template {{{request.body}}} has no mockd equivalent; sent as written",
            ]
        )
        let engine = try Self.engine(result, files: [:])
        let body = #"{"car": {"model": "T"}, "items": [3]}"#
        // `url` is exact, so this stub takes no query: `{{request.query.q}}` renders empty.
        let echo = engine.respond(
            to: HTTPRequest(
                method: "POST",
                target: "/echo",
                headers: HTTPHeaders([("x-id", "7")]),
                body: Data(body.utf8)
            )
        )
        let text = String(decoding: echo.body, as: UTF8.self)
        let prefix = "/echo POST   7 7 T 3 "
        #expect(text.hasPrefix(prefix) && text.hasSuffix(" " + body))
        let middle = String(text.dropFirst(prefix.count).dropLast(body.count + 1))
        #expect(
            middle.wholeMatch(
                of:
                    /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12} 20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z/
            ) != nil,
            "\(middle)"
        )
        #expect(echo.headers["X-Path"] == "/echo")
    }

    @Test func webhooksBecomePushesTheAnswerCauses() throws {
        let (result, root) = try Self.build([
            "hooks.json": #"""
            {"mappings": [
              {"request": {"method": "POST", "url": "/payments"}, "response": {"status": 202},
               "serveEventListeners": [
                 {"name": "webhook", "parameters": {"method": "POST", "url": "http://127.0.0.1:9100/callback",
                  "headers": {"Content-Type": "application/json", "X-Ids": ["{{originalRequest.headers.X-Id}}", "b"]},
                  "body": "{\"paid\": \"{{jsonPath originalRequest.body '$.order'}}\", \"path\": \"{{originalRequest.path}}\"}",
                  "delay": {"type": "fixed", "milliseconds": 500}}},
                 {"name": "webhook", "parameters": {"url": "{{jsonPath originalRequest.body '$.callbackUrl'}}",
                  "jsonBody": {"status": "done", "echo": "{{originalRequest.body}}"}, "delay": {"type": "uniform", "lower": 100, "upper": 300}}},
                 {"name": "my-listener", "parameters": {}}
               ]},
              {"request": {"method": "POST", "urlPath": "/legacy"}, "response": {"status": 200, "fixedDelayMilliseconds": 50},
               "postServeActions": {"webhook": {"method": "PUT", "url": "https://hooks.example.com/x", "base64Body": "aGk="}}},
              {"request": {"method": "POST", "url": "/unknown-helper"}, "response": {"status": 200},
               "postServeActions": [{"name": "webhook", "parameters": {"url": "http://localhost:9100/{{randomValue length=4}}",
                 "body": "{{request.body}}"}}]},
              {"request": {"method": "POST", "url": "/reset"}, "response": {"fault": "CONNECTION_RESET_BY_PEER"},
               "serveEventListeners": [{"name": "webhook", "parameters": {"url": "http://127.0.0.1:9100/never"}}]}
            ]}
            """#
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(
            result.mockSet.file.stubs.map(Self.compact) == [
                // WireMock delays each from the answer (500, 200 ms), mockd each from the one before.
                #"{"id":"hooks[0]","request":{"method":"POST","path":"/payments"},"responses":[{"emit":[{"after":200,"webhook":{"body":{"echo":"{{request.body}}","status":"done"},"method":"GET","url":"{{request.json.callbackUrl}}"}},{"after":300,"webhook":{"body":"{\"paid\": \"{{request.json.order}}\", \"path\": \"{{request.path}}\"}","headers":{"Content-Type":"application/json","X-Ids":"{{request.header.X-Id}}, b"},"method":"POST","url":"http://127.0.0.1:9100/callback"}}],"status":202}]}"#,
                #"{"id":"hooks[2]","request":{"method":"POST","path":"/unknown-helper"},"responses":[{"status":200}]}"#,
            ]
        )
        #expect(
            result.scenario.overrides!.map(Self.compact) == [
                #"{"body":"","emit":[{"webhook":{"body":"hi","method":"PUT","url":"https://hooks.example.com/x"}}],"headers":{"Content-Type":null},"id":"hooks[1]","latency":{"fixed":50},"match":{"method":"POST","path":"/legacy"},"priority":-5,"status":200}"#,
                #"{"fault":"connectionReset","id":"hooks[3]","match":{"method":"POST","url":"/reset"},"priority":-5,"status":200}"#,
            ]
        )
        let file = "$ROOT/hooks.json"
        #expect(
            Self.items(result, root: root) == [
                "\(file): mappings[0].serveEventListeners[1].parameters.delay: mockd waits a fixed time before a push; mapped to 200 ms, the middle",
                "\(file): mappings[0].serveEventListeners[2]: serve-event listener 'my-listener' has no mockd equivalent; ignored",
                "\(file): mappings[1].postServeActions.webhook.url: mockd sends webhooks to loopback addresses only; run it with --webhook-allow hooks.example.com to send this one",
                "\(file): mappings[2].postServeActions[0].parameters: template {{randomValue length=4}} has no mockd equivalent; webhook left out",
                "\(file): mappings[2].postServeActions[0].parameters: template {{request.body}} has no mockd equivalent; webhook left out",
                "\(file): mappings[3].serveEventListeners: mockd makes no pushes after a fault; webhooks left out",
            ]
        )

        // Served: the answer carries its webhooks, rendered from the request that caused them.
        let engine = try Self.engine(result, files: [:])
        let answered = engine.handle(
            HTTPRequest(
                method: "POST",
                target: "/payments",
                headers: HTTPHeaders([("X-Id", "7")]),
                body: Data(#"{"order": 4521, "callbackUrl": "http://127.0.0.1:9100/back"}"#.utf8)
            )
        )
        #expect(answered.plan.response.status == 202)
        let hooks = try #require(answered.plan.pushes).pushes.map { push -> Push.Webhook? in
            if case .webhook(let hook) = push.action { return hook }
            return nil
        }
        #expect(try #require(answered.plan.pushes).pushes.map(\.delayMs) == [200, 500])
        #expect(hooks.map { $0?.method } == ["GET", "POST"])
        #expect(hooks.map { $0?.url } == ["http://127.0.0.1:9100/back", "http://127.0.0.1:9100/callback"])
        #expect(hooks[1]?.headers["X-Ids"] == "7, b")
        #expect(String(decoding: hooks[1]?.body ?? Data(), as: UTF8.self) == #"{"paid": "4521", "path": "/payments"}"#)
        #expect(
            String(decoding: hooks[0]?.body ?? Data(), as: UTF8.self)
                == #"{"echo":"{\"order\": 4521, \"callbackUrl\": \"http://127.0.0.1:9100/back\"}","status":"done"}"#
        )
    }

    @Test func scenariosPrioritiesAndTheIndexOverrideSplit() throws {
        let (result, root) = try Self.build([
            "a.json": #"""
            {"mappings": [
              {"scenarioName": "todo", "requiredScenarioState": "Started", "request": {"method": "GET", "url": "/todo"}, "response": {"body": "[]"}},
              {"scenarioName": "todo", "requiredScenarioState": "Started", "newScenarioState": "Added", "request": {"method": "POST", "url": "/todo"}, "response": {"status": 201}},
              {"scenarioName": "todo", "requiredScenarioState": "Added", "request": {"method": "GET", "url": "/todo"}, "response": {"body": "[\"milk\"]"}},
              {"scenarioName": "todo", "newScenarioState": "Started", "request": {"method": "DELETE", "url": "/todo"}, "response": {"status": 204}},
              {"scenarioName": "todo", "request": {"method": "GET", "url": "/plain"}, "response": {"body": "plain"}},
              {"newScenarioState": "X", "request": {"method": "GET", "url": "/nostate"}, "response": {"body": "n"}},
              {"priority": 1, "request": {"method": "GET", "urlPattern": "/users/.*"}, "response": {"body": "pattern"}},
              {"priority": 3, "request": {"method": "GET", "url": "/users/me"}, "response": {"body": "me"}},
              {"request": {"method": "GET", "url": "/users/x"}, "response": {"body": "x-first"}},
              {"priority": 9, "request": {"method": "GET", "urlPattern": "/orders/.*"}, "response": {"body": "orders pattern"}},
              {"request": {"method": "GET", "url": "/orders/1"}, "response": {"body": "order one"}},
              {"request": {"method": "GET", "url": "/orders/1"}, "response": {"body": "order one later"}},
              {"priority": 2, "request": {"method": "GET", "url": "/orders/1"}, "response": {"body": "order one high"}}
            ]}
            """#
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(result.mockSet.file.stubs.map(\.id) == ["a[4]", "a[5]", "a[7]", "a[8]"])
        #expect(
            result.scenario.overrides!.map(Self.compact) == [
                #"{"body":"[]","headers":{"Content-Type":null},"id":"a[0]","match":{"method":"GET","url":"/todo"},"priority":-5,"state":{"name":"todo","requires":"Started"},"status":200}"#,
                #"{"body":"","headers":{"Content-Type":null},"id":"a[1]","match":{"method":"POST","url":"/todo"},"priority":-5,"state":{"name":"todo","next":"Added","requires":"Started"},"status":201}"#,
                #"{"body":"[\"milk\"]","headers":{"Content-Type":null},"id":"a[2]","match":{"method":"GET","url":"/todo"},"priority":-5,"state":{"name":"todo","requires":"Added"},"status":200}"#,
                #"{"body":"","headers":{"Content-Type":null},"id":"a[3]","match":{"method":"DELETE","url":"/todo"},"priority":-5,"state":{"name":"todo","next":"Started"},"status":204}"#,
                #"{"body":"pattern","headers":{"Content-Type":null},"id":"a[6]","match":{"method":"GET","urlPattern":"/users/.*"},"priority":-1,"status":200}"#,
                #"{"body":"orders pattern","headers":{"Content-Type":null},"id":"a[9]","match":{"method":"GET","urlPattern":"/orders/.*"},"priority":-9,"status":200}"#,
                #"{"body":"order one high","headers":{"Content-Type":null},"id":"a[12]","match":{"method":"GET","url":"/orders/1"},"priority":-2,"status":200}"#,
            ]
        )
        #expect(
            Self.items(result, root: root) == [
                "$ROOT/a.json: mappings[5].newScenarioState: no scenarioName, so WireMock ignores it too; ignored",
                "$ROOT/a.json: mappings[10]: never answers: $ROOT/a.json: mappings[12] has the same method and URL and comes first (in WireMock too); mapping skipped",
                "$ROOT/a.json: mappings[11]: never answers: $ROOT/a.json: mappings[12] has the same method and URL and comes first (in WireMock too); mapping skipped",
            ]
        )
        #expect(result.report.mappingsSkipped == 2)

        let engine = try Self.engine(result, files: [:])
        func body(_ method: String, _ target: String) -> String {
            let response = engine.respond(to: HTTPRequest(method: method, target: target))
            return "\(response.status) \(String(decoding: response.body, as: UTF8.self))"
        }
        // WireMock order: priority 1 pattern before the priority-3 exact stub; the priority-2 exact stub before the priority-9 pattern.
        #expect(body("GET", "/users/me") == "200 pattern")
        #expect(body("GET", "/orders/1") == "200 order one high")
        #expect(body("GET", "/orders/2") == "200 orders pattern")
        #expect(body("GET", "/plain") == "200 plain")
        #expect(
            [
                body("GET", "/todo"), body("POST", "/todo"), body("GET", "/todo"),
                String(body("POST", "/todo").prefix(3)), body("DELETE", "/todo"), body("GET", "/todo"),
            ]
                == ["200 []", "201 ", #"200 ["milk"]"#, "404", "204 ", "200 []"]
        )
    }

    @Test func sourceLayouts() throws {
        let root = try Self.folder([
            "wm/mappings/a.json":
                #"{"request": {"method": "GET", "url": "/a"}, "response": {"bodyFileName": "a.txt"}}"#,
            "wm/mappings/sub/b.json": #"{"request": {"method": "GET", "url": "/b"}, "response": {"body": "b"}}"#,
            "wm/mappings/.hidden.json": "not json",
            "wm/mappings/notes.txt": "not a mapping",
            "wm/__files/a.txt": "A",
            "flat/one.json": #"{"request": {"method": "GET", "url": "/one"}, "response": {"bodyFileName": "x.json"}}"#,
            "flat/__files/x.json": #"{"request": "this is a body, not a mapping"}"#,
            "empty/readme.md": "nothing",
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        func describe(_ path: String) throws -> [String] {
            let source = try WireMockSource.locate(root.path + "/" + path)
            return source.files.map { "\($0.display.replacingOccurrences(of: root.path, with: "$ROOT")) \($0.stem)" }
                + [source.bodiesDisplay?.replacingOccurrences(of: root.path, with: "$ROOT") ?? "(no __files)"]
        }
        #expect(
            try describe("wm") == [
                "$ROOT/wm/mappings/a.json a", "$ROOT/wm/mappings/sub/b.json sub/b", "$ROOT/wm/__files/",
            ]
        )
        #expect(
            try describe("wm/mappings") == [
                "$ROOT/wm/mappings/a.json a", "$ROOT/wm/mappings/sub/b.json sub/b", "$ROOT/wm/__files/",
            ]
        )
        #expect(try describe("wm/mappings/sub/b.json") == ["$ROOT/wm/mappings/sub/b.json b", "$ROOT/wm/__files/"])
        #expect(try describe("flat") == ["$ROOT/flat/one.json one", "$ROOT/flat/__files/"])
        #expect(try describe("flat/one.json") == ["$ROOT/flat/one.json one", "(no __files)"])
        #expect { try WireMockSource.locate(root.path + "/empty") } throws: {
            "\($0)" == "\(root.path)/empty: no *.json mapping files in this folder"
        }
        #expect { try WireMockSource.locate(root.path + "/nope") } throws: {
            "\($0)" == "\(root.path)/nope: no such file or folder"
        }

        let result = try WireMockImporter.build(try WireMockSource.locate(root.path + "/wm"), set: "wm")
        #expect(
            result.mockSet.file.stubs.map(Self.compact) == [
                #"{"id":"a","request":{"method":"GET","path":"/a"},"responses":[{"bodyFile":"bodies/__files/a.txt","status":200}]}"#,
                #"{"id":"sub/b","request":{"method":"GET","path":"/b"},"responses":[{"body":"b","status":200}]}"#,
            ]
        )
        #expect(result.mockSet.files == ["bodies/__files/a.txt": Data("A".utf8)])
    }

    @Test(arguments: [
        (#"{"request": {"url": "/a""#, "x.json: not valid JSON (Unexpected end of file during JSON parse.)"),
        ("", "x.json: not valid JSON (the file is empty)"),
        (
            "[1]",
            #"x.json: not a WireMock stub mapping (expected an object with "request" and "response", or "mappings": […]), got an array"#
        ),
        (
            #"{"foo": 1}"#,
            #"x.json: not a WireMock stub mapping (expected "request" and "response", or "mappings": […])"#
        ),
        (#"{"mappings": {}}"#, "x.json: mappings: expected an array, got an object"),
        // WireMock keeps the last of two members with one name, Foundation's decoder the first: refused, not guessed.
        (
            #"{"request": {"url": "/a"}, "request": {"url": "/b"}, "response": {}}"#,
            #"x.json: request: "request" appears twice in this object; WireMock keeps the last, other JSON readers the first: keep one"#
        ),
        (
            #"{"request": {"url": "/a"}, "response": {"jsonBody": {"caf\u00e9": 1, "cafe\u0301": 2, "a\"b": 3}}}"#,
            #"x.json: response.jsonBody.café: "café" and the earlier "café" differ only in Unicode normalization, one name to mockd, two to WireMock: rename one"#
        ),
        (
            #"{"request": {"url": "/a"}, "response": {"jsonBody": {"a\"b": 3, "a\u0022b": 4}}}"#,
            #"x.json: response.jsonBody["a\"b"]: "a\"b" appears twice in this object; WireMock keeps the last, other JSON readers the first: keep one"#
        ),
        (
            #"{"mappings": [{"request": {"url": "/a"}, "response": {"status": 200, "status": 500}}]}"#,
            #"x.json: mappings[0].response.status: "status" appears twice in this object; WireMock keeps the last, other JSON readers the first: keep one"#
        ),
        (#"{"mappings": [{"response": {}}]}"#, "x.json: mappings[0].request: required field is missing"),
        (#"{"request": {"method": 5}, "response": {}}"#, "x.json: request.method: expected a string, got a number"),
        (
            #"{"request": {"method": "G T"}, "response": {}}"#,
            "x.json: request.method: 'G T' is not an HTTP method token"
        ),
        (
            #"{"request": {"url": "/a", "urlPattern": "/b"}, "response": {}}"#,
            "x.json: request: give at most one of url, urlPath, urlPattern, urlPathPattern, urlPathTemplate (got url, urlPattern)"
        ),
        (#"{"request": {"url": "a"}, "response": {}}"#, "x.json: request.url: must start with '/' (got 'a')"),
        (
            #"{"request": {"urlPattern": "/a/(["}, "response": {}}"#,
            "x.json: request.urlPattern: invalid regular expression '/a/(['"
        ),
        (
            #"{"mappings": [{"request": {"headers": {"X": {"matches": "a["}}}, "response": {}}]}"#,
            "x.json: mappings[0].request.headers.X.matches: invalid regular expression 'a['"
        ),
        (
            #"{"request": {"bodyPatterns": [{"doesNotMatch": "*"}]}, "response": {}}"#,
            "x.json: request.bodyPatterns[0].doesNotMatch: invalid regular expression '*'"
        ),
        (
            #"{"request": {"headers": {"X": "y"}}, "response": {}}"#,
            #"x.json: request.headers.X: expected a matcher object such as {"equalTo": "…"}, got a string"#
        ),
        (
            #"{"request": {"queryParameters": {"q": {"equalTo": "a", "contains": "b"}}}, "response": {}}"#,
            "x.json: request.queryParameters.q: give exactly one matcher (equalTo, matches, doesNotMatch, contains, absent…), got 2"
        ),
        (
            #"{"request": {}, "response": {"status": "200"}}"#,
            "x.json: response.status: expected a whole number, got a string"
        ),
        (
            #"{"request": {}, "response": {"status": 42}}"#,
            "x.json: response.status: 42 is not an HTTP status code (100–999)"
        ),
        (
            #"{"request": {}, "response": {"body": {"a": 1}}}"#,
            "x.json: response.body: expected a string, got an object (jsonBody takes JSON)"
        ),
        (
            #"{"request": {}, "response": {"body": "a", "jsonBody": 1}}"#,
            "x.json: response: give at most one of body, jsonBody, base64Body, bodyFileName (got body, jsonBody)"
        ),
        (#"{"request": {}, "response": {"base64Body": "!!"}}"#, "x.json: response.base64Body: not valid base64"),
        (
            #"{"request": {}, "response": {"headers": {"X": 1}}}"#,
            "x.json: response.headers.X: expected a string, got a number"
        ),
        (
            #"{"request": {}, "response": {"fixedDelayMilliseconds": -1}}"#,
            "x.json: response.fixedDelayMilliseconds: must be ≥ 0 ms"
        ),
        (
            #"{"request": {}, "response": {"fault": "BOOM"}}"#,
            "x.json: response.fault: unknown fault 'BOOM' (WireMock faults: CONNECTION_RESET_BY_PEER, EMPTY_RESPONSE, MALFORMED_RESPONSE_CHUNK, RANDOM_DATA_THEN_CLOSE)"
        ),
        (
            #"{"request": {}, "response": {}, "scenarioName": 1}"#,
            "x.json: scenarioName: expected a string, got a number"
        ),
        (
            #"{"request": {}, "response": {}, "scenarioName": "", "requiredScenarioState": "Started"}"#,
            "x.json: scenarioName: must not be empty"
        ),
        (
            "\u{FEFF}[]",
            #"x.json: not a WireMock stub mapping (expected an object with "request" and "response", or "mappings": […]), got an array"#
        ),
        (
            #"{"request": {}, "response": {}, "priority": 99999999999}"#,
            "x.json: priority: 99999999999 is out of range (WireMock priorities are 32-bit integers)"
        ),
    ])
    func malformedMappingsFailWithFileAndJSONPath(_ content: String, _ expected: String) throws {
        let root = try Self.folder(["x.json": content])
        defer { try? FileManager.default.removeItem(at: root) }
        // Named by its full path, not relative to a changed current directory: a process other tests start in the
        // meantime takes the current directory as its own, and failed to start ("file doesn't exist") when the
        // folder was removed before it did.
        let path = root.appendingPathComponent("x.json").path
        #expect { try WireMockImporter.build(try WireMockSource.locate(path), set: "wm") } throws: {
            "\($0)" == path + expected.dropFirst("x.json".count)
        }
    }

    @Test func delaysMockdCannotHonourAreReportedAndLeftOut() throws {
        let (result, root) = try Self.build([
            "delays.json": #"""
            {"mappings": [
              {"request": {"url": "/a"}, "response": {"delayDistribution": {"type": "lognormal", "median": 90, "sigma": 9}}},
              {"request": {"url": "/b"}, "response": {"delayDistribution": {"type": "uniform", "lower": 500, "upper": 100}}},
              {"request": {"url": "/c"}, "response": {"fixedDelayMilliseconds": 7200000, "delayDistribution": {"type": "fixed", "milliseconds": 5}}},
              {"request": {"url": "/d"}, "response": {"delayDistribution": {"type": "pareto"}, "chunkedDribbleDelay": {"numberOfChunks": 2, "totalDuration": 100}}}
            ]}
            """#
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(
            result.scenario.overrides!.map { Self.compact($0.step.latency) } == [
                "null", "null", #"{"fixed":3600000}"#, "null",
            ]
        )
        let file = "$ROOT/delays.json"
        #expect(
            Self.items(result, root: root) == [
                "\(file): mappings[0].response.delayDistribution: outside what mockd delays (0–3600000 ms, sigma 0–5, lower ≤ upper); ignored",
                "\(file): mappings[1].response.delayDistribution: outside what mockd delays (0–3600000 ms, sigma 0–5, lower ≤ upper); ignored",
                "\(file): mappings[2].response.fixedDelayMilliseconds: mockd delays at most 3600000 ms; mapped to latency 3600000",
                "\(file): mappings[2].response.delayDistribution: mockd has one latency per response and fixedDelayMilliseconds is set; ignored",
                "\(file): mappings[3].response.delayDistribution: delay distribution 'pareto' has no mockd equivalent; ignored",
                "\(file): mappings[3].response.chunkedDribbleDelay: nothing to dribble (empty body or no totalDuration); ignored",
            ]
        )
    }

    @Test func simpleJSONPathsAndTheirLimits() throws {
        let json = try JSONDecoder().decode(
            JSONValue.self,
            from: Data(#"{"a": {"b c": [1, {"d": null}]}, "e": [], "f": {}, "g": 0}"#.utf8)
        )
        #expect(try SimpleJSONPath("$.a['b c'][1]").hasValue(in: json))
        #expect(try SimpleJSONPath(#"$["a"]['b c'][0]"#).steps == [.member("a"), .member("b c"), .index(0)])
        #expect(try SimpleJSONPath("$.a['b c'][1].d").hasValue(in: json) == false)
        #expect(try SimpleJSONPath("$.e").hasValue(in: json) == false)
        #expect(try SimpleJSONPath("$.f").hasValue(in: json) == false)
        #expect(try SimpleJSONPath("$.g").hasValue(in: json))
        #expect(try SimpleJSONPath("$").hasValue(in: json))
        for unsupported in ["$..a", "$.a[*]", "$.a[?(@.b)]", "$.a[0:2]", "a.b", "$.a[-1]", "$['a", "$.b c", "$.*"] {
            #expect(throws: PatternError.self) { try SimpleJSONPath(unsupported) }
        }
    }
}
