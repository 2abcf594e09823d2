import Foundation
import MockdControl
import MockdFormat

/// `POST /__mockd/emit`: pushes from a test, in the `emit` format of stubs and overrides.
extension ControlAPI {
    /// `{"emit": [EmitEntry…]}` (`EmitRequest`): schedules each push for the session (each `after` ms after the
    /// previous one), as an answer's `emit` would; answers with each push's channel, target, when it is due and how
    /// many of the session's connections it reaches now.
    ///
    /// The body is read here rather than decoded whole, so that each field the emit format refuses is named
    /// (`body: emit[0].events.path: must start with '/'`), as in a scenario file.
    /// - Throws: `Failure` `bad_request` naming each field refused; `pushes_unavailable` for an engine without a
    ///   server to push from.
    func emit(_ call: Call) throws -> EmitResult {
        let usage =
            #"send {"emit": [{"websocket": {"path": "/chat", "send": …}} | {"events": {…}} | {"webhook": {…}}]}"#
        if ControlAPI.firstInvalidUTF8Offset(call.request.body) != nil {
            throw Failure(.badRequest, "the body is not valid UTF-8; \(usage)")
        }
        let body: EmitRequest
        do {
            body = try JSONDecoder().decode(EmitRequest.self, from: call.request.body)
        } catch let error as DecodingError {
            throw Failure(.badRequest, ConfigError.decoding(error, file: "body").description)
        } catch {
            throw Failure(.badRequest, usage)
        }
        let unknown = KnownFields.check(
            call.request.body,
            shape: .object(["emit": .array(KnownFields.emit)]),
            file: "body"
        )
        if !unknown.isEmpty {
            throw Failure(.badRequest, unknown.map(\.description).joined(separator: "\n"))
        }
        let emissions: Emissions
        switch Emissions.compile(body.emit) {
        case .success(let compiled): emissions = compiled
        case .failure(let problems):
            throw Failure(
                .badRequest,
                problems.problems.map { "body: emit\($0.field): \($0.message)" }.joined(separator: "\n")
            )
        }
        guard let hub = engine.pushes else {
            throw Failure(.pushesUnavailable, "this engine runs without a server to push from")
        }
        let session = call.session.id
        let pushes = emissions.render(
            request: HTTPRequest(method: "POST", target: "/__mockd/emit"),
            call: 1,
            now: call.session.clock.date()
        )
        let receipts = pushes.map { push -> EmitReceipt in
            switch push.action {
            case .webSocket(let selector, _):
                return EmitReceipt(
                    channel: "websocket",
                    target: selector.description,
                    dueInMs: push.delayMs,
                    openConnections: hub.openConnections(for: push.action, session: session)
                )
            case .event(let selector, _):
                return EmitReceipt(
                    channel: "events",
                    target: selector.description,
                    dueInMs: push.delayMs,
                    openConnections: hub.openConnections(for: push.action, session: session)
                )
            case .webhook(let webhook):
                return EmitReceipt(
                    channel: "webhook",
                    target: "\(webhook.method) \(webhook.url)",
                    dueInMs: push.delayMs,
                    openConnections: nil
                )
            }
        }
        hub.schedule(
            pushes,
            cause: PushCause(session: session, sequence: nil, emittedBy: "emit", note: "sent by POST /__mockd/emit")
        )
        return EmitResult(session: session, pushes: receipts)
    }
}
