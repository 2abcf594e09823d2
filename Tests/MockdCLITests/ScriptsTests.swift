import Foundation
import MockdTestSupport
import Testing

/// The project's own scripts, run for real with the package tools they call (`swift`, `dpkg`, `apt-get`, `python3`)
/// replaced by recording stand-ins first on `PATH`: what `scripts/run` installs and passes to mockd, what
/// `scripts/install-deps` does when the MCP SDK cannot be installed, and how `scripts/test` accounts for skipped tests
/// (`scripts/skip-report`, fed a real test run's output).
@Suite(.serialized)
struct ScriptsTests {
    /// A folder of stand-ins: `swift` (a `mockd` that prints its arguments, for `build` and `--show-bin-path`), `dpkg`
    /// (every package missing, or present), `apt-get` (records what it would install), `python3` (records a venv made
    /// and gives it a `pip` that fails). Each appends its call to `calls.log`.
    static func standIns(packagesMissing: Bool) throws -> URL {
        let folder = Paths.makeTemporaryDirectory()
        let log = folder.appendingPathComponent("calls.log").path
        let scripts: [String: String] = [
            "swift": """
            #!/bin/sh
            echo "swift $*" >> '\(log)'
            case "$*" in *--show-bin-path*) echo '\(folder.path)/bin' ;; esac
            """,
            "dpkg": packagesMissing ? "#!/bin/sh\nexit 1\n" : "#!/bin/sh\nexit 0\n",
            "apt-get": "#!/bin/sh\necho \"apt-get $*\" >> '\(log)'\n",
            "python3": """
            #!/bin/sh
            echo "python3 $*" >> '\(log)'
            if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then
              mkdir -p "$3/bin"
              printf '#!/bin/sh\\necho "pip $*" >> %s\\nexit 1\\n' "'\(log)'" > "$3/bin/pip"
              chmod +x "$3/bin/pip"
            fi
            """,
        ]
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("bin"),
            withIntermediateDirectories: true
        )
        for (name, text) in scripts {
            let url = folder.appendingPathComponent(name)
            try Data((text + "\n").utf8).write(to: url)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
        }
        let mockd = folder.appendingPathComponent("bin/mockd")
        try Data("#!/bin/sh\necho \"mockd $*\"\n".utf8).write(to: mockd)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: mockd.path)
        return folder
    }

    static func environment(_ standIns: URL, _ extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = standIns.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        for name in ["MOCKD_CONFIG", "MOCKD_ROOT", "MOCKD_EXPECTED_SKIPS"] { environment[name] = nil }
        return environment.merging(extra) { _, new in new }
    }

    static func calls(_ standIns: URL) -> [String] {
        ((try? String(contentsOf: standIns.appendingPathComponent("calls.log"), encoding: .utf8)) ?? "")
            .split(separator: "\n").map(String.init)
    }

    @Test func runServesTheSetItIsGivenAndInstallsOnlyWhatServingNeeds() throws {
        let standIns = try Self.standIns(packagesMissing: true)
        defer { try? FileManager.default.removeItem(at: standIns) }
        let script = Paths.packageRoot.appendingPathComponent("scripts/run")
        let root = Paths.packageRoot.path
        let set = try ProcessRunner.run(
            script,
            ["--set", "chat", "--port", "0"],
            environment: Self.environment(standIns)
        )
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stdout == "mockd --root \(root) --set chat --port 0\n")
        let plain = try ProcessRunner.run(script, [], environment: Self.environment(standIns))
        #expect(plain.stdout == "mockd --config chat_happy_path --root \(root)\n")
        let other = try ProcessRunner.run(
            script,
            ["--config", "chat_send_fails", "--root", "/srv/mocks"],
            environment: Self.environment(standIns)
        )
        #expect(other.stdout == "mockd --config chat_send_fails --root /srv/mocks\n")
        // Serving needs the libraries the binary links and pkg-config: no test tools, browser or MCP SDK.
        let installs = Self.calls(standIns).filter { $0.hasPrefix("apt-get install") }
        #expect(installs.count == 3)
        #expect(
            installs.first
                == "apt-get install -y -qq --no-install-recommends libmicrohttpd-dev libssl-dev libcurl4-openssl-dev zlib1g-dev libbrotli-dev libyaml-dev pkg-config"
        )
        #expect(!Self.calls(standIns).contains { $0.hasPrefix("python3") || $0.hasPrefix("pip") })
    }

    @Test func installDepsFailsWhenAPyPIPackageCannotBeInstalledUnlessTheSkipIsExpected() throws {
        let standIns = try Self.standIns(packagesMissing: false)
        defer { try? FileManager.default.removeItem(at: standIns) }
        let script = Paths.packageRoot.appendingPathComponent("scripts/install-deps")
        let venv = standIns.appendingPathComponent("venv").path
        let failed = try ProcessRunner.run(
            script,
            [],
            environment: Self.environment(standIns, ["MOCKD_TEST_VENV": venv])
        )
        #expect(failed.status == 1)
        for (requirement, skip) in [
            ("mcp==2.3.0", "mcp"), ("schemathesis==4.32.5", "schemathesis"),
            ("openapi-python-client==0.29.1", "schemathesis"),
        ] {
            #expect(
                failed.stderr.contains(
                    "install-deps: could not install \(requirement) (PyPI) into .build/test-venv; the tests need it. Fix the network or pip, or set MOCKD_EXPECTED_SKIPS=\(skip) to run without it\n"
                ),
                "\(failed.stderr)"
            )
            #expect(Self.calls(standIns).contains("pip install -q --disable-pip-version-check \(requirement)"))
        }
        // Each package has its own skip name: naming mcp alone still fails on schemathesis.
        let mcpOnly = try ProcessRunner.run(
            script,
            [],
            environment: Self.environment(standIns, ["MOCKD_TEST_VENV": venv, "MOCKD_EXPECTED_SKIPS": "corpus,mcp"])
        )
        #expect(mcpOnly.status == 1)
        #expect(mcpOnly.stderr.contains("its tests will skip (MOCKD_EXPECTED_SKIPS names mcp)"))
        let expected = try ProcessRunner.run(
            script,
            [],
            environment: Self.environment(
                standIns,
                ["MOCKD_TEST_VENV": venv, "MOCKD_EXPECTED_SKIPS": "corpus,mcp,schemathesis"]
            )
        )
        #expect(expected.status == 0)
        #expect(expected.stderr.contains("its tests will skip (MOCKD_EXPECTED_SKIPS names schemathesis)"))
        // Serving alone never asks for it.
        let serve = try ProcessRunner.run(
            script,
            ["--serve"],
            environment: Self.environment(standIns, ["MOCKD_TEST_VENV": venv])
        )
        #expect(serve.status == 0)
    }

    /// A real test run without the corpus: its skips are named, and the report fails until the caller says the corpus
    /// is expected to be missing. An environment skip never fails it.
    @Test func skippedTestsAreNamedAndAMissingDependencyFailsUnlessExpected() throws {
        let folder = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0])
        try #require(bundle.lastPathComponent.hasSuffix(".xctest"), "run by swift test: \(bundle.path)")
        var environment = ProcessInfo.processInfo.environment
        environment["MOCKD_CORPUS"] = folder.appendingPathComponent("no-corpus").path
        let run = try ProcessRunner.run(
            bundle,
            ["--testing-library", "swift-testing", "--filter", "ProducerQuirkTests"],
            environment: environment
        )
        #expect(run.status == 0)
        let log = folder.appendingPathComponent("tests.log")
        try Data((run.stdout + "SKIPPED (environment) privilegedPort: anyone may bind port 80\n").utf8).write(to: log)
        let report = Paths.packageRoot.appendingPathComponent("scripts/skip-report")
        var without = ProcessInfo.processInfo.environment
        without["MOCKD_EXPECTED_SKIPS"] = nil
        let failing = try ProcessRunner.run(report, [log.path], environment: without)
        #expect(failing.status == 1)
        let lines = failing.stdout.split(separator: "\n").map(String.init)
        #expect(
            lines.contains(
                "  [corpus] ProducerQuirkTests harviewer__ie11.har: corpus not found (../shared/corpus or $MOCKD_CORPUS)"
            )
        )
        #expect(lines.contains("  (environment) privilegedPort: anyone may bind port 80"))
        let named = lines.filter { $0.hasPrefix("  [corpus] ProducerQuirkTests ") }.count
        #expect(named >= 10)
        #expect(
            lines.last
                == "skips: missing: corpus; \(named + 1) skipped ((environment) ×1 [corpus] ×\(named)); install it, or set MOCKD_EXPECTED_SKIPS=corpus if this run is meant to go without it"
        )
        var expecting = without
        expecting["MOCKD_EXPECTED_SKIPS"] = "corpus,jsonschema"
        let passing = try ProcessRunner.run(report, [log.path], environment: expecting)
        #expect(passing.status == 0)
        #expect(
            passing.stdout.split(separator: "\n").last.map(String.init)
                == "skips: \(named + 1) skipped, all expected ((environment) ×1 [corpus] ×\(named); MOCKD_EXPECTED_SKIPS=corpus,jsonschema)"
        )
        let none = try ProcessRunner.run(report, ["/dev/null"], environment: without)
        #expect(none.status == 0)
        #expect(none.stdout == "skips: none\n")
    }
}
