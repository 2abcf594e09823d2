import Foundation
import MockdFormat

/// An override's `rateLimit`: `limit` calls per `windowMs` for each value of `key`, then 429 with `Retry-After`
/// (RFC 6585 §4).
struct RateLimitRule: Sendable {
    let limit: Int
    /// Window length in ms of the session's clock, counted from the window's first call.
    let windowMs: Double
    /// A fixed `Retry-After` in seconds; `nil` = the rest of the window, rounded up.
    let retryAfter: Int?
    /// The request expression whose value keys the windows (`request.json.phone`); `nil` = one window.
    let key: String?
    /// The 429's body and its `Content-Type`; `nil` = the standard `rate_limited` error.
    let body: (data: Data, contentType: String)?

    /// The request expressions a `key` may name: what placeholders read from the request.
    static let keyPrefixes = ["request.json.", "request.header.", "request.query."]
    static let wholeKeys: Set<String> = ["request.method", "request.path", "request.body"]

    /// Whether `key` is a request expression a limit can count by.
    static func isValidKey(_ key: String) -> Bool {
        guard PlaceholderName.isValid(key) else { return false }
        return wholeKeys.contains(key) || keyPrefixes.contains { key.hasPrefix($0) && key.count > $0.count }
    }

    /// The value of `key` in `request` (`""` without a key, or when the request does not carry it).
    func keyValue(of request: HTTPRequest) -> String {
        guard let key else { return "" }
        return TemplateContext(request: request, call: 0).value(for: key) ?? ""
    }

    /// The 429 for `request`: the configured body (`{{retryAfter}}` and request placeholders rendered) or the
    /// standard error, with `Retry-After: retryAfter`.
    func response(to request: HTTPRequest, retryAfter: Int, overrideID: String, now: Date) -> MockResponse {
        var response: MockResponse
        if let body {
            var data = body.data
            if let template = Template.parse(data) {
                let context = TemplateContext(request: request, call: 0, now: now)
                context.retryAfter = retryAfter
                data = template.render(context)
            }
            response = MockResponse(
                status: 429,
                headers: HTTPHeaders([("Content-Type", body.contentType)]),
                body: data
            )
        } else {
            response = MockResponse.jsonError(
                status: 429,
                code: "rate_limited",
                message: "Too many requests; retry after \(retryAfter) s."
            )
        }
        response.headers.add(name: "Retry-After", value: String(retryAfter))
        response.stubID = overrideID
        return response
    }
}
