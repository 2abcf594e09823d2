import Foundation

/// `If-None-Match` handling (RFC 9110 §13.1.2): weak comparison, `*` matches any current representation.
enum ConditionalRequest {
    /// Whether `request`'s validators match `response` (RFC 9110 §13.1.2 `If-None-Match` against `ETag`;
    /// without it, §13.1.3 `If-Modified-Since` not before `Last-Modified`).
    /// Whether the request carries a validator (`If-None-Match` or `If-Modified-Since`, RFC 9110 §13.1).
    static func isConditional(_ request: HTTPRequest) -> Bool {
        request.headers["if-none-match"] != nil || request.headers["if-modified-since"] != nil
    }

    static func isNotModified(_ request: HTTPRequest, _ response: MockResponse) -> Bool {
        if let condition = request.headers["if-none-match"] {
            guard let etag = response.headers["etag"] else { return false }
            return matches(etag: etag, ifNoneMatch: condition)
        }
        guard let since = request.headers["if-modified-since"], let modified = response.headers["last-modified"] else {
            return false
        }
        if since == modified { return true }
        guard let sinceDate = DateFormats.parseIMFFixdate(since),
            let modifiedDate = DateFormats.parseIMFFixdate(modified)
        else { return false }
        return modifiedDate <= sinceDate
    }

    /// Whether `request` carries the validator a recorded conditional request did, for a recorded 304 without
    /// `ETag` or `Last-Modified` of its own: an `If-None-Match` naming one of the recorded entity tags (weak
    /// comparison), else an `If-Modified-Since` at or after the recorded date (the server said nothing changed
    /// since then, so nothing changed since a later date either).
    static func matchesRecorded(_ request: HTTPRequest, ifNoneMatch: String?, ifModifiedSince: String?) -> Bool {
        if let condition = request.headers["if-none-match"] {
            guard let recorded = ifNoneMatch else { return false }
            return recorded.split(separator: ",").contains { tag in
                let trimmed = tag.trimmingCharacters(in: .whitespaces)
                return trimmed != "*" && matches(etag: trimmed, ifNoneMatch: condition)
            }
        }
        guard let since = request.headers["if-modified-since"], let recorded = ifModifiedSince else { return false }
        if since.trimmingCharacters(in: .whitespaces) == recorded.trimmingCharacters(in: .whitespaces) { return true }
        guard let sinceDate = DateFormats.parseIMFFixdate(since),
            let recordedDate = DateFormats.parseIMFFixdate(recorded)
        else { return false }
        return sinceDate >= recordedDate
    }

    static func matches(etag: String, ifNoneMatch: String) -> Bool {
        let current = weak(etag)
        return ifNoneMatch.split(separator: ",").contains { candidate in
            let trimmed = candidate.trimmingCharacters(in: .whitespaces)
            return trimmed == "*" || weak(trimmed) == current
        }
    }

    private static func weak(_ tag: String) -> String {
        tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag
    }

    /// 304 keeps the validator and caching headers and drops the content (RFC 9110 §15.4.5).
    static func notModified(_ response: MockResponse) -> MockResponse {
        let kept: Set<String> = [
            "etag", "cache-control", "content-location", "date", "expires", "vary", "last-modified",
        ]
        var result = MockResponse(
            status: 304,
            headers: HTTPHeaders(response.headers.fields.filter { kept.contains($0.name.lowercased()) }),
            stubID: response.stubID
        )
        result.recordedTimeMs = response.recordedTimeMs
        return result
    }
}
