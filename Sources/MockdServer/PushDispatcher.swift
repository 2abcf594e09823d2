import Dispatch
import Foundation
import MockdCore
import MockdPlatform

/// Carries out pushes (`emit`): each when it is due, to the session's open WebSockets (through the reactor, which owns
/// them) and event streams (`EventStreamHub`), or as a webhook (`WebhookSender`); each journaled, linked to its cause.
///
/// Waiting never holds a thread per push: pushes due later are tokens on one timer thread (`ResumeTimer`, started with
/// the first delayed push), and every push is carried out on the reactor's thread, in order, which only hands it on (a
/// socket's outbox, a stream's inbox, libcurl's queue). A push whose session was reset or dropped before it is due is
/// dropped, so one test's pushes never reach the next test.
final class PushDispatcher: PushHub, @unchecked Sendable {
    private struct Pending {
        let push: Push
        let cause: PushCause
        let epoch: MockEngine.PushEpoch
    }

    private struct State {
        var pending: [UInt64: Pending] = [:]
        var nextToken: UInt64 = 0
        var timer: ResumeTimer?
        var stopped = false
    }

    private let engine: MockEngine
    private let logger: Logger
    private let webSockets: WebSocketReactor
    let eventStreams = EventStreamHub()
    private let webhooks: WebhookSender
    private let state = Mutex(State())

    /// - Parameter webhookAllow: `--webhook-allow` entries: hosts (`host`, `host:port`) webhooks may reach besides
    ///   loopback addresses.
    init(engine: MockEngine, logger: Logger, webSockets: WebSocketReactor, webhookAllow: [String]) {
        self.engine = engine
        self.logger = logger
        self.webSockets = webSockets
        self.webhooks = WebhookSender(engine: engine, logger: logger, allowed: webhookAllow)
    }

    func schedule(_ pushes: [Push], cause: PushCause) {
        guard !pushes.isEmpty, let epoch = engine.pushEpoch(session: cause.session) else { return }
        for push in pushes {
            guard push.delayMs > 0 else {
                deliver(push, cause: cause)
                continue
            }
            let scheduled: (token: UInt64, timer: ResumeTimer)? = state.withLock { state in
                guard !state.stopped else { return nil }
                state.nextToken += 1
                state.pending[state.nextToken] = Pending(push: push, cause: cause, epoch: epoch)
                if state.timer == nil {
                    state.timer = ResumeTimer(name: "mockd-pushes") { [weak self] token in self?.fire(token) }
                }
                return (state.nextToken, state.timer!)
            }
            scheduled?.timer.schedule(scheduled!.token, afterMs: push.delayMs)
        }
    }

    func openConnections(for action: Push.Action, session: String) -> Int {
        switch action {
        case .webSocket(let selector, _): return webSockets.count(session: session, selector: selector)
        case .event(let selector, _): return eventStreams.count(session: session, selector: selector)
        case .webhook: return 0
        }
    }

    /// Drops pushes not yet due and ends the timer thread and the webhook clients.
    func stop() {
        let timer: ResumeTimer? = state.withLock { state in
            state.stopped = true
            state.pending.removeAll()
            defer { state.timer = nil }
            return state.timer
        }
        timer?.stop()
        webhooks.stop()
    }

    private func fire(_ token: UInt64) {
        guard let pending = state.withLock({ $0.pending.removeValue(forKey: token) }) else { return }
        guard engine.isCurrent(pending.epoch) else {
            logger.debug("push for session \(pending.cause.session) dropped: the session was reset or dropped")
            return
        }
        deliver(pending.push, cause: pending.cause)
    }

    /// Hands `push` on: all through the reactor's queue, so pushes due together happen (and are journaled) in the
    /// order they were written, whatever their channel.
    private func deliver(_ push: Push, cause: PushCause) {
        if case .webSocket(let selector, let action) = push.action {
            webSockets.push(action, selector: selector, cause: cause)
        } else {
            webSockets.perform { [self] in carryOut(push, cause: cause) }
        }
    }

    /// An event or a webhook, on the reactor thread.
    private func carryOut(_ push: Push, cause: PushCause) {
        switch push.action {
        case .webSocket:
            return
        case .event(let selector, let event):
            let reached = eventStreams.push(event.wire, session: cause.session, selector: selector)
            var headers = HTTPHeaders()
            if let name = event.name { headers.add(name: "Event", value: name) }
            for stream in reached {
                var fields = headers
                fields.add(name: "Connection-Number", value: String(stream.id))
                engine.journalPush(
                    "SSE-OUT",
                    target: stream.path,
                    headers: fields,
                    body: event.data,
                    cause: cause,
                    stubID: stream.stubID
                )
            }
            if reached.isEmpty {
                engine.journalPush(
                    "SSE-OUT",
                    target: selector.description,
                    headers: headers,
                    body: event.data,
                    cause: cause,
                    stubID: nil,
                    note:
                        "reached no connection: the session '\(cause.session)' has no open event stream on \(selector.description)"
                )
            }
        case .webhook(let webhook):
            webhooks.send(webhook, cause: cause)
        }
    }
}
