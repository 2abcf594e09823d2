import Foundation
import MockdFormat
import MockdTestSupport
import Testing

@testable import MockdCore

/// What each HAR producer writes that the spec does not say, and what the importer makes of it: real corpus
/// files where the quirk was found in the wild, small hand-made entries otherwise.
struct ProducerQuirkTests {
    /// Imports a corpus file in memory; `nil` (with the skip message printed) when the corpus is absent.
    private func corpus(
        _ name: String,
        options: HARImportOptions = HARImportOptions()
    ) throws -> (HARArchive, MockSetBuild, ImportReport)? {
        guard let folder = Paths.corpus else {
            Skip.missing(
                .corpus,
                test: "ProducerQuirkTests \(name)",
                "corpus not found (../shared/corpus or $MOCKD_CORPUS)"
            )
            return nil
        }
        let url = folder.appendingPathComponent("har/\(name)")
        let archive = try HARReader.read(contentsOf: url)
        let (build, report) = HARImporter.build(
            archive,
            options: options,
            harDirectory: url.deletingLastPathComponent()
        )
        return (archive, build, report)
    }

    private func body(_ build: MockSetBuild, stub: Int = 0, step: Int = 0) -> Data {
        build.file.stubs[stub].responses[step].bodyFile.flatMap { build.files[$0] } ?? Data()
    }

    private func handMade(
        _ entries: [String],
        options: HARImportOptions = HARImportOptions()
    ) throws -> (MockSetBuild, ImportReport) {
        let archive = try HARReader.parse(HARReaderTests.har(entries.joined(separator: ",")), fileName: "t.har")
        return HARImporter.build(archive, options: options)
    }

    @Test func pollyHexBinaryIsDecoded() throws {
        guard let (archive, build, report) = try corpus("pollyjs__should-be-able-to-download-binary-content.har") else {
            return
        }
        let hex = try #require(archive.entries[0].response?.content.text)
        let served = body(build)
        #expect(served.count == hex.utf8.count / 2)
        #expect(served.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        #expect(build.file.stubs[0].responses[0].bodyFile == "bodies/GET_150_92c952.png")
        #expect(
            report.bodyNotes == [.init(note: "binary body written as a hex string (Polly.js); decoded", entries: [0])]
        )
    }

    @Test func pollyGzipHeaderOverDecodedTextKeepsTheText() throws {
        guard let (archive, build, report) = try corpus("pollyjs__should-handle-a-compressed-response.har") else {
            return
        }
        let text = try #require(archive.entries[0].response?.content.text)
        #expect(body(build) == Data(text.utf8))
        #expect(report.bodyNotes.isEmpty)
        #expect(report.warnings.contains { $0.contains("content-encoding ×1 (bodies are stored decoded)") })
    }

    @Test func corruptGzipIsKeptAsRecordedAndReported() throws {
        guard let (archive, build, report) = try corpus("mitmproxy__corrupted_gzip_body.har") else { return }
        let text = try #require(archive.entries[0].response?.content.text)
        let recorded = try #require(Data(base64Encoded: text))
        #expect(body(build) == recorded)
        #expect(
            report.bodyNotes == [
                .init(
                    note: "body is not valid gzip data; kept exactly as recorded and served without Content-Encoding",
                    entries: [0]
                )
            ]
        )
    }

    @Test func contentEncodingThatIsNotACodingLeavesTheBody() throws {
        guard let (archive, build, report) = try corpus("mitmproxy__invalid_content_encoding.har") else { return }
        let text = try #require(archive.entries[0].response?.content.text)
        #expect(body(build) == Data(text.utf8))
        #expect(report.bodyNotes.isEmpty)
    }

    @Test func playwrightSideFileMissingIsReported() throws {
        guard let (_, build, report) = try corpus("playwright__har-sha1.har") else { return }
        #expect(build.file.stubs.count == 1)
        #expect(
            report.bodyNotes == [
                .init(
                    note: "content._file 'har-sha1-main-response.txt' not found next to the HAR; served empty",
                    entries: [0]
                )
            ]
        )
    }

    @Test func playwrightFailedAttemptSkippedOrKeptAsReset() throws {
        guard let (_, skipped, report) = try corpus("playwright__har-unstable-network.har") else { return }
        #expect(report.skipped.map(\.reason) == ["failed request (status -1: no answer from the server)"])
        #expect(skipped.file.stubs[0].responses.count == 1)
        var options = HARImportOptions()
        options.failed = .keep
        guard let (_, kept, _) = try corpus("playwright__har-unstable-network.har", options: options) else { return }
        #expect(kept.file.stubs[0].responses.map(\.fault) == [.connectionReset, nil])
        #expect(kept.file.stubs[0].responses.map(\.status) == [nil, 200])
    }

    /// Chrome recorded `net::ERR_INTERNET_DISCONNECTED` for a page load made offline: kept, it is the `offline` client
    /// fault, so an app through MockdAppRedirect sees `URLError.notConnectedToInternet` where the browser saw no
    /// connection.
    @Test func chromeOfflineAttemptKeptAsTheClientFault() throws {
        var options = HARImportOptions()
        options.failed = .keep
        guard let (_, kept, report) = try corpus("mitmproxy__chrome.har", options: options) else { return }
        let google = try #require(
            kept.file.stubs.first { $0.request.path == "/" && $0.request.host == "www.google.com" }
        )
        #expect(google.responses.map(\.fault) == [.offline])
        #expect(google.responses.map(\.status) == [nil])
        #expect(report.skipped.isEmpty)
        #expect(
            report.notes.contains(
                "failed attempts replayed as the failure the client saw, which MockdAppRedirect raises as its URLError (other clients get a reset, or no answer for timeout): offline (entry 2)"
            )
        )
    }

    /// Each producer's name for a failure only the client sees, and what is not one.
    @Test(arguments: [
        ("net::ERR_INTERNET_DISCONNECTED", Fault.offline), ("NS_ERROR_OFFLINE", .offline),
        ("net::ERR_NAME_NOT_RESOLVED", .dnsFailure), ("NS_ERROR_UNKNOWN_HOST", .dnsFailure),
        ("net::ERR_CERT_AUTHORITY_INVALID", .tlsFailure), ("net::ERR_SSL_PROTOCOL_ERROR", .tlsFailure),
        ("SEC_ERROR_UNKNOWN_ISSUER", .tlsFailure), ("net::ERR_CONNECTION_TIMED_OUT", .timeout),
        ("NS_ERROR_NET_TIMEOUT", .timeout), ("net::ERR_ABORTED", .cancelled), ("NS_BINDING_ABORTED", .cancelled),
    ])
    func recordedClientFailures(_ error: String, _ fault: Fault) {
        #expect(RecordedFailure.clientFault(error) == fault)
    }

    @Test func otherRecordedFailuresAreNoClientFault() {
        for error in [
            "net::ERR_CONNECTION_RESET", "net::ERR_EMPTY_RESPONSE", "NS_ERROR_NET_RESET", "", "upstream timed out",
        ] {
            #expect(RecordedFailure.clientFault(error) == nil, "\(error)")
        }
        #expect(RecordedFailure.clientFault(nil) == nil)
    }

    @Test func advancedRESTClientEncodingUTF8IsText() throws {
        guard let (_, _, report) = try corpus("har2locust__string-problematic-characters.har") else { return }
        #expect(
            report.bodyNotes == [.init(note: "content.encoding 'utf-8' is not base64; body kept as text", entries: [0])]
        )
    }

    /// HAR 1.1 (Firebug, IE11, WebPagetest), garbage `httpVersion`s, `NaN` dates, no `pages`, `cache` as an
    /// array: all import, with these exact counts.
    @Test(arguments: [
        ("harviewer__har-viewer-1.1.har", 54, 0), ("harviewer__ie11.har", 10, 0),
        ("perfcascade__wpt_h2_www.nghttp2.org.har", 19, 0),
        ("har-reader__sstoehr.invalid-date.har", 8, 0), ("mitmproxy__charles.har", 1, 0),
        ("gatling__null_status.har", 2, 1),
        ("mitmproxy__chrome.har", 2, 1), ("harviewer__ie11.fiddler.har", 7, 0), ("mitmproxy__insomnia.har", 1, 0),
        ("har-replay__replay-test-1.har", 3, 0), ("gatling__charles42-multipart.har", 2, 0),
        ("gatling__firefox56-redirect-post.har", 2, 0),
    ])
    func oddShapesImport(_ name: String, stubs: Int, skipped: Int) throws {
        guard let (_, build, report) = try corpus(name) else { return }
        #expect(build.file.stubs.count == stubs, "\(name)")
        #expect(report.skipped.count == skipped, "\(name): \(report.skipped)")
    }

    /// IE11 wrote no validators on the requests its 304s answered: each 304 stays in its place in the sequence as a
    /// step that answers conditional requests, a plain request there getting the full response recorded beside it.
    @Test func ie11RecordedNo304RequestHeadersSoItsSetAnswersConditionalsOnly() throws {
        guard let (_, build, report) = try corpus("harviewer__ie11.har") else { return }
        #expect(report.notModifiedAsConditional == 14)
        #expect(build.file.conditionalRequests == true)
        let notModified = build.file.stubs.flatMap(\.responses).filter { $0.status == 304 }
        #expect(notModified.count == 14)
        #expect(notModified.allSatisfy { $0.conditionalOnly == true && $0.miss == nil })
        // Ten of them were recorded without the request's validators, four with them.
        #expect(notModified.filter { $0.validators != nil }.count == 4)
        #expect(
            build.file.stubs.filter { $0.responses.contains { $0.status == 304 } }.allSatisfy {
                $0.responses.contains { $0.status == 200 }
            }
        )
    }

    @Test func compressedBodiesRecordedAsBase64AreDecoded() throws {
        let (build, report) = try handMade([
            HARReaderTests.entry(
                url: "https://a.test/gz",
                responseHeaders: #"[{"name": "Content-Encoding", "value": "gzip"}]"#,
                content:
                    #"{"mimeType": "text/plain", "text": "H4sIAAAAAAACA8tIzcnJV0ivyiwAABlq0t8KAAAA", "encoding": "base64"}"#
            ),
            HARReaderTests.entry(
                url: "https://a.test/br",
                responseHeaders: #"[{"name": "Content-Encoding", "value": "br"}]"#,
                content:
                    #"{"mimeType": "application/json", "text": "iw+AeyJncmVldGluZyI6ImhlbGxvIGZyb20gYnJvdGxpIn0D", "encoding": "base64"}"#
            ),
        ])
        #expect(String(decoding: body(build, stub: 0), as: UTF8.self) == "hello gzip")
        #expect(String(decoding: body(build, stub: 1), as: UTF8.self) == #"{"greeting":"hello from brotli"}"#)
        #expect(
            report.bodyNotes.map(\.note) == [
                "body was recorded still gzip-compressed; stored decoded",
                "body was recorded still br-compressed; stored decoded",
            ]
        )
    }

    @Test func textIsWrittenInItsDeclaredCharset() throws {
        let (build, report) = try handMade([
            HARReaderTests.entry(
                url: "https://a.test/latin",
                content: #"{"mimeType": "text/html; charset=ISO-8859-1", "text": "café"}"#
            ),
            HARReaderTests.entry(
                url: "https://a.test/cp1252",
                content: #"{"mimeType": "text/plain; charset=windows-1252", "text": "€5"}"#
            ),
            HARReaderTests.entry(
                url: "https://a.test/koi",
                content: #"{"mimeType": "text/plain; charset=koi8-r", "text": "привет"}"#
            ),
            HARReaderTests.entry(
                url: "https://a.test/ascii",
                content: #"{"mimeType": "text/plain; charset=iso-8859-1", "text": "plain"}"#
            ),
        ])
        #expect(body(build, stub: 0) == Data([0x63, 0x61, 0x66, 0xE9]))
        #expect(body(build, stub: 1) == Data([0x80, 0x35]))
        #expect(body(build, stub: 2) == Data("привет".utf8))
        #expect(body(build, stub: 3) == Data("plain".utf8))
        #expect(
            report.bodyNotes == [
                .init(note: "text re-encoded in its declared charset iso-8859-1", entries: [0]),
                .init(note: "text re-encoded in its declared charset windows-1252", entries: [1]),
                .init(note: "charset 'koi8-r' is not supported; body stored as UTF-8", entries: [2]),
            ]
        )
    }

    @Test func unflaggedBase64ImagesAndChromeInternalRedirects() throws {
        let (build, report) = try handMade([
            HARReaderTests.entry(
                url: "https://a.test/dot.png",
                content: #"{"mimeType": "image/png", "text": "iVBORw0KGgo="}"#
            ),
            HARReaderTests.entry(
                url: "http://a.test/",
                status: "307",
                responseHeaders:
                    #"[{"name": "Location", "value": "https://a.test/"}, {"name": "Non-Authoritative-Reason", "value": "HSTS"}]"#
            ),
            HARReaderTests.entry(
                url: "https://a.test/moved",
                status: "307",
                responseHeaders: #"[{"name": "Location", "value": "https://b.test/"}]"#
            ),
        ])
        #expect(body(build, stub: 0) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        #expect(report.skipped.map(\.reason) == ["Chrome internal redirect (307 made by the browser, not the server)"])
        #expect(build.file.stubs.map(\.request.path) == ["/dot.png", "/moved"])
        #expect(report.bodyNotes.map(\.note) == ["binary body is base64 without content.encoding; decoded"])
    }
}
