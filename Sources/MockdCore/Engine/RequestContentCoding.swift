import Foundation

/// Request bodies sent with a content coding (`Content-Encoding: gzip`, RFC 9110 §8.4): matched, journaled and
/// templated as their decoded bytes, as the importer stores recorded ones.
///
/// Codings are undone last first (`gzip, br` was gzipped, then brotli-compressed); `identity` is no coding. `gzip`
/// (`x-gzip`), `deflate` and `br` decode through zlib and brotli (`Decompression`). Any other coding is answered 415
/// with `Accept-Encoding` listing the known ones (§15.5.16, §12.5.3); a body that does not decode, 400. Both are
/// misses that say why, journaled like any other.
enum RequestContentCoding {
    static let header = HTTPHeaders.NameSignature("content-encoding")
    static let known: Set<String> = ["gzip", "x-gzip", "deflate", "br"]

    /// Replaces `request.body` with its decoded bytes and removes `Content-Encoding`; `nil` when that worked or the
    /// request has no coding, else the 400 or 415 to answer (the request is left as received).
    static func decode(_ request: inout HTTPRequest) -> MockResponse? {
        guard let value = request.headers.joinedValues(named: "content-encoding") else { return nil }
        let codings = value.split(separator: ",").map { $0.trimmingWhitespace.asciiLowercased }.filter {
            !$0.isEmpty && $0 != "identity"
        }
        if let unknown = codings.first(where: { !known.contains($0) }) {
            var refusal = MockResponse.jsonError(
                status: 415,
                code: "unsupported_content_encoding",
                message:
                    "the request body's Content-Encoding '\(unknown)' is not one mockd decodes (gzip, deflate, br), so it cannot be matched"
            )
            refusal.headers.add(name: "Accept-Encoding", value: "gzip, deflate, br")
            return refusal
        }
        var body = request.body
        if !body.isEmpty {
            for coding in codings.reversed() {
                guard let decoded = Decompression.decode(body, coding: coding) else {
                    return .jsonError(
                        status: 400,
                        code: "undecodable_body",
                        message:
                            "the request body is not valid \(coding) data (Content-Encoding: \(value)), so it cannot be matched"
                    )
                }
                body = decoded
            }
        }
        request.body = body
        request.headers.remove(name: "content-encoding")
        return nil
    }
}
