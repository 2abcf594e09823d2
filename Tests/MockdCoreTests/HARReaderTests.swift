import Foundation
import Testing

@testable import MockdCore

struct HARReaderTests {
    static func har(_ entries: String) -> Data {
        Data(
            #"{"log": {"version": "1.2", "creator": {"name": "test", "version": "1"}, "entries": [\#(entries)]}}"#.utf8
        )
    }

    static func entry(
        method: String = "GET",
        url: String = "https://api.example.com/v1/items",
        requestHeaders: String = "[]",
        postData: String? = nil,
        status: String = "200",
        responseHeaders: String = "[]",
        content: String = #"{"size": 2, "mimeType": "application/json", "text": "{}"}"#,
        extra: String = ""
    ) -> String {
        let post = postData.map { #", "postData": \#($0)"# } ?? ""
        return #"""
            {"startedDateTime": "2026-01-01T00:00:00Z", "time": 12.6\#(extra),
             "request": {"method": "\#(method)", "url": "\#(url)", "httpVersion": "HTTP/1.1", "headers": \#(requestHeaders)\#(post)},
             "response": {"status": \#(status), "statusText": "", "httpVersion": "HTTP/1.1", "headers": \#(responseHeaders), "content": \#(content)}}
            """#
    }

    @Test func acceptsUTF8ByteOrderMark() throws {
        let data = Data([0xEF, 0xBB, 0xBF]) + Self.har(Self.entry())
        let archive = try HARReader.parse(data, fileName: "bom.har")
        #expect(archive.entries.count == 1)
        #expect(archive.creator == "test 1")
    }

    @Test func truncatedJSONFailsNamingTheLine() {
        let data = Data("{\n\"log\": {\n\"entries\": [\n".utf8)
        #expect {
            try HARReader.parse(data, fileName: "cut.har")
        } throws: { error in
            let error = error as! HARImportError
            return error.code == .notJSON
                && error.description
                    == "cut.har: not a HAR file: invalid JSON at line 3 (Unexpected end of file during JSON parse.)"
        }
    }

    @Test func jsonpWrapperIsExplained() {
        let data = Data("onInputData({\"log\": {\"entries\": []}});".utf8)
        #expect {
            try HARReader.parse(data, fileName: "page.har")
        } throws: { error in
            (error as! HARImportError).description
                == "page.har: not a HAR file: it is wrapped in JSONP `onInputData(…)`; export plain HAR JSON instead"
        }
    }

    @Test(arguments: [
        (#"{"log": {"version": "1.2"}}"#, "x.har: log.entries: missing; a HAR log must list its entries"),
        (#"{"log": {"entries": {}}}"#, "x.har: log.entries: expected an array, found an object"),
        (#"{"entries": []}"#, "x.har: log: missing; this is not a HAR file"),
        (#"[1, 2]"#, #"x.har: (top level): expected an object with a "log" field, found an array"#),
        ("", "x.har: not a HAR file: the file is empty"),
    ])
    func nonHARFilesFailWithOneLine(_ text: String, _ message: String) {
        #expect {
            try HARReader.parse(Data(text.utf8), fileName: "x.har")
        } throws: { error in
            let description = (error as! HARImportError).description
            return description == message && !description.contains("\n")
        }
    }

    @Test func readsLenientShapes() throws {
        let archive = try HARReader.parse(
            Self.har(
                Self.entry(
                    method: "POST",
                    requestHeaders:
                        #"[{"name": ":authority", "value": "api.example.com"}, {"name": "Content-Type", "value": "application/x-www-form-urlencoded"}, {"value": "nameless"}]"#,
                    postData:
                        #"{"mimeType": "application/x-www-form-urlencoded", "params": [{"name": "a", "value": "1"}, {"name": "obj", "value": {"k": 2}}]}"#,
                    status: #""201""#,
                    content: #"{"mimeType": "image/png", "text": "iVBORw0KGgo=", "encoding": "base64"}"#,
                    extra: #", "cache": [], "_resourceType": "fetch""#
                )
            ),
            fileName: "lenient.har"
        )
        let entry = try #require(archive.entries.first)
        #expect(entry.request.headers.count == 2)
        #expect(entry.request.headers[":authority"] == "api.example.com")
        #expect(entry.request.postData?.params.map(\.name) == ["a", "obj"])
        #expect(entry.request.postData?.params.last?.value == #"{"k":2}"#)
        #expect(entry.response?.status == 201)
        #expect(entry.response?.content.encoding == "base64")
        #expect(entry.time == 12.6)
    }

    @Test func entryWithoutResponseIsKeptForReporting() throws {
        let archive = try HARReader.parse(
            Self.har(#"{"request": {"method": "GET", "url": "https://a.example/x"}}"#),
            fileName: "x.har"
        )
        try #require(archive.entries.count == 1)
        #expect(archive.entries[0].response == nil)
    }

    /// The fast path for the common date shapes gives exactly the formatters' dates, and leaves other shapes to them.
    @Test func commonDateShapesParseAsTheFormatterDoes() {
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let whole = ISO8601DateFormatter()
        whole.formatOptions = [.withInternetDateTime]
        var generator = SplitMix64(seed: 7)  // deterministic: the same 2,000 dates every run
        var texts = [
            "2026-01-01T00:00:00Z", "2024-02-29T23:59:59.999Z", "1999-12-31T23:59:59.001-11:30",
            "2015-02-10T07:33:17.146+02:00",
            "2000-03-01T00:00:00.000+14:00", "1970-01-01T00:00:00Z", "1969-12-31T23:59:59.500Z",
        ]
        for _ in 0..<2000 {
            let year = Int.random(in: 1900...2100, using: &generator)
            let month = Int.random(in: 1...12, using: &generator)
            let day = Int.random(in: 1...28, using: &generator)
            let time = String(
                format: "%02d:%02d:%02d",
                Int.random(in: 0...23, using: &generator),
                Int.random(in: 0...59, using: &generator),
                Int.random(in: 0...59, using: &generator)
            )
            let fraction =
                Bool.random(using: &generator)
                ? String(format: ".%03d", Int.random(in: 0...999, using: &generator)) : ""
            let zone =
                Bool.random(using: &generator)
                ? "Z"
                : String(
                    format: "%@%02d:%02d",
                    Bool.random(using: &generator) ? "+" : "-",
                    Int.random(in: 0...14, using: &generator),
                    [0, 30, 45].randomElement(using: &generator)!
                )
            texts.append(String(format: "%04d-%02d-%02dT", year, month, day) + time + fraction + zone)
        }
        for text in texts {
            let expected = fractional.date(from: text) ?? whole.date(from: text)
            #expect(ISODateParser.commonShape(text) == expected, "\(text)")
            #expect(
                ISODateParser.commonShape(text)?.timeIntervalSince1970.bitPattern
                    == expected?.timeIntervalSince1970.bitPattern,
                "\(text)"
            )
        }
        for other in [
            "NaN-NaN-NaNTNaN:NaN:NaN.NaNZ", "2015-02-10T07:33:17.146", "2026-02-30T00:00:00Z", "2026-01-01T00:00:00.1Z",
            "2026-01-01T00:00:00+0200", "2026-01-01 00:00:00Z", "2026-01-01T24:00:00Z", "",
        ] {
            #expect(ISODateParser.commonShape(other) == nil, "\(other)")
        }
        #expect(
            HARReader.parseDate("2015-02-10T07:33:17.146")
                == (fractional.date(from: "2015-02-10T07:33:17.146") ?? whole.date(from: "2015-02-10T07:33:17.146"))
        )
        #expect(
            HARReader.parseDate("2026-01-01T00:00:00.123456Z") == fractional.date(from: "2026-01-01T00:00:00.123456Z")
        )
    }
}
