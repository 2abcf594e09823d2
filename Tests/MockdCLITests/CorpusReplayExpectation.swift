import Foundation
import MockdTestSupport

@testable import MockdCore

/// A request-target as a browser sends it for a URL written in a HAR, built here without the importer's code: the
/// path and query exactly as written, percent-encoded only where the URL Standard's percent-encode sets say
/// (https://url.spec.whatwg.org/#percent-encoded-bytes): C0 controls, space, `"`, `#`, `<`, `>`, DEL and non-ASCII
/// (as UTF-8) everywhere, and in a path also `?`, `` ` ``, `{`, `}`. `[`, `]`, `|`, `^` and every `%XX` (or lone `%`)
/// go out as written; the fragment is never sent.
struct WireTarget {
    /// `scheme`, lower-cased.
    let scheme: String
    /// `host[:port]` as written, lower-cased.
    let host: String
    /// `/path?query`.
    let target: String

    init?(_ url: String) {
        guard let schemeEnd = url.range(of: "://") else { return nil }
        scheme = url[..<schemeEnd.lowerBound].lowercased()
        var rest = url[schemeEnd.upperBound...]
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var hostText = authority.lowercased()
        for defaultPort in [":443", ":80"] where hostText.hasSuffix(defaultPort) {
            hostText = String(hostText.dropLast(defaultPort.count))
        }
        host = hostText
        let pathAndQuery = rest[authorityEnd...]
        let queryStart = pathAndQuery.firstIndex(of: "?")
        let path = queryStart.map { pathAndQuery[..<$0] } ?? pathAndQuery
        var target = path.isEmpty ? "/" : WireTarget.encode(path, extra: Array("?`{}".utf8))
        if let queryStart {
            target += "?" + WireTarget.encode(pathAndQuery[pathAndQuery.index(after: queryStart)...], extra: [])
        }
        self.target = target
    }

    private static func encode(_ text: Substring, extra: [UInt8]) -> String {
        var output = ""
        for byte in text.utf8 {
            if byte <= 0x20 || byte >= 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "#")
                || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">") || extra.contains(byte)
            {
                output += String(format: "%%%02X", byte)
            } else {
                output.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return output
    }
}

/// A HAR entry the replay sends, with what was recorded for it.
struct ReplayEntry {
    let index: Int
    let method: String
    let host: String
    /// Path and query as a browser sends them (`WireTarget`).
    let target: String
    /// The request as the server tells requests apart: method, host, path, the query's pairs sorted by name (jQuery's
    /// `_` left out), the body.
    let requestKey: String
    let headers: [(String, String)]
    let requestBody: Data?
    let status: Int
    /// The recorded body as mockd decodes it (base64, Polly hex, compressed, charsets: see `RecordedBody`).
    let body: Data
    let mimeType: String?
    /// The URL path, for telling code from data (`app.js`).
    let path: String
    /// Whether the recorded request carried `If-None-Match` or `If-Modified-Since`.
    let isConditional: Bool
    /// Whether the recorded response carries `ETag` or `Last-Modified`.
    let hasValidators: Bool
    /// Whether the recorded request carried `Range`.
    let askedForRange: Bool
    /// `Content-Range` of the recorded response.
    let contentRange: String?
    /// Whether a client reads no body of the answer: a `HEAD`, 1xx, 204, 205, 304, a 3xx with `Location` or
    /// `redirectURL` (RFC 9110 §6.4.1, §15.4).
    let isBodiless: Bool
    /// Whether the HAR gives a size (or `Content-Length`) for the body but holds none.
    let bodyNotRecorded: Bool
    /// The redirect target (`Location`, else `redirectURL`) of a 3xx.
    let location: String?

    /// `nil` for entries whose answer never completed (failed, status 0/-1, no response, a producer's failure mark
    /// on an answer with a body), interim answers, WebSocket and non-HTTP entries.
    init?(_ entry: HAREntry) {
        guard let response = entry.response, (200...999).contains(response.status), entry.request.method != "CONNECT",
            entry.resourceType != "websocket", !entry.hasWebSocketMessages, !entry.request.method.isEmpty,
            let wire = WireTarget(entry.request.url), wire.scheme == "http" || wire.scheme == "https"
        else { return nil }
        let method = entry.request.method
        let status = response.status
        let location =
            (300..<400).contains(status)
            ? (response.headers["location"].flatMap { $0.isEmpty ? nil : $0 } ?? response.redirectURL) : nil
        isBodiless = method == "HEAD" || [204, 205, 304].contains(status) || location != nil
        guard entry.failureText == nil || isBodiless else { return nil }
        index = entry.index
        self.method = method
        host = wire.host
        target = wire.target
        let skipped: Set<String> = [
            "host", "content-length", "connection", "keep-alive", "transfer-encoding", "accept-encoding", "expect",
            "upgrade", "te", "proxy-connection",
        ]
        var headers = entry.request.headers.fields
            .filter { !$0.name.hasPrefix(":") && !skipped.contains($0.name.lowercased()) }
            .map { ($0.name, $0.value) }
        // curl adds its own Accept (and a form Content-Type for bodies); the recording had none.
        if entry.request.headers["accept"] == nil { headers.append(("Accept", "")) }
        if let post = entry.request.postData, post.text != nil || !post.params.isEmpty {
            if let text = post.text {
                requestBody = Data(text.utf8)
            } else {
                requestBody = Data(
                    post.params.map {
                        ReplayEntry.formEncode($0.name) + "=" + ReplayEntry.formEncode($0.value)
                    }.joined(separator: "&").utf8
                )
            }
            if entry.request.headers["content-type"] == nil { headers.append(("Content-Type", "")) }
        } else {
            requestBody = nil
        }
        self.headers = headers
        let pathEnd = target.firstIndex(of: "?") ?? target.endIndex
        path = String(target[..<pathEnd])
        let query = target[pathEnd...].dropFirst().split(separator: "&").filter {
            !$0.hasPrefix("_=") && $0 != "_"
        }
        requestKey =
            "\(method) \(host)\(path)?\(query.sorted().joined(separator: "&")) "
            + (requestBody.map { String(decoding: $0, as: UTF8.self) } ?? "")
        self.status = status
        self.location = location
        mimeType = response.content.mimeType ?? response.headers["content-type"]
        isConditional =
            entry.request.headers["if-none-match"] != nil || entry.request.headers["if-modified-since"] != nil
        hasValidators = response.headers["etag"] != nil || response.headers["last-modified"] != nil
        askedForRange = entry.request.headers["range"] != nil
        contentRange = response.headers["content-range"]
        let size =
            (response.content.size ?? 0) > 0
            ? response.content.size! : Int(response.headers["content-length"] ?? "") ?? 0
        bodyNotRecorded = size > 0 && (response.content.text ?? "").isEmpty && response.content.file == nil
        // RFC 9110 §6.4.1: a HEAD answer, 204 and 304 carry no content, even where a browser recorded the cached body
        // of a 304; a redirect or a 205 sends what was recorded (nothing, where the HAR holds no text).
        body =
            method == "HEAD" || [204, 304].contains(status)
            ? Data()
            : RecordedBody(
                response.content,
                headers: response.headers,
                harDirectory: nil,
                hexBinary: entry.isPollyEntry
            ).bytes
    }

    /// `application/x-www-form-urlencoded` as a browser writes a form (unreserved characters kept).
    static func formEncode(_ text: String) -> String {
        var output = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                output += String(format: "%%%02X", byte)
            }
        }
        return output
    }

    /// Whether this is a whole representation a plain request may get for a 304 or partial 206 of the same request.
    var isWholeRepresentation: Bool { (200..<300).contains(status) && status != 206 && !bodyNotRecorded }

    /// Whether `Content-Range: bytes 0-(N-1)/N` says the recorded body is all N bytes.
    var holdsEveryByte: Bool {
        guard let contentRange = contentRange?.trimmingCharacters(in: .whitespaces).lowercased(),
            contentRange.hasPrefix("bytes ")
        else { return false }
        let numbers = contentRange.dropFirst(6).split(whereSeparator: { $0 == "-" || $0 == "/" }).compactMap {
            Int($0)
        }
        return numbers.count == 3 && numbers[0] == 0 && numbers[1] == numbers[2] - 1 && numbers[2] == body.count
    }

    func curlRequest(baseURL: String) -> CurlRequest {
        CurlRequest(method: method, url: baseURL + target, headers: headers, body: requestBody)
    }
}

/// What the recording justifies for one replayed entry (see `CorpusReplayTests`).
struct ReplayExpectation {
    struct Answer {
        let index: Int
        let status: Int
        let body: Data
        let mimeType: String?
        let path: String
        /// The recorded `Location` to compare (after hygiene and URL rewriting), for redirects.
        let location: String?
    }

    enum Outcome {
        case answer(Answer)
        /// A 404 whose message says this.
        case miss(saying: String)
    }

    let outcome: Outcome
    /// How the expectation was decided, for the summary line.
    let kind: String

    init(for position: Int, in entries: [ReplayEntry]) {
        let entry = entries[position]
        func answer(_ from: ReplayEntry, status: Int? = nil) -> Outcome {
            .answer(
                Answer(
                    index: from.index,
                    status: status ?? from.status,
                    body: from.body,
                    mimeType: from.mimeType,
                    path: from.path,
                    location: from.location
                )
            )
        }
        // The whole representation a plain request gets for a 304 or a partial 206: the nearest recorded for the same
        // request, an earlier one first.
        let same = entries.indices.filter { entries[$0].requestKey == entry.requestKey }
        let whole =
            same.filter { $0 < position }.last { entries[$0].isWholeRepresentation }
            ?? same.first { $0 > position && entries[$0].isWholeRepresentation }
        switch entry.status {
        case 304 where entry.isConditional:
            (outcome, kind) = (answer(entry), "conditional requests answered 304")
        case 304 where whole != nil:
            (outcome, kind) = (answer(entries[whole!]), "plain requests at a 304 answered in full")
        case 304 where !entry.hasValidators:
            (outcome, kind) = (answer(entry), "304s to plain requests, no validator on either side")
        case 304:
            (outcome, kind) = (.miss(saying: "recorded only as 304 Not Modified"), "304-only refused")
        case 206 where entry.askedForRange:
            (outcome, kind) = (answer(entry), "range requests answered 206")
        case 206 where entry.holdsEveryByte:
            (outcome, kind) = (answer(entry, status: 200), "206s holding every byte answered 200")
        case 206 where whole != nil:
            (outcome, kind) = (answer(entries[whole!]), "plain requests at a 206 answered in full")
        case 206:
            (outcome, kind) = (.miss(saying: "recorded only as 206 Partial Content"), "206-only refused")
        case _ where entry.isBodiless:
            (outcome, kind) = (answer(entry), "bodiless answers (HEAD, 204, 205, redirects)")
        case _ where entry.bodyNotRecorded:
            (outcome, kind) = (.miss(saying: "body not recorded: HAR entry "), "bodies not recorded refused")
        default:
            (outcome, kind) = (answer(entry), "answers with their bodies")
        }
    }
}

/// The recorded hosts' absolute URLs as the mock serves them, decided here: every `http(s)://HOST` followed by `/`
/// or `"` points at the mock (with `/__host/HOST` when several hosts were recorded), except identifiers — a JSON
/// problem `type`/`instance`, `$schema`, `$id`, JSON-LD `@context`/`@id`/`@type`, and XML namespaces
/// (`xmlns…="…"`) — which keep the recorded URL.
struct ExpectedURLs {
    let hosts: Set<String>
    let mock: String

    /// The body with the recorded hosts' URLs pointing at the mock; `nil` when nothing changes.
    func expected(_ body: Data, mimeType: String?) -> Data? {
        guard var text = String(data: body, encoding: .utf8),
            hosts.contains(where: { text.contains("://\($0)") })
        else { return nil }
        let original = text
        // Identifiers are set aside under markers no body holds, and put back after the rewriting.
        let kept = identifiers(in: body).sorted { $0.count > $1.count }
        for (position, identifier) in kept.enumerated() {
            text = text.replacingOccurrences(of: identifier, with: "\u{1}\(position)\u{2}")
        }
        text = rewrite(text)
        for (position, identifier) in kept.enumerated() {
            text = text.replacingOccurrences(of: "\u{1}\(position)\u{2}", with: identifier)
        }
        return text == original ? nil : Data(text.utf8)
    }

    /// A redirect's `Location` as served.
    func expectedLocation(_ location: String) -> String {
        var redactor = Redactor()
        let clean = redactor.redactHeader(name: "Location", value: location, entry: 0)
        let rendered = String(decoding: Template.renderingFakeValues(in: Data(clean.utf8)), as: UTF8.self)
        return rewrite(rendered + "\"").dropLast().description
    }

    private func rewrite(_ text: String) -> String {
        var text = text
        for host in hosts.sorted(by: { $0.count > $1.count }) {
            let base = mock + (hosts.count > 1 ? "/__host/\(host)" : "")
            for scheme in ["https", "http"] {
                text = text.replacingOccurrences(of: "\(scheme)://\(host)/", with: base + "/")
                    .replacingOccurrences(of: "\(scheme)://\(host)\"", with: base + "\"")
            }
        }
        return text
    }

    /// Identifier values holding a recorded host's URL.
    private func identifiers(in body: Data) -> [String] {
        var found: [String] = []
        func walk(_ value: Any, key: String?, inContext: Bool, siblings: [String: Any]) {
            if let object = value as? [String: Any] {
                for (name, child) in object {
                    walk(child, key: name, inContext: inContext || name == "@context", siblings: object)
                }
            } else if let array = value as? [Any] {
                for child in array { walk(child, key: key, inContext: inContext, siblings: siblings) }
            } else if let string = value as? String, let key {
                let isProblem = ["title", "status", "detail"].contains { siblings[$0] != nil }
                if inContext || ["$schema", "$id", "@id", "@type", "@vocab", "@base"].contains(key)
                    || (isProblem && (key == "type" || key == "instance"))
                    || (key == "id" && siblings["$schema"] != nil)
                {
                    found.append(string)
                }
            }
        }
        if let json = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) {
            walk(json, key: nil, inContext: false, siblings: [:])
        } else if let text = String(data: body, encoding: .utf8),
            let namespaces = try? NSRegularExpression(pattern: #"xmlns(?::[\w.-]+)?\s*=\s*"([^"]*)""#)
        {
            for match in namespaces.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                if let range = Range(match.range(at: 1), in: text) { found.append(String(text[range])) }
            }
        }
        return found.filter { value in hosts.contains { value.contains("://\($0)") } }
    }
}
