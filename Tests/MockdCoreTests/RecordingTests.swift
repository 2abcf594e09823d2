import Foundation
import MockdFormat
import Testing

@testable import MockdCore

/// The recording side of `mockd record`: which headers a proxy passes on, the HAR written for exchanges, and
/// what a flush compiles.
struct RecordingTests {
    private func exchange(
        order: UInt64,
        method: String = "GET",
        target: String,
        body: Data = Data(),
        result: Result<UpstreamResponse, UpstreamFailure>
    ) -> ProxiedExchange {
        ProxiedExchange(
            order: order,
            startedAt: Date(timeIntervalSince1970: 1_800_000_000),
            elapsedMs: 12.5,
            method: method,
            url: "https://api.example.com" + target,
            requestHeaders: HTTPHeaders([("Host", "api.example.com"), ("Accept", "application/json")]),
            requestBody: body,
            result: result
        )
    }

    @Test func hopByHopFieldsAndTheOnesConnectionNamesAreNotForwarded() {
        let headers = HTTPHeaders([
            ("Host", "127.0.0.1:8080"), ("Connection", "keep-alive, X-Hop"), ("X-Hop", "1"),
            ("Keep-Alive", "timeout=5"),
            ("Transfer-Encoding", "chunked"), ("Content-Length", "3"), ("Accept", "*/*"), ("Set-Cookie", "a=1"),
            ("Set-Cookie", "b=2"),
            ("X-Mockd-Session", "s1"),
        ])
        let kept = ProxyHeaders.forwardable(headers, dropping: ["x-mockd-session"])
        #expect(kept.map(\.name) == ["Accept", "Set-Cookie", "Set-Cookie"])
    }

    @Test func proxiedResponsesAreLiteralAndFailuresNameTheUpstream() throws {
        let upstream = UpstreamResponse(
            status: 200,
            headers: HTTPHeaders([("Content-Length", "12"), ("X-A", "{{token}}")]),
            body: Data("{{email}} ok".utf8)
        )
        let response = MockResponse.proxied(upstream)
        #expect(response.headers.map(\.name) == ["X-A"])
        #expect(response.template == nil)
        #expect(response.body == Data("{{email}} ok".utf8))
        let failed = MockResponse.upstreamFailed(
            UpstreamFailure(.timeout, "Operation timed out"),
            upstream: "https://api.example.com"
        )
        #expect(failed.status == 504)
        #expect(
            String(decoding: failed.body, as: UTF8.self)
                == #"{"error":"upstream_timeout","message":"Operation timed out","upstream":"https://api.example.com"}"#
                + "\n"
        )
        #expect(MockResponse.upstreamFailed(UpstreamFailure(.unreachable, "refused"), upstream: "x").status == 502)
    }

    @Test func harEntriesDecodeBodiesAndKeepFailuresWithTheirError() throws {
        let gzip = Data(base64Encoded: "H4sIAAAAAAACA6tWSs7PLShKLS5OTVGyKikqTa0FAPHqOZUTAAAA")!
        let document = RecordingHAR.document([
            exchange(
                order: 2,
                target: "/fail",
                result: .failure(UpstreamFailure(.unreachable, "Couldn't connect to server"))
            ),
            exchange(
                order: 0,
                target: "/gz?a=1",
                result: .success(
                    UpstreamResponse(
                        status: 200,
                        headers: HTTPHeaders([("Content-Type", "application/json"), ("Content-Encoding", "gzip")]),
                        body: gzip
                    )
                )
            ),
            exchange(
                order: 1,
                method: "POST",
                target: "/bin",
                body: Data("x=1".utf8),
                result: .success(
                    UpstreamResponse(
                        status: 201,
                        headers: HTTPHeaders([("Content-Type", "text/plain; charset=iso-8859-1")]),
                        body: Data([0x63, 0x61, 0x66, 0xE9])
                    )
                )
            ),
        ])
        let log = try #require(
            (try JSONSerialization.jsonObject(with: document) as? [String: Any])?["log"] as? [String: Any]
        )
        #expect(log["version"] as? String == "1.2")
        let entries = try #require(log["entries"] as? [[String: Any]])
        #expect(
            entries.map { ($0["request"] as? [String: Any])?["url"] as? String } == [
                "https://api.example.com/gz?a=1", "https://api.example.com/bin", "https://api.example.com/fail",
            ]
        )
        let gzContent = try #require((entries[0]["response"] as? [String: Any])?["content"] as? [String: Any])
        #expect(gzContent["text"] as? String == #"{"compressed":true}"#)
        #expect((entries[0]["response"] as? [String: Any])?["bodySize"] as? Int == gzip.count)
        let binContent = try #require((entries[1]["response"] as? [String: Any])?["content"] as? [String: Any])
        #expect(binContent["encoding"] as? String == "base64")
        #expect(binContent["text"] as? String == Data([0x63, 0x61, 0x66, 0xE9]).base64EncodedString())
        #expect(((entries[1]["request"] as? [String: Any])?["postData"] as? [String: Any])?["text"] as? String == "x=1")
        let failed = try #require(entries[2]["response"] as? [String: Any])
        #expect(failed["status"] as? Int == 0)
        #expect(failed["_error"] as? String == "Couldn't connect to server")

        // The importer reads it back: the failed entry is skipped and reported, the others compile.
        var compiler = HARCompiler()
        _ = try HARStreamReader().parse(document, fileName: "rec.har") { compiler.add($0) }
        let (build, report) = compiler.finish()
        #expect(build.file.stubs.map(\.id) == ["GET_gz__a-1", "POST_bin"])
        #expect(
            report.skipped == [
                ImportReport.Skip(index: 2, reason: "failed request (Couldn't connect to server, status 0)")
            ]
        )
    }

    @Test func aFlushWhoseSetCouldNotBeWrittenIsWrittenByTheNextOne() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "mockd-recorder-\(UUID().uuidString)"
        )
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // A file where the mocks/ folder belongs: the set cannot be written.
        try Data().write(to: folder.appendingPathComponent("mocks"))
        let recorder = Recorder(
            set: "x",
            root: MockdRoot(url: folder),
            harURL: folder.appendingPathComponent("r.har"),
            existing: .create,
            upstream: "http://u"
        )
        recorder.add(
            exchange(
                order: 0,
                target: "/v1/me",
                result: .success(UpstreamResponse(status: 200, headers: HTTPHeaders(), body: Data("me".utf8)))
            )
        )
        #expect(throws: MockSetWriteError.self) { try recorder.flush() }
        try FileManager.default.removeItem(at: folder.appendingPathComponent("mocks"))
        let retried = try recorder.flush()
        #expect(retried.setWritten)
        #expect(retried.report.hasPrefix("imported r.har into mocks/x/"))
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("mocks/x/index.json").path))
    }

    @Test func flushWithNothingRecordedWritesNothing() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "mockd-recorder-\(UUID().uuidString)"
        )
        defer { try? FileManager.default.removeItem(at: folder) }
        let recorder = Recorder(
            set: "x",
            root: MockdRoot(url: folder),
            harURL: folder.appendingPathComponent("r.har"),
            existing: .create,
            upstream: "http://u"
        )
        let result = try recorder.flush()
        #expect(result.entries == 0 && !result.setWritten)
        #expect(!FileManager.default.fileExists(atPath: folder.path))
        #expect(recorder.nextOrder() == 0 && recorder.nextOrder() == 1)
    }
}
