import Foundation
import MockdTestSupport
import Testing

@testable import MockdCore

/// Body files read on first use are kept as rows in columns shared by the stubs of one loading thread
/// (`DeferredResponses`, `StubSource`): every stub answers exactly what a load that reads every body gives, whatever
/// its path, `templated` mode, place in the index or sequence, on first and later use, and when several threads use it
/// first at once.
struct DeferredRowsTests {
    /// Stub `i`'s steps: a mix of paths (lengths, non-ASCII), modes and sequences whose body files sit on any step.
    private static func entry(_ index: Int) -> String {
        let modes = [#""#, #", "templated": false"#, #", "templated": "redacted""#]
        let mode = modes[index % 3]
        let path = path(index)
        let file = #"{"bodyFile": "\#(path)", "headers": ["Content-Type: application/json"]\#(mode)}"#
        let inline = #"{"status": 201, "body": "inline \#(index)"}"#
        let steps: String
        switch index % 10 {
        case 3: steps = "\(inline), \(file)"
        case 5: steps = "\(file), \(inline), \(file)"
        default: steps = file
        }
        return #"{"id": "s\#(index)", "request": {"method": "GET", "path": "/n/\#(index)"}, "responses": [\#(steps)]}"#
    }

    /// Stub `i`'s body file: named after its id (`s12`) in a folder and with an ending, or alone, or not after it.
    private static func path(_ index: Int) -> String {
        switch index % 7 {
        case 0: "bodies/ü-\(index)-\(String(repeating: "x", count: index % 40)).json"
        case 1: "bodies/s\(index).json"
        case 2: "s\(index).txt"
        case 3: "deep/er/s\(index)-v2"
        case 4: "b/s\(index)"
        default: "b/\(index)"
        }
    }

    /// A set of `count` stubs under a fresh root; stub `i`'s body file holds a placeholder and a fake-value one.
    private static func makeRoot(count: Int) throws -> MockdRoot {
        let url = Paths.makeTemporaryDirectory()
        let set = url.appendingPathComponent("mocks/s")
        for index in 0..<count {
            let file = set.appendingPathComponent(path(index))
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try Data(#"{"n": \#(index), "at": "{{now}}"}"#.utf8).write(to: file)
        }
        let index = #"{"version": 1, "stubs": ["# + (0..<count).map(entry).joined(separator: ",\n") + "]}"
        try Data(index.utf8).write(to: set.appendingPathComponent("index.json"))
        return MockdRoot(url: url)
    }

    /// What a response step is, as far as loading decides it.
    private static func summary(_ response: MockResponse) -> String {
        let body = String(decoding: response.body, as: UTF8.self)
        let headers = response.headers.fields.map { "\($0.name): \($0.value)" }.joined(separator: "; ")
        let template = response.template.map { "template(\($0.body != nil))" } ?? "plain"
        return "\(response.status) [\(headers)] \(body) \(template) \(response.stubID ?? "-")"
    }

    @Test(arguments: [12, MockSetLoader.parallelBuildThreshold + 333])
    func deferredStubsAnswerWhatAnEagerLoadGives(count: Int) throws {
        let root = try Self.makeRoot(count: count)
        defer { try? FileManager.default.removeItem(at: root.url) }
        let eager = try MockSetLoader(root: root, defersBodies: false).load(set: "s")
        let deferred = try MockSetLoader(root: root).load(set: "s")
        #expect(deferred.count == count)
        #expect(deferred.allSatisfy { $0.setName == "s" })
        // Nothing read yet: a deferred stub does not answer as loaded before its first use.
        #expect(deferred.allSatisfy { !$0.answersAsLoadedForGood })
        let expected = eager.map { $0.responses.map(Self.summary) }
        #expect(deferred.map { $0.responses.map(Self.summary) } == expected)
        // Later uses give the same, step by step.
        #expect(deferred.map { stub in (0..<stub.responseCount).map { Self.summary(stub.response($0)) } } == expected)
        #expect(deferred.map { $0.responseCount } == eager.map { $0.responseCount })
        let json = "200 [Content-Type: application/json]"
        #expect(Self.summary(deferred[1].firstResponse) == #"\#(json) {"n": 1, "at": "{{now}}"} plain s1"#)
        #expect(Self.summary(deferred[0].firstResponse) == #"\#(json) {"n": 0, "at": "{{now}}"} template(true) s0"#)
    }

    @Test func aMissingBodyFileNamesItsEntryAndPathFromTheRow() throws {
        let count = MockSetLoader.parallelBuildThreshold + 333
        let root = try Self.makeRoot(count: count)
        defer { try? FileManager.default.removeItem(at: root.url) }
        let stubs = try MockSetLoader(root: root).load(set: "s")
        for index in [7, 8, 9, 13, 4095, count - 3] {
            try FileManager.default.removeItem(at: root.url.appendingPathComponent("mocks/s/" + Self.path(index)))
        }
        let step = { (index: Int) in index % 10 == 3 ? 1 : 0 }
        for index in [7, 8, 9, 13, 4095, count - 3] {
            let answer = stubs[index].response(step(index))
            #expect(answer.status == 500)
            let text = String(decoding: answer.body, as: UTF8.self)
            #expect(
                text.contains(
                    "mocks/s/index.json: stubs[\(index)].responses[\(step(index))].bodyFile: body file '\(Self.path(index))' not found"
                ),
                "\(text)"
            )
            // Not kept: the file back, the next use reads it.
            #expect(!stubs[index].answersAsLoadedForGood)
        }
        #expect(String(decoding: stubs[15].firstResponse.body, as: UTF8.self) == #"{"n": 15, "at": "{{now}}"}"#)
        #expect(String(decoding: stubs[16].firstResponse.body, as: UTF8.self) == #"{"n": 16, "at": "{{now}}"}"#)
    }

    @Test func severalThreadsUsingAStubFirstAtOnceGetOneAnswer() throws {
        let count = 64
        let root = try Self.makeRoot(count: count)
        defer { try? FileManager.default.removeItem(at: root.url) }
        let stubs = try MockSetLoader(root: root).load(set: "s")
        let threads = 8
        let lock = NSLock()
        nonisolated(unsafe) var answers: [[String]] = Array(repeating: [], count: threads)
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            let seen = stubs.map { Self.summary($0.firstResponse) }
            lock.withLock { answers[thread] = seen }
        }
        let expected = (0..<count).map { Self.summary(stubs[$0].firstResponse) }
        #expect(answers == Array(repeating: expected, count: threads))
        #expect(expected[2] == #"200 [Content-Type: application/json] {"n": 2, "at": "{{now}}"} plain s2"#)
        // Published once: every one-step stub whose answer is plain now answers as loaded, for good.
        let plain = stubs.filter { $0.responseCount == 1 && $0.firstResponse.isPlain }.map(\.id)
        #expect(!plain.isEmpty)
        #expect(stubs.filter(\.answersAsLoadedForGood).map(\.id) == plain)
    }
}
