public import Foundation

/// The text an image or a document carries besides its content — author, comment, description, copyright, software,
/// GPS notes — read from the places the formats define, so `mockd lint` can look in it: an e-mail address in a PNG
/// comment or "NDA" in a PDF's keywords ships with every mock set that holds the file.
///
/// - PNG (ISO/IEC 15948 §11.3.4): `tEXt` (Latin-1), `zTXt` (zlib) and `iTXt` (UTF-8, zlib when flagged) chunks, and
///   an `eXIf` chunk as EXIF.
/// - JPEG (ISO/IEC 10918-1): `COM` segments; APP1 EXIF (TIFF IFDs: ASCII and UNDEFINED values such as
///   `ImageDescription`, `Artist`, `Copyright`, `UserComment`, Windows' UCS-2 `XP…` tags, and the EXIF and GPS
///   sub-IFDs); APP1 XMP (XML).
/// - PDF (ISO 32000-1 §7.3.4, §14.3): literal `(…)` and hex `<…>` strings outside content streams (the Info dictionary:
///   `/Author`, `/Title`, `/Keywords`…), and every stream's text after zlib (`/FlateDecode`) where compressed: XMP
///   metadata, object streams holding the Info dictionary.
///
/// Every length is checked against the data; a malformed file gives what could be read, never a crash. zlib comes from
/// Debian (`Decompression`), bounded against bombs.
public enum BinaryMetadata {
    /// One piece of text: where it is (`PNG tEXt Comment`, `JPEG EXIF Artist`, `PDF Info string at byte 812`) and
    /// what it says.
    public struct Text: Sendable, Equatable {
        public let location: String
        /// The field's own name where the format gives one (`Author`, `Comment`), for name-based checks.
        public let field: String?
        public let text: String
    }

    /// The file's format by its first bytes, or `nil` when it is none of PNG, JPEG, PDF.
    public static func format(of data: Data) -> String? {
        if data.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "PNG" }
        if data.starts(with: [0xFF, 0xD8, 0xFF]) { return "JPEG" }
        if data.prefix(1024).range(of: Data("%PDF-".utf8)) != nil { return "PDF" }
        return nil
    }

    /// Every piece of text the file's metadata holds, in file order; `[]` for another format.
    public static func texts(in data: Data) -> [Text] {
        let bytes = [UInt8](data)
        switch format(of: data) {
        case "PNG": return png(bytes)
        case "JPEG": return jpeg(bytes)
        case "PDF": return pdf(bytes)
        default: return []
        }
    }

    // MARK: - PNG

    private static func png(_ bytes: [UInt8]) -> [Text] {
        var texts: [Text] = []
        var offset = 8
        while offset + 8 <= bytes.count {
            let length = Int(bigEndian32(bytes, offset))
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            let start = offset + 8
            guard length >= 0, start + length <= bytes.count else { break }
            let chunk = Array(bytes[start..<(start + length)])
            switch type {
            case "tEXt":
                if let (keyword, rest) = splitNul(chunk) {
                    texts.append(Text(location: "PNG tEXt \(keyword)", field: keyword, text: latin1(rest)))
                }
            case "zTXt":
                // keyword, NUL, compression method (0: zlib), compressed Latin-1 text.
                if let (keyword, rest) = splitNul(chunk), rest.count > 1, rest[0] == 0,
                    let inflated = Decompression.decode(Data(rest.dropFirst()), coding: "deflate")
                {
                    texts.append(Text(location: "PNG zTXt \(keyword)", field: keyword, text: latin1([UInt8](inflated))))
                }
            case "iTXt":
                // keyword, NUL, compression flag, method, language tag, NUL, translated keyword, NUL, UTF-8 text.
                if let (keyword, rest) = splitNul(chunk), rest.count >= 2 {
                    let compressed = rest[0] == 1
                    if let (language, afterLanguage) = splitNul(Array(rest.dropFirst(2))),
                        let (translated, text) = splitNul(afterLanguage)
                    {
                        let raw =
                            compressed ? Decompression.decode(Data(text), coding: "deflate").map { [UInt8]($0) } : text
                        let extra = [language, translated].filter { !$0.isEmpty }
                        if let raw {
                            texts.append(
                                Text(
                                    location: "PNG iTXt \(keyword)",
                                    field: keyword,
                                    text: String(decoding: raw, as: UTF8.self)
                                )
                            )
                        }
                        for value in extra where value != keyword {
                            texts.append(Text(location: "PNG iTXt \(keyword) (keyword)", field: keyword, text: value))
                        }
                    }
                }
            case "eXIf":
                texts += tiff(chunk, prefix: "PNG eXIf")
            case "IEND":
                return texts
            default: break
            }
            offset = start + length + 4  // data, then CRC
        }
        return texts
    }

    // MARK: - JPEG

    private static func jpeg(_ bytes: [UInt8]) -> [Text] {
        var texts: [Text] = []
        var offset = 2
        while offset + 4 <= bytes.count {
            guard bytes[offset] == 0xFF else { break }
            let marker = bytes[offset + 1]
            if marker == 0xFF {
                offset += 1  // fill byte
                continue
            }
            // Markers without a length: TEM, RSTn; SOS ends the headers (the entropy-coded image follows).
            if marker == 0x01 || (0xD0...0xD7).contains(marker) {
                offset += 2
                continue
            }
            if marker == 0xDA || marker == 0xD9 { break }
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let start = offset + 4
            guard length >= 2, start + length - 2 <= bytes.count else { break }
            let segment = Array(bytes[start..<(start + length - 2)])
            if marker == 0xFE {
                texts.append(Text(location: "JPEG comment", field: "Comment", text: utf8OrLatin1(segment)))
            } else if marker == 0xE1 {
                let exif: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]  // "Exif\0\0"
                let xmp = Array("http://ns.adobe.com/xap/1.0/\u{0}".utf8)
                if segment.starts(with: exif) {
                    texts += tiff(Array(segment.dropFirst(exif.count)), prefix: "JPEG EXIF")
                } else if segment.starts(with: xmp) {
                    texts.append(
                        Text(
                            location: "JPEG XMP",
                            field: nil,
                            text: String(decoding: segment.dropFirst(xmp.count), as: UTF8.self)
                        )
                    )
                }
            }
            offset = start + length - 2
        }
        return texts
    }

    /// EXIF's TIFF structure (CIPA DC-008): the text values of IFD0, its EXIF and GPS sub-IFDs, and IFD1.
    private static func tiff(_ bytes: [UInt8], prefix: String) -> [Text] {
        guard bytes.count >= 8 else { return [] }
        let little: Bool
        switch (bytes[0], bytes[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return []
        }
        func u16(_ at: Int) -> Int {
            guard at + 2 <= bytes.count else { return 0 }
            return little ? Int(bytes[at]) | Int(bytes[at + 1]) << 8 : Int(bytes[at]) << 8 | Int(bytes[at + 1])
        }
        func u32(_ at: Int) -> Int {
            guard at + 4 <= bytes.count else { return 0 }
            let value =
                little
                ? UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16
                    | UInt32(bytes[at + 3]) << 24
                : bigEndian32(bytes, at)
            return Int(value)
        }
        let names: [Int: String] = [
            0x010D: "DocumentName", 0x010E: "ImageDescription", 0x010F: "Make", 0x0110: "Model", 0x0131: "Software",
            0x013B: "Artist", 0x013C: "HostComputer", 0x8298: "Copyright", 0x9286: "UserComment",
            0xA430: "CameraOwnerName", 0xA431: "BodySerialNumber", 0xA435: "LensSerialNumber", 0x9C9B: "XPTitle",
            0x9C9C: "XPComment", 0x9C9D: "XPAuthor", 0x9C9E: "XPKeywords", 0x9C9F: "XPSubject",
            0x001B: "GPSProcessingMethod", 0x001C: "GPSAreaInformation",
        ]
        var texts: [Text] = []
        var pending = [u32(4)]
        var visited = Set<Int>()
        while let ifd = pending.popLast() {
            guard ifd >= 8, ifd + 2 <= bytes.count, visited.insert(ifd).inserted, visited.count <= 16 else { continue }
            let count = min(u16(ifd), 512)
            for entry in 0..<count {
                let at = ifd + 2 + entry * 12
                guard at + 12 <= bytes.count else { break }
                let tag = u16(at)
                let type = u16(at + 2)
                let items = u32(at + 4)
                if tag == 0x8769 || tag == 0x8825 {  // EXIF and GPS sub-IFDs
                    pending.append(u32(at + 8))
                    continue
                }
                // ASCII (2), BYTE (1, the XP tags' UCS-2) and UNDEFINED (7) values.
                guard type == 1 || type == 2 || type == 7, items > 0, items <= 1 << 20 else { continue }
                let start = items <= 4 ? at + 8 : u32(at + 8)
                guard start >= 0, start + items <= bytes.count else { continue }
                var value = Array(bytes[start..<(start + items)])
                let name = names[tag] ?? String(format: "tag 0x%04X", tag)
                let text: String
                if tag >= 0x9C9B && tag <= 0x9C9F {
                    text = String(
                        decoding: value.withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)) },
                        as: UTF16.self
                    )
                } else {
                    // UserComment starts with an 8-byte character code (`ASCII\0\0\0`, `UNICODE\0`).
                    if tag == 0x9286, value.count >= 8 {
                        let code = String(decoding: value.prefix(8), as: UTF8.self)
                        value = Array(value.dropFirst(8))
                        if code.hasPrefix("UNICODE") {
                            texts.append(
                                Text(
                                    location: "\(prefix) \(name)",
                                    field: name,
                                    text: String(
                                        decoding: value.withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)) },
                                        as: UTF16.self
                                    )
                                )
                            )
                            continue
                        }
                    }
                    text = utf8OrLatin1(value)
                }
                let trimmed = text.trimmingCharacters(in: CharacterSet(charactersIn: "\u{0}").union(.whitespaces))
                if !trimmed.isEmpty { texts.append(Text(location: "\(prefix) \(name)", field: name, text: trimmed)) }
            }
            let next = u32(ifd + 2 + count * 12)
            if next != 0 { pending.append(next) }
        }
        return texts
    }

    // MARK: - PDF

    private static func pdf(_ bytes: [UInt8]) -> [Text] {
        var texts: [Text] = []
        var offset = 0
        var streams = 0
        while offset < bytes.count {
            // A stream's data is not PDF syntax: inflated (when compressed) and read as text of its own.
            if let (dataStart, dataEnd, end) = stream(at: offset, in: bytes) {
                streams += 1
                let dictionary = dictionaryText(before: offset, in: bytes)
                var data = Data(bytes[dataStart..<dataEnd])
                if dictionary.contains("/FlateDecode") {
                    guard let inflated = Decompression.decode(data, coding: "deflate") else {
                        offset = end
                        continue
                    }
                    data = inflated
                }
                let isXMP = dictionary.contains("/Metadata") || dictionary.contains("/XML")
                let inner = [UInt8](data)
                if isXMP || dictionary.contains("/ObjStm") {
                    // XMP as text; an object stream holds objects (the Info dictionary among them) in PDF syntax.
                    if isXMP {
                        texts.append(
                            Text(location: "PDF XMP metadata", field: nil, text: String(decoding: inner, as: UTF8.self))
                        )
                    } else {
                        texts += strings(in: inner, location: "PDF object stream \(streams),")
                    }
                }
                offset = end
                continue
            }
            if bytes[offset] == UInt8(ascii: "(") {
                // A string that never closes runs to the end: no later one can close either (not read again and again).
                guard let (text, end) = literalString(at: offset, in: bytes) else { break }
                texts.append(pdfString(text, at: offset, in: bytes, location: "PDF"))
                offset = end
                continue
            }
            if bytes[offset] == UInt8(ascii: "<"), offset + 1 < bytes.count, bytes[offset + 1] != UInt8(ascii: "<"),
                let (text, end) = hexString(at: offset, in: bytes)
            {
                texts.append(pdfString(text, at: offset, in: bytes, location: "PDF"))
                offset = end
                continue
            }
            offset += 1
        }
        return texts
    }

    /// The literal and hex strings of PDF syntax in `bytes` (an inflated object stream).
    private static func strings(in bytes: [UInt8], location: String) -> [Text] {
        var texts: [Text] = []
        var offset = 0
        while offset < bytes.count {
            if bytes[offset] == UInt8(ascii: "(") {
                guard let (text, end) = literalString(at: offset, in: bytes) else { break }
                texts.append(pdfString(text, at: offset, in: bytes, location: location))
                offset = end
            } else if bytes[offset] == UInt8(ascii: "<"), offset + 1 < bytes.count,
                bytes[offset + 1] != UInt8(ascii: "<"),
                let (text, end) = hexString(at: offset, in: bytes)
            {
                texts.append(pdfString(text, at: offset, in: bytes, location: location))
                offset = end
            } else {
                offset += 1
            }
        }
        return texts
    }

    /// A string found at `offset`: `PDF /Author at byte 812` when a name precedes it, else `PDF string at byte 812`.
    private static func pdfString(_ text: String, at offset: Int, in bytes: [UInt8], location: String) -> Text {
        let field = key(before: offset, in: bytes)
        return Text(
            location: field.map { "\(location) /\($0) at byte \(offset)" } ?? "\(location) string at byte \(offset)",
            field: field,
            text: text
        )
    }

    /// `stream` (then CRLF or LF) at `offset`: where its data starts, where `endstream` starts, and the offset after it.
    private static func stream(at offset: Int, in bytes: [UInt8]) -> (Int, Int, Int)? {
        let keyword = Array("stream".utf8)
        guard bytes.count >= offset + keyword.count, bytes[offset..<(offset + keyword.count)].elementsEqual(keyword),
            offset == 0 || !isRegular(bytes[offset - 1]) || bytes[offset - 1] == UInt8(ascii: ">")
        else { return nil }
        var start = offset + keyword.count
        if start < bytes.count, bytes[start] == 0x0D { start += 1 }
        guard start < bytes.count, bytes[start] == 0x0A else { return nil }
        start += 1
        let end = Array("endstream".utf8)
        var search = start
        while search + end.count <= bytes.count {
            if bytes[search] == end[0], bytes[search..<(search + end.count)].elementsEqual(end) {
                var dataEnd = search
                if dataEnd > start, bytes[dataEnd - 1] == 0x0A { dataEnd -= 1 }
                if dataEnd > start, bytes[dataEnd - 1] == 0x0D { dataEnd -= 1 }
                return (start, dataEnd, search + end.count)
            }
            search += 1
        }
        return nil
    }

    /// The stream's dictionary as text: from its object's `obj` keyword (within 4 KiB before `stream`) to `stream`,
    /// for its filters and type.
    private static func dictionaryText(before offset: Int, in bytes: [UInt8]) -> String {
        let text = String(decoding: bytes[max(0, offset - 4096)..<offset], as: UTF8.self)
        guard let object = text.range(of: "obj", options: .backwards) else { return text }
        return String(text[object.lowerBound...])
    }

    /// The name just before a string (`/Author (…)` → `Author`), when there is one.
    private static func key(before offset: Int, in bytes: [UInt8]) -> String? {
        var end = offset
        while end > 0, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x0A || bytes[end - 1] == 0x0D { end -= 1 }
        var start = end
        while start > 0, isRegular(bytes[start - 1]) { start -= 1 }
        guard start > 0, bytes[start - 1] == UInt8(ascii: "/"), start < end else { return nil }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// A literal string `( … )` with balanced parentheses and escapes (§7.3.4.2); UTF-16BE when it starts with FE FF.
    private static func literalString(at offset: Int, in bytes: [UInt8]) -> (String, Int)? {
        var depth = 0
        var value: [UInt8] = []
        var index = offset
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\\"), index + 1 < bytes.count {
                let next = bytes[index + 1]
                index += 2
                switch next {
                case UInt8(ascii: "n"): value.append(0x0A)
                case UInt8(ascii: "r"): value.append(0x0D)
                case UInt8(ascii: "t"): value.append(0x09)
                case UInt8(ascii: "b"): value.append(0x08)
                case UInt8(ascii: "f"): value.append(0x0C)
                case UInt8(ascii: "0")...UInt8(ascii: "7"):
                    var code = Int(next - UInt8(ascii: "0"))
                    var digits = 1
                    while digits < 3, index < bytes.count,
                        (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(bytes[index])
                    {
                        code = code * 8 + Int(bytes[index] - UInt8(ascii: "0"))
                        index += 1
                        digits += 1
                    }
                    value.append(UInt8(code & 0xFF))
                case 0x0A, 0x0D: break  // a line continuation
                default: value.append(next)
                }
                continue
            }
            if byte == UInt8(ascii: "(") {
                depth += 1
                if depth > 1 { value.append(byte) }
            } else if byte == UInt8(ascii: ")") {
                depth -= 1
                if depth == 0 { return (pdfText(value), index + 1) }
                value.append(byte)
            } else {
                value.append(byte)
            }
            index += 1
            if value.count > 1 << 20 { return nil }
        }
        return nil
    }

    /// A hex string `< … >` (§7.3.4.3); `nil` when it holds anything but hex digits and white space.
    private static func hexString(at offset: Int, in bytes: [UInt8]) -> (String, Int)? {
        var digits: [UInt8] = []
        var index = offset + 1
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: ">") {
                if digits.count % 2 == 1 { digits.append(0) }
                var value: [UInt8] = []
                var position = 0
                while position + 1 < digits.count {
                    value.append(digits[position] << 4 | digits[position + 1])
                    position += 2
                }
                return value.isEmpty ? nil : (pdfText(value), index + 1)
            }
            if let digit = URLEncoding.hexValue(byte) {
                digits.append(digit)
            } else if ![0x20, 0x0A, 0x0D, 0x09, 0x0C].contains(byte) {
                return nil
            }
            index += 1
            if digits.count > 1 << 20 { return nil }
        }
        return nil
    }

    /// A PDF text string: UTF-16BE after its byte order mark, else PDFDocEncoding (read as Latin-1, which it
    /// matches for the printable ASCII and Latin-1 letters that matter here).
    private static func pdfText(_ bytes: [UInt8]) -> String {
        if bytes.starts(with: [0xFE, 0xFF]) {
            let units = stride(from: 2, to: bytes.count - 1, by: 2).map {
                UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1])
            }
            return String(decoding: units, as: UTF16.self)
        }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return String(decoding: bytes.dropFirst(3), as: UTF8.self) }
        return latin1(bytes)
    }

    /// A PDF regular character: not white space, not a delimiter (§7.2.2).
    private static func isRegular(_ byte: UInt8) -> Bool {
        ![0x00, 0x09, 0x0A, 0x0C, 0x0D, 0x20].contains(byte) && !"()<>[]{}/%".utf8.contains(byte)
    }

    // MARK: - Helpers

    private static func bigEndian32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        guard at + 4 <= bytes.count else { return 0 }
        return UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8
            | UInt32(bytes[at + 3])
    }

    /// The bytes before the first NUL as Latin-1 text, and the bytes after it; `nil` without a NUL.
    private static func splitNul(_ bytes: [UInt8]) -> (String, [UInt8])? {
        guard let nul = bytes.firstIndex(of: 0) else { return nil }
        return (latin1(Array(bytes[..<nul])), Array(bytes[(nul + 1)...]))
    }

    private static func latin1(_ bytes: [UInt8]) -> String {
        String(bytes.map { Character(Unicode.Scalar($0)) })
    }

    private static func utf8OrLatin1(_ bytes: [UInt8]) -> String {
        String(bytes: bytes, encoding: .utf8) ?? latin1(bytes)
    }
}
