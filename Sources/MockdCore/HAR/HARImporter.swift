public import Foundation
public import MockdFormat

/// Options for turning a HAR into a mock set.
public struct HARImportOptions: Sendable {
    /// What to do with failed attempts (status 0 or -1, no response).
    public enum FailedPolicy: String, Sendable {
        /// Leave them out (reported).
        case skip
        /// Replay them as a connection reset, in their place in the sequence.
        case keep
    }

    /// Keep only entries whose URL host (or `host:port`) is one of these; empty keeps every host.
    public var hosts: [String]
    /// Keep secrets and personal data as recorded (hygiene off).
    public var keepSecrets = false
    /// Response headers never stored (and never match constraints), lower-case; defaults to `UnstableHeaders.defaults`.
    public var unstableHeaders: [String] = UnstableHeaders.defaults
    /// Ignore lists and value rules, applied to recorded keys here and written to the set for live requests.
    public var normalization = RequestNormalization()
    public var failed = FailedPolicy.skip
    /// Responses whose body the HAR did not capture (a size or `Content-Length` but no text): `miss` (default)
    /// answers them with a miss that says so; `empty` serves them with an empty body as before.
    public var missingBodies = MissingBodyPolicy.miss
    public enum MissingBodyPolicy: String, Sendable {
        case miss, empty
    }
    /// Write `"cors": true`: unmatched CORS preflights get a permissive 204.
    public var cors = false
    /// Leave hosts out of keys even when several hosts are kept (same-path collisions are reported).
    public var flattenHosts = false
    /// Write `"rebaseDates": true`: the recorded dates found in answers (always listed in their `dates`) are served
    /// moved to the session's clock.
    public var rebaseDates = false
    /// Request headers recorded as match constraints (lower-case names).
    public var matchHeaders: [String]
    /// Recorded WebSocket frame delays are multiplied by this (0 sends everything at once).
    public var webSocketTimeScale: Double
    /// Replay each recorded server frame only after the client frame that preceded it in the recording.
    public var webSocketWaitForClient: Bool

    public init(
        hosts: [String] = [],
        matchHeaders: [String] = MockSetFile.defaultMatchHeaders,
        webSocketTimeScale: Double = 1,
        webSocketWaitForClient: Bool = false
    ) {
        self.hosts = hosts
        self.matchHeaders = matchHeaders.map(\.asciiLowercased)
        self.webSocketTimeScale = webSocketTimeScale
        self.webSocketWaitForClient = webSocketWaitForClient
    }
}

/// Compiles HAR entries into a mock set: one stub per request key, repeated requests as a sequence.
///
/// Faithful by default: recorded status, headers and exact body bytes (`content.text`, base64-decoded
/// when `encoding` is `base64`). Entries that cannot be replayed (failed requests with status 0 or -1,
/// WebSocket handshakes, non-HTTP URLs) are skipped and reported with their index.
public enum HARImporter {
    /// Builds the mock set for `archive` in one call (see `HARCompiler` to feed entries one at a time).
    ///
    /// - Parameters:
    ///   - archive: The parsed HAR.
    ///   - options: Host filter and match headers.
    ///   - harDirectory: The folder of the HAR file, for Playwright `content._file` side files; a side file
    ///     must stay inside it.
    /// - Returns: The set to write and the report. The set may be empty; the caller decides whether that
    ///   is an error.
    /// - Complexity: O(entries + body bytes).
    public static func build(
        _ archive: HARArchive,
        options: HARImportOptions = HARImportOptions(),
        harDirectory: URL? = nil
    ) -> (MockSetBuild, ImportReport) {
        var compiler = HARCompiler(options: options, harDirectory: harDirectory)
        for entry in archive.entries { compiler.add(entry) }
        return compiler.finish()
    }

    /// `content-type` → `Content-Type` for readable index files.
    static func canonicalHeaderName(_ name: String) -> String {
        name.split(separator: "-", omittingEmptySubsequences: false)
            .map { $0.prefix(1).uppercased() + $0.dropFirst() }
            .joined(separator: "-")
    }
}

/// A recorded absolute URL split into the parts a request key needs, its path and query exactly as written.
///
/// Split by hand (RFC 3986 §3: `scheme ":" "//" authority path ["?" query] ["#" fragment]`), never re-encoded:
/// `RequestKey` normalises both sides of a match alike, so a producer's spelling (`filter[name]=John%20Doe`, a raw
/// `|`, a space or raw UTF-8 as Chrome and Firefox record them) keys like the request a client sends for it.
/// Foundation's `URLComponents(string:)` percent-encodes such a URL as a whole on Linux, `%` included, which
/// turned `%20` into `%2520` and made the recorded request miss its own stub.
struct RecordedURL {
    let scheme: String
    let host: String
    let hostAndPort: String
    let rawPath: String
    let rawQuery: String

    init?(_ text: String) {
        // Foundation's trim only when an end may be white space (ASCII tab to CR and space, or any non-ASCII).
        let ends = (text.utf8.first ?? 0, text.utf8.last ?? 0)
        let trimmed =
            ends.0 > 0x20 && ends.0 < 0x80 && ends.1 > 0x20 && ends.1 < 0x80
            ? text : text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let colon = trimmed.firstIndex(of: ":") else { return nil }
        let scheme = trimmed[..<colon]
        // RFC 3986 §3.1: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), on the bytes.
        func isLetter(_ byte: UInt8) -> Bool { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) }
        guard let first = scheme.utf8.first, isLetter(first),
            scheme.utf8.allSatisfy({
                isLetter($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "+")
                    || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
            })
        else { return nil }
        self.scheme = String(scheme).asciiLowercased
        var rest = trimmed[trimmed.index(after: colon)...]
        // A fragment is never sent.
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        var authority: Substring = ""
        if rest.hasPrefix("//") {
            rest = rest.dropFirst(2)
            let end = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
            authority = rest[..<end]
            rest = rest[end...]
        }
        // Userinfo (`user:pass@`) is not part of the host.
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        let (host, port) = RecordedURL.splitAuthority(authority)
        guard port.allSatisfy(\.isASCII), port.allSatisfy(\.isNumber) else { return nil }
        self.host = String(host).asciiLowercased
        hostAndPort = HostName.normalized(port.isEmpty ? self.host : "\(self.host):\(port)")
        let query = rest.firstIndex(of: "?")
        let path = query.map { rest[..<$0] } ?? rest
        rawPath = path.isEmpty ? "/" : String(path)
        rawQuery = query.map { String(rest[rest.index(after: $0)...]) } ?? ""
    }

    /// `host` and `port` of an authority (`api.example.com:8443`, `[::1]:8080`); the port is empty when absent.
    private static func splitAuthority(_ authority: Substring) -> (host: Substring, port: Substring) {
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            let afterClose = authority.index(after: close)
            let port =
                afterClose < authority.endIndex && authority[afterClose] == ":"
                ? authority[authority.index(after: afterClose)...] : ""
            return (authority[...close], port)
        }
        guard let colon = authority.lastIndex(of: ":") else { return (authority, "") }
        return (authority[..<colon], authority[authority.index(after: colon)...])
    }

    /// `https://api.example.com` (RFC 6454; a WebSocket's `wss:` is the `https:` origin of its host), default port
    /// left out.
    var origin: String {
        (scheme == "wss" || scheme == "https" ? "https" : "http") + "://" + hostAndPort
    }
}

/// Readable, stable, unique stub ids and body file names.
struct FileNamer {
    private var usedIDs: Set<String> = []
    private var usedFiles: Set<String> = []
    /// The next suffix to try per base name, so many ids sharing a truncated prefix stay linear; only for names that
    /// were taken (the others start at 2).
    private var nextSuffix: [String: Int] = [:]

    init() {}

    /// Room for about `stubs` ids and as many body files, reserved once rather than doubled (and rehashed) as they
    /// grow.
    init(reservingFor stubs: Int) {
        usedIDs.reserveCapacity(stubs)
        usedFiles.reserveCapacity(stubs)
    }

    /// `GET_v1_messages__limit-20`; a repeat gets `-2`, `-3` in order of appearance.
    /// - Parameter label: Said instead of the query (a GraphQL operation's name: `POST_graphql__GetUser`).
    mutating func uniqueID(for key: RequestKey, label: String? = nil) -> String {
        // Spelt out byte by byte (`StubIDSpelling`, which the loader spells again): splitting the path, replacing in
        // the query and testing `CharacterSet` per scalar were a tenth of a 100,000-entry import's single-threaded end.
        var bytes: [UInt8] = []
        (label == nil ? key : key.with(query: "")).withUTF8 { method, path, query, _ in
            bytes.appendWritten { StubIDSpelling.write(method: method, path: path, query: query, to: &$0) }
        }
        if let label { bytes += Array("__".utf8) + FileNamer.sanitize(label).utf8 }
        let base = FileNamer.truncate(String(decoding: bytes, as: UTF8.self), to: 96)
        let loweredBase = base.asciiLowercased
        var candidate = base
        let first = nextSuffix[loweredBase, default: 2]
        var counter = first
        while !usedIDs.insert(candidate == base ? loweredBase : candidate.asciiLowercased).inserted {
            candidate = "\(base)-\(counter)"
            counter += 1
        }
        if counter != first { nextSuffix[loweredBase] = counter }
        return candidate
    }

    /// `bodies/<base><suffix>.<ext>`, unique case-insensitively (for case-insensitive file systems). A base that
    /// already ends in the extension (`GET_img_logo.png` for an `image/png` body, `….jpeg` for `image/jpeg`) keeps it
    /// once: `bodies/GET_img_logo.png`, `bodies/GET_img_logo_2.png`.
    /// - Parameter suffix: Added before the extension (`_2` for the second step of a sequence).
    mutating func uniqueFile(_ base: String, suffix: String = "", mimeType: String?, body: Data) -> String {
        var ext = FileNamer.fileExtension(mimeType: mimeType, body: body)
        var stem = base
        if let dot = base.lastIndex(of: "."),
            FileNamer.isSameExtension(String(base[base.index(after: dot)...]), as: ext)
        {
            ext = String(base[base.index(after: dot)...])
            stem = String(base[..<dot])
        }
        var candidate = "bodies/\(stem)\(suffix).\(ext)"
        let key = candidate.asciiLowercased
        let first = nextSuffix[key, default: 2]
        var counter = first
        while !usedFiles.insert(candidate.asciiLowercased).inserted {
            candidate = "bodies/\(stem)\(suffix)-\(counter).\(ext)"
            counter += 1
        }
        if counter != first { nextSuffix[key] = counter }
        return candidate
    }

    /// Whether a path's own extension names the type `ext` was chosen for (`png`/`png`, `jpeg`/`jpg`, `htm`/`html`).
    static func isSameExtension(_ pathExtension: String, as ext: String) -> Bool {
        let lowered = pathExtension.asciiLowercased
        return lowered == ext || extensionAliases[lowered] == ext
    }

    private static let extensionAliases = ["jpeg": "jpg", "htm": "html", "mjs": "js", "yml": "yaml"]

    /// `text` with every run of characters other than ASCII letters, digits, `-` and `.` made one `_`, and leading
    /// dots left out (`..a b` → `a_b`): `StubIDSpelling.writeSanitized`.
    static func sanitize(_ text: String) -> String {
        var text = text
        var bytes: [UInt8] = []
        text.withUTF8 { text in
            bytes.appendWritten { StubIDSpelling.writeSanitized(UnsafeRawBufferPointer(text), to: &$0) }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func truncate(_ text: String, to length: Int) -> String {
        // A text no longer in bytes is no longer in characters; ASCII without CR (CR LF is one character) is cut
        // by bytes.
        if text.utf8.count <= length { return text }
        if text.utf8.allSatisfy({ $0 < 0x80 && $0 != 0x0D }) {
            return String(decoding: text.utf8.prefix(length), as: UTF8.self)
        }
        return text.count <= length ? text : String(text.prefix(length))
    }

    /// A file extension from the media type, else `txt` for UTF-8 text and `bin` for anything else.
    static func fileExtension(mimeType: String?, body: Data) -> String {
        let essence = MediaType.essence(of: mimeType)
        if let ext = knownExtensions[essence] { return ext }
        if MediaType.isJSON(essence) { return "json" }
        if essence.hasSuffix("+xml") { return "xml" }
        return String(validatingUTF8: body) != nil ? "txt" : "bin"
    }

    /// Made once: built in `fileExtension`, the table was most of its time.
    private static let knownExtensions: [String: String] = [
        "application/json": "json", "text/html": "html", "text/css": "css", "text/javascript": "js",
        "application/javascript": "js", "application/x-javascript": "js", "text/plain": "txt",
        "text/xml": "xml", "application/xml": "xml", "image/png": "png", "image/jpeg": "jpg", "image/jpg": "jpg",
        "image/gif": "gif", "image/webp": "webp", "image/avif": "avif", "image/svg+xml": "svg",
        "image/x-icon": "ico", "image/vnd.microsoft.icon": "ico", "font/woff2": "woff2", "font/woff": "woff",
        "application/font-woff": "woff", "application/font-woff2": "woff2", "font/ttf": "ttf",
        "application/pdf": "pdf", "text/event-stream": "txt", "application/x-www-form-urlencoded": "form",
        "multipart/form-data": "multipart", "video/mp4": "mp4", "application/wasm": "wasm",
    ]
}

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }

    /// Whether `data` is valid UTF-8 text.
    init?(validatingUTF8 data: Data) {
        guard let text = String(data: data, encoding: .utf8) else { return nil }
        self = text
    }
}
