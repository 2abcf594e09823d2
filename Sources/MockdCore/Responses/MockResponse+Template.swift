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

    /// What is wrong with the placeholders of the body and the header values that render (`Template.problems`):
    /// `body` and header names with their problems, first problem first. Empty for a literal response.
    var templateProblems: [(part: String, problem: TemplateProblem)] {
        guard let template else { return [] }
        var found = (template.body?.problems ?? []).map { (part: "body", problem: $0) }
        if template.hasHeaderPlaceholders {
            for field in headers.fields {
                found += Template.problems(in: field.value).map { (part: "header \(field.name)", problem: $0) }
            }
        }
        return found
    }

    /// The 500 a response whose placeholders cannot render answers with (`templateProblems`), so that a placeholder
    /// is never sent as written; `nil` when they render.
    var templateFailure: MockResponse? {
        guard let (part, problem) = templateProblems.first else { return nil }
        var failure = MockResponse.jsonError(
            status: 500,
            code: "template_error",
            message:
                "\(stubID.map { "stub '\($0)'" } ?? "the answer")'s \(part): \(problem.message) (mockd validate lists every problem)"
        )
        failure.stubID = stubID
        return failure
    }

    /// The response with every placeholder rendered and its recorded dates moved to the session's clock; itself when
    /// it has neither.
    func rendered(_ context: @autoclosure () -> TemplateContext) -> MockResponse {
        let dateShift = self.dateShift
        guard template != nil || dateShift != nil else { return self }
        let context = context()
        var copy = self
        if let template {
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
        }
        if let dateShift {
            copy.body = dateShift.body(copy.body, now: context.now)
            copy.headers = dateShift.headers(copy.headers, now: context.now)
            copy.dateShift = nil
        }
        return copy
    }
}

extension TemplateProblem {
    /// The problem as a load error's message (`mockd validate`, and a body read on first use): the body file it is
    /// in, the problem, and how to send `{{…}}` as written instead.
    func loadMessage(in file: String?) -> String {
        (file.map { "'\($0)' " } ?? "") + message
            + #" (docs/FORMAT.md lists the placeholders; "templated": false sends {{…}} as written)"#
    }
}
