import Foundation
import MockdTestSupport
import Testing

@testable import MockdCore

/// The start-up decoder of `index.json` gives exactly what `JSONDecoder` gives, or gives up.
struct MockSetFastDecoderTests {
    private func slow(_ text: String) throws -> MockSetFile {
        try JSONDecoder().decode(MockSetFile.self, from: Data(text.utf8))
    }

    @Test func bundledSetsDecodeAsJSONDecoderDoes() throws {
        for name in ["auth", "chat", "shop"] {
            let data = try Data(contentsOf: Paths.packageRoot.appendingPathComponent("mocks/\(name)/index.json"))
            let fast = try #require(MockSetFastDecoder.decode(data), "mocks/\(name)/index.json")
            #expect(fast == (try JSONDecoder().decode(MockSetFile.self, from: data)), "mocks/\(name)/index.json")
        }
    }

    @Test func everyHandledFieldMatches() throws {
        let text = #"""
            {"$schema": {"x": [1, true, null, "s"]}, "version": 1, "matchHeaders": ["accept", "x-a"], "cors": true,
             "conditionalRequests": false,
             "normalize": {"ignoreQuery": ["ts"], "queryValues": [{"name": "token", "placeholder": "token"}]},
             "stubs": [
               {"id": "a\u00e9\ud83d\ude00\n\"", "afterLast": "cycle",
                "request": {"host": "api.example.com", "method": "POST", "path": "/v1/x%2Fy", "query": "b=2&a=1",
                            "headers": ["Accept: application/json"],
                            "body": {"json": {"k": [1, 2.5, "v"]}, "contentType": "application/json"}},
                "responses": [
                  {"status": 201, "headers": ["Content-Type: application/json", "X-T: {{token}}"], "json": {"ok": true},
                   "recordedTimeMs": 12.75, "templated": "redacted"},
                  {"status": null, "body": "plain \/ text", "templated": false, "fault": "connectionReset"},
                  {"bodyFile": "bodies/a.json", "templated": true, "events": {"items": [{"data": "x", "after": 5}], "keepOpen": true}},
                  {"status": 101, "websocket": {"steps": [{"send": "hi"}]}}
                ]},
               {"request": {"method": "GET", "path": "/", "body": {"text": "t", "file": null}}, "responses": [{}]}
             ]}
            """#
        let fast = try #require(MockSetFastDecoder.decode(Data(text.utf8)))
        #expect(fast == (try slow(text)))
        #expect(fast.stubs[0].id == "aé😀\n\"")
    }

    @Test func givesUpOnWhatTheSlowPathMustReport() {
        let cases = [
            #"{"stubs": [{"request": {"method": "GET", "path": "/"}, "responses": [{"latancy": 1}]}]}"#,  // unknown field
            #"{"stubs": [], "stubs": []}"#,  // duplicate key
            #"{"version": 2, "stubs": []}"#,  // newer version
            #"{"stubs": [{"request": {"method": "GET"}, "responses": []}]}"#,  // missing path
            #"{"stubs": [{"request": {"method": "GET", "path": "/"}, "responses": [{"status": "200"}]}]}"#,  // wrong type
            #"{"stubs": [{"request": {"method": "GET", "path": "/"}, "responses": [{"status": 200.5}]}]}"#,  // not an integer
            #"{"stubs": [{"request": {"method": "GET", "path": "/"}, "responses": [{"fault": "nope"}]}]}"#,  // bad enum
            #"{"stubs": [{"request": {"method": "GET", "path": "/"}, "responses": [{"json": {"a": 1}, "websocket": {"stepz": []}}]}]}"#,
            #"{"stubs": []} x"#,  // trailing text
            #"{"stubs": [}"#,  // malformed
            #"{"stubs": [{"id": "\ud800", "request": {"method": "GET", "path": "/"}, "responses": [{}]}]}"#,  // lone surrogate
            "",
        ]
        for text in cases {
            #expect(MockSetFastDecoder.decode(Data(text.utf8)) == nil, "\(text)")
        }
        #expect(MockSetFastDecoder.decode(Data([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D])) == nil)  // invalid UTF-8 key
    }

    /// Errors still come from the slow path, word for word.
    @Test func loaderReportsUnknownFieldsAsBefore() throws {
        let url = Paths.makeTemporaryDirectory()
        let set = url.appendingPathComponent("mocks/s")
        try FileManager.default.createDirectory(at: set, withIntermediateDirectories: true)
        try #"{"version": 1, "stubs": [{"request": {"method": "GET", "path": "/"}, "responses": [{"statsu": 200}]}]}"#
            .write(to: set.appendingPathComponent("index.json"), atomically: true, encoding: .utf8)
        let error = #expect(throws: ConfigError.self) { try MockSetLoader(root: MockdRoot(url: url)).loadSet("s") }
        #expect(error?.jsonPath == "stubs[0].responses[0].statsu")
        #expect(error?.message == #"unknown field (did you mean "status"?)"#)
    }
}
