public import Foundation

/// Writes recorded exchanges as a HAR 1.2 log (the W3C draft "HTTP Archive (HAR) format"), the file
/// `mockd record` leaves behind and compiles with the HAR importer.
///
/// Response bodies are stored decoded, as browsers store them: a `Content-Encoding` the upstream applied
/// (gzip, deflate, br) is undone for `content.text` and the header is kept, so the importer sees what any
/// other producer gives it. A body that does not decode is stored as received, in base64, and the importer
/// reports it. A failed exchange has `status` 0 and the error in `response._error` (Chrome's field), which
/// the importer skips by default.
public enum RecordingHAR {
    /// The whole HAR document for `exchanges` (in their `order`), pretty-printed with sorted keys.
    public static func document(_ exchanges: [ProxiedExchange]) -> Data {
        let object: [String: Any] = [
            "log": [
                "version": "1.2",
                "creator": ["name": "mockd record", "version": MockdVersion.current],
                "pages": [] as [Any],
                "entries": exchanges.sorted { $0.order < $1.order }.map(entry),
            ] as [String: Any]
        ]
        let data =
            (try? JSONSerialization.data(
                withJSONObject: object,
                options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            )) ?? Data()
        return data + Data("\n".utf8)
    }

    /// One `log.entries[i]`.
    static func entry(_ exchange: ProxiedExchange) -> [String: Any] {
        let queryStart = exchange.url.firstIndex(of: "?")
        let rawQuery = queryStart.map { String(exchange.url[exchange.url.index(after: $0)...]) } ?? ""
        var request: [String: Any] = [
            "method": exchange.method,
            "url": exchange.url,
            "httpVersion": "HTTP/1.1",
            "headers": fields(exchange.requestHeaders),
            "queryString": URLEncoding.decodedQuery(Substring(rawQuery)).map { ["name": $0.name, "value": $0.value] },
            "cookies": [] as [Any],
            "headersSize": -1,
            "bodySize": exchange.requestBody.count,
        ]
        if !exchange.requestBody.isEmpty || ["POST", "PUT", "PATCH"].contains(exchange.method) {
            // HAR 1.2 has no encoding for postData: a body that is not UTF-8 text (protobuf, octet-stream) is kept
            // exactly as Base64 with the custom field `_encoding` (read back by the importer), never with U+FFFD
            // replacements that would make different requests one.
            let contentType = exchange.requestHeaders["content-type"]
            var postData: [String: Any] = ["mimeType": contentType ?? ""]
            if isText(exchange.requestBody, contentType: contentType) {
                postData["text"] = String(decoding: exchange.requestBody, as: UTF8.self)
            } else {
                postData["text"] = exchange.requestBody.base64EncodedString()
                postData["_encoding"] = "base64"
            }
            request["postData"] = postData
        }
        let milliseconds = (exchange.elapsedMs * 1000).rounded() / 1000
        var response: [String: Any]
        switch exchange.result {
        case .success(let upstream):
            var content: [String: Any] = ["mimeType": upstream.headers["content-type"] ?? ""]
            let coding = upstream.headers["content-encoding"]?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
            var body = upstream.body
            if !coding.isEmpty, coding != "identity", !body.isEmpty,
                let decoded = Decompression.decode(body, coding: coding)
            {
                body = decoded
            }
            content["size"] = body.count
            if !body.isEmpty {
                if isText(body, contentType: upstream.headers["content-type"]) {
                    content["text"] = String(decoding: body, as: UTF8.self)
                } else {
                    content["text"] = body.base64EncodedString()
                    content["encoding"] = "base64"
                }
            }
            response = [
                "status": upstream.status,
                "statusText": HTTPStatus.reasonPhrase(upstream.status),
                "httpVersion": upstream.httpVersion,
                "headers": fields(upstream.headers),
                "cookies": [] as [Any],
                "content": content,
                "redirectURL": upstream.headers["location"] ?? "",
                "headersSize": -1,
                "bodySize": upstream.body.count,
            ]
        case .failure(let failure):
            response = [
                "status": 0,
                "statusText": "",
                "httpVersion": "",
                "headers": [] as [Any],
                "cookies": [] as [Any],
                "content": ["size": 0, "mimeType": ""],
                "redirectURL": "",
                "headersSize": -1,
                "bodySize": -1,
                "_error": failure.message,
                "_errorKind": failure.kind.rawValue,
            ]
        }
        return [
            "startedDateTime": DateFormats.rfc3339Milliseconds(exchange.startedAt),
            "time": milliseconds,
            "request": request,
            "response": response,
            "cache": [:] as [String: Any],
            "timings": ["send": 0, "wait": milliseconds, "receive": 0],
        ]
    }

    private static func fields(_ headers: HTTPHeaders) -> [[String: String]] {
        headers.map { ["name": $0.name, "value": $0.value] }
    }

    /// UTF-8 text whose media type declares no other charset: stored as `text`; anything else in base64, so
    /// the importer gets the exact bytes back.
    static func isText(_ body: Data, contentType: String?) -> Bool {
        guard String(data: body, encoding: .utf8) != nil else { return false }
        guard let contentType, let range = contentType.range(of: "charset=", options: .caseInsensitive) else {
            return true
        }
        let charset = contentType[range.upperBound...].prefix { $0 != ";" }.trimmingCharacters(
            in: CharacterSet(charactersIn: "\" ")
        ).lowercased()
        return charset == "utf-8" || charset == "utf8" || charset == "us-ascii"
    }
}
