import Foundation
import MockdFormat

/// A response's `{{placeholders}}`: parsed when its body or headers change, rendered per request.
extension MockResponse {
    /// Replaces the body and re-parses its placeholders.
    /// - Parameter jsonValues: The new body is JSON written as a value (an override's `body`, a `bodyPatch`'s
    ///   result): a string that is exactly one placeholder renders as its JSON value (`Template.parse`).
    mutating func replaceBody(_ newBody: Data, jsonValues: Bool = false) {
        body = newBody
        if fileBody != nil { fileBody = nil }
        template = ResponseTemplate(body: body, headers: headers, origins: template?.origins, jsonValues: jsonValues)
    }

    /// Marks the response as literal: `{{…}}` in it is sent as is (recorded bodies). Recorded origins' URLs are
    /// still rewritten (`OriginRewrite`): that is the set's `rewriteURLs`, not templating.
    mutating func disableTemplate() {
        template = ResponseTemplate.with(nil, origins: template?.origins)
    }

    /// Rewrites URLs of `origins` per request when the body or a URL header holds one (checked here, once).
    mutating func rewriteURLs(of origins: OriginRewrite) {
        guard origins.applies(body: body, headers: headers) else { return }
        template = ResponseTemplate.with(template, origins: origins)
    }

    /// Applies a stored response's `templated` mode. Fake-value placeholders (`{{token}}`…) are rendered
    /// right away in every mode but `.off`, since they never change: a redacted stub stays a static one.
    mutating func applyTemplateMode(_ mode: TemplateMode) {
        guard mode != .off else {
            template = ResponseTemplate.with(nil, origins: template?.origins)
            return
        }
        guard template != nil else { return }
        body = Template.renderingFakeValues(in: body)
        if headers.contains(where: { $0.value.containsPlaceholderOpening }) {
            headers = HTTPHeaders(
                headers.fields.map {
                    .init(
                        name: $0.name,
                        value: String(decoding: Template.renderingFakeValues(in: Data($0.value.utf8)), as: UTF8.self)
                    )
                }
            )
        }
        template =
            mode == .redactedOnly
            ? ResponseTemplate.with(nil, origins: template?.origins)
            : ResponseTemplate(body: body, headers: headers, origins: template?.origins)
    }

    /// Re-checks headers for placeholders after an edit.
    mutating func headersChanged() {
        template = ResponseTemplate(
            body: body,
            headers: headers,
            origins: template?.origins,
            jsonValues: template?.body?.jsonValues ?? false
        )
    }

    /// The response with every placeholder rendered; itself when it has none.
    func rendered(_ context: @autoclosure () -> TemplateContext) -> MockResponse {
        guard let template else { return self }
        let context = context()
        var copy = self
        if let body = template.body { copy.body = body.render(context) }
        if template.hasHeaderPlaceholders {
            copy.headers = HTTPHeaders(
                headers.fields.map { .init(name: $0.name, value: Template.renderText($0.value, context)) }
            )
        }
        if let origins = template.origins {
            origins.rewrite(&copy, for: context.request, scheme: context.scheme)
        }
        copy.template = nil
        return copy
    }
}
