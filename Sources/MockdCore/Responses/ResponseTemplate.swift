import Foundation

/// The placeholders of one response.
struct ResponseTemplate: Sendable {
    let body: Template?
    let hasHeaderPlaceholders: Bool

    init(body: Template?, hasHeaderPlaceholders: Bool) {
        self.body = body
        self.hasHeaderPlaceholders = hasHeaderPlaceholders
    }

    /// `nil` when neither the body nor any header value contains `{{`.
    init?(body: Data, headers: HTTPHeaders) {
        self.body = Template.parse(body)
        self.hasHeaderPlaceholders = headers.contains { $0.value.containsPlaceholderOpening }
        if self.body == nil && !hasHeaderPlaceholders { return nil }
    }
}
