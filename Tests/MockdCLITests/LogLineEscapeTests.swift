import Foundation
import MockdTestSupport
import Testing

/// The daemon's log line writes the control bytes of a request target as `\xNN`: a terminal escape sent raw on the
/// socket must not reach the operator's terminal.
struct LogLineEscapeTests {
    @Test func aRawEscapeInATargetIsLoggedEscaped() throws {
        let root = try Paths.makeRoot(scenario: #"{"sets": ["chat"]}"#)
        defer { try? FileManager.default.removeItem(at: root) }
        let daemon = try RunningDaemon(["--config", "s", "--root", root.path, "--port", "0"])
        defer { daemon.stop() }
        let program = """
            import socket, sys
            s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
            s.sendall(b"GET /v1/me?x=\\x1b[31mred HTTP/1.1\\r\\nHost: localhost\\r\\nConnection: close\\r\\n\\r\\n")
            print(s.recv(100).split(b"\\r\\n")[0].decode())
            """
        let result = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/python3"),
            ["-c", program, String(daemon.port)]
        )
        #expect(result.status == 0, "\(result.stderr)")
        try daemon.waitForStandardError(containing: #"/v1/me?x=\x1B[31mred "#)
        #expect(!daemon.standardError.contains("\u{1B}"))
    }
}
