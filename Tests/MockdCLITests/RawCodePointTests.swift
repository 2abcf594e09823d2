import Foundation
import MockdTestSupport
import Testing

@testable import MockdCore

/// Bytes in, same bytes out (issue 33): code points a producer wrote raw in a HAR string, rather than escaped, reach
/// the client byte for byte — a byte order mark opening a JavaScript body (Foundation's parser dropped it, serving
/// the file 3 bytes short), one in the middle, line and paragraph separators, noncharacters, private use, astral
/// characters and combining marks — through the streaming reader `import-har` uses and the whole-file reader alike.
@Suite(.serialized)
struct RawCodePointTests {
    /// Each body as the server sent it; the HAR holds it raw.
    static let bodies: [(path: String, mimeType: String, text: String)] = [
        ("/app.js", "application/javascript", "\u{FEFF}console.log(\"\u{FEFF}mid\u{2028}\u{2029}\");\n"),
        ("/data.json", "application/json", "\u{FEFF}{\"a\":\"\u{FFFE}\u{FFFF}\u{E000}\u{10FFFF}\"}"),
        ("/text.txt", "text/plain; charset=utf-8", "\u{FEFF}\u{FEFF}e\u{301} \u{1F600} \u{200B}\u{00A0}\u{0085}"),
        ("/index.html", "text/html", "<p>\u{FEFF}Z\u{308}\u{1F469}\u{200D}\u{1F4BB}</p>"),
    ]

    /// A HAR whose strings hold every non-ASCII code point raw (only `"`, `\` and controls escaped), as
    /// `JSON.stringify` writes them.
    static func har() -> Data {
        func literal(_ text: String) -> String {
            var output = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": output += "\\\""
                case "\\": output += "\\\\"
                case "\n": output += "\\n"
                case _ where scalar.value < 0x20: output += String(format: "\\u%04x", scalar.value)
                default: output.unicodeScalars.append(scalar)
                }
            }
            return output + "\""
        }
        let entries = bodies.map { body in
            """
            {"startedDateTime":"2026-12-01T10:00:00Z","time":3,
             "request":{"method":"GET","url":"https://raw.test\(body.path)","httpVersion":"HTTP/1.1","headers":[]},
             "response":{"status":200,"statusText":"OK","httpVersion":"HTTP/1.1",
              "headers":[{"name":"Content-Type","value":\(literal(body.mimeType))}],
              "content":{"mimeType":\(literal(body.mimeType)),"size":\(body.text.utf8.count),"text":\(literal(body.text))}}}
            """
        }
        return Data(
            #"{"log":{"version":"1.2","creator":{"name":"test","version":"1"},"entries":["#.utf8
                + Data(entries.joined(separator: ",").utf8) + Data("]}}".utf8)
        )
    }

    @Test func rawCodePointsAreServedByteForByte() throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let har = root.appendingPathComponent("raw.har")
        try Self.har().write(to: har)
        let imported = try ProcessRunner.mockd(["import-har", har.path, "--set", "raw", "--root", root.path])
        try #require(imported.status == 0, "\(imported.stderr)")
        let daemon = try RunningDaemon(["--set", "raw", "--root", root.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        let responses = try Curl.batch(Self.bodies.map { CurlRequest(url: daemon.baseURL + $0.path) })
        for (response, body) in zip(responses, Self.bodies) {
            #expect(response.status == 200)
            #expect(response.body == Data(body.text.utf8), "\(body.path): \(Array(response.body.prefix(8)))")
        }
        #expect(responses[0].body.prefix(3) == Data([0xEF, 0xBB, 0xBF]))
    }

    /// The whole-file reader (used for files the streaming reader hands over) and the streaming reader give the same
    /// strings, each exactly as written.
    @Test func bothReadersKeepEveryCodePoint() throws {
        let whole = try HARReader.parse(Self.har(), fileName: "raw.har")
        var streamed: [HAREntry] = []
        _ = try HARStreamReader(chunkSize: 7).parse(Self.har(), fileName: "raw.har") { streamed.append($0) }
        for entries in [whole.entries, streamed] {
            #expect(
                entries.map { Array(($0.response?.content.text ?? "").utf8) } == Self.bodies.map { Array($0.text.utf8) }
            )
        }
    }
}
