import Foundation

/// Absolute URLs of a mock set's recorded origins, rewritten per request to the address the client reached mockd
/// at, so that an app following an image link, a CDN URL or a redirect stays on the mock.
///
/// In a set recorded from `https://api.example.com` alone, `https://api.example.com/v1/a.png` in a body becomes
/// `http://127.0.0.1:8080/v1/a.png` for a client that sent `Host: 127.0.0.1:8080`. In a set recorded from several
/// hosts, the URL keeps its host as a routing prefix: `http://127.0.0.1:8080/__host/cdn.example.com/a.png`. A
/// `/__session/ID` prefix the request came with is kept, so follow-up requests stay in the test's session.
///
/// Rules:
/// - Both schemes of a recorded host are rewritten (`http://` and `https://`), also with JSON-escaped slashes
///   (`https:\/\/api.example.com`); a default port written out (`:443`, `:80`) is dropped with the host.
/// - A URL is the host's only when the host ends there (followed by `/`, `?`, `#`, a quote, whitespace, `<`, `)`,
///   `,`, `\` or the end), so `https://api.example.com.evil.test` and `https://api.example.community` stay as they are.
/// - Bodies are rewritten only when they are UTF-8 text (JSON, HTML, XML, CSS, JavaScript…); headers: `Location`,
///   `Content-Location`, `Link`.
/// - Only what a client fetches: a URL that is an identifier compared as a constant (an RFC 9457 problem `type`,
///   `$schema`, JSON-LD `@context`/`@id`, an XML namespace; `IdentifierURLs`) keeps the recorded origin.
/// - Nothing is rewritten when the request has no `Host` or names a recorded host itself (a client that reaches
///   mockd through a proxy or a hosts-file entry follows recorded URLs back to mockd unchanged).
struct OriginRewrite: Sendable {
    /// One way a recorded host's origin can be written, e.g. `https:\/\/cdn.example.com`.
    struct Spelling: Sendable {
        let bytes: [UInt8]
        let host: String
        let escapedSlashes: Bool
    }

    /// Longest first, so `https://api.example.com:8443` is tried before `https://api.example.com`.
    let spellings: [Spelling]
    /// Whether rewritten URLs name their host as a `/__host/NAME` prefix (sets recorded from several hosts).
    let routesHosts: Bool

    /// Headers whose values hold URLs (RFC 9110 §10.2.2, §8.7; RFC 8288).
    static let urlHeaders: Set<String> = ["location", "content-location", "link"]
    /// What every spelling starts with.
    private static let http = Array("http".utf8)

    /// - Parameter origins: a set's `origins` (`https://api.example.com`); entries that are not an http(s) origin
    ///   are skipped. `nil` when none is left.
    init?(origins: [String]) {
        var hosts: [String] = []
        for origin in origins {
            let lower = origin.asciiLowercased
            guard let schemeEnd = lower.range(of: "://"), ["http", "https"].contains(lower[..<schemeEnd.lowerBound])
            else { continue }
            let host = HostName.normalized(lower[schemeEnd.upperBound...])
            if !host.isEmpty, !host.contains(where: { "/?# ".contains($0) }), !hosts.contains(host) {
                hosts.append(host)
            }
        }
        guard !hosts.isEmpty else { return nil }
        var spellings: [Spelling] = []
        for host in hosts {
            for scheme in ["https", "http"] {
                for escaped in [false, true] {
                    let text = scheme + (escaped ? #":\/\/"# : "://") + host
                    spellings.append(Spelling(bytes: Array(text.utf8), host: host, escapedSlashes: escaped))
                }
            }
        }
        self.spellings = spellings.sorted { $0.bytes.count > $1.bytes.count }
        self.routesHosts = hosts.count > 1
    }

    /// Whether `body` or a URL header of a response holds a URL of a recorded origin (checked once, at load).
    func applies(body: Data, headers: HTTPHeaders) -> Bool {
        // Names compared in place, not lowercased into new strings: this runs at every stub's first use.
        if headers.contains(where: { field in
            Self.urlHeaders.contains(where: field.name.caseInsensitiveEquals) && occurs(in: Data(field.value.utf8))
        }) {
            return true
        }
        return occurs(in: body) && String(data: body, encoding: .utf8) != nil
    }

    /// The offsets of the recorded origins' URLs in `data`, in order.
    func urlOffsets(in data: Data) -> [Int] {
        var found: [Int] = []
        var offset = 0
        while let hit = ByteSearch.firstOffset(of: Array("http".utf8), in: data, from: offset) {
            if let (_, length) = match(in: data, at: hit) {
                found.append(hit)
                offset = hit + length
            } else {
                offset = hit + 4
            }
        }
        return found
    }

    private func occurs(in data: Data) -> Bool {
        // Every spelling starts with `http`, so one search finds the candidates.
        var offset = 0
        while let hit = ByteSearch.firstOffset(of: Self.http, in: data, from: offset) {
            if match(in: data, at: hit) != nil { return true }
            offset = hit + 4
        }
        return false
    }

    /// The spelling at `offset` and the length it covers (with a default port written out), when the host ends
    /// there.
    private func match(in data: Data, at offset: Int) -> (spelling: Spelling, length: Int)? {
        let start = data.startIndex + offset
        for spelling in spellings {
            let end = start + spelling.bytes.count
            guard end <= data.endIndex, data[start..<end].elementsEqual(spelling.bytes) else { continue }
            var length = spelling.bytes.count
            for port in [":443", ":80"] {
                let portEnd = end + port.utf8.count
                if portEnd <= data.endIndex, data[end..<portEnd].elementsEqual(port.utf8),
                    portEnd == data.endIndex || Self.endsHost(data[portEnd])
                {
                    length += port.utf8.count
                }
            }
            guard length > spelling.bytes.count || end == data.endIndex || Self.endsHost(data[end]) else { continue }
            return (spelling, length)
        }
        return nil
    }

    private static func endsHost(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "\""), UInt8(ascii: "'"),
            UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "<"),
            UInt8(ascii: ">"), UInt8(ascii: ")"), UInt8(ascii: ","), UInt8(ascii: "\\"), UInt8(ascii: ";"):
            return true
        default:
            return false
        }
    }

    /// The base a recorded origin's URLs get for `request`, e.g. `http://127.0.0.1:8080/__session/t1`, with
    /// `/__host/NAME` appended per host by `rewrite`; `nil` when the request's URLs must stay as recorded.
    static func mockBase(for request: HTTPRequest, scheme: String, recordedHosts: (String) -> Bool) -> String? {
        guard let host = request.headers["host"]?.trimming([" ", "\t"]), !host.isEmpty, isAuthority(Substring(host)),
            !recordedHosts(HostName.normalized(host))
        else { return nil }
        return "\(scheme)://\(host)" + (request.routedSession.map { ReservedPrefix.session + $0 } ?? "")
    }

    /// `data` with every recorded origin's URL pointing at `base`; a body (`isBody`, served as `mimeType`) keeps its
    /// identifiers (`IdentifierURLs`: a problem `type`, `$schema`, JSON-LD `@context`, an XML namespace).
    func rewrite(_ data: Data, base: String, isBody: Bool = false, mimeType: String? = nil) -> Data {
        var output = Data()
        output.reserveCapacity(data.count)
        var copied = 0
        var offset = 0
        // Found on the first hit only: most bodies hold no recorded URL at all.
        var identifiers: Set<Int>?
        while let hit = ByteSearch.firstOffset(of: Array("http".utf8), in: data, from: offset) {
            guard let (spelling, length) = match(in: data, at: hit) else {
                offset = hit + 4
                continue
            }
            if isBody {
                if identifiers == nil { identifiers = IdentifierURLs.offsets(in: data, mimeType: mimeType) }
                if identifiers!.contains(hit) {
                    offset = hit + length
                    continue
                }
            }
            output.append(data[(data.startIndex + copied)..<(data.startIndex + hit)])
            var replacement = base + (routesHosts ? ReservedPrefix.host + spelling.host : "")
            if spelling.escapedSlashes { replacement = replacement.replacingOccurrences(of: "/", with: #"\/"#) }
            output.append(contentsOf: replacement.utf8)
            offset = hit + length
            copied = offset
        }
        guard copied > 0 else { return data }
        output.append(data[(data.startIndex + copied)...])
        return output
    }

    /// Whether `text` is an origin a set may list: `http://` or `https://`, a host name or IP literal, an optional
    /// port (1–65535), nothing else (RFC 6454 §6.1).
    static func isOrigin(_ text: String) -> Bool {
        let lower = text.asciiLowercased
        guard let schemeEnd = lower.range(of: "://"), ["http", "https"].contains(lower[..<schemeEnd.lowerBound]) else {
            return false
        }
        return isAuthority(lower[schemeEnd.upperBound...])
    }

    /// `host[:port]` as RFC 3986 §3.2.2 allows it in practice: letters, digits, `-`, `.`, or a bracketed IPv6
    /// literal, then an optional port of 1–65535.
    static func isAuthority(_ text: Substring) -> Bool {
        var host = text
        var port: Substring?
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return false }
            let literal = host[host.index(after: host.startIndex)..<close]
            guard !literal.isEmpty, literal.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                return false
            }
            let rest = host[host.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return false }
                port = rest.dropFirst()
            }
        } else {
            if let colon = host.lastIndex(of: ":") {
                port = host[host.index(after: colon)...]
                host = host[..<colon]
            }
            guard !host.isEmpty,
                host.allSatisfy({ ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" || $0 == "." })
            else { return false }
        }
        if let port {
            guard let number = Int(port), (1...65535).contains(number), port.allSatisfy(\.isNumber) else {
                return false
            }
        }
        return true
    }

    /// Whether `host` (`HostName.normalized`) is one of the recorded hosts.
    func isRecorded(_ host: String) -> Bool {
        spellings.contains { $0.host == host }
    }

    /// `response` with its body and URL headers rewritten for `request`.
    func rewrite(_ response: inout MockResponse, for request: HTTPRequest, scheme: String) {
        guard let base = Self.mockBase(for: request, scheme: scheme, recordedHosts: isRecorded) else { return }
        response.body = rewrite(response.body, base: base, isBody: true, mimeType: response.headers["content-type"])
        guard response.headers.contains(where: { Self.urlHeaders.contains($0.name.asciiLowercased) }) else { return }
        response.headers = HTTPHeaders(
            response.headers.fields.map { field in
                guard Self.urlHeaders.contains(field.name.asciiLowercased) else { return field }
                return .init(
                    name: field.name,
                    value: String(decoding: rewrite(Data(field.value.utf8), base: base), as: UTF8.self)
                )
            }
        )
    }
}
