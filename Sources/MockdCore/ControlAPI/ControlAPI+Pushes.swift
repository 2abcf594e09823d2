import Foundation
import MockdFormat

/// `POST /__mockd/emit`: pushes from a test, in the `emit` format of stubs and overrides.
extension ControlAPI {
    /// `{"emit": [EmitEntry…]}`: schedules each push for the session (each `after` ms after the previous one), as an
    /// answer's `emit` would; answers with each push's channel, target, when it is due and how many of the session's
    /// connections it reaches now.
    func emit(_ call: Call) -> MockResponse {
        let usage =
            #"send {"emit": [{"websocket": {"path": "/chat", "send": …}} | {"events": {…}} | {"webhook": {…}}]}"#
        if ControlAPI.firstInvalidUTF8Offset(call.request.body) != nil {
            return ControlAPI.error(400, "bad_request", "the body is not valid UTF-8; \(usage)")
        }
        struct Body: Decodable { let emit: [EmitEntry] }
        let body: Body
        do {
            body = try JSONDecoder().decode(Body.self, from: call.request.body)
        } catch let error as DecodingError {
            return ControlAPI.error(400, "bad_request", ConfigError.decoding(error, file: "body").description)
        } catch {
            return ControlAPI.error(400, "bad_request", usage)
        }
        let unknown = KnownFields.check(
            call.request.body,
            shape: .object(["emit": .array(KnownFields.emit)]),
            file: "body"
        )
        if !unknown.isEmpty {
            return ControlAPI.error(400, "bad_request", unknown.map(\.description).joined(separator: "\n"))
        }
        let emissions: Emissions
        switch Emissions.compile(body.emit) {
        case .success(let compiled): emissions = compiled
        case .failure(let problems):
            return ControlAPI.error(
                400,
                "bad_request",
                problems.problems.map { "body: emit\($0.field): \($0.message)" }.joined(separator: "\n")
            )
        }
        guard let hub = engine.pushes else {
            return ControlAPI.error(501, "pushes_unavailable", "this engine runs without a server to push from")
        }
        let session = call.session.id
        let pushes = emissions.render(
            request: HTTPRequest(method: "POST", target: "/__mockd/emit"),
            call: 1,
            now: call.session.clock.date()
        )
        let receipts = pushes.map { push -> [String: Any] in
            var receipt: [String: Any] = ["dueInMs": push.delayMs]
            switch push.action {
            case .webSocket(let selector, _):
                receipt["channel"] = "websocket"
                receipt["target"] = selector.description
            case .event(let selector, _):
                receipt["channel"] = "events"
                receipt["target"] = selector.description
            case .webhook(let webhook):
                receipt["channel"] = "webhook"
                receipt["target"] = "\(webhook.method) \(webhook.url)"
            }
            if case .webhook = push.action {
            } else {
                receipt["openConnections"] = hub.openConnections(for: push.action, session: session)
            }
            return receipt
        }
        hub.schedule(
            pushes,
            cause: PushCause(session: session, sequence: nil, emittedBy: "emit", note: "sent by POST /__mockd/emit")
        )
        return ControlAPI.json(200, ["session": session, "pushes": receipts])
    }
}
