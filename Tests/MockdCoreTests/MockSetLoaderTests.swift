import Foundation
import MockdFormat
import MockdTestSupport
import Testing

@testable import MockdCore

/// Mock set and scenario files on disk: valid ones load, broken ones fail with `file: JSON path: message`.
struct MockSetLoaderTests {
    /// Writes `index.json` (and optional extra files) for set `s` under a fresh root.
    private func root(index: String, files: [String: String] = [:]) throws -> MockdRoot {
        let url = Paths.makeTemporaryDirectory()
        let set = url.appendingPathComponent("mocks/s")
        try FileManager.default.createDirectory(
            at: set.appendingPathComponent("bodies"),
            withIntermediateDirectories: true
        )
        try index.write(to: set.appendingPathComponent("index.json"), atomically: true, encoding: .utf8)
        for (path, text) in files {
            let file = url.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try text.write(to: file, atomically: true, encoding: .utf8)
        }
        return MockdRoot(url: url)
    }

    private func loadError(_ index: String, files: [String: String] = [:]) throws -> String {
        let root = try root(index: index, files: files)
        defer { try? FileManager.default.removeItem(at: root.url) }
        do {
            // Body files read at load, as `mockd validate` does: serving reads them on first use (`DeferredBodyTests`).
            _ = try MockSetLoader(root: root, defersBodies: false).load(set: "s")
            return "loaded"
        } catch {
            return "\(error)"
        }
    }

    /// Gated steps (issue 33): a `conditionalOnly` 304 and a `rangeOnly` 206 stand for the nearest whole
    /// representation of their stub (an earlier one first, else a later one); a `validators` line that is not a
    /// validator fails with its JSON path.
    @Test func gatedStepsKnowTheirRepresentationAndValidatorsAreChecked() throws {
        let root = try root(
            index: #"""
                {"stubs": [
                  {"request": {"method": "GET", "path": "/poll"}, "responses": [
                    {"status": 304, "conditionalOnly": true, "validators": ["If-None-Match: \"a\""]},
                    {"status": 200, "body": "A"},
                    {"status": 304, "conditionalOnly": true},
                    {"status": 206, "rangeOnly": true, "headers": ["Content-Range: bytes 0-0/9"], "body": "B"},
                    {"status": 200, "body": "C"}]},
                  {"request": {"method": "GET", "path": "/only"}, "responses": [
                    {"status": 304, "conditionalOnly": true, "validators": ["If-Modified-Since: Tue, 01 Dec 2026 10:00:00 GMT"], "miss": "why"}]}
                ]}
                """#
        )
        defer { try? FileManager.default.removeItem(at: root.url) }
        let stubs = try MockSetLoader(root: root).load(set: "s")
        let gates = stubs[0].responses.map(\.unjustified)
        #expect(
            gates[0]
                == .init(
                    answers: .notModified(ifNoneMatch: #""a""#, ifModifiedSince: nil),
                    reason: gates[0]!.reason,
                    representation: 1
                )
        )
        #expect(gates[1] == nil && gates[4] == nil)
        #expect(gates[2]?.representation == 1)
        #expect(gates[3] == .init(answers: .partialContent, reason: gates[3]!.reason, representation: 1))
        #expect(
            stubs[1].responses[0].unjustified
                == .init(
                    answers: .notModified(ifNoneMatch: nil, ifModifiedSince: "Tue, 01 Dec 2026 10:00:00 GMT"),
                    reason: "why",
                    representation: nil
                )
        )
        #expect(
            try loadError(
                #"{"stubs": [{"request": {"method": "GET", "path": "/x"}, "responses": [{"status": 304, "conditionalOnly": true, "validators": ["ETag: \"a\""]}]}]}"#
            ).hasSuffix(
                #"stubs[0].responses[0].validators[0]: expected "If-None-Match: …" or "If-Modified-Since: …", got 'ETag: "a"'"#
            )
        )
    }

    @Test func loadsInlineAndFileBodies() throws {
        let root = try root(
            index: #"""
                {"stubs": [
                  {"id": "me", "request": {"method": "GET", "path": "/me"},
                   "responses": [{"headers": ["Content-Type: application/json", "Connection: close"], "json": {"b": 1, "a": "/"}}]},
                  {"request": {"method": "POST", "path": "/echo", "query": "z=1&a=2", "headers": ["content-type: application/json"], "body": {"json": {"k": 1}}},
                   "responses": [{"status": 201, "bodyFile": "bodies/echo.txt"}, {"status": 409, "body": "again"}], "afterLast": "cycle"}
                ]}
                """#,
            files: ["mocks/s/bodies/echo.txt": "created\n"]
        )
        defer { try? FileManager.default.removeItem(at: root.url) }
        let stubs = try MockSetLoader(root: root).load(set: "s")
        #expect(stubs.map(\.id) == ["me", "POST_/echo"])
        #expect(stubs[0].responses[0].status == 200)
        #expect(stubs[0].responses[0].headers.fields.map(\.name) == ["Content-Type"])
        #expect(String(decoding: stubs[0].responses[0].body, as: UTF8.self) == #"{"a":"/","b":1}"#)
        #expect(stubs[1].key.query == "a=2&z=1")
        #expect(stubs[1].body.map { String(decoding: $0, as: UTF8.self) } == #"{"k":1}"#)
        #expect(stubs[1].responses.map { String(decoding: $0.body, as: UTF8.self) } == ["created\n", "again"])
        #expect(stubs[1].afterLast == .cycle)
    }

    @Test(arguments: [
        (
            #"{"stubs": [{"request": {"method": "GET"}, "responses": [{}]}]}"#,
            "mocks/s/index.json: stubs[0].request.path: required field is missing"
        ),
        (
            #"{"stubs": [{"request": {"method": "GET", "path": "/x"}, "responses": [{"status": "ok"}]}]}"#,
            "mocks/s/index.json: stubs[0].responses[0].status: expected a number"
        ),
        (
            #"{"stubs": [{"request": {"method": "GET", "path": "/x"}, "responses": [{"status": 42}]}]}"#,
            "mocks/s/index.json: stubs[0].responses[0].status: 42 is not an HTTP status code (100–999)"
        ),
        (
            #"{"stubs": [{"request": {"method": "GET", "path": "/x"}, "responses": []}]}"#,
            "mocks/s/index.json: stubs[0].responses: needs at least one response"
        ),
        (
            #"{"stubs": [{"request": {"method": "GET", "path": "/x"}, "responses": [{"status": 103}]}]}"#,
            "mocks/s/index.json: stubs[0].responses[0].status: 103 is an interim (1xx) status; a stub needs a final one (200–999)"
        ),
        (
            #"{"stubs": [{"request": {"method": "GET", "path": "/x", "quary": "a=1"}, "responses": [{}]}]}"#,
            #"mocks/s/index.json: stubs[0].request.quary: unknown field (did you mean "query"?)"#
        ),
        (
            #"{"stubs": [{"request": {"method": "G T", "path": "/x"}, "responses": [{}]}]}"#,
            "mocks/s/index.json: stubs[0].request.method: 'G T' is not an HTTP method token"
        ),
        (
            #"{"stubs": [{"request": {"method": "GET", "path": "x"}, "responses": [{}]}]}"#,
            "mocks/s/index.json: stubs[0].request.path: must start with '/' (got 'x')"
        ),
        (
            #"{"stubs": [{"request": {"method": "GET", "path": "/x"}, "responses": [{"headers": ["nocolon"]}]}]}"#,
            #"mocks/s/index.json: stubs[0].responses[0].headers[0]: expected "Name: value" without CR, LF or NUL, got 'nocolon'"#
        ),
        (
            #"{"stubs": [{"request": {"method": "GET", "path": "/x", "headers": ["X-Api: 1"]}, "responses": [{}]}]}"#,
            #"mocks/s/index.json: stubs[0].request.headers[0]: 'X-Api' is not in matchHeaders ["accept", "content-type"]; add it there to match on it"#
        ),
        (
            #"{"stubs": [{"id": "a", "request": {"method": "GET", "path": "/x"}, "responses": [{}]}, {"id": "a", "request": {"method": "GET", "path": "/y"}, "responses": [{}]}]}"#,
            "mocks/s/index.json: stubs[1].id: duplicate stub id 'a'"
        ),
        (
            #"{"stubs": [{"request": {"method": "GET", "path": "/x"}, "responses": [{"bodyFile": "../../../etc/passwd"}]}]}"#,
            "mocks/s/index.json: stubs[0].responses[0].bodyFile: '../../../etc/passwd' has a '..' component; body files must stay inside the mock set folder"
        ),
        (
            #"{"stubs": [{"request": {"method": "GET", "path": "/x"}, "responses": [{"bodyFile": "bodies/missing.json"}]}]}"#,
            "mocks/s/index.json: stubs[0].responses[0].bodyFile: body file 'bodies/missing.json' not found"
        ),
        (
            #"{"stubs": [{"request": {"method": "GET", "path": "/x"}, "responses": [{"body": "a", "json": 1}]}]}"#,
            #"mocks/s/index.json: stubs[0].responses[0]: give at most one of "bodyFile", "body" and "json""#
        ),
        (
            #"{"version": 7, "stubs": []}"#,
            "mocks/s/index.json: version: version 7 is newer than this mockd supports (up to 1)"
        ),
        (
            #"{"stubs": [{"request": {"method": "GET", "path": "/x"}, "responses": [{}], "afterLast": "forever"}]}"#,
            "mocks/s/index.json: stubs[0].afterLast: Cannot initialize ExhaustionPolicy from invalid String value forever"
        ),
    ])
    func brokenIndexFailsWithFileAndJSONPath(_ index: String, _ expected: String) throws {
        #expect(try loadError(index) == expected)
    }

    /// An index of `count` stubs `GET /n/I` sharing one body file, with `edit` applied to stub I's JSON text.
    private func largeIndex(count: Int, edit: [Int: @Sendable (String) -> String] = [:]) -> String {
        let stubs = (0..<count).map { index in
            let stub =
                #"{"id": "s\#(index)", "request": {"method": "GET", "path": "/n/\#(index)"}, "responses": [{"headers": ["Content-Type: application/json"], "bodyFile": "bodies/shared.json"}]}"#
            return edit[index].map { $0(stub) } ?? stub
        }
        return #"{"stubs": ["# + stubs.joined(separator: ",") + "]}"
    }

    /// A load that reads every body (`mockd validate`) reports every invalid stub, in index order, also when the
    /// index is built in slices on several threads; serving stops at the first.
    @Test(arguments: [4, 5000])
    func validatingLoadReportsEveryInvalidStubInIndexOrder(count: Int) throws {
        let broken = [1, count / 2, count - 1]
        let stubs = (0..<count).map { index in
            #"{"request": {"method": "GET", "path": "/s/\#(index)"}, "responses": [{"status": \#(broken.contains(index) ? 42 : 200)}]}"#
        }
        let root = try root(index: #"{"stubs": ["# + stubs.joined(separator: ",\n") + "]}")
        defer { try? FileManager.default.removeItem(at: root.url) }
        let lines = broken.map {
            "mocks/s/index.json: stubs[\($0)].responses[0].status: 42 is not an HTTP status code (100–999)"
        }
        do {
            _ = try MockSetLoader(root: root, defersBodies: false).load(set: "s")
            Issue.record("loaded")
        } catch {
            #expect("\(error)" == lines.joined(separator: "\n"))
        }
        do {
            _ = try MockSetLoader(root: root).load(set: "s")
            Issue.record("loaded")
        } catch {
            #expect("\(error)" == lines[0])
        }
    }

    /// Consecutive stubs usually repeat their constraints and the type they answer with, and the builder reuses the
    /// last stub's negotiated list then: each stub must still get its own when either differs, on every thread.
    @Test(arguments: [false, true])
    func eachStubKeepsItsOwnNegotiatedConstraints(exact: Bool) throws {
        // (request headers, response Content-Type), in index order.
        let pattern: [([String], String?)] = [
            (["Accept: application/json"], "application/json"),
            (["Accept: application/json"], "text/html"),
            (["Accept: application/json"], "application/json"),
            (["Accept: text/html"], "application/json"),
            ([], "application/json"),
            (["Accept: application/json", "Content-Type: text/plain"], "application/json"),
            (["Content-Type: text/plain", "Accept: application/json"], "application/json"),
            (["Accept: application/json"], nil),
        ]
        let count = MockSetLoader.parallelBuildThreshold + pattern.count * 3
        let stubs = (0..<count).map { index in
            let (lines, type) = pattern[index % pattern.count]
            let request = lines.map { #""\#($0)""# }.joined(separator: ", ")
            let headers = type.map { #""Content-Type: \#($0)""# } ?? ""
            return
                #"{"id": "s\#(index)", "request": {"method": "GET", "path": "/n/\#(index)", "headers": [\#(request)]}, "responses": [{"headers": [\#(headers)], "body": "x"}]}"#
        }
        let matching = exact ? #""acceptMatching": "exact", "# : ""
        let root = try root(index: #"{\#(matching)"stubs": ["# + stubs.joined(separator: ",\n") + "]}")
        defer { try? FileManager.default.removeItem(at: root.url) }
        // Built from the JSON, then from the compact index that load leaves.
        _ = try MockSetLoader(root: root).load(set: "s")
        #expect(FileManager.default.fileExists(atPath: root.url.appendingPathComponent("mocks/s/index.cache").path))
        let loaded = try MockSetLoader(root: root).load(set: "s")
        #expect(loaded.count == count)
        for (index, stub) in loaded.enumerated() {
            let (lines, type) = pattern[index % pattern.count]
            let expected = lines.map { line -> HeaderConstraint in
                let field = HeaderLine.parse(line)!
                let offered =
                    exact ? nil : AcceptNegotiation.offeredType(contentType: type, recordedAccept: field.value)
                return HeaderConstraint(name: field.name, value: field.value, offeredType: offered)
            }.sorted { $0.name < $1.name }
            #expect(stub.headerConstraints == expected, "stub \(index)")
        }
        // The offered type follows each stub's own response: the html stub's `Accept` offers html, its neighbours json.
        if !exact {
            #expect(loaded[0].headerConstraints.first?.offeredType == "application/json")
            #expect(loaded[1].headerConstraints.first?.offeredType == "text/html")
            #expect(loaded[2].headerConstraints.first?.offeredType == "application/json")
        }
    }

    /// Consecutive stubs with the same refused request header line: each is reported (the builder reuses the last
    /// stub's constraints only when its lines all passed).
    @Test func aRefusedHeaderLineIsReportedForEveryStubThatHasIt() throws {
        let stubs = (0..<4).map { index in
            let line = index == 0 ? "Accept: application/json" : "X-Unknown: 1"
            return
                #"{"request": {"method": "GET", "path": "/h/\#(index)", "headers": ["\#(line)"]}, "responses": [{}]}"#
        }
        let message = { (index: Int) in
            "mocks/s/index.json: stubs[\(index)].request.headers[0]: 'X-Unknown' is not in matchHeaders "
                + #"["accept", "content-type"]; add it there to match on it"#
        }
        let error = try loadError(#"{"stubs": ["# + stubs.joined(separator: ",\n") + "]}")
        #expect(error == [1, 2, 3].map(message).joined(separator: "\n"))
    }

    /// Two body folders whose names are equal only under canonical equivalence ("dé" as U+00E9, and as "e" + U+0301)
    /// are two directories on disk: one inside the set does not vouch for the other, a link leading out of it, which
    /// a start refuses as it refuses any body file outside the set.
    @Test func aFolderSpeltLikeAnotherIsCheckedOnItsOwn() throws {
        let composed = "d\u{E9}"
        let decomposed = "de\u{301}"
        #expect(composed == decomposed)  // as `String` compares them
        let index =
            #"{"stubs": ["#
            + [composed, decomposed].enumerated().map { index, folder in
                #"{"request": {"method": "GET", "path": "/f/\#(index)"}, "responses": [{"bodyFile": "\#(folder)/x.json"}]}"#
            }.joined(separator: ",") + "]}"
        let root = try root(index: index, files: ["mocks/s/\(composed)/x.json": "inside"])
        defer { try? FileManager.default.removeItem(at: root.url) }
        let outside = root.url.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try "secret".write(to: outside.appendingPathComponent("x.json"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(
            at: root.setURL("s").appendingPathComponent(decomposed),
            withDestinationURL: outside
        )
        do {
            let stubs = try MockSetLoader(root: root).load(set: "s")
            Issue.record("loaded \(stubs.count) stubs")
        } catch {
            #expect("\(error)".hasPrefix("mocks/s/index.json: stubs[1].responses[0].bodyFile: "), "\(error)")
        }
    }

    @Test func largeIndexIsBuiltInOrderOnSeveralThreads() throws {
        let count = MockSetLoader.parallelBuildThreshold + 1001
        let root = try root(index: largeIndex(count: count), files: ["mocks/s/bodies/shared.json": #"{"ok": true}"#])
        defer { try? FileManager.default.removeItem(at: root.url) }
        let stubs = try MockSetLoader(root: root).load(set: "s")
        #expect(stubs.count == count)
        #expect(stubs.map(\.id) == (0..<count).map { "s\($0)" })
        #expect(stubs.map(\.key.path) == (0..<count).map { "/n/\($0)" })
        #expect(stubs.allSatisfy { String(decoding: $0.firstResponse.body, as: UTF8.self) == #"{"ok": true}"# })
        #expect(stubs.allSatisfy { $0.firstResponse.headers.fields.map(\.name) == ["Content-Type"] })
    }

    @Test(
        arguments: [
            // The first error in index order wins, whichever thread builds it.
            (
                [4500: { $0.replacingOccurrences(of: #""GET""#, with: #""G T""#) }],
                "stubs[4500].request.method: 'G T' is not an HTTP method token"
            ),
            (
                [
                    10: { $0.replacingOccurrences(of: "/n/10", with: "n/10") },
                    4500: { $0.replacingOccurrences(of: #""GET""#, with: #""G T""#) },
                ],
                "stubs[10].request.path: must start with '/' (got 'n/10')"
            ),
            // A duplicate of an id in another slice, and one after a later slice's own error.
            (
                [5000: { $0.replacingOccurrences(of: #""id": "s5000""#, with: #""id": "s3""#) }],
                "stubs[5000].id: duplicate stub id 's3'"
            ),
            (
                [
                    4200: { $0.replacingOccurrences(of: #""id": "s4200""#, with: #""id": "s1""#) },
                    4100: { $0.replacingOccurrences(of: "bodies/shared.json", with: "bodies/missing.json") },
                ],
                "stubs[4100].responses[0].bodyFile: body file 'bodies/missing.json' not found"
            ),
            // On the duplicate's own stub, checks that come before the id's win, as in one pass.
            (
                [
                    4300: {
                        $0.replacingOccurrences(of: #""id": "s4300""#, with: #""id": "s2""#).replacingOccurrences(
                            of: "/n/4300",
                            with: "n"
                        )
                    }
                ],
                "stubs[4300].request.path: must start with '/' (got 'n')"
            ),
        ] as [([Int: @Sendable (String) -> String], String)]
    )
    func largeIndexReportsTheFirstErrorInIndexOrder(
        _ edit: [Int: @Sendable (String) -> String],
        _ expected: String
    ) throws {
        let index = largeIndex(count: MockSetLoader.parallelBuildThreshold + 2000, edit: edit)
        // A load that reads every body lists every problem: the first line is the first in index order.
        let lines = try loadError(index, files: ["mocks/s/bodies/shared.json": "{}"]).split(separator: "\n")
        #expect(lines.first.map(String.init) == "mocks/s/index.json: " + expected)
    }

    @Test func truncatedIndexIsNamedAsInvalidJSON() throws {
        let message = try loadError(#"{"stubs": [{"request": "#)
        #expect(message == "mocks/s/index.json: not valid JSON at line 1 (Unexpected end of file during JSON parse.)")
        #expect(!message.contains("\n"))
    }

    @Test func missingSetExplainsHowToCreateIt() throws {
        let root = MockdRoot(url: Paths.makeTemporaryDirectory())
        defer { try? FileManager.default.removeItem(at: root.url) }
        #expect(throws: ConfigError.self) { try MockSetLoader(root: root).load(set: "nope") }
        do {
            _ = try MockSetLoader(root: root).load(set: "nope")
        } catch {
            #expect(
                "\(error)"
                    == "mocks/nope/index.json: mock set 'nope' not found (create it with `mockd import-har FILE --set nope`)"
            )
        }
    }

    @Test func scenarioLayersSetsLaterWins() throws {
        let root = try root(
            index:
                #"{"stubs": [{"id": "base-me", "request": {"method": "GET", "path": "/me"}, "responses": [{"body": "base"}]}, {"request": {"method": "GET", "path": "/only-base"}, "responses": [{}]}]}"#,
            files: [
                "mocks/over/index.json":
                    #"{"stubs": [{"id": "over-me", "request": {"method": "GET", "path": "/me"}, "responses": [{"body": "override"}]}]}"#,
                "configs/layered.json": #"{"description": "two layers", "sets": ["s", "over"]}"#,
                "configs/bad.json": #"{"sets": ["s", "../etc"]}"#,
                "configs/empty.json": #"{"sets": []}"#,
            ]
        )
        defer { try? FileManager.default.removeItem(at: root.url) }
        let scenario = try Scenario.load(named: "layered", root: root)
        #expect(scenario.index.stubs.map(\.id) == ["over-me", "GET_/only-base"])
        let engine = MockEngine(scenario: scenario)
        #expect(
            String(decoding: engine.respond(to: HTTPRequest(method: "GET", target: "/me")).body, as: UTF8.self)
                == "override"
        )
        #expect(throws: ConfigErrors.self) { try Scenario.load(named: "bad", root: root) }
        do { _ = try Scenario.load(named: "bad", root: root) } catch {
            #expect("\(error)" == "configs/bad.json: sets[1]: '../etc' is not a valid mock set name")
        }
        do { _ = try Scenario.load(named: "empty", root: root) } catch {
            #expect("\(error)" == "configs/empty.json: sets: name at least one mock set (directly or through include)")
        }
    }

    @Test func bundledScenariosAndSetsLoad() throws {
        let root = MockdRoot(url: Paths.packageRoot)
        let configs = try FileManager.default.contentsOfDirectory(atPath: root.configsURL.path).filter {
            $0.hasSuffix(".json")
        }
        #expect(!configs.isEmpty)
        for config in configs {
            let scenario = try Scenario.load(named: String(config.dropLast(5)), root: root)
            #expect(!scenario.index.stubs.isEmpty)
        }
    }
}
