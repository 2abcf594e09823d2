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
    /// as is; so is text that is not valid in the encoding it seems to be, for the parser to reject. A last code unit
    /// cut short (a stray byte at the end) becomes U+FFFD, as decoders write it, for the parser to refuse where it
    /// stands; the transcoding alone would drop it without a word.
    public static func utf8(_ data: Data) -> Data {
        guard let (encoding, markLength) = wideEncoding(of: data.prefix(4)) else { return data }
        let unit = encoding == .utf16BigEndian || encoding == .utf16LittleEndian ? 2 : 4
        let cutShort = (data.count - markLength) % unit
        guard let text = String(data: data.dropFirst(markLength).dropLast(cutShort), encoding: encoding) else {
            return data
        }
        return Data((cutShort == 0 ? text : text + "\u{FFFD}").utf8)
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
