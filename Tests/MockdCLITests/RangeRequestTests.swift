import Foundation
import MockdTestSupport
import Testing

/// Byte ranges (RFC 9110 §14) of stored bodies, on the real daemon with curl: single, suffix, open and multiple
/// ranges, 416, `If-Range`, `HEAD`, and recorded 206 answers.
@Suite(.serialized)
struct RangeRequestTests {
    /// 1,000 bytes: 0, 1, … 255, 0, 1, …
    static let video = Data((0..<1000).map { UInt8($0 % 256) })
    /// What a recording of `Range: bytes=100-` kept: bytes 100…199 of the 1,000.
    static let recordedPart = video[100..<200]

    static func set() throws -> HandWrittenSet {
        try HandWrittenSet(
            index: [
                "version": 1,
                "stubs": [
                    [
                        "id": "GET_video.mp4", "request": ["method": "GET", "path": "/video.mp4"],
                        "responses": [
                            [
                                "headers": [
                                    "Content-Type: video/mp4", "ETag: \"v1\"", "Accept-Ranges: bytes",
                                    "Last-Modified: Sun, 29 Nov 2026 10:00:00 GMT",
                                ],
                                "bodyFile": "bodies/video.mp4",
                            ]
                        ],
                    ],
                    [
                        "id": "GET_recorded.mp4", "request": ["method": "GET", "path": "/recorded.mp4"],
                        "responses": [
                            [
                                "status": 206,
                                "headers": ["Content-Type: video/mp4", "Content-Range: bytes 100-199/1000"],
                                "bodyFile": "bodies/recorded.mp4",
                            ]
                        ],
                    ],
                ],
            ],
            bodies: ["bodies/video.mp4": video, "bodies/recorded.mp4": Data(recordedPart)]
        )
    }

    static func get(_ base: String, _ path: String, _ headers: [(String, String)]) -> CurlRequest {
        CurlRequest(url: base + path, headers: headers)
    }

    @Test func singleSuffixOpenAndUnsatisfiableRanges() throws {
        let set = try Self.set()
        let daemon = try set.start()
        defer { daemon.stop() }
        let base = daemon.baseURL
        let responses = try Curl.batch([
            Self.get(base, "/video.mp4", [("Range", "bytes=0-9")]),
            Self.get(base, "/video.mp4", [("Range", "bytes=-10")]),
            Self.get(base, "/video.mp4", [("Range", "bytes=990-")]),
            Self.get(base, "/video.mp4", [("Range", "bytes=995-2000")]),
            Self.get(base, "/video.mp4", [("Range", "bytes=1000-")]),
            Self.get(base, "/video.mp4", [("Range", "bytes=5-2")]),
            Self.get(base, "/video.mp4", [("Range", "pages=1-2")]),
            Self.get(base, "/video.mp4", []),
        ])
        #expect(responses.map(\.status) == [206, 206, 206, 206, 416, 200, 200, 200])
        #expect(responses[0].header("Content-Range") == "bytes 0-9/1000")
        #expect(responses[0].header("Content-Length") == "10")
        #expect(responses[0].header("Content-Type") == "video/mp4")
        #expect(responses[0].header("ETag") == "\"v1\"")
        #expect(responses[0].body == Self.video[0..<10])
        #expect(responses[1].header("Content-Range") == "bytes 990-999/1000")
        #expect(responses[1].body == Self.video[990..<1000])
        #expect(responses[2].header("Content-Range") == "bytes 990-999/1000")
        #expect(responses[2].body == Self.video[990..<1000])
        #expect(responses[3].header("Content-Range") == "bytes 995-999/1000")
        #expect(responses[3].body == Self.video[995..<1000])
        #expect(responses[4].header("Content-Range") == "bytes */1000")
        #expect(responses[4].header("Content-Type") == nil)
        #expect(responses[4].body.isEmpty)
        for whole in responses[5...] {
            #expect(whole.header("Content-Range") == nil)
            #expect(whole.body == Self.video)
        }
    }

    @Test func multipleRangesAreMultipartByteranges() throws {
        let set = try Self.set()
        let daemon = try set.start()
        defer { daemon.stop() }
        let response = try Curl.send(Self.get(daemon.baseURL, "/video.mp4", [("Range", "bytes=0-1, 10-12,-2")]))
        let boundary = "mockd-byteranges-7c2f91d04e6b3a58e1f0d9c2"
        #expect(response.status == 206)
        #expect(response.header("Content-Type") == "multipart/byteranges; boundary=\(boundary)")
        #expect(response.header("Content-Range") == nil)
        var expected = Data("--\(boundary)\r\nContent-Type: video/mp4\r\nContent-Range: bytes 0-1/1000\r\n\r\n".utf8)
        expected.append(contentsOf: [0, 1])
        expected.append(
            contentsOf: "\r\n--\(boundary)\r\nContent-Type: video/mp4\r\nContent-Range: bytes 10-12/1000\r\n\r\n".utf8
        )
        expected.append(contentsOf: [10, 11, 12])
        expected.append(
            contentsOf: "\r\n--\(boundary)\r\nContent-Type: video/mp4\r\nContent-Range: bytes 998-999/1000\r\n\r\n"
                .utf8
        )
        expected.append(contentsOf: [998 % 256, 999 % 256].map { UInt8($0) })
        expected.append(contentsOf: "\r\n--\(boundary)--\r\n".utf8)
        #expect(response.body == expected)
        #expect(response.header("Content-Length") == String(expected.count))
    }

    @Test func ifRangeAndHead() throws {
        let set = try Self.set()
        let daemon = try set.start()
        defer { daemon.stop() }
        let base = daemon.baseURL
        let range = ("Range", "bytes=0-9")
        let responses = try Curl.batch([
            Self.get(base, "/video.mp4", [range, ("If-Range", "\"v1\"")]),
            Self.get(base, "/video.mp4", [range, ("If-Range", "\"v0\"")]),
            Self.get(base, "/video.mp4", [range, ("If-Range", "W/\"v1\"")]),
            Self.get(base, "/video.mp4", [range, ("If-Range", "Sun, 29 Nov 2026 10:00:00 GMT")]),
            Self.get(base, "/video.mp4", [range, ("If-Range", "Sat, 28 Nov 2026 10:00:00 GMT")]),
            CurlRequest(method: "HEAD", url: base + "/video.mp4", headers: [range]),
        ])
        #expect(responses.map(\.status) == [206, 200, 200, 206, 200, 200])
        #expect(responses[0].body == Self.video[0..<10])
        #expect(responses[1].body == Self.video)
        #expect(responses[1].header("Content-Range") == nil)
        #expect(responses[2].body == Self.video)
        #expect(responses[3].header("Content-Range") == "bytes 0-9/1000")
        #expect(responses[4].body == Self.video)
        #expect(responses[5].header("Content-Range") == nil)
        #expect(responses[5].body.isEmpty)
    }

    @Test func aRecordedPartialAnswerServesOnlyWhatItHolds() throws {
        let set = try Self.set()
        let daemon = try set.start()
        defer { daemon.stop() }
        let base = daemon.baseURL
        let responses = try Curl.batch([
            Self.get(base, "/recorded.mp4", [("Range", "bytes=150-159")]),
            Self.get(base, "/recorded.mp4", [("Range", "bytes=0-")]),
            Self.get(base, "/recorded.mp4", [("Range", "bytes=500-600")]),
            Self.get(base, "/recorded.mp4", []),
        ])
        #expect(responses.map(\.status) == [206, 206, 416, 206])
        #expect(responses[0].header("Content-Range") == "bytes 150-159/1000")
        #expect(responses[0].body == Self.video[150..<160])
        #expect(responses[1].header("Content-Range") == "bytes 100-199/1000")
        #expect(responses[1].body == Self.recordedPart)
        #expect(responses[2].header("Content-Range") == "bytes */1000")
        #expect(responses[3].header("Content-Range") == "bytes 100-199/1000")
        #expect(responses[3].body == Self.recordedPart)
    }

    /// The corpus's 206 answers are status-code echoes (a whole JSON body, no `Content-Range`): which part of a
    /// representation they hold is unknown, so no request gets them as a 206 (issue 33: a resource recorded only as
    /// 206 never answers 206 to a request without `Range`, nor serves bytes it cannot place to one with).
    @Test func aRecordedStatusEchoWithoutContentRangeIsAMissThatSaysSo() throws {
        guard let corpus = Paths.corpus else {
            Skip.missing(
                .corpus,
                test: "RangeRequestTests.aRecordedStatusEcho…",
                "HAR corpus not found (../shared/corpus)"
            )
            return
        }
        let har = corpus.appendingPathComponent("har/har-to-openapi__request-generator-all-status-and-method.har")
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let imported = try ProcessRunner.mockd(["import-har", har.path, "--set", "rg", "--root", root.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        let daemon = try RunningDaemon(["--set", "rg", "--root", root.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        let responses = try Curl.batch([
            Self.get(daemon.baseURL, "/api/status/206", [("Range", "bytes=0-9")]),
            Self.get(daemon.baseURL, "/api/status/206", []),
        ])
        #expect(responses.map(\.status) == [404, 404])
        for response in responses {
            #expect(
                response.text.contains(
                    "has no answer the recording can justify: recorded only as 206 Partial Content without a Content-Range: which part of the representation it holds is unknown"
                ),
                "\(response.text)"
            )
        }
        #expect(
            imported.stdout.contains(
                "recorded only as 206 Partial Content (answered to range requests inside the recorded bytes; others miss, saying why):\n    GET /api/status/206\n"
            )
        )
    }
}
