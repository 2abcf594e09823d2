public import Foundation

/// The exact bytes a HAR entry's response carried, whatever its producer wrote.
///
/// HAR 1.2 says `content.text` is the decoded body, base64-encoded when `encoding` is `base64`. Producers
/// stray from that, and each case is handled here and reported:
/// - Polly.js 2 writes binary bodies as a hex string with no `encoding`; Playwright keeps bodies in side
///   files (`content._file`, resolved next to the HAR and never outside it).
/// - Binary bodies (images, fonts…) given as base64 without the flag are decoded when the text is strictly
///   base64; `encoding` values other than `base64` (`utf-8`) leave the text as is.
/// - A body still compressed (gzip magic under `Content-Encoding: gzip`; brotli that is not UTF-8) is
///   decoded with zlib/brotli; a corrupt one is kept exactly as recorded. Bodies are stored decoded, so the
///   recorded `Content-Encoding` is never sent.
/// - Text is re-encoded in the `charset` its `Content-Type` declares (ISO-8859-1, Windows-125x, Shift_JIS…),
///   since HAR text is Unicode but the server sent those bytes.
public struct RecordedBody {
    public var bytes: Data
    /// What was done beyond a plain copy, one line each, for the import report.
    public var notes: [String] = []

    /// Reads the body of `content`, answered with `headers`.
    /// - Parameters:
    ///   - harDirectory: The HAR's folder for `content._file`; `nil` when reading from memory.
    ///   - hexBinary: Whether binary bodies may be hex text (Polly.js entries only: any other producer's even-length
    ///     hex text, such as a SHA-256 digest served as `application/octet-stream`, is the body itself).
    public init(_ content: HARContent, headers: HTTPHeaders, harDirectory: URL?, hexBinary: Bool = false) {
        bytes = Data()
        let contentType = headers["content-type"] ?? content.mimeType
        if let text = content.text {
            let encoding = content.encoding?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
            if encoding == "base64" {
                if let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) {
                    bytes = data
                } else {
                    notes.append("content.text is marked base64 but does not decode; kept as text")
                    bytes = Data(text.utf8)
                }
            } else {
                if !encoding.isEmpty {
                    notes.append("content.encoding '\(content.encoding!)' is not base64; body kept as text")
                }
                bytes = RecordedBody.textBytes(text, contentType: contentType, hexBinary: hexBinary, notes: &notes)
            }
        } else if let file = content.file {
            bytes = RecordedBody.sideFile(file, harDirectory: harDirectory, notes: &notes)
        }
        if let coding = headers["content-encoding"]?.trimmingCharacters(in: .whitespaces).lowercased(),
            Decompression.looksEncoded(bytes, coding: coding)
        {
            if let decoded = Decompression.decode(bytes, coding: coding) {
                bytes = decoded
                notes.append("body was recorded still \(coding)-compressed; stored decoded")
            } else if coding != "br" || !RecordedBody.isBinaryMedia(contentType) {
                // Binary media under `br` is usually the decoded image itself: only text bodies are suspicious.
                notes.append(
                    "body is not valid \(coding) data; kept exactly as recorded and served without Content-Encoding"
                )
            }
        }
    }

    /// Text without the base64 flag: hex (Polly) or unflagged base64 for binary media, else the text in its charset.
    static func textBytes(_ text: String, contentType: String?, hexBinary: Bool, notes: inout [String]) -> Data {
        if isBinaryMedia(contentType), !text.isEmpty {
            if let hex = hexDecoded(text) {
                guard hexBinary else {
                    // Hex text from anyone but Polly.js is the body itself (a digest, a token), never base64 either.
                    return Data(text.utf8)
                }
                notes.append("binary body written as a hex string (Polly.js); decoded")
                return hex
            }
            if let base64 = strictBase64(text) {
                notes.append("binary body is base64 without content.encoding; decoded")
                return base64
            }
        }
        guard let charset = MediaType.parameter("charset", in: contentType)?.lowercased(),
            !text.utf8.allSatisfy({ $0 < 0x80 })
        else {
            return Data(text.utf8)
        }
        if ["utf-8", "utf8"].contains(charset) { return Data(text.utf8) }
        guard let encoding = stringEncoding(charset) else {
            notes.append("charset '\(charset)' is not supported; body stored as UTF-8")
            return Data(text.utf8)
        }
        guard let data = text.data(using: encoding) else {
            notes.append("text cannot be written in charset '\(charset)'; body stored as UTF-8")
            return Data(text.utf8)
        }
        notes.append("text re-encoded in its declared charset \(charset)")
        return data
    }

    static func sideFile(_ file: String, harDirectory: URL?, notes: inout [String]) -> Data {
        guard let harDirectory else {
            notes.append("content._file '\(file)' cannot be resolved; served empty")
            return Data()
        }
        let candidate = harDirectory.appendingPathComponent(file).standardizedFileURL
        guard SetRelativePath.problem(file) == nil, isInside(candidate, harDirectory.standardizedFileURL) else {
            notes.append("content._file '\(file)' points outside the HAR's folder; served empty")
            return Data()
        }
        guard FileManager.default.fileExists(atPath: candidate.path) else {
            notes.append("content._file '\(file)' not found next to the HAR; served empty")
            return Data()
        }
        // A file that exists is resolved on both sides, so a link inside the folder cannot lead out of it. Foundation
        // resolves only paths that exist: checked before, a missing file in a folder reached through a link (macOS's
        // /tmp, a symlinked checkout) would pass for one outside.
        guard isInside(candidate.resolvingSymlinksInPath(), harDirectory.resolvingSymlinksInPath()) else {
            notes.append("content._file '\(file)' points outside the HAR's folder; served empty")
            return Data()
        }
        guard let data = try? Data(contentsOf: candidate) else {
            notes.append("content._file '\(file)' cannot be read; served empty")
            return Data()
        }
        return data
    }

    /// Whether `url` lies strictly beneath `folder`, comparing standardized paths.
    private static func isInside(_ url: URL, _ folder: URL) -> Bool {
        let base = folder.standardizedFileURL.path
        return url.standardizedFileURL.path.hasPrefix(base.hasSuffix("/") ? base : base + "/")
    }

    /// Media types whose bodies are never text.
    static func isBinaryMedia(_ contentType: String?) -> Bool {
        let essence = MediaType.essence(of: contentType)
        if essence.hasPrefix("image/") { return essence != "image/svg+xml" }
        return essence.hasPrefix("audio/") || essence.hasPrefix("video/") || essence.hasPrefix("font/")
            || [
                "application/octet-stream", "application/pdf", "application/zip", "application/gzip",
                "application/wasm",
                "application/font-woff", "application/font-woff2", "application/x-font-ttf", "application/x-protobuf",
                "application/protobuf", "application/vnd.ms-fontobject",
            ].contains(essence)
    }

    static func isBinary(_ data: Data) -> Bool { String(data: data, encoding: .utf8) == nil }

    /// Even-length text of hex digits only, decoded; `nil` otherwise.
    static func hexDecoded(_ text: String) -> Data? {
        let utf8 = Array(text.utf8)
        guard utf8.count >= 2, utf8.count % 2 == 0 else { return nil }
        var output = Data(capacity: utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = URLEncoding.hexValue(utf8[index]), let low = URLEncoding.hexValue(utf8[index + 1]) else {
                return nil
            }
            output.append(high << 4 | low)
            index += 2
        }
        return output
    }

    /// Strict base64 (alphabet, padding, length a multiple of 4), decoded; `nil` otherwise.
    static func strictBase64(_ text: String) -> Data? {
        let utf8 = text.utf8
        guard utf8.count >= 4, utf8.count % 4 == 0,
            utf8.allSatisfy({
                URLEncoding.isUnreserved($0) && $0 != UInt8(ascii: "-") && $0 != UInt8(ascii: ".")
                    && $0 != UInt8(ascii: "_") && $0 != UInt8(ascii: "~") || $0 == UInt8(ascii: "+")
                    || $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "=")
            })
        else { return nil }
        return Data(base64Encoded: text)
    }

    /// IANA charset names Foundation can encode.
    static func stringEncoding(_ charset: String) -> String.Encoding? {
        switch charset {
        case "iso-8859-1", "iso8859-1", "latin1", "l1", "iso_8859-1": return .isoLatin1
        case "iso-8859-2", "latin2": return .isoLatin2
        case "windows-1250", "cp1250": return .windowsCP1250
        case "windows-1251", "cp1251": return .windowsCP1251
        case "windows-1252", "cp1252": return .windowsCP1252
        case "windows-1253", "cp1253": return .windowsCP1253
        case "windows-1254", "cp1254": return .windowsCP1254
        case "shift_jis", "shift-jis", "sjis", "x-sjis": return .shiftJIS
        case "euc-jp": return .japaneseEUC
        case "iso-2022-jp": return .iso2022JP
        case "utf-16": return .utf16
        case "utf-16le": return .utf16LittleEndian
        case "utf-16be": return .utf16BigEndian
        case "us-ascii", "ascii": return .ascii
        default: return nil
        }
    }
}
