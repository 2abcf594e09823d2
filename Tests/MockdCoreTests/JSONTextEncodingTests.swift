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
    func utf8IsLeftAsWritten(_ bytes: [UInt8]) throws {
        #expect(JSONTextEncoding.wideEncoding(of: Data(bytes)) == nil)
        #expect(try JSONTextEncoding.utf8(Data(bytes)) == Data(bytes))
    }

    @Test func wideTextBecomesTheSameUTF8() throws {
        let text = "{\"name\": \"Zoë 😀 \u{FEFF}\",\n \"n\": 1}"
        for encoding in [String.Encoding.utf16, .utf16BigEndian, .utf32, .utf32LittleEndian] {
            #expect(try JSONTextEncoding.utf8(try #require(text.data(using: encoding))) == Data(text.utf8))
        }
        // Stray bytes after the last whole code unit: named where the text ends, never dropped.
        var strayByte = try #require("{}".data(using: .utf16LittleEndian))
        strayByte.append(0x0A)
        #expect(
            Self.failure { _ = try JSONTextEncoding.utf8(strayByte) }
                == "not valid UTF-16 at line 1, column 3 (1 stray byte after the last whole code unit: the file was cut or joined to another)"
        )
        let cutUTF32 = try #require("{}\n".data(using: .utf32)).dropLast(2)
        #expect(
            Self.failure { _ = try JSONTextEncoding.utf8(Data(cutUTF32)) }
                == "not valid UTF-32 at line 1, column 3 (2 stray bytes after the last whole code unit: the file was cut or joined to another)"
        )
    }

    /// `{"a": 1,\n "b": "é😀?"}` in UTF-16 or UTF-32 (`width` 2 or 4 bytes a unit), with `?` replaced by `unit`, a
    /// code unit that may be no character, and a byte order mark when `mark` is set.
    static func wideText(width: Int, bigEndian: Bool, mark: Bool, unit: UInt32) -> Data {
        var units: [UInt32] = mark ? [0xFEFF] : []
        let text = "{\"a\": 1,\n \"b\": \"é😀?\"}"
        units += width == 2 ? text.utf16.map(UInt32.init) : text.unicodeScalars.map(\.value)
        units[units.lastIndex(of: UInt32(UInt8(ascii: "?")))!] = unit
        var bytes: [UInt8] = []
        for value in units {
            var unitBytes = (0..<width).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
            if bigEndian { unitBytes.reverse() }
            bytes += unitBytes
        }
        return Data(bytes)
    }

    /// A code unit that is no character (an unpaired surrogate, a value past U+10FFFF) is named with its line and
    /// column, never read as U+FFFD (a body changed without a word) nor left for the parser (which only says the file
    /// is not UTF-8, naming no line).
    @Test(
        arguments: [
            (2, false, true, 0xD800, "UTF-16 at line 2, column 10 (an unpaired surrogate 0xD800)"),
            (2, false, false, 0xDC00, "UTF-16 at line 2, column 10 (an unpaired surrogate 0xDC00)"),
            (2, true, true, 0xDBFF, "UTF-16 at line 2, column 10 (an unpaired surrogate 0xDBFF)"),
            (4, false, false, 0x11_0000, "UTF-32 at line 2, column 10 (0x110000 is not a Unicode scalar value)"),
            (4, true, true, 0xD800, "UTF-32 at line 2, column 10 (0xD800 is not a Unicode scalar value)"),
        ] as [(Int, Bool, Bool, UInt32, String)]
    )
    func anUndecodableCodeUnitIsNamedWhereItStands(
        width: Int,
        bigEndian: Bool,
        mark: Bool,
        unit: UInt32,
        where found: String
    ) throws {
        let message = "not valid " + found
        let data = Self.wideText(width: width, bigEndian: bigEndian, mark: mark, unit: unit)
        // The same text with a character there reads.
        let valid = Self.wideText(width: width, bigEndian: bigEndian, mark: mark, unit: 0x41)
        #expect(try JSONTextEncoding.utf8(valid) == Data("{\"a\": 1,\n \"b\": \"é😀A\"}".utf8))
        #expect(Self.failure { _ = try JSONTextEncoding.utf8(data) } == message)
        #expect(
            Self.failure { _ = try ConfigFile.decode(ScenarioFile.self, from: data, display: "configs/s.json") }
                == "configs/s.json: \(message)"
        )
        #expect(
            Self.failure { _ = try HARReader.parse(data, fileName: "app.har") } == "app.har: not a HAR file: \(message)"
        )
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mockd-wide-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("mapping.json")
        try data.write(to: file)
        #expect(Self.failure { _ = try WireMockNode.read(file, display: "mapping.json") } == "mapping.json: \(message)")
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
        #expect(
            message
                == "configs/s.json: not valid UTF-16 at line 1, column 19 (1 stray byte after the last whole code unit: the file was cut or joined to another)"
        )
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
