import Foundation
import MockdFormat
import Testing

@testable import MockdCore

/// A user's JSON file saved as UTF-16 or UTF-32 (PowerShell 5's `Out-File`, Notepad's "Unicode") reads as the same
/// text in UTF-8: same values, and errors naming the same line and key (they once counted the wide bytes: a wrong
/// line, and a duplicate key spelt `"\u0000s\u0000e…"`).
struct JSONTextEncodingTests {
    @Test(
        arguments: [
            ([0xFF, 0xFE, 0x7B, 0x00], .utf16LittleEndian, 2),
            ([0xFE, 0xFF, 0x00, 0x7B], .utf16BigEndian, 2),
            ([0xFF, 0xFE, 0x00, 0x00, 0x7B, 0x00, 0x00, 0x00], .utf32LittleEndian, 4),
            ([0x00, 0x00, 0xFE, 0xFF, 0x00, 0x00, 0x00, 0x7B], .utf32BigEndian, 4),
            ([0x7B, 0x00, 0x0A, 0x00], .utf16LittleEndian, 0),
            ([0x00, 0x7B, 0x00, 0x0A], .utf16BigEndian, 0),
            ([0x7B, 0x00, 0x00, 0x00], .utf32LittleEndian, 0),
            ([0x00, 0x00, 0x00, 0x7B], .utf32BigEndian, 0),
            ([0x7B, 0x00], .utf16LittleEndian, 0),
        ] as [([UInt8], String.Encoding, Int)]
    )
    func wideTextIsRecognizedAsRFC4627Says(_ head: [UInt8], _ encoding: String.Encoding, _ markLength: Int) throws {
        let (found, length) = try #require(JSONTextEncoding.wideEncoding(of: Data(head)))
        #expect(found == encoding)
        #expect(length == markLength)
    }

    @Test(arguments: [[0xEF, 0xBB, 0xBF, 0x7B], [0x7B, 0x7D], [0x7B], [], [0x20, 0x7B, 0x0A, 0x7D]] as [[UInt8]])
    func utf8IsLeftAsWritten(_ bytes: [UInt8]) {
        #expect(JSONTextEncoding.wideEncoding(of: Data(bytes)) == nil)
        #expect(JSONTextEncoding.utf8(Data(bytes)) == Data(bytes))
    }

    @Test func wideTextBecomesTheSameUTF8() throws {
        let text = "{\"name\": \"Zoë 😀 \u{FEFF}\",\n \"n\": 1}"
        for encoding in [String.Encoding.utf16, .utf16BigEndian, .utf32, .utf32LittleEndian] {
            #expect(JSONTextEncoding.utf8(try #require(text.data(using: encoding))) == Data(text.utf8))
        }
        // A stray byte after the last whole code unit: kept as U+FFFD for the parser to refuse, never dropped.
        var strayByte = try #require("{}".data(using: .utf16LittleEndian))
        strayByte.append(0x0A)
        #expect(JSONTextEncoding.utf8(strayByte) == Data("{}\u{FFFD}".utf8))
        let cutUTF32 = try #require("{}\n".data(using: .utf32)).dropLast(2)
        #expect(JSONTextEncoding.utf8(Data(cutUTF32)) == Data("{}\u{FFFD}".utf8))
        // An unpaired surrogate: left for the parser to reject.
        let broken = Data([0xFF, 0xFE, 0x7B, 0x00, 0x00, 0xD8, 0x7D, 0x00])
        #expect(JSONTextEncoding.utf8(broken) == broken)
    }

    /// One failing read's message.
    static func failure(_ body: () throws -> Void) -> String {
        do {
            try body()
            return "no error"
        } catch {
            return String(describing: error)
        }
    }

    @Test(arguments: [
        (
            "{\n  \"sets\": [\"chat\"],\n  \"overrides\": [\n    {\"id\": \"x\",, \"status\": 500}\n  ]\n}\n",
            "configs/s.json: not valid JSON at line 4 (Invalid value around character 54.)"
        ),
        (
            "{\"sets\": [\"chat\"],\n \"sets\": [\"shop\"]}",
            #"configs/s.json: sets: "sets" appears twice in this object; JSON parsers disagree on which one counts"#
        ),
    ])
    func aWideScenarioFileFailsAsInUTF8(_ text: String, _ message: String) throws {
        func decode(_ data: Data) -> String {
            Self.failure { _ = try ConfigFile.decode(ScenarioFile.self, from: data, display: "configs/s.json") }
        }
        #expect(decode(Data(text.utf8)) == message)
        for encoding in [String.Encoding.utf16, .utf16LittleEndian, .utf32] {
            #expect(decode(try #require(text.data(using: encoding))) == message, "\(encoding)")
        }
    }

    @Test func aWideFileWithAStrayLastByteIsRefused() throws {
        var data = try #require(#"{"sets": ["chat"]}"#.data(using: .utf16))
        data.append(0x0A)
        let message = Self.failure {
            _ = try ConfigFile.decode(ScenarioFile.self, from: data, display: "configs/s.json")
        }
        #expect(message.hasPrefix("configs/s.json: not valid JSON at line 1 ("), "\(message)")
    }

    @Test func aWideScenarioFileLoads() throws {
        let text = #"{"sets": ["chat"], "overrides": [{"id": "é", "match": {"path": "/a"}, "status": 503}]}"#
        let wide = try ConfigFile.decode(ScenarioFile.self, from: try #require(text.data(using: .utf16)), display: "s")
        #expect(wide == (try ConfigFile.decode(ScenarioFile.self, from: Data(text.utf8), display: "s")))
        #expect(wide.overrides?.first?.id == "é")
    }

    @Test func aWideWireMockMappingFailsAsInUTF8() throws {
        let text = "{\n  \"request\": {\"url\": \"/a\"},\n  \"response\": {\"status\": 200,}\n  x\n}"
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mockd-wide-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var messages: [String] = []
        for (name, data) in [("utf8", Data(text.utf8)), ("utf16", try #require(text.data(using: .utf16)))] {
            let file = folder.appendingPathComponent("\(name).json")
            try data.write(to: file)
            messages.append(Self.failure { _ = try WireMockNode.read(file, display: "mapping.json") })
        }
        #expect(messages[0] == "mapping.json: not valid JSON at line 4 (Invalid value around character 63.)")
        #expect(messages[1] == messages[0])
    }
}
