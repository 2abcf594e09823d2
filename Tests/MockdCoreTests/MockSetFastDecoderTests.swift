import Foundation
import MockdFormat
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

    /// A `stubs` array over `MockSetFastDecoder.parallelBytes`, whose entries hold brackets, braces, commas, quotes
    /// and backslashes inside strings and nested JSON bodies (what the slice scan must not cut at).
    private func largeIndex(count: Int, replacing: [Int: String] = [:]) -> String {
        let stubs = (0..<count).map { index in
            replacing[index]
                ?? #"""
                {"id": "s\#(index) [\"],{\\\\}", "request": {"method": "POST", "path": "/n/\#(index)", "body": {"json": {"a": [1, {"b": "],}"}], "c": "\\\\"}}},
                 "responses": [{"status": 200, "headers": ["X-Odd: [{,}]"], "body": "x\\\\\"],"}, {"json": [[], {}, [{}]]}]}
                """#
        }
        return #"{"version": 1, "stubs": [ "# + stubs.joined(separator: " ,\n") + "\n]}"
    }

    @Test func largeIndexDecodedInSlicesMatchesJSONDecoder() throws {
        #expect(
            MockSetFastDecoder.decode(Data(largeIndex(count: 3).utf8)) == (try slow(largeIndex(count: 3))),
            "single pass"
        )
        let text = largeIndex(count: 2500)
        #expect(text.utf8.count > MockSetFastDecoder.parallelBytes)
        let fast = try #require(MockSetFastDecoder.decode(Data(text.utf8)))
        try #require(fast.stubs.count == 2500)
        #expect(fast.stubs[1234].id == #"s1234 ["],{\\}"#)
        #expect(fast == (try slow(text)))
    }

    /// Header lists repeated from the stub before are taken as the same array only when their text is the same:
    /// a longer list starting with the same lines, another order, an escape or other spacing decode afresh.
    @Test func repeatedHeaderListsDecodeAsJSONDecoderDoes() throws {
        let lists = [
            #"["Accept: application/json"]"#, #"["Accept: application/json"]"#,
            #"["Accept: application/json", "X-Mode: a"]"#, #"["Accept: application/json"]"#,
            #"["Accept: application/json" ]"#, #"["Accept: application\/json"]"#, "[]", "[]",
            #"["X-Mode: a", "Accept: application/json"]"#,
        ]
        let stubs = lists.enumerated().map { index, list in
            #"{"id": "s\#(index)", "request": {"method": "GET", "path": "/p/\#(index)", "headers": \#(list)}, "#
                + #""responses": [{"status": 200, "headers": \#(list)}, {"headers": \#(list)}]}"#
        }
        let text = #"{"version": 1, "stubs": ["# + stubs.joined(separator: ",\n") + "]}"
        let fast = try #require(MockSetFastDecoder.decode(Data(text.utf8)))
        #expect(fast == (try slow(text)))
        #expect(fast.stubs[2].request.headers == ["Accept: application/json", "X-Mode: a"])
        #expect(fast.stubs[8].responses[1].headers == ["X-Mode: a", "Accept: application/json"])
        #expect(fast.stubs[5].request.headers == ["Accept: application/json"])
    }

    /// A response's `dates` (written by `import-har` on nearly every JSON answer) is read by the fast decoder itself,
    /// as `JSONDecoder` reads it; a shape only the slow path may judge (unknown key, no `recordedAt`, a key twice, a
    /// wrong type) gives up.
    @Test func responseDatesDecodeAsJSONDecoderDoes() throws {
        func index(_ dates: [String]) -> String {
            let stubs = dates.enumerated().map { index, dates in
                #"{"id": "d\#(index)", "request": {"method": "GET", "path": "/d/\#(index)"}, "#
                    + #""responses": [{"status": 200, "body": "{}", "dates": \#(dates)}]}"#
            }
            return #"{"version": 1, "stubs": ["# + stubs.joined(separator: ",\n") + "]}"
        }
        let decodable = [
            #"{"recordedAt": "2026-01-01T00:00:00.097Z", "body": ["/updatedAt", "/items/*/at"], "headers": ["Expires"]}"#,
            #"{"recordedAt": "2026-01-01T00:00:00+02:00"}"#,
            #"{ "body" : [ ] , "recordedAt" : "2026-01-01T00:00:00Z" , "headers" : null }"#,
            #"{"recordedAt": "2026-01-01T00:00:00Z", "body": ["/a~1b/c~0d", "/\u00e9t\u00e9", "/x\"y"]}"#,
            "null",
        ]
        let text = index(decodable)
        let fast = try #require(MockSetFastDecoder.decode(Data(text.utf8)))
        #expect(fast == (try slow(text)))
        #expect(fast.stubs[0].responses[0].dates?.body == ["/updatedAt", "/items/*/at"])
        #expect(fast.stubs[3].responses[0].dates?.body == ["/a~1b/c~0d", "/été", #"/x"y"#])
        #expect(fast.stubs[4].responses[0].dates == nil)
        let slowPathOnly = [
            #"{"recordedAt": "2026-01-01T00:00:00Z", "bodies": ["/a"]}"#,
            #"{"body": ["/a"]}"#,
            #"{"recordedAt": "2026-01-01T00:00:00Z", "recordedAt": "2026-01-02T00:00:00Z"}"#,
            #"{"recordedAt": 1767225600000}"#,
            #"{"recordedAt": "2026-01-01T00:00:00Z", "headers": "Expires"}"#,
            #"["2026-01-01T00:00:00Z"]"#,
        ]
        for dates in slowPathOnly {
            #expect(MockSetFastDecoder.decode(Data(index([dates]).utf8)) == nil, "\(dates)")
        }
    }

    @Test func arraysAreCutAtTopLevelCommasOnly() throws {
        // Quotes after an even number of backslashes close a string; after an odd number they are part of it.
        let elements = [#""a\\""#, #""b\\\"c,]""#, #"{"x": "]", "y": [1, ","]}"#, #"[{}, [], "\\"]"#, #""\\\\""#, "12"]
        let text = "[ " + elements.joined(separator: " ,\n ") + "\t]  trailing"
        let data = Data(text.utf8)
        let cut = try #require(MockSetFastDecoder.arrayElementBounds(data))
        #expect(
            cut.elements.map {
                String(decoding: data[$0], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            } == elements
        )
        #expect(String(decoding: data[cut.end...], as: UTF8.self) == "  trailing")
        #expect(MockSetFastDecoder.arrayElementBounds(Data(#"["unterminated\"]"#.utf8)) == nil)
        #expect(MockSetFastDecoder.arrayElementBounds(Data(#"[1, {"a": 2]"#.utf8)) == nil)
    }

    @Test(arguments: [
        // A field the fast decoder does not know, a trailing comma, an empty element, a missing comma: give up.
        (1700, #"{"request": {"method": "GET", "path": "/x"}, "responses": [{}], "later": 1}"#),
        (2499, #"{"request": {"method": "GET", "path": "/x"}, "responses": [{}]},"#),
        (900, ""),
        (
            1500,
            #"{"request": {"method": "GET", "path": "/x"}, "responses": [{}]} {"request": {"method": "GET", "path": "/y"}, "responses": [{}]}"#
        ),
    ])
    func largeIndexWithABadEntryInAnySliceGivesUp(_ index: Int, _ entry: String) throws {
        #expect(MockSetFastDecoder.decode(Data(largeIndex(count: 2500, replacing: [index: entry]).utf8)) == nil)
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
        // An unknown field, a duplicate key, a newer version, a missing path, a wrong type, a non-integer status, a
        // bad enum value, an unknown field in a WebSocket script, trailing text, malformed JSON, a lone surrogate,
        // nothing at all.
        let cases = [
            #"{"stubs": [{"request": {"method": "GET", "path": "/"}, "responses": [{"latancy": 1}]}]}"#,
            #"{"stubs": [], "stubs": []}"#,
            #"{"version": 2, "stubs": []}"#,
            #"{"stubs": [{"request": {"method": "GET"}, "responses": []}]}"#,
            #"{"stubs": [{"request": {"method": "GET", "path": "/"}, "responses": [{"status": "200"}]}]}"#,
            #"{"stubs": [{"request": {"method": "GET", "path": "/"}, "responses": [{"status": 200.5}]}]}"#,
            #"{"stubs": [{"request": {"method": "GET", "path": "/"}, "responses": [{"fault": "nope"}]}]}"#,
            #"{"stubs": [{"request": {"method": "GET", "path": "/"}, "responses": [{"json": {"a": 1}, "websocket": {"stepz": []}}]}]}"#,
            #"{"stubs": []} x"#,
            #"{"stubs": [}"#,
            #"{"stubs": [{"id": "\ud800", "request": {"method": "GET", "path": "/"}, "responses": [{}]}]}"#,
            "",
        ]
        for text in cases {
            #expect(MockSetFastDecoder.decode(Data(text.utf8)) == nil, "\(text)")
        }
        // An invalid UTF-8 key.
        #expect(MockSetFastDecoder.decode(Data([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D])) == nil)
    }

    /// Errors still come from the slow path, word for word.
    @Test func loaderReportsUnknownFieldsAsBefore() throws {
        let url = Paths.makeTemporaryDirectory()
        let set = url.appendingPathComponent("mocks/s")
        try FileManager.default.createDirectory(at: set, withIntermediateDirectories: true)
        try #"{"version": 1, "stubs": [{"request": {"method": "GET", "path": "/"}, "responses": [{"statsu": 200}]}]}"#
            .write(to: set.appendingPathComponent("index.json"), atomically: true, encoding: .utf8)
        // Caught by hand: the error returned by #expect(throws:) needs Swift 6.1 (scripts/check-swift-floor).
        var error: ConfigError?
        do { _ = try MockSetLoader(root: MockdRoot(url: url)).loadSet("s") } catch let thrown as ConfigError {
            error = thrown
        }
        #expect(error != nil)
        #expect(error?.jsonPath == "stubs[0].responses[0].statsu")
        #expect(error?.message == #"unknown field (did you mean "status"?)"#)
    }
}
