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
