import Foundation
import MockdTestSupport
import Testing

/// Broken and hostile HAR, scenario and mock-set files: each is refused with one `file: JSON path: message`
/// line and exit 1, never a crash, and nothing is written (least of all outside the root).
@Suite(.serialized)
struct HostileFileTests {
    private func withRoot(_ body: (URL) throws -> Void) throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("mocks"),
            withIntermediateDirectories: true
        )
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("configs"),
            withIntermediateDirectories: true
        )
        try body(root)
    }

    private func write(_ text: Data, to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url)
    }

    static let hars: [(name: String, bytes: Data, error: String)] = [
        (
            "deep.har",
            Data(
                ("{\"log\":{\"entries\":" + String(repeating: "[", count: 100_000)
                    + String(repeating: "]", count: 100_000) + "}}").utf8
            ),
            "not a HAR file: invalid JSON at line 1 (Too many nested arrays or dictionaries around character 531.)"
        ),
        (
            "huge-number.har",
            Data(
                #"{"log":{"entries":[{"request":{"method":"GET","url":"https://a.test/x"},"response":{"status":1e400}}]}}"#
                    .utf8
            ),
            "not a HAR file: invalid JSON (Number 1e400 is not representable in Swift.)"
        ),
        (
            "bad-utf8.har",
            Data(#"{"log":{"entries":[{"request":{"method":"GET","url":"https://a.test/"#.utf8) + Data([0xFF])
                + Data(#""}}]}}"#.utf8),
            "not a HAR file: invalid JSON at line 1 (Invalid UTF-8 sequence 16 bytes starting from character 53.)"
        ),
        (
            "dup-keys.har",
            Data(
                #"{"log":{"entries":[{"request":{"method":"GET","method":"POST","url":"https://a.test/x"},"response":{"status":200}}]}}"#
                    .utf8
            ),
            #"log.entries[0].request.method: "method" appears twice in this object (entry 1); JSON parsers disagree on which one counts"#
        ),
        (
            "wrong-types.har",
            Data(#"{"log":{"entries":[{"request":{"method":5,"url":["x"]},"response":"no"}, 7, null]}}"#.utf8),
            "none of the 3 entries can be replayed; nothing was written"
        ),
        (
            "entries-not-array.har", Data(#"{"log":{"entries":{"a":1}}}"#.utf8),
            "log.entries: expected an array, found an object"
        ),
        (
            "empty.har", Data(#"{"log":{"version":"1.2","creator":{"name":"x","version":"1"},"entries":[]}}"#.utf8),
            "log.entries is empty; nothing to import"
        ),
    ]

    @Test func brokenHARsAreRefusedWithOneLine() throws {
        try withRoot { root in
            for (name, bytes, error) in Self.hars {
                let file = root.appendingPathComponent(name)
                try write(bytes, to: file)
                let result = try ProcessRunner.mockd(["import-har", file.path, "--set", "x", "--root", root.path])
                #expect(result.status == 1, "\(name)")
                #expect(
                    result.stderr.split(separator: "\n").last.map(String.init) == "mockd: \(file.path): \(error)",
                    "\(name): \(result.stderr)"
                )
                // Only a file with entries gets the import report first (why each one was skipped).
                if !error.hasPrefix("none of the") {
                    #expect(result.stderr == "mockd: \(file.path): \(error)\n", "\(name)")
                }
                #expect(
                    try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("mocks").path)
                        .isEmpty,
                    "\(name) left files"
                )
            }
        }
    }

    @Test func brokenMockSetsAreRefusedWithTheirJSONPath() throws {
        try withRoot { root in
            try write(Data("{}".utf8), to: root.appendingPathComponent("mocks/ok/bodies/ok.json"))
            try write(Data("secret".utf8), to: root.appendingPathComponent("outside.txt"))
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent("mocks/link/bodies"),
                withIntermediateDirectories: true
            )
            try FileManager.default.createSymbolicLink(
                at: root.appendingPathComponent("mocks/link/bodies/link.txt"),
                withDestinationURL: root.appendingPathComponent("outside.txt")
            )
            func stub(_ response: String, path: String = #""/a""#) -> Data {
                Data(#"{"stubs":[{"request":{"method":"GET","path":\#(path)},"responses":[\#(response)]}]}"#.utf8)
            }
            let cases: [(set: String, index: Data, error: String)] = [
                (
                    "link", stub(#"{"bodyFile":"bodies/link.txt"}"#),
                    "stubs[0].responses[0].bodyFile: 'bodies/link.txt' is outside the mock set folder; body files must stay inside it"
                ),
                (
                    "escape", stub(#"{"bodyFile":"../ok/bodies/ok.json"}"#),
                    "stubs[0].responses[0].bodyFile: '../ok/bodies/ok.json' has a '..' component; body files must stay inside the mock set folder"
                ),
                (
                    "absolute", stub(#"{"bodyFile":"/etc/hostname"}"#),
                    "stubs[0].responses[0].bodyFile: '/etc/hostname' is an absolute path; body files must stay inside the mock set folder"
                ),
                (
                    "missing", stub(#"{"bodyFile":"bodies/nope.json"}"#),
                    "stubs[0].responses[0].bodyFile: body file 'bodies/nope.json' not found"
                ),
                ("types", stub("{}", path: "5"), "stubs[0].request.path: expected a string"),
                (
                    "dup", stub(#"{"status":200,"status":500}"#),
                    #"stubs[0].responses[0].status: "status" appears twice in this object; JSON parsers disagree on which one counts"#
                ),
                (
                    "huge", stub(#"{"status":99999999999999999999}"#),
                    "stubs[0].responses[0].status: number out of range (whole numbers up to 9223372036854775807)"
                ),
                (
                    "utf8",
                    Data(#"{"stubs":[{"request":{"method":"GET","path":"/"#.utf8) + Data([0xFF])
                        + Data(#""},"responses":[{}]}]}"#.utf8),
                    "not valid JSON at line 1 (Invalid UTF-8 sequence 2 bytes starting from character 45.)"
                ),
                (
                    "deep",
                    Data(
                        ("{\"stubs\":" + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
                            + "}").utf8
                    ),
                    "not valid JSON at line 1 (Too many nested arrays or dictionaries around character 521.)"
                ),
                ("status", stub(#"{"status":"200"}"#), "stubs[0].responses[0].status: expected a number"),
            ]
            // A response's body file is not looked at when serving starts: what is wrong with it is the answer of its
            // stub (500, the line `validate` gives), and the daemon serves the rest.
            let foundAtFirstUse: Set = ["link", "missing"]
            for (set, index, error) in cases {
                try write(index, to: root.appendingPathComponent("mocks/\(set)/index.json"))
                if foundAtFirstUse.contains(set) {
                    let daemon = try RunningDaemon(["--set", set, "--root", root.path, "--port", "0", "--quiet"])
                    defer { daemon.stop() }
                    let answer = try Curl.send(CurlRequest(url: daemon.baseURL + "/a"))
                    #expect(answer.status == 500, "\(set)")
                    #expect(answer.text.contains("mocks/\(set)/index.json: \(error)"), "\(set): \(answer.text)")
                    #expect(!answer.text.contains("secret"))
                }
                let commands =
                    foundAtFirstUse.contains(set)
                    ? [["validate", "--set", set]]
                    : [
                        ["validate", "--set", set], ["--set", set, "--port", "0"],
                    ]
                for command in commands {
                    let result = try ProcessRunner.mockd(command + ["--root", root.path])
                    #expect(result.status == 1, "\(set) \(command[0])")
                    #expect(
                        result.stderr.contains("mockd: mocks/\(set)/index.json: \(error)\n"),
                        "\(set): \(result.stderr)"
                    )
                    #expect(result.stdout.isEmpty)
                }
            }
        }
    }

    @Test func brokenScenariosAreRefusedWithTheirJSONPath() throws {
        try withRoot { root in
            try write(
                Data(#"{"stubs":[{"request":{"method":"GET","path":"/a"},"responses":[{}]}]}"#.utf8),
                to: root.appendingPathComponent("mocks/s/index.json")
            )
            let cases: [(name: String, text: Data, error: String)] = [
                ("types", Data(#"{"sets":"s"}"#.utf8), "sets: expected an array"),
                (
                    "dup", Data(#"{"sets":["s"],"overrides":[{"match":{"path":"/a","path":"/b"}}]}"#.utf8),
                    #"overrides[0].match.path: "path" appears twice in this object; JSON parsers disagree on which one counts"#
                ),
                (
                    "huge", Data(#"{"sets":["s"],"defaults":{"latency":{"fixed":1e400}}}"#.utf8),
                    "not valid JSON (Number 1e400 is not representable in Swift.)"
                ),
                (
                    "utf8", Data(#"{"sets":["s"],"description":""#.utf8) + Data([0xFF, 0xFE]) + Data(#""}"#.utf8),
                    "not valid JSON at line 1 (Invalid UTF-8 sequence 2 bytes starting from character 29.)"
                ),
                (
                    "deep",
                    Data(
                        ("{\"sets\":[\"s\"],\"overrides\":" + String(repeating: "[", count: 50_000)
                            + String(repeating: "]", count: 50_000) + "}").utf8
                    ),
                    "not valid JSON at line 1 (Too many nested arrays or dictionaries around character 538.)"
                ),
                (
                    "missing-body",
                    Data(#"{"sets":["s"],"overrides":[{"match":{"path":"/x"},"bodyFile":"nope.json"}]}"#.utf8),
                    "overrides[0].bodyFile: body file 'nope.json' not found"
                ),
                (
                    "escape",
                    Data(#"{"sets":["s"],"overrides":[{"match":{"path":"/x"},"bodyFile":"../../etc/passwd"}]}"#.utf8),
                    "overrides[0].bodyFile: '../../etc/passwd' has a '..' component; body files must stay inside the mocks/ folder"
                ),
                (
                    "absolute",
                    Data(#"{"sets":["s"],"overrides":[{"match":{"path":"/x"},"bodyFile":"/etc/passwd"}]}"#.utf8),
                    "overrides[0].bodyFile: '/etc/passwd' is an absolute path; body files must stay inside the mocks/ folder"
                ),
                ("unknown-set", Data(#"{"sets":["nope"]}"#.utf8), "mock set 'nope' not found"),
            ]
            for (name, text, error) in cases {
                try write(text, to: root.appendingPathComponent("configs/\(name).json"))
                let result = try ProcessRunner.mockd(["validate", "--config", name, "--root", root.path])
                #expect(result.status == 1, "\(name)")
                #expect(result.stderr.contains(": \(error)"), "\(name): \(result.stderr)")
                #expect(
                    result.stderr.split(separator: "\n").allSatisfy { $0.hasPrefix("mockd: ") },
                    "\(name): \(result.stderr)"
                )
            }
        }
    }

    @Test func setNamesCannotLeaveTheRoot() throws {
        try withRoot { root in
            let har = root.appendingPathComponent("a.har")
            try write(
                Data(
                    #"{"log":{"entries":[{"request":{"method":"GET","url":"https://a.test/x"},"response":{"status":200,"content":{"text":"x"}}}]}}"#
                        .utf8
                ),
                to: har
            )
            for name in ["../evil", "/tmp/evil", "a/b", "..", ""] {
                let result = try ProcessRunner.mockd(["import-har", har.path, "--set", name, "--root", root.path])
                #expect(result.status == 64, "\(name)")
                #expect(
                    result.stderr
                        == "mockd: --set '\(name)' is not a valid mock set name (use letters, digits, '.', '_' and '-')\n",
                    "\(name): \(result.stderr)"
                )
            }
            #expect(
                !FileManager.default.fileExists(
                    atPath: root.deletingLastPathComponent().appendingPathComponent("evil").path
                )
            )
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("mocks").path).isEmpty
            )
        }
    }
}
