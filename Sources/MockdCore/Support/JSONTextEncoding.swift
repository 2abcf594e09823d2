public import Foundation

/// A user's JSON file in UTF-16 or UTF-32, read as UTF-8.
///
/// RFC 8259 §8.1 asks for UTF-8, but Windows tools write JSON as UTF-16 with a byte order mark (PowerShell 5's
/// `Out-File` and `>`, Notepad's "Unicode"), and Foundation's parser reads it: its error offsets then count bytes of
/// its own UTF-8 copy, and every byte-level pass (line numbers, the duplicate-key check, the HAR scanner) would read
/// the file's zero bytes as text. Transcoded once at the start, the file is read as the UTF-8 it stands for.
public enum JSONTextEncoding {
    /// `data` transcoded to UTF-8 (without a byte order mark) when it is UTF-16 or UTF-32 text, recognized as RFC
    /// 4627 §3 and `JSONSerialization` do: a UTF-16/32 byte order mark, or the zero bytes of an ASCII first character
    /// (`00 00 00 xx`, `xx 00 00 00`, `00 xx`, `xx 00`). Any other `data` (UTF-8, with or without its BOM) is returned
    /// as is.
    /// - Throws: `InvalidText` naming the line and column of the first code unit the encoding cannot decode (an
    ///   unpaired UTF-16 surrogate, a UTF-32 value that is no Unicode scalar): replaced by U+FFFD it would be read
    ///   as text without a word, and left as it is the parser only says the file is not UTF-8; or of the end of the
    ///   text when a last code unit is cut short (stray bytes), which the transcoding alone would drop.
    public static func utf8(_ data: Data) throws(InvalidText) -> Data {
        guard let (encoding, markLength) = wideEncoding(of: data.prefix(4)) else { return data }
        let unit = encoding == .utf16BigEndian || encoding == .utf16LittleEndian ? 2 : 4
        let cutShort = (data.count - markLength) % unit
        let whole = data.dropFirst(markLength).dropLast(cutShort)
        guard let text = String(data: whole, encoding: encoding) else {
            throw firstInvalidUnit(in: whole, encoding: encoding)
                ?? InvalidText(encoding: encoding, line: 1, column: 1, problem: "text the encoding cannot decode")
        }
        if cutShort > 0 {
            // Where the text ends: the stray bytes follow its last character.
            var end = TextPosition()
            for scalar in text.unicodeScalars { end.advance(past: scalar) }
            let bytes = cutShort == 1 ? "1 stray byte" : "\(cutShort) stray bytes"
            throw InvalidText(
                encoding: encoding,
                line: end.line,
                column: end.column,
                problem: "\(bytes) after the last whole code unit: the file was cut or joined to another"
            )
        }
        return Data(text.utf8)
    }

    /// Wide text holding a code unit its encoding cannot decode, located for a one-line error.
    public struct InvalidText: Error, Sendable, Equatable, CustomStringConvertible {
        /// `UTF-16` or `UTF-32`.
        public let encodingName: String
        /// 1-based, counted in the text's characters (line feeds and Unicode scalars).
        public let line: Int
        public let column: Int
        /// What is wrong: `an unpaired surrogate 0xD800`.
        public let problem: String

        init(encoding: String.Encoding, line: Int, column: Int, problem: String) {
            let utf16 = encoding == .utf16BigEndian || encoding == .utf16LittleEndian
            self.encodingName = utf16 ? "UTF-16" : "UTF-32"
            self.line = line
            self.column = column
            self.problem = problem
        }

        /// `not valid UTF-16 at line 4, column 27 (an unpaired surrogate 0xD800)`
        public var description: String { "not valid \(encodingName) at line \(line), column \(column) (\(problem))" }
    }

    /// A line and column in text, 1-based, counted in line feeds and Unicode scalars.
    private struct TextPosition {
        var line = 1
        var column = 1

        mutating func advance(past scalar: Unicode.Scalar) {
            if scalar == "\n" {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
    }

    /// Where the first undecodable code unit of `units` (whole code units, no byte order mark) is.
    private static func firstInvalidUnit(in units: Data, encoding: String.Encoding) -> InvalidText? {
        func hex(_ value: UInt32) -> String { "0x" + String(value, radix: 16, uppercase: true) }
        let bigEndian = encoding == .utf16BigEndian || encoding == .utf32BigEndian
        switch encoding {
        case .utf16BigEndian, .utf16LittleEndian:
            return locate(codeUnits(units, bigEndian: bigEndian), as: Unicode.UTF16.self, encoding: encoding) {
                "an unpaired surrogate \(hex(UInt32($0)))"
            }
        default:
            return locate(codeUnits(units, bigEndian: bigEndian), as: Unicode.UTF32.self, encoding: encoding) {
                "\(hex($0)) is not a Unicode scalar value"
            }
        }
    }

    /// `bytes` read as code units of `Unit`'s width in the given byte order.
    private static func codeUnits<Unit: FixedWidthInteger>(_ bytes: Data, bigEndian: Bool) -> [Unit] {
        bytes.withUnsafeBytes { raw in
            let width = MemoryLayout<Unit>.size
            return (0..<raw.count / width).map { index in
                let unit = raw.loadUnaligned(fromByteOffset: index * width, as: Unit.self)
                return bigEndian ? Unit(bigEndian: unit) : Unit(littleEndian: unit)
            }
        }
    }

    private static func locate<Codec: Unicode.Encoding>(
        _ units: [Codec.CodeUnit],
        as codec: Codec.Type,
        encoding: String.Encoding,
        problem: (Codec.CodeUnit) -> String
    ) -> InvalidText? {
        var iterator = units.makeIterator()
        var parser = Codec.ForwardParser()
        var here = TextPosition()
        var position = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                position += encoded.count
                here.advance(past: Codec.decode(encoded))
            case .error:
                return InvalidText(
                    encoding: encoding,
                    line: here.line,
                    column: here.column,
                    problem: problem(units[position])
                )
            case .emptyInput:
                return nil
            }
        }
    }

    /// The UTF-16/32 encoding `head` (a file's first bytes) shows, and the length of its byte order mark.
    static func wideEncoding(of head: Data) -> (String.Encoding, Int)? {
        let bytes = Array(head.prefix(4))
        if bytes.starts(with: [0x00, 0x00, 0xFE, 0xFF]) { return (.utf32BigEndian, 4) }
        if bytes.starts(with: [0xFF, 0xFE, 0x00, 0x00]) { return (.utf32LittleEndian, 4) }
        if bytes.starts(with: [0xFE, 0xFF]) { return (.utf16BigEndian, 2) }
        if bytes.starts(with: [0xFF, 0xFE]) { return (.utf16LittleEndian, 2) }
        if bytes.count == 4 {
            if bytes[0] == 0, bytes[1] == 0, bytes[2] == 0, bytes[3] != 0 { return (.utf32BigEndian, 0) }
            if bytes[0] != 0, bytes[1] == 0, bytes[2] == 0, bytes[3] == 0 { return (.utf32LittleEndian, 0) }
        }
        if bytes.count >= 2 {
            if bytes[0] == 0, bytes[1] != 0 { return (.utf16BigEndian, 0) }
            if bytes[0] != 0, bytes[1] == 0 { return (.utf16LittleEndian, 0) }
        }
        return nil
    }
}
