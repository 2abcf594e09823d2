import Foundation

/// What of one response is made per request: its placeholders, and the recorded origins' URLs to rewrite.
struct ResponseTemplate: Sendable {
    let body: Template?
    let hasHeaderPlaceholders: Bool
    /// The set's recorded origins, when the body or a URL header holds one of their URLs.
    let origins: OriginRewrite?

    init(body: Template?, hasHeaderPlaceholders: Bool, origins: OriginRewrite? = nil) {
        self.body = body
        self.hasHeaderPlaceholders = hasHeaderPlaceholders
        self.origins = origins
    }

    /// `nil` when neither the body nor any header value contains `{{` and there are no `origins`.
    /// - Parameter jsonValues: The body is JSON written as a value (`Template.parse(_:jsonValues:)`).
    init?(body: Data, headers: HTTPHeaders, origins: OriginRewrite? = nil, jsonValues: Bool = false) {
        self.body = Template.parse(body, jsonValues: jsonValues)
        self.hasHeaderPlaceholders = headers.contains { $0.value.containsPlaceholderOpening }
        self.origins = origins
        if self.body == nil && !hasHeaderPlaceholders && origins == nil { return nil }
    }

    /// The same placeholders with `origins` (none left: `nil`).
    static func with(_ template: ResponseTemplate?, origins: OriginRewrite?) -> ResponseTemplate? {
        guard template?.body != nil || template?.hasHeaderPlaceholders == true || origins != nil else { return nil }
        return ResponseTemplate(
            body: template?.body,
            hasHeaderPlaceholders: template?.hasHeaderPlaceholders ?? false,
            origins: origins
        )
    }
}
