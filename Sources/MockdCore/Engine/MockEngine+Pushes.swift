public import Foundation
public import MockdFormat
import MockdPlatform

/// What pushes need from the engine: the session they belong to (and whether it was reset since), their journal
/// entries linked to what caused them, a WebSocket reply's state change and pushes, and pushes from the control API.
extension MockEngine {
    /// The session a push was scheduled in, as it was then: a push is dropped when its session was reset (its journal
    /// cleared) or dropped before the push is due, so one test's pushes never reach the next test's connections.
    public struct PushEpoch: Sendable {
        fileprivate let session: Session
        fileprivate let clears: Int
    }

    /// The session `id` now (the default one for `"default"`); `nil` for a session that does not exist.
    public func pushEpoch(session id: String) -> PushEpoch? {
        guard let session = sessions.existing(id) else { return nil }
        return PushEpoch(session: session, clears: session.journal.position.clears)
    }

    /// Whether the session of `epoch` is still the same: not reset, not dropped.
    public func isCurrent(_ epoch: PushEpoch) -> Bool {
        sessions.existing(epoch.session.id) === epoch.session && epoch.session.journal.position.clears == epoch.clears
    }

    /// Journals a push (`SSE-OUT`, `WEBHOOK`, or a `WS-OUT` that reached no connection) in the cause's session, linked
    /// to the entry that caused it.
    /// - Parameters:
    ///   - method: `SSE-OUT`, `WS-OUT`, `WEBHOOK`.
    ///   - target: The connection's path, or the webhook's URL.
    ///   - headers: What was sent (a webhook's request headers; an event's `Event` and `Connection-Number`).
    ///   - status: A webhook's answer status; `nil` for events and for a webhook that got none.
    ///   - response: What came back (a webhook's answer), for the entry's detail.
    ///   - stubID: The stub whose connection got it (an event stream's), else the one that declared the push.
    /// - Returns: The entry's sequence number.
    @discardableResult
    public func journalPush(
        _ method: String,
        target: String,
        headers: HTTPHeaders = HTTPHeaders(),
        body: Data,
        status: Int? = nil,
        response: MockResponse = MockResponse(status: 0),
        durationMs: Double = 0,
        cause: PushCause,
        stubID: String?,
        note: String? = nil
    ) -> Int {
        let session = sessions.session(cause.session == SessionRegistry.defaultID ? nil : cause.session) {
            catalog.startup
        }
        return session.journal.append(
            time: Date(),
            request: HTTPRequest(method: method, target: target, headers: headers, body: body),
            stubID: stubID ?? cause.emittedBy ?? "push",
            status: status,
            fault: nil,
            durationMs: durationMs,
            response: response,
            nearMisses: [],
            causedBy: cause.sequence,
            note: [cause.note, note].compactMap { $0 }.joined(separator: "; ").nilIfEmpty
        )
    }

    /// Moves a state machine of `session` as a WebSocket reply says (`WebSocketReply.state`), and journals the move as
    /// a `STATE` entry (target: the machine's name; body: `Started -> Read`) caused by the app's message.
    /// - Returns: Whether the machine moved (it was in one of `change.requires`, or any state without them).
    @discardableResult
    public func applyStateChange(
        _ change: WebSocketStateChange,
        session id: String,
        stubID: String?,
        causedBy: Int?
    ) -> Bool {
        let session = sessions.session(id == SessionRegistry.defaultID ? nil : id) { catalog.startup }
        let state = session.core.withLock { $0.state }
        let nowMs = state.clock.milliseconds(clock())
        let moved = state.move(change.name, to: change.next, requires: change.requires?.names, nowMs: nowMs)
        session.journal.append(
            time: Date(),
            request: HTTPRequest(
                method: "STATE",
                target: change.name,
                body: Data("\(moved.from) -> \(moved.moved ? change.next : moved.from)".utf8)
            ),
            stubID: stubID ?? "state",
            status: nil,
            fault: nil,
            durationMs: 0,
            response: MockResponse(status: 0),
            nearMisses: [],
            causedBy: causedBy,
            note: moved.moved
                ? nil
                : "state machine '\(change.name)' is in '\(moved.from)', not in \(change.requires?.names.map { "'\($0)'" }.joined(separator: " or ") ?? "any state"): not moved"
        )
        return moved.moved
    }

    /// The pushes a WebSocket reply's `emit` makes for the app's `message` on the connection opened on `path`: their
    /// templates read the message as the request's body (`{{request.body}}`, `{{request.json.PATH}}`) and the path as
    /// its path; `{{now}}` is the session's clock.
    public func pushes(
        _ emissions: Emissions,
        replyingTo message: WebSocketMessage,
        path: String,
        session id: String
    ) -> [Push] {
        let payload: Data
        switch message {
        case .text(let text): payload = Data(text.utf8)
        case .binary(let data): payload = data
        }
        let session = sessions.session(id == SessionRegistry.defaultID ? nil : id) { catalog.startup }
        let now = session.core.withLock { $0.state }.clock.date()
        return emissions.render(request: HTTPRequest(method: "WS-IN", target: path, body: payload), call: 1, now: now)
    }

    /// Carries out pushes, provided by the server bridge.
    public func attach(_ pushes: any PushHub) {
        pushHub.withLock { $0 = pushes }
    }

    var pushes: (any PushHub)? { pushHub.withLock { $0 } }
}

/// Schedules pushes and reports which connections they can reach; implemented by the server bridge.
public protocol PushHub: Sendable {
    /// Schedules `pushes` (each `delayMs` after now) for the cause's session.
    func schedule(_ pushes: [Push], cause: PushCause)
    /// How many open connections of `session` a push of this kind reaches now: WebSockets for `.webSocket`, event
    /// streams for `.event`; 0 for a webhook.
    func openConnections(for action: Push.Action, session: String) -> Int
}
