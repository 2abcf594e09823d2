import Foundation
import MockdPlatform
import MockdTestSupport
import Testing

/// Body files of 1 MiB or more are served from disk (`FileBody`), on the real daemon with curl: whole, ranges,
/// HEAD, a file that changed after load, placeholders and `bodyPatch` (which need the bytes), and the daemon's
/// memory while 8 clients download a 64 MiB body.
@Suite(.serialized)
struct LargeBodyTests {
    /// 3 MiB + 5 bytes of a pattern that never holds `{{`: i × 7 mod 251.
    static let big = Data((0..<(3 << 20) + 5).map { UInt8(truncatingIfNeeded: $0 &* 7 % 251) })

    static func set(extraStubs: [[String: Any]] = [], bodies: [String: Data] = [:]) throws -> HandWrittenSet {
        let stubs: [[String: Any]] =
            [
                [
                    "id": "GET_big.bin", "request": ["method": "GET", "path": "/big.bin"],
                    "responses": [
                        [
                            "headers": ["Content-Type: application/octet-stream", "ETag: \"big-1\""],
                            "bodyFile": "bodies/big.bin",
                        ]
                    ],
                ]
            ] + extraStubs
        return try HandWrittenSet(
            index: ["version": 1, "stubs": stubs],
            bodies: ["bodies/big.bin": big].merging(bodies) { $1 }
        )
    }

    @Test func wholeBodyRangesAndHeadAreServedFromTheFile() throws {
        let set = try Self.set()
        let daemon = try set.start()
        defer { daemon.stop() }
        let base = daemon.baseURL
        let size = Self.big.count
        let responses = try Curl.batch([
            CurlRequest(url: base + "/big.bin"),
            CurlRequest(url: base + "/big.bin", headers: [("Range", "bytes=1048570-1048580")]),
            CurlRequest(url: base + "/big.bin", headers: [("Range", "bytes=-3")]),
            CurlRequest(url: base + "/big.bin", headers: [("Range", "bytes=0-2,3145728-")]),
            CurlRequest(url: base + "/big.bin", headers: [("Range", "bytes=\(size)-")]),
            CurlRequest(url: base + "/big.bin", headers: [("Range", "bytes=0-9"), ("If-Range", "\"big-0\"")]),
            CurlRequest(method: "HEAD", url: base + "/big.bin"),
        ])
        #expect(responses.map(\.status) == [200, 206, 206, 206, 416, 200, 200])
        #expect(responses[0].body == Self.big)
        #expect(responses[0].header("Content-Length") == String(size))
        #expect(responses[0].header("ETag") == "\"big-1\"")
        #expect(responses[1].header("Content-Range") == "bytes 1048570-1048580/\(size)")
        #expect(responses[1].body == Self.big[1_048_570...1_048_580])
        #expect(responses[2].header("Content-Range") == "bytes \(size - 3)-\(size - 1)/\(size)")
        #expect(responses[2].body == Self.big[(size - 3)...])
        let boundary = "mockd-byteranges-7c2f91d04e6b3a58e1f0d9c2"
        var expected = Data(
            "--\(boundary)\r\nContent-Type: application/octet-stream\r\nContent-Range: bytes 0-2/\(size)\r\n\r\n".utf8
        )
        expected.append(Self.big[0...2])
        expected.append(
            contentsOf:
                "\r\n--\(boundary)\r\nContent-Type: application/octet-stream\r\nContent-Range: bytes 3145728-\(size - 1)/\(size)\r\n\r\n"
                .utf8
        )
        expected.append(Self.big[3_145_728...])
        expected.append(contentsOf: "\r\n--\(boundary)--\r\n".utf8)
        #expect(responses[3].header("Content-Type") == "multipart/byteranges; boundary=\(boundary)")
        #expect(responses[3].body == expected)
        #expect(responses[4].header("Content-Range") == "bytes */\(size)")
        #expect(responses[4].body.isEmpty)
        #expect(responses[5].body == Self.big)
        #expect(responses[6].body.isEmpty)
    }

    @Test func aMissingBodyFileAnswers500NamingItAndValidateReportsIt() throws {
        let set = try Self.set()
        try FileManager.default.removeItem(at: set.folder.appendingPathComponent("bodies/big.bin"))
        let line = "mocks/web/index.json: stubs[0].responses[0].bodyFile: body file 'bodies/big.bin' not found"
        let validate = try ProcessRunner.mockd(["validate", "--set", set.name, "--root", set.root.path])
        #expect(validate.status == 1)
        #expect(validate.stderr.contains(line), "\(validate.stderr)")
        // Serving does not look at body files at start: the stub answers with the same line when asked.
        let daemon = try set.start()
        defer { daemon.stop() }
        let response = try Curl.send(CurlRequest(url: daemon.baseURL + "/big.bin"))
        #expect(response.status == 500)
        #expect(response.text.contains(line), "\(response.text)")
        #expect(try daemon.health()["status"] as? String == "ok")
    }

    @Test func aFileThatChangedSizeAfterLoadGetsA500NamingIt() throws {
        let set = try Self.set()
        let daemon = try set.start()
        defer { daemon.stop() }
        // The first answer sets the file up to be served from disk (`FileBody`, its size then); it then shrinks.
        #expect(try Curl.send(CurlRequest(url: daemon.baseURL + "/big.bin")).body == Self.big)
        try Data(Self.big.prefix(10)).write(to: set.folder.appendingPathComponent("bodies/big.bin"))
        let response = try Curl.send(CurlRequest(url: daemon.baseURL + "/big.bin"))
        #expect(response.status == 500)
        #expect(response.text.contains(#""error":"body_file_unavailable""#), "\(response.text)")
        #expect(response.text.contains("changed size since it was loaded (\(Self.big.count) bytes)"))
        #expect(try daemon.health()["status"] as? String == "ok")
    }

    @Test func aBinaryBodyHoldingBracesIsStillServedFromTheFile() throws {
        // `{{` among NUL bytes is data, not a placeholder: the file is not read into memory.
        var binary = Self.big
        binary.replaceSubrange(1000..<1004, with: [0x7B, 0x7B, 0x00, 0x7D])
        let set = try Self.set(bodies: ["bodies/big.bin": binary])
        let daemon = try set.start()
        defer { daemon.stop() }
        let whole = try Curl.send(CurlRequest(url: daemon.baseURL + "/big.bin"))
        #expect(whole.body == binary)
        // Only a body served from its file notices that the file changed size after the load.
        try Data(binary.prefix(10)).write(to: set.folder.appendingPathComponent("bodies/big.bin"))
        let changed = try Curl.send(CurlRequest(url: daemon.baseURL + "/big.bin"))
        #expect(changed.status == 500)
        #expect(changed.text.contains(#""error":"body_file_unavailable""#), "\(changed.text)")
    }

    @Test func placeholdersAndBodyPatchOnLargeBodiesStillWork() throws {
        let padding = String(repeating: "x", count: 1 << 20)
        let templated = Data(#"{"path":"{{request.path}}","pad":"\#(padding)"}"#.utf8)
        let json = Data(#"{"name":"original","pad":"\#(padding)"}"#.utf8)
        let set = try Self.set(
            extraStubs: [
                [
                    "id": "templated", "request": ["method": "GET", "path": "/templated.json"],
                    "responses": [["bodyFile": "bodies/templated.json"]],
                ],
                [
                    "id": "patched", "request": ["method": "GET", "path": "/patched.json"],
                    "responses": [["bodyFile": "bodies/patched.json"]],
                ],
            ],
            bodies: ["bodies/templated.json": templated, "bodies/patched.json": json]
        )
        try FileManager.default.createDirectory(
            at: set.root.appendingPathComponent("configs"),
            withIntermediateDirectories: true
        )
        try #"""
        {"version": 1, "sets": ["web"], "overrides": [
          {"id": "rename", "match": {"method": "GET", "path": "/patched.json"}, "bodyPatch": {"name": "patched"}}
        ]}
        """#.write(to: set.root.appendingPathComponent("configs/patch.json"), atomically: true, encoding: .utf8)
        let daemon = try RunningDaemon(["--config", "patch", "--root", set.root.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        let responses = try Curl.batch([
            CurlRequest(url: daemon.baseURL + "/templated.json"),
            CurlRequest(url: daemon.baseURL + "/patched.json"),
        ])
        #expect(responses.map(\.status) == [200, 200])
        #expect(responses[0].text == #"{"path":"/templated.json","pad":"\#(padding)"}"#)
        #expect(responses[1].text == #"{"name":"patched","pad":"\#(padding)"}"#)
    }
}

/// The daemon's memory while 8 clients download one 64 MiB body at once: served from disk, its resident set stays
/// far below the body's size (before, the body was read into memory at start: 64 MiB more than idle).
@Suite(.serialized)
struct LargeBodyMemoryTests {
    @Test func eightDownloadsOfA64MiBBodyStayInBoundedMemory() throws {
        let size = 64 << 20
        var body = Data(count: size)
        for index in stride(from: 0, to: size, by: 4096) { body[index] = UInt8(truncatingIfNeeded: index >> 12) }
        let set = try LargeBodyTests.set(
            extraStubs: [
                [
                    "id": "video", "request": ["method": "GET", "path": "/video.mp4"],
                    "responses": [["headers": ["Content-Type: video/mp4"], "bodyFile": "bodies/video.mp4"]],
                ]
            ],
            bodies: ["bodies/video.mp4": body]
        )
        let daemon = try set.start()
        defer { daemon.stop() }
        let clients = try (0..<8).map { _ in
            try Curl.start(["-o", "/dev/null", "-w", "%{http_code} %{size_download}", daemon.baseURL + "/video.mp4"])
        }
        for client in clients { client.waitForExit() }
        #expect(clients.map { $0.result.stdout } == Array(repeating: "200 \(size)", count: 8))
        let peak = ProcessInspection.peakResidentBytes(of: daemon.process.processIdentifier)
        let peakKiB = try #require(peak) / 1024
        print("LargeBodyMemoryTests: daemon's peak resident size \(peakKiB) KiB after 8 downloads of 64 MiB")
        #expect(peakKiB < 48 * 1024, "peak RSS \(peakKiB) KiB")
    }
}

/// A throttled body served from its file is read with `pread` at the configured rate: 3 MiB at 4 MiB/s take ¾ s.
@Suite(.serialized)
struct TimingLargeBodyTests {
    @Test func aThrottledLargeBodyArrivesWholeAtItsRate() throws {
        let set = try LargeBodyTests.set()
        try FileManager.default.createDirectory(
            at: set.root.appendingPathComponent("configs"),
            withIntermediateDirectories: true
        )
        try #"{"version": 1, "sets": ["web"], "overrides": [{"match": {"path": "/big.bin"}, "throttle": 4194304}]}"#
            .write(to: set.root.appendingPathComponent("configs/slow.json"), atomically: true, encoding: .utf8)
        let daemon = try RunningDaemon(["--config", "slow", "--root", set.root.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        let started = Date()
        let response = try Curl.send(CurlRequest(url: daemon.baseURL + "/big.bin"))
        let seconds = Date().timeIntervalSince(started)
        #expect(response.status == 200)
        #expect(response.body == LargeBodyTests.big)
        #expect(seconds >= 0.65 && seconds <= 1.5, "took \(seconds) s")
    }
}
