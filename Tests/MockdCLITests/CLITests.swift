import Foundation
import MockdCore
import MockdTestSupport
import Testing

@testable import mockd

/// The built `mockd` binary: exit codes, what goes to stdout and stderr, the listening line, start-up errors.
/// (`CommandLineParsingTests` and `HelpTextTests` check parsing and help in process.)
struct CLITests {
    @Test func helpIsACleanExitOnStdout() throws {
        let result = try ProcessRunner.mockd(["--help"])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        #expect(result.stdout == Serve.help + "\n")
        let record = try ProcessRunner.mockd(["record", "--port", "0", "-h"])
        #expect(record.status == 0)
        #expect(record.stdout == Record.help + "\n")
    }

    @Test func versionIsACleanExit() throws {
        let result = try ProcessRunner.mockd(["--version"])
        #expect(result.status == 0)
        // Which mockd this is (another project ships a binary named `mockd`), and the libmicrohttpd it runs on.
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(
            lines.first
                == "mockd 0.1.0: local mock HTTP server for app UI tests (https://github.com/\(MockdVersion.repository))"
        )
        #expect(lines.last?.range(of: #"^libmicrohttpd [0-9]+\.[0-9]+\.[0-9]+$"#, options: .regularExpression) != nil)
    }

    @Test(arguments: [
        (["--bogus"], "mockd: unknown option '--bogus' (see mockd --help)\n"),
        ([], "mockd: say what to serve: --config <name> or --set <name> (see mockd --help)\n"),
        (
            ["import-har", "x.har"],
            "mockd: import-har needs --set <name> to name the mock set to write (see mockd import-har --help)\n"
        ),
        (
            ["--config", "a", "--connection-memory", "40000"],
            "mockd: unknown option '--connection-memory': use --max-header-bytes <b> (see mockd --help)\n"
        ),
    ])
    func usageErrorsExit64WithOneLine(_ arguments: [String], _ expected: String) throws {
        let result = try ProcessRunner.mockd(arguments)
        #expect(result.status == 64)
        #expect(result.stderr == expected)
        #expect(result.stdout.isEmpty)
    }

    @Test func portZeroPrintsExactlyOneListeningLine() throws {
        let daemon = try RunningDaemon(["--config", "chat_happy_path", "--root", Paths.packageRoot.path, "--port", "0"])
        #expect(daemon.listeningLine.wholeMatch(of: /listening on http:\/\/127\.0\.0\.1:[1-9][0-9]{0,4}/) != nil)
        let me = try Curl.send(CurlRequest(url: daemon.baseURL + "/v1/me"))
        #expect(me.status == 200)
        let stopped = daemon.stop()
        #expect(stopped.status == 0)
        #expect(stopped.stderr.contains(" info GET /v1/me 200 GET_v1_me "))
        #expect(stopped.stderr.contains("mockd: SIGTERM received, stopping"))
    }

    @Test func portInUseExits1WithAClearMessage() throws {
        let first = try RunningDaemon(["--set", "chat", "--root", Paths.packageRoot.path, "--port", "0", "--quiet"])
        defer { first.stop() }
        let second = try ProcessRunner.mockd([
            "--set", "chat", "--root", Paths.packageRoot.path, "--port", "\(first.port)",
        ])
        #expect(second.status == 1)
        #expect(
            second.stderr
                == "mockd: port \(first.port) on 127.0.0.1 is already in use (another mockd?); pick another --port or --port 0 for a free one\n"
        )
        #expect(second.stdout.isEmpty)
    }

    @Test func missingScenarioOrSetExits1NamingTheFile() throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let scenario = try ProcessRunner.mockd(["--config", "nope", "--root", root.path, "--port", "0"])
        #expect(scenario.status == 1)
        #expect(
            scenario.stderr
                == "mockd: configs/nope.json: scenario 'nope' not found (looked for \(root.path)/configs/nope.json)\n"
        )
        let set = try ProcessRunner.mockd(["--set", "nope", "--root", root.path, "--port", "0"])
        #expect(set.status == 1)
        #expect(
            set.stderr
                == "mockd: mocks/nope/index.json: mock set 'nope' not found (create it with `mockd import-har FILE --set nope`)\n"
        )
    }

    /// One worker (`--threads 1`) is libmicrohttpd's own thread: the daemon answers and logs with nothing from the
    /// library on stderr (0.9.75 warned about a thread pool of one, or of zero, being ignored).
    @Test func oneWorkerStartsWithoutALibraryWarning() throws {
        let daemon = try RunningDaemon([
            "--set", "chat", "--root", Paths.packageRoot.path, "--port", "0", "--threads", "1",
        ])
        #expect(try Curl.send(CurlRequest(url: daemon.baseURL + "/v1/conversations")).status == 200)
        try daemon.waitForStandardError(containing: "GET /v1/conversations 200")
        let (status, stderr) = daemon.stop()
        #expect(status == 0)
        #expect(!stderr.contains("libmicrohttpd"), "\(stderr)")
        #expect(stderr.hasPrefix("mockd: set 'chat', 8 stubs; Ctrl-C to stop\n"), "\(stderr)")
    }

    @Test func badHostIsAClearError() throws {
        let result = try ProcessRunner.mockd([
            "--set", "chat", "--root", Paths.packageRoot.path, "--host", "203.0.113.7", "--port", "0",
            "--insecure-control",
        ])
        #expect(result.status == 1)
        #expect(result.stderr == "mockd: --host 203.0.113.7 is not an address of this machine\n")
    }
}

/// `mockd import-har` on small hand-made files: reports, refusal to overwrite, byte-identical re-import.
struct ImportCommandTests {
    static let har = """
        {"log": {"version": "1.2", "creator": {"name": "test", "version": "1"}, "entries": [
          {"request": {"method": "GET", "url": "https://api.example.com/v1/poll?b=2&a=1", "headers": [{"name": "Accept", "value": "application/json"}]},
           "response": {"status": 200, "headers": [{"name": "Content-Type", "value": "application/json"}], "content": {"text": "{\\"n\\": 1}"}}, "time": 10},
          {"request": {"method": "GET", "url": "https://api.example.com/v1/poll?a=1&b=2", "headers": [{"name": "Accept", "value": "application/json"}]},
           "response": {"status": 200, "headers": [{"name": "Content-Type", "value": "application/json"}], "content": {"text": "{\\"n\\": 2}"}}, "time": 11},
          {"request": {"method": "GET", "url": "https://api.example.com/gone"}, "response": {"status": 0, "headers": [], "content": {}}}
        ]}}
        """

    private func withHAR(_ body: (URL, URL) throws -> Void) throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("recorded.har")
        try Self.har.write(to: file, atomically: true, encoding: .utf8)
        try body(root, file)
    }

    @Test func importPrintsAReportAndServesTheSequence() throws {
        try withHAR { root, file in
            let result = try ProcessRunner.mockd(["import-har", file.path, "--set", "api", "--root", root.path])
            #expect(result.status == 0)
            #expect(result.stderr == "")  // no progress line when stderr is not a terminal
            #expect(
                result.stdout == """
                    imported \(file.path) into mocks/api/
                      entries read:   3 (numbered from 1 below: entry 1 is log.entries[0])
                      stubs written:  1 (2 responses, 1 sequence)
                      skipped:        1
                        failed request (status 0: no answer from the server): entry 3
                      redacted:       nothing

                    """
            )
            let daemon = try RunningDaemon(["--set", "api", "--root", root.path, "--port", "0", "--quiet"])
            defer { daemon.stop() }
            let accept = [("Accept", "application/json")]
            let bodies = try Curl.batch(
                (0..<3).map { _ in CurlRequest(url: daemon.baseURL + "/v1/poll?a=1&b=2", headers: accept) }
            ).map(\.text)
            #expect(bodies == [#"{"n": 1}"#, #"{"n": 2}"#, #"{"n": 2}"#])
        }
    }

    @Test func reimportIsByteIdenticalAndNeedsForce() throws {
        try withHAR { root, file in
            _ = try ProcessRunner.mockd(["import-har", file.path, "--set", "api", "--root", root.path])
            let index = root.appendingPathComponent("mocks/api/index.json")
            let first = try Data(contentsOf: index)
            let refused = try ProcessRunner.mockd(["import-har", file.path, "--set", "api", "--root", root.path])
            #expect(refused.status == 1)
            #expect(
                refused.stderr
                    == "mockd: mocks/api/: mock set 'api' already exists; pass --merge to merge this import into it (the stubs it records replaced, the others and hand edits to them kept) or --force to replace it (hand edits there would be lost)\n"
            )
            // Either advice works: the same recording merged in changes nothing.
            let merged = try ProcessRunner.mockd([
                "import-har", file.path, "--set", "api", "--root", root.path, "--merge",
            ])
            #expect(merged.status == 0)
            #expect(try Data(contentsOf: index) == first)
            let forced = try ProcessRunner.mockd([
                "import-har", file.path, "--set", "api", "--root", root.path, "--force",
            ])
            #expect(forced.status == 0)
            #expect(try Data(contentsOf: index) == first)
            let leftovers = try FileManager.default.contentsOfDirectory(
                atPath: root.appendingPathComponent("mocks").path
            )
            #expect(leftovers == ["api"])
        }
    }

    /// Valid up to the last line: the whole file is read before anything is written, so nothing is.
    @Test func harTruncatedAtTheEndFailsAndWritesNothing() throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("cut.har")
        try String(Self.har.dropLast(2)).write(to: file, atomically: true, encoding: .utf8)
        let result = try ProcessRunner.mockd(["import-har", file.path, "--set", "api", "--root", root.path])
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(
            result.stderr
                == "mockd: \(file.path): not a HAR file: invalid JSON at line 7 (Unexpected end of file during JSON parse.)\n"
        )
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("mocks").path))
    }

    @Test func missingHARExits1() throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let result = try ProcessRunner.mockd(["import-har", "/nonexistent/x.har", "--set", "s", "--root", root.path])
        #expect(result.status == 1)
        #expect(result.stderr == "mockd: /nonexistent/x.har: file not found\n")
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("mocks").path))
    }

    /// `gunzip -c traffic.har.gz | mockd import-har /dev/stdin`: a pipe is read to its end and imported as the file.
    @Test func harFromAPipeIsImported() throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("in.har")
        try Self.har.write(to: file, atomically: true, encoding: .utf8)
        let piped = try ProcessRunner.run(
            URL(fileURLWithPath: "/bin/sh"),
            [
                "-c", "cat \"$1\" | \"$2\" import-har /dev/stdin --set piped --root \"$3\"", "sh", file.path,
                Paths.mockdBinary.path, root.path,
            ]
        )
        #expect(piped.status == 0, "\(piped.stderr)")
        let named = try ProcessRunner.mockd(["import-har", file.path, "--set", "named", "--root", root.path])
        #expect(named.status == 0)
        let mocks = root.appendingPathComponent("mocks")
        #expect(
            try Data(contentsOf: mocks.appendingPathComponent("piped/index.json"))
                == Data(contentsOf: mocks.appendingPathComponent("named/index.json"))
        )
    }

    /// A path that is not a readable file is named for what it is, in one line, never "error 256".
    @Test func pathsThatAreNotFilesAreNamed() throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = root.appendingPathComponent("folder.har")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let har = try ProcessRunner.mockd(["import-har", folder.path, "--set", "s", "--root", root.path])
        #expect(har.status == 1)
        #expect(har.stderr == "mockd: \(folder.path): cannot read the file (is a folder, not a file)\n")

        let configs = root.appendingPathComponent("configs")
        try FileManager.default.createDirectory(at: configs, withIntermediateDirectories: true)
        #expect(mkfifo(configs.appendingPathComponent("pipe.json").path, 0o644) == 0)
        let scenario = try ProcessRunner.mockd(["validate", "--config", "pipe", "--root", root.path])
        #expect(scenario.status == 1)
        #expect(scenario.stderr == "mockd: configs/pipe.json: cannot read: is a pipe, not a regular file\n")
    }

    @Test func unsafeSetNameIsAUsageError() throws {
        let result = try ProcessRunner.mockd(["import-har", "x.har", "--set", "../escape"])
        #expect(result.status == 64)
        #expect(
            result.stderr
                == "mockd: --set '../escape' is not a valid mock set name (use letters, digits, '.', '_' and '-')\n"
        )
    }
}
