import Foundation
import Testing

@testable import MockdCore

struct HARReaderTests {
    static func har(_ entries: String) -> Data {
        Data(#"{"log": {"version": "1.2", "creator": {"name": "test", "version": "1"}, "entries": [\#(entries)]}}"#.utf8)
    }

    static func entry(
        method: String = "GET", url: String = "https://api.example.com/v1/items", requestHeaders: String = "[]",
        postData: String? = nil, status: String = "200", responseHeaders: String = "[]",
        content: String = #"{"size": 2, "mimeType": "application/json", "text": "{}"}"#, extra: String = ""
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
                && error.description == "cut.har: not a HAR file: invalid JSON at line 3 (Unexpected end of file during JSON parse.)"
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
                    requestHeaders: #"[{"name": ":authority", "value": "api.example.com"}, {"name": "Content-Type", "value": "application/x-www-form-urlencoded"}, {"value": "nameless"}]"#,
                    postData: #"{"mimeType": "application/x-www-form-urlencoded", "params": [{"name": "a", "value": "1"}, {"name": "obj", "value": {"k": 2}}]}"#,
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
            Self.har(#"{"request": {"method": "GET", "url": "https://a.example/x"}}"#), fileName: "x.har"
        )
        #expect(archive.entries.count == 1)
        #expect(archive.entries[0].response == nil)
    }
}
