import Foundation
import MockdCore

/// Requests refused as soon as their headers are in, before any body is read (RFC 9110, RFC 9112).
enum RequestCheck {
    /// The answer for a request that must be refused, or `nil`.
    ///
    /// - 400 for a method that is not a token (RFC 9110 §9.1), an HTTP/1.1 request without `Host` and a request target
    ///   with whitespace (RFC 9112 §3.2, §3), several different `Content-Length` values or
    ///   `Content-Length` together with `Transfer-Encoding` (RFC 9112 §6.3: ambiguous framing, the request
    ///   smuggling pattern), and a `Content-Length` that is not a number.
    /// - 400 or 501 for fields and framing a front proxy could read differently (`framingRejection(of:)`).
    /// - 413 for a declared body over `maxBodyBytes` (a chunked body over the limit gets 413 once read).
    static func rejection(of context: RequestContext, maxBodyBytes: Int) -> FixedAnswer? {
        if !context.methodIsKnownToken, !HTTPToken.isToken(context.method) {
            return .badRequest("the method is not an HTTP token")
        }
        // libmicrohttpd 1.0.x refuses both itself; 0.9.75 (strict mode off, see CMicroHTTPD_startDaemon) hands them
        // over, and its strict mode would have closed a target with whitespace without a word. Only the path is
        // looked at: the library turns `+` in the query into a space, so a raw space there cannot be told apart.
        if context.fieldProblems.hostFields == 0, context.version == "HTTP/1.1" {
            return .badRequest("an HTTP/1.1 request needs a Host field (RFC 9112 §3.2)")
        }
        // `pathHasWhitespace` is only looked for with the legacy parser; tested first, it spares the lazy global.
        if context.pathHasWhitespace, RequestCheck.legacyHeadParser {
            return .badRequest(
                "the request target contains whitespace: the request line is method, one space, target, one space, "
                    + "version (RFC 9112 §3)"
            )
        }
        if context.fieldProblems.needsCheck, let answer = framingRejection(of: context) { return answer }
        // Most requests have no Content-Length: counted while the fields were read, no lookup.
        guard context.fieldProblems.contentLengthFields > 0 else { return nil }
        let lengths = context.headers.values(named: "content-length")
        let values = Set(lengths.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) })
        if values.count > 1 { return .badRequest("conflicting Content-Length values") }
        if context.headers["transfer-encoding"] != nil {
            return .badRequest("Content-Length and Transfer-Encoding together")
        }
        guard let value = values.first, let length = Int(value), length >= 0 else {
            return .badRequest("Content-Length is not a number")
        }
        if length > maxBodyBytes { return .payloadTooLarge(limitBytes: maxBodyBytes) }
        return nil
    }

}
