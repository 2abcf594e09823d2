import Foundation
import MockdFormat
import MockdTestSupport
import Testing

@testable import MockdCore

/// `HARStreamReader` against the whole-file `HARReader`: same entries, same errors, any chunk size.
struct HARStreamReaderTests {
    /// Streams `data` in chunks of `chunkSize`; the entries and what the reader returned.
    static func stream(_ data: Data, chunkSize: Int, fileName: String = "x.har") throws -> (HARLogInfo, [HAREntry]) {
        var entries: [HAREntry] = []
        let info = try HARStreamReader(chunkSize: chunkSize).parse(data, fileName: fileName) { entries.append($0) }
        return (info, entries)
    }

    /// The one-line error of a failing read, or `nil` when it succeeds.
    static func errorLine(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            return String(describing: error)
        }
    }

    static let chunkSizes = [4, 7, 64, HARStreamReader.defaultChunkSize]

    @Test func stringsWithEscapesStraddleEveryChunkBoundary() throws {
        // Escaped quotes and backslashes (`\"`, `\\`, `\\\"`) land on every byte offset of 7-byte chunks as the
        // padding grows.
        let text = #"{\"q\": \"a\\\"b\\\\\", \"p\": \"\\\\\"}"#
        for padding in 0..<7 {
            let entry = HARReaderTests.entry(
                url: "https://api.example.com/v1/\(String(repeating: "x", count: padding))",
                content: #"{"mimeType": "application/json", "text": "\#(text)"}"#
            )
            let data = HARReaderTests.har([entry, entry].joined(separator: ",\n"))
            let whole = try HARReader.parse(data, fileName: "x.har")
            for chunkSize in [4, 5, 7, 8, 13] {
                let (info, entries) = try Self.stream(data, chunkSize: chunkSize)
                #expect(info == HARLogInfo(version: "1.2", creator: "test 1", entryCount: 2))
                #expect(entries.map(\.response?.content.text) == whole.entries.map(\.response?.content.text))
                #expect(
                    entries.map(\.response?.content.text) == Array(repeating: #"{"q": "a\"b\\", "p": "\\"}"#, count: 2)
                )
                #expect(
                    entries.map(\.request.url)
                        == Array(
                            repeating: "https://api.example.com/v1/\(String(repeating: "x", count: padding))",
                            count: 2
                        )
                )
                #expect(entries.map(\.index) == [0, 1])
                #expect(entries.map(\.time) == [12.6, 12.6])
            }
        }
    }

    @Test func versionAndCreatorAfterTheEntriesAndLenientShapes() throws {
        // HAR 1.1, no pages, `cache` as an array, a NaN date, extra `_fields`, a number for the version, a BOM,
        // non-object elements (reported as entries without a method).
        let text = """
            {"_exporter": {"x": [1, 2, {"y": "]}"}]}, "log": {"entries": [
              {"startedDateTime": "NaN-NaN-NaNTNaN:NaN:NaN.NaNZ", "time": -1, "cache": [], "_priority": "High",
               "request": {"method": "GET", "url": "https://a.example/one", "headers": []},
               "response": {"status": 200, "headers": [], "content": {"text": "1"}}},
              null, 7,
            ],
            "pages": [], "version": 1.1, "comment": "x", "creator": {"name": "Firebug", "version": "1.6"}}}
            """
        let data = Data([0xEF, 0xBB, 0xBF]) + Data(text.utf8)
        let whole = try HARReader.parse(data, fileName: "x.har")
        for chunkSize in Self.chunkSizes {
            let (info, entries) = try Self.stream(data, chunkSize: chunkSize)
            #expect(info == HARLogInfo(version: "1.1", creator: "Firebug 1.6", entryCount: 3))
            #expect(whole.version == "1.1" && whole.creator == "Firebug 1.6")
            #expect(entries.map(\.request.url) == ["https://a.example/one", "", ""])
            #expect(entries.map(\.request.method) == ["GET", "", ""])
            #expect(entries[0].startedDateTime == nil)
            #expect(entries[0].time == nil)
            #expect(entries[0].response?.content.text == "1")
        }
    }

    /// Broken and non-HAR documents: the streamed error is the whole-file error, at every chunk size.
    static let brokenDocuments: [String] = [
        "", "   \n  ", "\u{FEFF}",
        #"{"log": {"version": "1.2"}}"#, #"{"log": {"entries": {}}}"#, #"{"log": {"entries": null}}"#,
        #"{"entries": []}"#,
        #"{"log": null}"#, #"{"log": [1, 2]}"#, #"{"log": "x"}"#, #"[1, 2]"#, "42", "  null", #""x" junk"#, "x",
        "onInputData({\"log\": {\"entries\": []}});", "{\"log\":\n[\n    2,1,3\n]\n\"request:\"}",
        "{\n\"log\": {\n\"entries\": [\n", #"{"log": {"entries": [{"a": "b\""#, #"{"log": {"entries": [{"a": 1}]"#,
        #"{"log": {"entries": [{"a": 1}]}}xx"#, "{\"log\":{\"entries\":[{\"a\":1}\n,\n {\"b\":tru}]}}",
        "{\"log\":{\"entries\":[{\"a\":\"\u{1}\"}]}}", #"{"log":{"entries":[{"x":"\q"}]}}"#,
        #"{"log":{"entries":[{"x":1} {"y":2}]}}"#,
        #"{"log":{"entries":[{"x":1},,{"y":2}]}}"#, #"{"log":{"entries":[,]}}"#, #"{"log":{"entries":[{"x":[1}]}}"#,
        #"{"log":{"entries":[tru]}}"#, #"{"log":{"entries":[1x]}}"#, #"{"log":{"entries":[nul, 1]}}"#,
        #"{"log":{"entries":[01]}}"#,
        #"{"log":{"entries":[], "version": tru}}"#, #"{"log":{"entries":[], "version": tru }}"#,
        #"{"log":{"version": 1.5.3, "entries":[]}}"#,
        #"{"log":{"entries":[], "version": -}}"#, #"{"log":{"entries":[] "version": 1}}"#,
        #"{"log":{"entries":[]}} , "#,
        #"{"log":{"entries":[]},}"#, #"{"log":{"entries":[],}}"#, #"{"log":{"entries":[1,]}}"#, #"{,}"#, #"{"log" {}}"#,
        #"{1: 2}"#,
        #"{"log":{"entries":[]}"#, #"{"log":{"entries":[]"#, #"{"log":{"entries":"#, #"{"log":{"entr"#, #"{"log""#, "{",
        "{\"log\":{\"entries\":[{\"a\":\"x\\ud800\"}]}}", #"{"log":{"entries":[{"a":"\u12"}]}}"#,
        "{\"log\":{\"entries\":[]}}\u{1}",
        "{\"log\":{\"entries\":[{\"a\":1}\u{7F}]}}", "{\u{0C}\"log\":{\"entries\":[]}}",
        #"{"log":{"entries":[{"a":NaN}]}}"#,
        #"{"log":{"entries":[], "pages": [{"id": 1,}, {"id": }]}}"#, "{\"a\": \"\n\", \"log\": {\"entries\": []}}",
        #"{"log":{"entries":[]}, "log": 5}"#, #"{"log": 5, "log":{"entries":[]}}"#,
    ]

    @Test(arguments: brokenDocuments)
    func brokenDocumentFailsAsTheWholeFileParseDoes(_ text: String) throws {
        let data = Data(text.utf8)
        let expected = Self.errorLine { _ = try HARReader.parse(data, fileName: "x.har") }
        for chunkSize in Self.chunkSizes {
            let streamed = Self.errorLine { _ = try Self.stream(data, chunkSize: chunkSize) }
            #expect(streamed == expected, "chunk size \(chunkSize)")
        }
    }

    /// A small HAR cut at every length, and with each byte replaced by punctuation that breaks it: every
    /// variant fails (or succeeds) exactly as the whole-file parse does.
    @Test func everyTruncationAndCorruptionMatchesTheWholeFileParse() throws {
        let text = """
            {"log": {"version": "1.2", "creator": {"name": "t", "version": "1"},
              "entries": [{"request": {"method": "GET", "url": "https://a.example/x?q=\\u00e9", "headers": []},
                "response": {"status": 200, "headers": [{"name": "A", "value": "b\\"c"}], "content": {"text": "[1, {\\"k\\": null}]", "size": -1.5e3}}, "time": true},
               {"request": {"method": "POST", "url": "https://a.example/y"}, "response": null}],
              "pages": [], "comment": ""}, "_x": [false, {"y": [[]]}]}
            """
        let data = Data(text.utf8)
        #expect(try Self.stream(data, chunkSize: 7).0.entryCount == 2)
        var variants: [Data] = (0..<data.count).map { data.prefix($0) }
        for position in 0..<data.count {
            for byte in Array("}]\",x".utf8) where data[position] != byte {
                var copy = data
                copy[position] = byte
                variants.append(copy)
            }
        }
        var mismatches: [String] = []
        for variant in variants {
            let expected = Self.errorLine { _ = try HARReader.parse(variant, fileName: "x.har") }
            for chunkSize in [7, 64] {
                let streamed = Self.errorLine { _ = try Self.stream(variant, chunkSize: chunkSize) }
                if streamed != expected {
                    mismatches.append(
                        "\(String(decoding: variant, as: UTF8.self)): \(streamed ?? "ok") ≠ \(expected ?? "ok")"
                    )
                }
            }
        }
        #expect(
            mismatches.isEmpty,
            "\(mismatches.count) of \(variants.count * 2): \(mismatches.prefix(3).joined(separator: "\n"))"
        )
    }

    @Test(arguments: [
        (
            "{\n\"log\": {\n\"entries\": [\n",
            "x.har: not a HAR file: invalid JSON at line 3 (Unexpected end of file during JSON parse.)"
        ),
        (
            "{\"log\": {\"entries\": [\n{\"a\": \"b\n\n",
            "x.har: not a HAR file: invalid JSON at line 2 (Unescaped control character around character 30.)"
        ),
        (
            "{\"log\": {\"entries\": [\n{\"a\": [1,\n\n",
            "x.har: not a HAR file: invalid JSON at line 2 (Unexpected end of file during JSON parse.)"
        ),
        (
            "{\"log\":\n[\n    2,1,3\n]\n\"request:\"}",
            "x.har: not a HAR file: invalid JSON at line 5 (Invalid value around character 22.)"
        ),
        (
            "{\"log\": {\"entries\": [{},\n{},\n{\"x\": tru}]}}",
            "x.har: not a HAR file: invalid JSON at line 3 (Invalid value around character 38.)"
        ),
        ("", "x.har: not a HAR file: the file is empty"),
        ("{\"log\": {\"entries\": 5}}", "x.har: log.entries: expected an array, found a number or boolean"),
    ])
    func errorsNameTheLine(_ text: String, _ message: String) throws {
        for chunkSize in Self.chunkSizes {
            #expect(Self.errorLine { _ = try Self.stream(Data(text.utf8), chunkSize: chunkSize) } == message)
        }
        #expect(Self.errorLine { _ = try HARReader.parse(Data(text.utf8), fileName: "x.har") } == message)
        // The same text saved as UTF-16 or UTF-32 names the same line and character.
        for encoding in Self.wideEncodings {
            let data = try #require(text.data(using: encoding))
            #expect(Self.errorLine { _ = try Self.stream(data, chunkSize: 7) } == message, "\(encoding)")
        }
    }

    /// What Windows tools save JSON as (with a byte order mark, or without one and told apart by the zero bytes).
    static let wideEncodings: [String.Encoding] = [
        .utf16, .utf16LittleEndian, .utf16BigEndian, .utf32, .utf32LittleEndian, .utf32BigEndian,
    ]

    /// A broken document saved as UTF-16 or UTF-32 fails exactly as in UTF-8: Foundation's offsets count its UTF-8
    /// copy, so lines were once counted in the wide bytes (line 173 of a 268-line HAR).
    @Test(arguments: brokenDocuments)
    func brokenWideDocumentFailsAsInUTF8(_ text: String) throws {
        let expected = Self.errorLine { _ = try HARReader.parse(Data(text.utf8), fileName: "x.har") }
        for encoding in Self.wideEncodings {
            let data = try #require(text.data(using: encoding))
            #expect(Self.errorLine { _ = try Self.stream(data, chunkSize: 64) } == expected, "\(encoding)")
        }
    }

    @Test func utf16FileIsReadWhole() throws {
        let text = #"{"log": {"entries": [{"request": {"method": "GET", "url": "https://a.example/x"}}]}}"#
        let data = try #require(text.data(using: .utf16))
        let (info, entries) = try Self.stream(data, chunkSize: 7)
        #expect(info.entryCount == 1)
        #expect(entries.map(\.request.url) == ["https://a.example/x"])
    }

    @Test func fileIsReadInChunksWithProgress() throws {
        let folder = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("p.har")
        let data = HARReaderTests.har(
            (0..<20).map { HARReaderTests.entry(url: "https://a.example/\($0)") }.joined(separator: ",")
        )
        try data.write(to: file)
        var reports: [HARStreamReader.Progress] = []
        var urls: [String] = []
        let info = try HARStreamReader(chunkSize: 1000).read(
            contentsOf: file,
            progress: { reports.append($0) },
            entry: { urls.append($0.request.url) }
        )
        #expect(info.entryCount == 20)
        #expect(urls == (0..<20).map { "https://a.example/\($0)" })
        #expect(reports.map(\.bytesRead) == Array(stride(from: 1000, to: data.count, by: 1000)) + [data.count])
        #expect(reports.allSatisfy { $0.totalBytes == data.count })
        #expect(reports.last?.entries == 20)
        #expect(reports.map(\.entries) == reports.map(\.entries).sorted())
    }

    /// Reads `data` from a named pipe (`mkfifo`), written by another thread, as `gunzip -c x.har.gz | mockd
    /// import-har /dev/stdin` hands it over: the entries, the progress reports and the error, if any.
    static func readThroughPipe(
        _ data: Data,
        chunkSize: Int
    ) throws -> (entries: [HAREntry], reports: [HARStreamReader.Progress], error: String?) {
        let folder = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let pipe = folder.appendingPathComponent("in.har")
        let made = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/mkfifo"), [pipe.path])
        #expect(made.status == 0, "\(made.stderr)")
        let writer = Thread {
            // Opening a pipe for writing waits for its reader.
            guard let handle = FileHandle(forWritingAtPath: pipe.path) else { return }
            try? handle.write(contentsOf: data)
            try? handle.close()
        }
        writer.start()
        var entries: [HAREntry] = []
        var reports: [HARStreamReader.Progress] = []
        let error = errorLine {
            _ = try HARStreamReader(chunkSize: chunkSize).read(
                contentsOf: pipe,
                displayName: "x.har",
                progress: { reports.append($0) },
                entry: { entries.append($0) }
            )
        }
        return (entries, reports, error)
    }

    @Test func aPipeIsStreamedWithoutAKnownSize() throws {
        let data = HARReaderTests.har(
            (0..<20).map { HARReaderTests.entry(url: "https://a.example/\($0)") }.joined(separator: ",")
        )
        let (entries, reports, error) = try Self.readThroughPipe(data, chunkSize: 1000)
        #expect(error == nil)
        #expect(entries.map(\.request.url) == (0..<20).map { "https://a.example/\($0)" })
        // Read chunk by chunk (a pipe hands over at most what was written so far: chunks may be shorter).
        #expect(reports.count >= data.count / 1000)
        #expect(reports.last?.bytesRead == data.count)
        #expect(reports.allSatisfy { $0.totalBytes == 0 })
        #expect(reports.last?.entries == 20)
    }

    @Test func aPipeFailsAsTheFileDoes() throws {
        let entries = (0..<3).map { HARReaderTests.entry(url: "https://a.example/\($0)") }.joined(separator: ",")
        let utf16 = try #require(String(decoding: HARReaderTests.har(entries), as: UTF8.self).data(using: .utf16))
        let documents =
            [utf16, Data("[1, 2]".utf8), Data()] + Self.brokenDocuments.prefix(12).map { Data($0.utf8) }
            + [HARReaderTests.har(entries).prefix(700)]
        for document in documents {
            let expected = Self.errorLine { _ = try HARReader.parse(document, fileName: "x.har") }
            let piped = try Self.readThroughPipe(document, chunkSize: 64)
            #expect(piped.error == expected, "\(String(decoding: document.prefix(40), as: UTF8.self))")
        }
        #expect(try Self.readThroughPipe(utf16, chunkSize: 64).entries.count == 3)
    }

    @Test func missingFileFailsAsBefore() {
        #expect(
            Self.errorLine {
                _ = try HARStreamReader().read(contentsOf: URL(fileURLWithPath: "/nonexistent/x.har")) { _ in }
            }
                == "/nonexistent/x.har: file not found"
        )
        #expect(
            Self.errorLine { _ = try HARStreamReader().read(contentsOf: URL(fileURLWithPath: "/tmp")) { _ in } }
                == Self.errorLine { _ = try HARReader.read(contentsOf: URL(fileURLWithPath: "/tmp")) }
        )
    }

    @Test func offsetsInParserMessagesAreShifted() {
        #expect(
            HARStreamScanner.shiftingOffsets(in: "Invalid value around character 7.", by: 100)
                == "Invalid value around character 107."
        )
        #expect(
            HARStreamScanner.shiftingOffsets(in: "Invalid UTF-8 sequence 1 bytes starting from character 6.", by: -1)
                == "Invalid UTF-8 sequence 1 bytes starting from character 5."
        )
        #expect(
            HARStreamScanner.shiftingOffsets(in: #"Invalid hex encoded sequence in "12"}" at 9."#, by: 18)
                == #"Invalid hex encoded sequence in "12"}" at 27."#
        )
        #expect(
            HARStreamScanner.shiftingOffsets(in: "Unexpected end of file during JSON parse.", by: 9)
                == "Unexpected end of file during JSON parse."
        )
    }
}

/// Every corpus HAR: the streamed import builds exactly the mock set of the whole-file import.
struct HARStreamCorpusTests {
    /// What the whole-file reader said about the corpus files that are not importable HARs (before streaming).
    static let invalidMessages: [String: String] = [
        "mitmproxy__brokenfile.har":
            "mitmproxy__brokenfile.har: not a HAR file: invalid JSON at line 5 (Invalid value around character 22.)",
        "harviewer__jsonp.har":
            "harviewer__jsonp.har: not a HAR file: it is wrapped in JSONP `onInputData(…)`; export plain HAR JSON instead",
        "harviewer__not-valid.har": "harviewer__not-valid.har: log.entries: missing; a HAR log must list its entries",
    ]

    @Test(arguments: Paths.corpusHARFiles(for: "HARStreamCorpusTests"))
    func streamedBuildEqualsWholeFileBuild(_ url: URL) throws {
        let name = url.lastPathComponent
        if let message = Self.invalidMessages[name] {
            #expect(
                HARStreamReaderTests.errorLine { _ = try HARReader.read(contentsOf: url, displayName: name) } == message
            )
            for chunkSize in [7, 4096, HARStreamReader.defaultChunkSize] {
                let streamed = HARStreamReaderTests.errorLine {
                    _ = try HARStreamReader(chunkSize: chunkSize).read(contentsOf: url, displayName: name) { _ in }
                }
                #expect(streamed == message, "chunk size \(chunkSize)")
            }
            return
        }
        let archive = try HARReader.read(contentsOf: url)
        let folder = url.deletingLastPathComponent()
        let (expected, expectedReport) = HARImporter.build(archive, harDirectory: folder)
        for chunkSize in [4096, HARStreamReader.defaultChunkSize] {
            var compiler = HARCompiler(harDirectory: folder)
            let info = try HARStreamReader(chunkSize: chunkSize).read(contentsOf: url) { compiler.add($0) }
            let (build, report) = compiler.finish()
            #expect(
                info
                    == HARLogInfo(version: archive.version, creator: archive.creator, entryCount: archive.entries.count)
            )
            #expect(build.file == expected.file, "\(name), chunk size \(chunkSize)")
            #expect(build.files == expected.files, "\(name), chunk size \(chunkSize)")
            #expect(report == expectedReport, "\(name), chunk size \(chunkSize)")
        }
        print(
            "stream \(name): \(archive.entries.count) entries, \(expected.file.stubs.count) stubs, \(expected.files.count) files identical"
        )
    }
}
