import Foundation
import MockdTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Capture on miss", .serialized)
struct CaptureOnMissTests {
    /// A root holding a copy of the bundled `chat` set.
    static func rootWithChat() throws -> URL {
        let root = Paths.makeTemporaryDirectory()
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("mocks"),
            withIntermediateDirectories: true
        )
        try FileManager.default.copyItem(
            at: Paths.packageRoot.appendingPathComponent("mocks/chat"),
            to: root.appendingPathComponent("mocks/chat")
        )
        return root
    }

    @Test(
        "matched requests are served from mocks, unmatched ones by the upstream; the captured set holds only the misses"
    )
    func servesBothSources() throws {
        let upstream = try PythonUpstream()
        let root = try Self.rootWithChat()
        defer { try? FileManager.default.removeItem(at: root) }
        let daemon = try RunningDaemon(
            [
                "--set", "chat", "--root", root.path, "--port", "0", "--on-miss", "proxy", "--upstream",
                upstream.origin, "--record-misses",
            ],
            environment: Recording.environment
        )
        let answers = try Curl.batch([
            CurlRequest(url: daemon.baseURL + "/v1/me"),
            CurlRequest(url: daemon.baseURL + "/hello"),
        ])
        #expect(answers[0].status == 200)
        #expect(
            answers[0].body == (try Data(contentsOf: root.appendingPathComponent("mocks/chat/bodies/GET_v1_me.json")))
        )
        #expect(answers[1].status == 200)
        #expect(answers[1].text == "{\"hello\":\"world\"}\n")
        #expect(answers[1].headers(named: "Set-Cookie").count == 2)

        let entries =
            Recording.json(try Curl.send(CurlRequest(url: daemon.baseURL + "/__mockd/journal")).body)["entries"]
            as? [[String: Any]] ?? []
        #expect(entries.count == 2)
        #expect(entries.first?["stub"] as? String == "GET_v1_me")
        #expect(entries.first?["proxied"] as? Bool == false)
        #expect(entries.last?["target"] as? String == "/hello")
        #expect(entries.last?["proxied"] as? Bool == true)
        #expect(entries.last?["matched"] as? Bool == false)
        #expect(entries.last?["status"] as? Int == 200)

        let stopped = daemon.stop()
        #expect(stopped.status == 0)
        #expect(stopped.stderr.contains("GET /v1/me 200 GET_v1_me"))
        #expect(stopped.stderr.contains("GET /hello 200 upstream"))
        #expect(daemon.standardOutput.contains("into mocks/chat-captured/"))
        let captured = Recording.json(
            try Data(contentsOf: root.appendingPathComponent("mocks/chat-captured/index.json"))
        )
        let stubs = captured["stubs"] as? [[String: Any]] ?? []
        #expect(stubs.map { $0["id"] as? String } == ["GET_hello"])
        let recordings = try FileManager.default.contentsOfDirectory(
            atPath: root.appendingPathComponent("recordings").path
        )
        #expect(recordings.count == 1 && recordings[0].hasPrefix("chat-captured-"))
    }

    @Test("without --record-misses misses are proxied and nothing is written; without --on-miss proxy they get the 404")
    func proxyWithoutRecording() throws {
        let upstream = try PythonUpstream()
        let root = try Self.rootWithChat()
        defer { try? FileManager.default.removeItem(at: root) }
        let proxying = try RunningDaemon(
            ["--set", "chat", "--root", root.path, "--port", "0", "--on-miss", "proxy", "--upstream", upstream.origin],
            environment: Recording.environment
        )
        #expect(try Curl.send(CurlRequest(url: proxying.baseURL + "/binary")).body == Data(0...255))
        let flush = try Curl.send(CurlRequest(method: "POST", url: proxying.baseURL + "/__mockd/record/flush"))
        #expect(flush.status == 404)
        #expect(Recording.json(flush.body)["error"] as? String == "not_recording")
        #expect(proxying.stop().status == 0)
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("mocks/chat-captured").path))
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("recordings").path))

        let plain = try RunningDaemon(
            ["--set", "chat", "--root", root.path, "--port", "0"],
            environment: Recording.environment
        )
        defer { plain.stop() }
        let miss = try Curl.send(CurlRequest(url: plain.baseURL + "/binary"))
        #expect(miss.status == 404)
        #expect(Recording.json(miss.body)["error"] as? String == "unmatched")
    }
}

@Suite("HTTPS", .serialized)
struct HTTPSTests {
    /// Runs scripts/make-cert into a fresh folder; returns it.
    static func makeCertificates() throws -> URL {
        let folder = Paths.makeTemporaryDirectory()
        let result = try ProcessRunner.run(
            URL(fileURLWithPath: "/bin/bash"),
            [Paths.packageRoot.appendingPathComponent("scripts/make-cert").path, folder.path]
        )
        #expect(result.status == 0, "\(result.stderr)")
        return folder
    }

    @Test("scripts/make-cert is idempotent and the certificate covers localhost, 127.0.0.1 and ::1")
    func makeCertIsIdempotent() throws {
        let certs = try Self.makeCertificates()
        defer { try? FileManager.default.removeItem(at: certs) }
        let first = try Data(contentsOf: certs.appendingPathComponent("server.pem"))
        let again = try ProcessRunner.run(
            URL(fileURLWithPath: "/bin/bash"),
            [Paths.packageRoot.appendingPathComponent("scripts/make-cert").path, certs.path]
        )
        #expect(again.status == 0)
        #expect(again.stderr.contains("nothing to do"))
        #expect(try Data(contentsOf: certs.appendingPathComponent("server.pem")) == first)
        let names = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/openssl"),
            ["x509", "-in", certs.appendingPathComponent("server.pem").path, "-noout", "-ext", "subjectAltName"]
        )
        #expect(names.stdout.contains("DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1"))
    }

    @Test(
        "--tls-cert/--tls-key serve HTTPS: curl with the CA succeeds, without it fails; URLSession on Linux refuses the untrusted CA"
    )
    func servesHTTPS() async throws {
        let certs = try Self.makeCertificates()
        defer { try? FileManager.default.removeItem(at: certs) }
        let daemon = try RunningDaemon(
            [
                "--set", "chat", "--root", Paths.packageRoot.path, "--port", "0",
                "--tls-cert", certs.appendingPathComponent("server.pem").path, "--tls-key",
                certs.appendingPathComponent("server-key.pem").path,
            ],
            environment: Recording.environment
        )
        defer { daemon.stop() }
        #expect(daemon.baseURL.hasPrefix("https://127.0.0.1:"))
        let expected = try Data(
            contentsOf: Paths.packageRoot.appendingPathComponent("mocks/chat/bodies/GET_v1_me.json")
        )
        let trusted = try Curl.run([
            "--cacert", certs.appendingPathComponent("mockd-ca.pem").path, daemon.baseURL + "/v1/me",
        ])
        #expect(trusted.status == 0)
        #expect(Data(trusted.stdout.utf8) == expected)
        let byName = try Curl.run([
            "--cacert", certs.appendingPathComponent("mockd-ca.pem").path, "https://localhost:\(daemon.port)/v1/me",
        ])
        #expect(byName.status == 0)
        // No CA: certificate verification fails (curl exit 60).
        let untrusted = try Curl.run([daemon.baseURL + "/v1/me"])
        #expect(untrusted.status == 60)
        // Plain HTTP to the HTTPS port gets no HTTP answer.
        let plain = try Curl.run(["--max-time", "5", "http://127.0.0.1:\(daemon.port)/v1/me"])
        #expect(plain.status != 0)

        // URLSession on Linux (swift-corelibs-foundation) has no server-trust challenge and reads no custom CA
        // file, so it can only trust CAs in the system store: with ours absent there, it refuses the connection.
        let session = URLSession(configuration: .ephemeral)
        await #expect(throws: (any Error).self) {
            _ = try await session.data(from: URL(string: daemon.baseURL + "/v1/me")!)
        }
    }

    /// A URLSession client, compiled at test time: prints the body of a GET, exits 1 on an error.
    static let urlSessionClient = """
        import Foundation
        import FoundationNetworking
        let semaphore = DispatchSemaphore(value: 0)
        var status: Int32 = 1
        URLSession(configuration: .ephemeral).dataTask(with: URL(string: CommandLine.arguments[1])!) { data, _, error in
            if let error { FileHandle.standardError.write(Data("\\(error.localizedDescription)\\n".utf8)) } else {
                FileHandle.standardOutput.write(data ?? Data()); status = 0
            }
            semaphore.signal()
        }.resume()
        semaphore.wait()
        exit(status)
        """

    @Test(
        "URLSession trusts the generated CA once it is in the system store (a private mount namespace, so the machine's store is untouched)"
    )
    func urlSessionWithTheCA() throws {
        let systemBundle = "/etc/ssl/certs/ca-certificates.crt"
        guard getuid() == 0, FileManager.default.fileExists(atPath: "/usr/bin/unshare"),
            FileManager.default.fileExists(atPath: systemBundle)
        else {
            Skip.environment(
                test: "urlSessionWithTheCA",
                "needs root, unshare and \(systemBundle) to mount a CA bundle privately"
            )
            return
        }
        let certs = try Self.makeCertificates()
        defer { try? FileManager.default.removeItem(at: certs) }
        let source = certs.appendingPathComponent("client.swift")
        try Self.urlSessionClient.write(to: source, atomically: true, encoding: .utf8)
        let client = certs.appendingPathComponent("client")
        let compiled = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["swiftc", source.path, "-o", client.path]
        )
        try #require(compiled.status == 0, "\(compiled.stderr)")
        // The system bundle plus our CA, bind-mounted over the system bundle in a mount namespace of its own.
        let bundle = certs.appendingPathComponent("bundle.crt")
        try
            (try Data(contentsOf: URL(fileURLWithPath: systemBundle))
            + Data(contentsOf: certs.appendingPathComponent("mockd-ca.pem"))).write(to: bundle)
        let daemon = try RunningDaemon(
            [
                "--set", "chat", "--root", Paths.packageRoot.path, "--port", "0",
                "--tls-cert", certs.appendingPathComponent("server.pem").path, "--tls-key",
                certs.appendingPathComponent("server-key.pem").path,
            ],
            environment: Recording.environment
        )
        defer { daemon.stop() }
        let script = #"mount --bind "$1" /etc/ssl/certs/ca-certificates.crt && exec "$2" "$3""#
        let trusted = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/unshare"),
            [
                "--mount", "/bin/sh", "-c", script, "sh", bundle.path, client.path,
                "https://localhost:\(daemon.port)/v1/me",
            ]
        )
        #expect(trusted.status == 0, "\(trusted.stderr)")
        #expect(
            Data(trusted.stdout.utf8)
                == (try Data(contentsOf: Paths.packageRoot.appendingPathComponent("mocks/chat/bodies/GET_v1_me.json")))
        )
        // The same client outside the namespace: the machine's store never had the CA.
        let outside = try ProcessRunner.run(client, ["https://localhost:\(daemon.port)/v1/me"])
        #expect(outside.status == 1)
    }

    @Test("--tls-port serves HTTPS beside plain HTTP on --port, from one engine")
    func servesBothSchemes() throws {
        let certs = try Self.makeCertificates()
        defer { try? FileManager.default.removeItem(at: certs) }
        let daemon = try RunningDaemon(
            [
                "--set", "chat", "--root", Paths.packageRoot.path, "--port", "0", "--tls-port", "0",
                "--tls-cert", certs.appendingPathComponent("server.pem").path, "--tls-key",
                certs.appendingPathComponent("server-key.pem").path,
            ],
            environment: Recording.environment
        )
        defer { daemon.stop() }
        #expect(daemon.baseURL.hasPrefix("http://127.0.0.1:"))
        // The HTTPS listening line follows the first one.
        try? waitUntil(timeout: 2, "the second listening line") {
            daemon.standardOutput.split(separator: "\n").count >= 2
        }
        let lines = daemon.standardOutput.split(separator: "\n")
        #expect(lines.count == 2)
        let secure = String(lines.last?.dropFirst("listening on ".count) ?? "")
        #expect(secure.hasPrefix("https://127.0.0.1:"))
        #expect(secure != daemon.baseURL.replacingOccurrences(of: "http:", with: "https:"))
        let ca = certs.appendingPathComponent("mockd-ca.pem").path
        #expect(try Curl.send(CurlRequest(url: daemon.baseURL + "/v1/me")).status == 200)
        let https = try Curl.run(["--cacert", ca, "-o", "/dev/null", "-w", "%{http_code}", secure + "/v1/me"])
        #expect(https.stdout == "200")
        // One engine: the HTTPS request is in the same journal as the HTTP one.
        let journal = Recording.json(try Curl.send(CurlRequest(url: daemon.baseURL + "/__mockd/journal")).body)
        #expect((journal["entries"] as? [Any])?.count == 2)
    }

    @Test("a missing or wrong certificate or key is one line naming the file, exit 1")
    func badFiles() throws {
        let certs = try Self.makeCertificates()
        defer { try? FileManager.default.removeItem(at: certs) }
        let cert = certs.appendingPathComponent("server.pem").path
        let key = certs.appendingPathComponent("server-key.pem").path
        let caKey = certs.appendingPathComponent("mockd-ca-key.pem").path
        let missing = certs.appendingPathComponent("nope.pem").path
        let cases: [([String], String)] = [
            (["--tls-cert", missing, "--tls-key", key], "mockd: --tls-cert \(missing): no such file\n"),
            (
                ["--tls-cert", key, "--tls-key", key],
                "mockd: --tls-cert \(key): not a PEM certificate (expected -----BEGIN CERTIFICATE-----)\n"
            ),
            (
                ["--tls-cert", cert, "--tls-key", cert],
                "mockd: --tls-key \(cert): not an unencrypted PEM private key (expected -----BEGIN PRIVATE KEY-----)\n"
            ),
            (
                ["--tls-cert", cert, "--tls-key", caKey],
                "mockd: --tls-key \(caKey): does not belong to the certificate in \(cert)\n"
            ),
        ]
        for (arguments, message) in cases {
            let result = try ProcessRunner.run(
                Paths.mockdBinary,
                ["--set", "chat", "--root", Paths.packageRoot.path, "--port", "0"] + arguments,
                environment: Recording.environment
            )
            #expect(result.status == 1)
            #expect(result.stderr == message)
        }
    }

    @Test(
        "recording an HTTPS upstream verifies its certificate: refused (502) without the CA, accepted with --upstream-ca or --upstream-insecure"
    )
    func httpsUpstream() throws {
        let certs = try Self.makeCertificates()
        defer { try? FileManager.default.removeItem(at: certs) }
        let upstream = try RunningDaemon(
            [
                "--set", "chat", "--root", Paths.packageRoot.path, "--port", "0",
                "--tls-cert", certs.appendingPathComponent("server.pem").path, "--tls-key",
                certs.appendingPathComponent("server-key.pem").path,
            ],
            environment: Recording.environment
        )
        defer { upstream.stop() }
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let expected = try Data(
            contentsOf: Paths.packageRoot.appendingPathComponent("mocks/chat/bodies/GET_v1_me.json")
        )
        let variants: [(flags: [String], status: Int)] = [
            ([], 502),
            (["--upstream-ca", certs.appendingPathComponent("mockd-ca.pem").path], 200),
            (["--upstream-insecure"], 200),
        ]
        for (number, variant) in variants.enumerated() {
            let recorder = try RunningDaemon(
                ["record", "--upstream", upstream.baseURL, "--set", "tls\(number)", "--root", root.path, "--port", "0"]
                    + variant.flags,
                environment: Recording.environment
            )
            let answer = try Curl.send(CurlRequest(url: recorder.baseURL + "/v1/me"))
            #expect(answer.status == variant.status, "\(variant.flags)")
            if variant.status == 200 {
                #expect(answer.body == expected)
            } else {
                #expect(Recording.json(answer.body)["error"] as? String == "upstream_unreachable")
                #expect((Recording.json(answer.body)["message"] as? String ?? "").lowercased().contains("certificate"))
            }
            let stopped = recorder.stop()
            #expect(stopped.status == 0)
            #expect(
                stopped.stderr.contains(
                    "--upstream-insecure: the TLS certificate of \(upstream.baseURL) is not verified"
                ) == variant.flags.contains("--upstream-insecure")
            )
        }
    }
}
