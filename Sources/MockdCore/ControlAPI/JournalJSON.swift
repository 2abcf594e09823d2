import Foundation
import MockdFormat

/// JSON shapes of journal entries, near misses and the HAR 1.2 export of a journal.
enum JournalJSON {
    static func entry(_ entry: JournalEntry) -> [String: Any] {
        var item: [String: Any] = [
            "sequence": entry.sequence,
            "time": DateFormats.rfc3339Milliseconds(entry.time),
            "method": entry.method,
            "target": entry.target,
            "host": entry.host ?? NSNull(),
            "headers": entry.headers.map { "\($0.name): \($0.value)" },
            "bodySize": entry.bodySize,
            "matched": entry.matched,
            "proxied": entry.proxied,
            "stub": entry.stubID ?? NSNull(),
            "status": entry.status.map { $0 as Any } ?? NSNull(),
            "durationMs": (entry.durationMs * 1000).rounded() / 1000,
        ]
        if !entry.edited.isEmpty { item["edited"] = entry.edited }
        if let fault = entry.fault { item["fault"] = fault.rawValue }
        if !entry.body.isEmpty {
            if let text = String(data: entry.body, encoding: .utf8) {
                item["body"] = text
            } else {
                item["bodyBase64"] = entry.body.base64EncodedString()
            }
        }
        return item
    }

    /// The characters of a text body a journal row previews (a WebSocket frame's payload, a request body).
    static let rowPreviewLimit = 512

    /// One row of the live journal (`JournalFeed`): the entry without its body, a preview of at most
    /// `rowPreviewLimit` characters of a text body, the near misses of a miss, and for a WebSocket frame
    /// (`WS-IN`/`WS-OUT`) its `opcode` and `connection` number.
    static func row(_ entry: JournalEntry) -> [String: Any] {
        var item = JournalJSON.entry(entry)
        item["body"] = nil
        item["bodyBase64"] = nil
        if !entry.body.isEmpty, let text = String(data: entry.body, encoding: .utf8) {
            item["preview"] = text.count > rowPreviewLimit ? String(text.prefix(rowPreviewLimit)) + "…" : text
        }
        if !entry.matched, !entry.nearMisses.isEmpty { item["nearMisses"] = entry.nearMisses.map(\.jsonObject) }
        if entry.method == "WS-IN" || entry.method == "WS-OUT" {
            item["opcode"] = entry.headers["opcode"] ?? NSNull()
            item["connection"] = entry.headers["connection-number"].flatMap { Int($0) } ?? NSNull()
        }
        return item
    }

    /// The most response body bytes `detail` returns.
    static let detailBodyLimit = 256 * 1024

    /// One exchange in full for the dashboard's detail view (`GET /__mockd/journal/entries/SEQ`): the journal entry
    /// with its request body, and the response sent (`status`, `headers`, `body` as text or `bodyBase64`, `size`,
    /// `truncated` past `detailBodyLimit`, `fromFile` when it was served from a body file).
    static func detail(_ entry: JournalEntry) -> [String: Any] {
        var item = JournalJSON.entry(entry)
        if !entry.nearMisses.isEmpty { item["nearMisses"] = entry.nearMisses.map(\.jsonObject) }
        let response = entry.response
        var sent: [String: Any] = [
            "status": entry.status.map { $0 as Any } ?? NSNull(),
            "headers": response.headers.map { "\($0.name): \($0.value)" },
            "size": response.fileBody?.count ?? response.body.count,
            "truncated": response.body.count > detailBodyLimit,
            "fromFile": response.fileBody != nil,
        ]
        let body = response.body.prefix(detailBodyLimit)
        if !body.isEmpty {
            if let text = String(data: body, encoding: .utf8) {
                sent["body"] = text
            } else {
                sent["bodyBase64"] = body.base64EncodedString()
            }
        }
        item["response"] = sent
        return item
    }

    /// `object` as one line of JSON (keys sorted), as an event's `data:` needs.
    static func line(_ object: [String: Any]) -> Data {
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data("{}".utf8)
    }

    /// The journal as a HAR 1.2 log: what the app actually sent and received, openable in browser dev tools.
    static func har(_ entries: [JournalEntry]) -> [String: Any] {
        [
            "log": [
                "version": "1.2",
                "creator": ["name": "mockd", "version": MockdVersion.current],
                "pages": [],
                "entries": entries.map(harEntry),
            ] as [String: Any]
        ]
    }

    private static func harEntry(_ entry: JournalEntry) -> [String: Any] {
        let host = entry.headers["host"] ?? "mockd"
        let request = HTTPRequest(method: entry.method, target: entry.target)
        var harRequest: [String: Any] = [
            "method": entry.method,
            "url": "http://\(host)\(entry.target)",
            "httpVersion": "HTTP/1.1",
            "headers": entry.headers.map { ["name": $0.name, "value": $0.value] },
            "queryString": URLEncoding.decodedQuery(request.query).map { ["name": $0.name, "value": $0.value] },
            "cookies": [],
            "headersSize": -1,
            "bodySize": entry.bodySize,
        ]
        if !entry.body.isEmpty {
            if let text = String(data: entry.body, encoding: .utf8) {
                harRequest["postData"] = ["mimeType": entry.headers["content-type"] ?? "", "text": text]
            } else {
                // Not UTF-8: Base64 with the custom `_encoding` field `mockd import-har` reads back.
                harRequest["postData"] = [
                    "mimeType": entry.headers["content-type"] ?? "", "text": entry.body.base64EncodedString(),
                    "_encoding": "base64",
                ]
            }
        }
        let response = entry.response
        var content: [String: Any] = ["size": response.body.count, "mimeType": response.headers["content-type"] ?? ""]
        if !response.body.isEmpty {
            if let text = String(data: response.body, encoding: .utf8) {
                content["text"] = text
            } else {
                content["text"] = response.body.base64EncodedString()
                content["encoding"] = "base64"
            }
        }
        let status = entry.status ?? 0
        return [
            "startedDateTime": DateFormats.rfc3339Milliseconds(entry.time),
            "time": (entry.durationMs * 1000).rounded() / 1000,
            "request": harRequest,
            "response": [
                "status": status,
                "statusText": entry.fault.map { "fault: \($0.rawValue)" } ?? HTTPStatus.reasonPhrase(status),
                "httpVersion": "HTTP/1.1",
                "headers": response.headers.map { ["name": $0.name, "value": $0.value] },
                "cookies": [],
                "content": content,
                "redirectURL": response.headers["location"] ?? "",
                "headersSize": -1,
                "bodySize": entry.fault == nil ? response.body.count : -1,
            ] as [String: Any],
            "cache": [:] as [String: Any],
            "timings": ["send": 0, "wait": (entry.durationMs * 1000).rounded() / 1000, "receive": 0],
            "_mockdStub": entry.stubID ?? NSNull(),
            "_mockdProxied": entry.proxied,
        ]
    }
}
