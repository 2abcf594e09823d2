import Foundation
import MockdControl
import MockdFormat

/// Journal records as the control API sends them (MockdControl's `JournalEntry`, `JournalRow`, `JournalEntryDetail`)
/// and the HAR 1.2 export of a journal (`JournalHAR`).
enum JournalJSON {
    static func entry(_ entry: JournalRecord) -> JournalEntry {
        var item = JournalEntry(
            sequence: entry.sequence,
            time: DateFormats.rfc3339Milliseconds(entry.time),
            method: entry.method,
            target: entry.target,
            host: entry.host,
            headers: entry.headers.map { "\($0.name): \($0.value)" },
            bodySize: entry.bodySize,
            matched: entry.matched,
            proxied: entry.proxied,
            stub: entry.stubID,
            edited: entry.edited.isEmpty ? nil : entry.edited,
            status: entry.status,
            fault: entry.fault?.rawValue,
            durationMs: (entry.durationMs * 1000).rounded() / 1000,
            causedBy: entry.causedBy,
            note: entry.note
        )
        if !entry.body.isEmpty {
            if let text = String(data: entry.body, encoding: .utf8) {
                item.body = text
            } else {
                item.bodyBase64 = entry.body.base64EncodedString()
            }
        }
        return item
    }

    /// The characters of a text body a journal row previews (a WebSocket frame's payload, a request body).
    static let rowPreviewLimit = 512

    /// One row of the live journal (`JournalFeed`): the entry without its body, a preview of at most
    /// `rowPreviewLimit` characters of a text body, the near misses of a miss, and for a WebSocket frame
    /// (`WS-IN`/`WS-OUT`) its `opcode` and `connection` number.
    static func row(_ entry: JournalRecord) -> JournalRow {
        var item = JournalJSON.entry(entry)
        item.body = nil
        item.bodyBase64 = nil
        var row = JournalRow(entry: item)
        if !entry.body.isEmpty, let text = String(data: entry.body, encoding: .utf8) {
            row.preview = text.count > rowPreviewLimit ? String(text.prefix(rowPreviewLimit)) + "…" : text
        }
        if !entry.matched, !entry.nearMisses.isEmpty { row.nearMisses = entry.nearMisses }
        if entry.method == "WS-IN" || entry.method == "WS-OUT" {
            row.opcode = entry.headers["opcode"]
            row.connection = entry.headers["connection-number"].flatMap { Int($0) }
        } else if entry.method == "SSE-OUT" {
            row.event = entry.headers["event"]
            row.connection = entry.headers["connection-number"].flatMap { Int($0) }
        }
        return row
    }

    /// The most response body bytes `detail` returns.
    static let detailBodyLimit = 256 * 1024

    /// One exchange in full for the dashboard's detail view (`GET /__mockd/journal/entries/SEQ`): the journal entry
    /// with its request body, and the response sent (`status`, `headers`, `body` as text or `bodyBase64`, `size`,
    /// `truncated` past `detailBodyLimit`, `fromFile` when it was served from a body file).
    static func detail(_ entry: JournalRecord, session: String) -> JournalEntryDetail {
        let response = entry.response
        var sent = SentResponse(
            status: entry.status,
            headers: response.headers.map { "\($0.name): \($0.value)" },
            size: response.fileBody?.count ?? response.body.count,
            truncated: response.body.count > detailBodyLimit,
            fromFile: response.fileBody != nil
        )
        let body = response.body.prefix(detailBodyLimit)
        if !body.isEmpty {
            if let text = String(data: body, encoding: .utf8) {
                sent.body = text
            } else {
                sent.bodyBase64 = body.base64EncodedString()
            }
        }
        return JournalEntryDetail(
            entry: JournalJSON.entry(entry),
            session: session,
            nearMisses: entry.nearMisses.isEmpty ? nil : entry.nearMisses,
            response: sent
        )
    }

    /// `value` as one line of JSON (keys sorted), as an event's `data:` needs.
    static func line(_ value: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)) ?? Data("{}".utf8)
    }

    /// The journal as a HAR 1.2 log: what the app actually sent and received, openable in browser dev tools.
    ///
    /// With `redacting` (the default of `GET /__mockd/journal.har`), it goes through the same hygiene as
    /// `import-har` (`Redactor`): credentials in the query, `Authorization`, `Cookie`, `Set-Cookie` and API-key
    /// headers, credential fields of JSON and form bodies, and tokens, keys, e-mail addresses and phone numbers
    /// anywhere in text become placeholders (`{{token}}`, `{{password}}`, `{{email}}`…); the log's `comment` says how
    /// many values were replaced. A journal holds what the app really sent (a test account's password, live tokens),
    /// and the HAR is attached to test results and shared. Binary bodies are left as they are.
    static func har(_ entries: [JournalRecord], redacting: Bool = true) -> JournalHAR {
        let export = HARExport(entries, redacting: redacting)
        var har = export.log
        har.log.entries = (0..<export.count).map(export.entry)
        har.log.comment = export.comment
        return har
    }

    /// The HAR export made one entry at a time (`GET /__mockd/journal.har` streams it, `StreamedJSON`): `log`
    /// without its entries, `entry(index)` for each in order (the redactor's placeholders and tally run across
    /// them), then `comment`, which needs every entry's tally.
    final class HARExport: @unchecked Sendable {
        private let entries: [JournalRecord]
        /// Used by one thread at a time, in entry order (the worker writing the export).
        private var redactor: Redactor?

        /// - Parameter entries: The journal's entries; what mockd itself did (`JournalRecord.isEffect`: pushed events,
        ///   webhooks, state changes) is not the app's traffic and is left out.
        init(_ entries: [JournalRecord], redacting: Bool) {
            self.entries = entries.filter { !$0.isEffect }
            redactor = redacting ? Redactor() : nil
        }

        /// How many entries the HAR has.
        var count: Int { entries.count }

        /// The log without entries or comment.
        var log: JournalHAR {
            JournalHAR(
                log: JournalHAR.Log(
                    creator: JournalHAR.Creator(name: "mockd", version: MockdVersion.current),
                    entries: [],
                    comment: nil
                )
            )
        }

        func entry(_ index: Int) -> JournalHAR.Entry { harEntry(entries[index], index: index, &redactor) }

        /// When redacting, how many values were replaced (in the entries made so far); `nil` otherwise.
        var comment: String? {
            guard let redactor else { return nil }
            let total = redactor.log.total
            return
                "mockd journal; \(total) secret or personal value\(total == 1 ? "" : "s") replaced by placeholders (?keepSecrets=true keeps them)"
        }
    }

    private static func harEntry(_ entry: JournalRecord, index: Int, _ redactor: inout Redactor?) -> JournalHAR.Entry {
        let host = entry.headers["host"] ?? "mockd"
        var target = entry.target
        if redactor != nil, let mark = target.firstIndex(of: "?") {
            let query = String(target[target.index(after: mark)...])
            target = String(target[...mark]) + redactor!.redactQuery(query, entry: index)
        }
        let headers = entry.headers.map { field in
            JournalHAR.NameValue(
                name: field.name,
                value: redactor?.redactHeader(
                    name: field.name,
                    value: field.value,
                    entry: index,
                    location: "request header"
                ) ?? field.value
            )
        }
        let request = HTTPRequest(method: entry.method, target: target)
        var postData: JournalHAR.PostData?
        if !entry.body.isEmpty {
            let mimeType = entry.headers["content-type"] ?? ""
            if let text = String(data: entry.body, encoding: .utf8) {
                var sent = text
                if redactor != nil {
                    sent =
                        redactor!.redactRequestBody(
                            entry.body,
                            contentType: entry.headers["content-type"],
                            entry: index
                        )
                        .map { String(decoding: $0, as: UTF8.self) }
                        ?? redactor!.redactShapes(text, entry: index, location: "request body")
                }
                postData = JournalHAR.PostData(mimeType: mimeType, text: sent)
            } else {
                // Not UTF-8: Base64 with the custom `_encoding` field `mockd import-har` reads back.
                postData = JournalHAR.PostData(
                    mimeType: mimeType,
                    text: entry.body.base64EncodedString(),
                    encoding: "base64"
                )
            }
        }
        let response = entry.response
        var content = JournalHAR.Content(size: response.body.count, mimeType: response.headers["content-type"] ?? "")
        if !response.body.isEmpty {
            if let text = String(data: response.body, encoding: .utf8) {
                content.text =
                    redactor?.redactResponseBody(
                        response.body,
                        mimeType: response.headers["content-type"],
                        entry: index
                    ).map { String(decoding: $0, as: UTF8.self) } ?? text
            } else {
                content.text = response.body.base64EncodedString()
                content.encoding = "base64"
            }
        }
        let status = entry.status ?? 0
        let duration = (entry.durationMs * 1000).rounded() / 1000
        return JournalHAR.Entry(
            startedDateTime: DateFormats.rfc3339Milliseconds(entry.time),
            time: duration,
            request: JournalHAR.Request(
                method: entry.method,
                url: "http://\(host)\(target)",
                headers: headers,
                queryString: URLEncoding.decodedQuery(request.query).map {
                    JournalHAR.NameValue(name: $0.name, value: $0.value)
                },
                bodySize: entry.bodySize,
                postData: postData
            ),
            response: JournalHAR.Response(
                status: status,
                statusText: entry.fault.map { "fault: \($0.rawValue)" } ?? HTTPStatus.reasonPhrase(status),
                headers: response.headers.map { field in
                    JournalHAR.NameValue(
                        name: field.name,
                        value: redactor?.redactHeader(name: field.name, value: field.value, entry: index)
                            ?? field.value
                    )
                },
                content: content,
                redirectURL: response.headers["location"] ?? "",
                bodySize: entry.fault == nil ? response.body.count : -1
            ),
            timings: JournalHAR.Timings(wait: duration),
            mockdStub: entry.stubID,
            mockdProxied: entry.proxied
        )
    }
}
