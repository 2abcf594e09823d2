import Foundation
import MockdTestSupport
import Testing

/// Every command reads a set's body files under one rule (issue 34): a path *component* `..` leaves the set and is
/// refused, while `..` inside a name (`GET_compare_main...feature.json`, from a `/compare/main...feature` URL) is an
/// ordinary file name. `mockd diff`, `check` and `refresh` refused such names that serving and `validate` accepted.
@Suite(.serialized)
struct BodyFilePathTests {
    static let openAPI = """
        {"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {"/compare/{spec}": {"get": {
          "parameters": [{"name": "spec", "in": "path", "required": true, "schema": {"type": "string"}}],
          "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}}}}}}
        """

    /// A set of one stub answering `GET /compare/main...feature` from `bodyFile`.
    static func makeSet(_ root: URL, name: String, bodyFile: String, origin: String = "https://api.example.com") throws
    {
        let set = root.appendingPathComponent("mocks/\(name)")
        try FileManager.default.createDirectory(
            at: set.appendingPathComponent("bodies"),
            withIntermediateDirectories: true
        )
        try Data(#"{"ahead": 2}"#.utf8).write(to: set.appendingPathComponent("bodies/GET_compare_main...feature.json"))
        try """
        {"version": 1, "origins": ["\(origin)"], "stubs": [{"id": "compare", "request": {"method": "GET",
          "path": "/compare/main...feature"}, "responses": [{"status": 200,
          "headers": ["Content-Type: application/json"], "bodyFile": "\(bodyFile)"}]}]}
        """.write(to: set.appendingPathComponent("index.json"), atomically: true, encoding: .utf8)
    }

    @Test func dotsInsideANameAreReadByEveryCommand() throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        try Self.makeSet(root, name: "api", bodyFile: "bodies/GET_compare_main...feature.json")
        try Self.makeSet(root, name: "api2", bodyFile: "bodies/GET_compare_main...feature.json")
        let spec = root.appendingPathComponent("spec.json")
        try Self.openAPI.write(to: spec, atomically: true, encoding: .utf8)

        let validate = try ProcessRunner.mockd(["validate", "--set", "api", "--root", root.path])
        #expect(validate.status == 0, "\(validate.stderr)")
        let diff = try ProcessRunner.mockd(["diff", "api", "api2", "--root", root.path])
        #expect(diff.status == 0, "\(diff.stderr)")
        #expect(diff.stderr.isEmpty)
        let check = try ProcessRunner.mockd(["check", "--openapi", spec.path, "api", "--root", root.path])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        #expect(!check.stderr.contains("cannot be read"), "\(check.stderr)")

        // refresh reads the set before it sends anything: against a live upstream it replays the stub.
        let upstream = try PythonUpstream()
        try Self.makeSet(
            root,
            name: "live",
            bodyFile: "bodies/GET_compare_main...feature.json",
            origin: upstream.origin
        )
        let refresh = try ProcessRunner.run(
            Paths.mockdBinary,
            ["refresh", "--set", "live", "--upstream", upstream.origin, "--root", root.path, "--into", "fresh"],
            environment: Recording.environment
        )
        #expect(!refresh.stderr.contains("cannot be read"), "\(refresh.stderr)")
        try upstream.waitForRequest("GET /compare/main...feature")

        let daemon = try RunningDaemon(["--set", "api", "--root", root.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        let served = try Curl.send(CurlRequest(url: daemon.baseURL + "/compare/main...feature"))
        #expect(served.text == #"{"ahead": 2}"#)
    }

    /// A `..` component is refused by each of them, in the same words.
    @Test func aDotDotComponentIsRefusedByEveryCommand() throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let message =
            "'bodies/../bodies/GET_compare_main...feature.json' has a '..' component; body files must stay inside the mock set folder"
        try Self.makeSet(root, name: "api", bodyFile: "bodies/../bodies/GET_compare_main...feature.json")
        try Self.makeSet(root, name: "api2", bodyFile: "bodies/GET_compare_main...feature.json")
        let spec = root.appendingPathComponent("spec.json")
        try Self.openAPI.write(to: spec, atomically: true, encoding: .utf8)
        for arguments in [
            ["validate", "--set", "api"], ["diff", "api", "api2"], ["check", "--openapi", spec.path, "api"],
            ["--set", "api", "--port", "0"],
        ] {
            // A daemon that starts (serving would take the path) is stopped after 20 s rather than waited for.
            let child = try ChildProcess(Paths.mockdBinary, arguments + ["--root", root.path])
            let result = try #require(child.finished(within: 20), "\(arguments) started")
            #expect(result.status != 0, "\(arguments)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }

    /// A body file reached through a symbolic link is resolved by every command: a link (to a file, or a folder of
    /// bodies) that stays inside the set is read, one that leads out is refused, a missing file is named; plain paths
    /// are opened without resolving each component, and links take the resolving path, with the same words.
    @Test func linksOnTheWayAreResolvedByEveryCommand() throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let manager = FileManager.default
        try Data("secret".utf8).write(to: root.appendingPathComponent("outside.json"))
        func makeSet(_ name: String, bodyFile: String) throws -> URL {
            try Self.makeSet(root, name: name, bodyFile: bodyFile)
            return root.appendingPathComponent("mocks/\(name)")
        }
        let fileLink = try makeSet("file-link", bodyFile: "bodies/link.json")
        try manager.createSymbolicLink(
            atPath: fileLink.appendingPathComponent("bodies/link.json").path,
            withDestinationPath: "GET_compare_main...feature.json"
        )
        let folderLink = try makeSet("folder-link", bodyFile: "shared/GET_compare_main...feature.json")
        try manager.createSymbolicLink(
            atPath: folderLink.appendingPathComponent("shared").path,
            withDestinationPath: "bodies"
        )
        let outside = try makeSet("outside", bodyFile: "bodies/out.json")
        try manager.createSymbolicLink(
            atPath: outside.appendingPathComponent("bodies/out.json").path,
            withDestinationPath: root.appendingPathComponent("outside.json").path
        )
        _ = try makeSet("missing", bodyFile: "bodies/gone.json")
        _ = try makeSet("plain", bodyFile: "bodies/GET_compare_main...feature.json")
        // A name longer than a file name may be (`ENAMETOOLONG`): the same words from every command.
        let longName = "bodies/" + String(repeating: "n", count: 300) + ".json"
        _ = try makeSet("long", bodyFile: longName)
        // A link that leads to itself (`ELOOP`), the folder itself and a folder inside it: each says what it is.
        let loop = try makeSet("loop", bodyFile: "bodies/loop.json")
        try manager.createSymbolicLink(
            atPath: loop.appendingPathComponent("bodies/loop.json").path,
            withDestinationPath: "loop.json"
        )
        _ = try makeSet("dot", bodyFile: ".")
        _ = try makeSet("folder", bodyFile: "bodies")
        // A path spelt as a folder names no file, even where a file of that name is: `x.json/` is not `x.json`.
        _ = try makeSet("slash", bodyFile: "bodies/GET_compare_main...feature.json/")
        _ = try makeSet("slash-dot", bodyFile: "bodies/GET_compare_main...feature.json/.")
        // A socket (opening one fails with ENXIO).
        let socketSet = try makeSet("socket", bodyFile: "bodies/socket")
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let socketPath = Array(socketSet.appendingPathComponent("bodies/socket").path.utf8CString)
        // A socket's path has room for ~104 bytes: a longer temporary folder (macOS) leaves this case out.
        var bound: Int32 = -1
        if socketPath.count <= MemoryLayout.size(ofValue: address.sun_path) {
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                socketPath.withUnsafeBytes { raw.copyMemory(from: $0) }
            }
            bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
        }
        if bound != 0 { print("note: no socket could be bound in \(socketSet.path); the socket case is not tried") }

        for name in ["file-link", "folder-link"] {
            let validate = try ProcessRunner.mockd(["validate", "--set", name, "--root", root.path])
            #expect(validate.status == 0, "\(name): \(validate.stderr)")
            let diff = try ProcessRunner.mockd(["diff", "plain", name, "--root", root.path])
            #expect(diff.status == 0, "\(name): \(diff.stdout)\(diff.stderr)")
            let daemon = try RunningDaemon(["--set", name, "--root", root.path, "--port", "0", "--quiet"])
            defer { daemon.stop() }
            #expect(
                try Curl.send(CurlRequest(url: daemon.baseURL + "/compare/main...feature")).text == #"{"ahead": 2}"#
            )
        }
        let refused = [
            (
                "outside",
                "mocks/outside/index.json: stubs[0].responses[0].bodyFile: 'bodies/out.json' is outside the mock set folder; body files must stay inside it"
            ),
            (
                "missing",
                "mocks/missing/index.json: stubs[0].responses[0].bodyFile: body file 'bodies/gone.json' not found"
            ),
            (
                "long",
                "mocks/long/index.json: stubs[0].responses[0].bodyFile: cannot read '\(longName)': the name is too long for the file system"
            ),
            (
                "loop",
                "mocks/loop/index.json: stubs[0].responses[0].bodyFile: cannot read 'bodies/loop.json': its symbolic links lead round in a loop, or through more than the system follows"
            ),
            ("dot", "mocks/dot/index.json: stubs[0].responses[0].bodyFile: cannot read '.': a folder, not a file"),
            (
                "folder",
                "mocks/folder/index.json: stubs[0].responses[0].bodyFile: cannot read 'bodies': a folder, not a file"
            ),
            (
                "slash",
                "mocks/slash/index.json: stubs[0].responses[0].bodyFile: body file 'bodies/GET_compare_main...feature.json/' not found"
            ),
            (
                "slash-dot",
                "mocks/slash-dot/index.json: stubs[0].responses[0].bodyFile: body file 'bodies/GET_compare_main...feature.json/.' not found"
            ),
            (
                "socket",
                "mocks/socket/index.json: stubs[0].responses[0].bodyFile: cannot read 'bodies/socket': not a regular file"
            ),
        ]
        for (name, message) in refused where name != "socket" || bound == 0 {
            let validate = try ProcessRunner.mockd(["validate", "--set", name, "--root", root.path])
            #expect(validate.status != 0)
            #expect(validate.stderr.contains(message), "\(name): \(validate.stderr)")
            let diff = try ProcessRunner.mockd(["diff", "plain", name, "--root", root.path])
            #expect(diff.status != 0)
            #expect(
                diff.stderr.contains(message.replacingOccurrences(of: "mocks/\(name)/", with: "")),
                "\(name): \(diff.stderr)"
            )
            // Read at load (not a plain path, or a link leading out): the start is refused.
            guard !["dot", "outside", "slash", "slash-dot"].contains(name) else { continue }
            // A plain path is read at first use: the stub answers 500 with the same words.
            let daemon = try RunningDaemon(["--set", name, "--root", root.path, "--port", "0", "--quiet"])
            defer { daemon.stop() }
            let answer = try Curl.send(CurlRequest(url: daemon.baseURL + "/compare/main...feature"))
            #expect(answer.status == 500)
            #expect(answer.text.contains(message), "\(name): \(answer.text)")
        }
    }
}
