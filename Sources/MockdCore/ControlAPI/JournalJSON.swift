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
        if let causedBy = entry.causedBy { item["causedBy"] = causedBy }
        if let note = entry.note { item["note"] = note }
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
        } else if entry.method == "SSE-OUT" {
            item["event"] = entry.headers["event"] ?? NSNull()
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
    ///
    /// With `redacting` (the default of `GET /__mockd/journal.har`), it goes through the same hygiene as
    /// `import-har` (`Redactor`): credentials in the query, `Authorization`, `Cookie`, `Set-Cookie` and API-key
    /// headers, credential fields of JSON and form bodies, and tokens, keys, e-mail addresses and phone numbers
    /// anywhere in text become placeholders (`{{token}}`, `{{password}}`, `{{email}}`…); the log's `comment` says how
    /// many values were replaced. A journal holds what the app really sent (a test account's password, live tokens),
    /// and the HAR is attached to test results and shared. Binary bodies are left as they are.
    static func har(_ entries: [JournalEntry], redacting: Bool = true) -> [String: Any] {
        let export = HARExport(entries, redacting: redacting)
        var log = export.log
        log["entries"] = (0..<export.count).map(export.entry)
        log.merge(export.trailer()) { _, new in new }
        return ["log": log]
    }

    /// The HAR export made one entry at a time (`GET /__mockd/journal.har` streams it, `StreamedJSON`): `log`
    /// without its entries, `entry(index)` for each in order (the redactor's placeholders and tally run across
    /// them), then `trailer()` with the log's `comment`, which needs every entry's tally.
    final class HARExport: @unchecked Sendable {
        private let entries: [JournalEntry]
        /// Used by one thread at a time, in entry order (the worker writing the export).
        private var redactor: Redactor?

        /// - Parameter entries: The journal's entries; what mockd itself did (`JournalEntry.isEffect`: pushed events,
        ///   webhooks, state changes) is not the app's traffic and is left out.
        init(_ entries: [JournalEntry], redacting: Bool) {
            self.entries = entries.filter { !$0.isEffect }
            redactor = redacting ? Redactor() : nil
        }

        /// How many entries the HAR has.
        var count: Int { entries.count }

        /// The log's fields besides `entries` and `comment`.
        var log: [String: Any] {
            ["version": "1.2", "creator": ["name": "mockd", "version": MockdVersion.current], "pages": []]
        }

        func entry(_ index: Int) -> Any { harEntry(entries[index], index: index, &redactor) }

        /// `comment` when redacting: how many values were replaced.
        func trailer() -> [String: Any] {
            guard let redactor else { return [:] }
            let total = redactor.log.total
            return [
                "comment":
                    "mockd journal; \(total) secret or personal value\(total == 1 ? "" : "s") replaced by placeholders (?keepSecrets=true keeps them)"
            ]
        }
    }

    private static func harEntry(_ entry: JournalEntry, index: Int, _ redactor: inout Redactor?) -> [String: Any] {
        let host = entry.headers["host"] ?? "mockd"
        var target = entry.target
        if redactor != nil, let mark = target.firstIndex(of: "?") {
            let query = String(target[target.index(after: mark)...])
            target = String(target[...mark]) + redactor!.redactQuery(query, entry: index)
        }
        let headers = entry.headers.map { field -> [String: String] in
            [
                "name": field.name,
                "value": redactor?.redactHeader(
                    name: field.name,
                    value: field.value,
                    entry: index,
                    location: "request header"
                ) ?? field.value,
            ]
        }
        let request = HTTPRequest(method: entry.method, target: target)
        var harRequest: [String: Any] = [
            "method": entry.method,
            "url": "http://\(host)\(target)",
            "httpVersion": "HTTP/1.1",
            "headers": headers,
            "queryString": URLEncoding.decodedQuery(request.query).map { ["name": $0.name, "value": $0.value] },
            "cookies": [],
            "headersSize": -1,
            "bodySize": entry.bodySize,
        ]
        if !entry.body.isEmpty {
            if let text = String(data: entry.body, encoding: .utf8) {
                var sent = text
                if redactor != nil {
                    let contentType = entry.headers["content-type"]
                    sent =
                        redactor!.redactRequestBody(entry.body, contentType: contentType, entry: index)
                        .map { String(decoding: $0, as: UTF8.self) }
                        ?? redactor!.redactShapes(text, entry: index, location: "request body")
                }
                harRequest["postData"] = ["mimeType": entry.headers["content-type"] ?? "", "text": sent]
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
                content["text"] =
                    redactor?.redactResponseBody(
                        response.body,
                        mimeType: response.headers["content-type"],
                        entry: index
                    ).map { String(decoding: $0, as: UTF8.self) } ?? text
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
                "headers": response.headers.map { field -> [String: String] in
                    [
                        "name": field.name,
                        "value": redactor?.redactHeader(name: field.name, value: field.value, entry: index)
                            ?? field.value,
                    ]
                },
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
