public import Foundation
import MockdFormat

/// One push made for a request (`Emissions.render`), for the server to carry out when it is due: a WebSocket message
/// or close, a Server-Sent Event, or a webhook.
public struct Push: Sendable {
    /// When it is due, in ms after the answer (or the message) that caused it.
    public let delayMs: Double
    public let action: Action

    public enum Action: Sendable {
        /// To the session's open WebSockets the selector matches.
        case webSocket(ConnectionSelector, WebSocketAction)
        /// To the session's open event streams the selector matches.
        case event(ConnectionSelector, Event)
        /// An HTTP request out of the daemon.
        case webhook(Webhook)
    }

    public enum WebSocketAction: Sendable {
        case message(WebSocketMessage)
        case close(code: Int, reason: String)
    }

    /// A Server-Sent Event, rendered.
    public struct Event: Sendable {
        /// The `event:` field, for the journal.
        public let name: String?
        /// The `data:` payload, for the journal.
        public let data: Data
        /// The event as it goes on the wire (WHATWG HTML §9.2.6), blank line included.
        public let wire: Data
    }

    /// A webhook, rendered.
    public struct Webhook: Sendable {
        public let method: String
        public let url: String
        public let headers: HTTPHeaders
        public let body: Data
        /// Whole-exchange limit, in ms.
        public let timeoutMs: Double
    }

    public init(delayMs: Double, action: Action) {
        self.delayMs = delayMs
        self.action = action
    }

    /// The channel, as the journal's method names it: `WS-OUT`, `SSE-OUT`, `WEBHOOK`.
    public var journalMethod: String {
        switch action {
        case .webSocket: return "WS-OUT"
        case .event: return "SSE-OUT"
        case .webhook: return "WEBHOOK"
        }
    }
}

/// The pushes an answer causes, with the stub or override whose answer it is: what the server schedules once the answer
/// is sent (`PlannedResponse.pushes`). A reference, so a plan stays small.
public final class PushBatch: Sendable {
    public let pushes: [Push]
    /// The stub or override that answered.
    public let emittedBy: String?

    public init(_ pushes: [Push], emittedBy: String?) {
        self.pushes = pushes
        self.emittedBy = emittedBy
    }
}

/// The pushes a response causes, compiled once (`Emissions`, `emit`) and rendered for each request it answers.
public protocol ResponsePushes: Sendable {
    /// The pushes of one request: templates read `request` and `call` (the answering stub's 1-based call number);
    /// `{{now}}` is `now` plus each push's delay. `configure` sets what else the answer's templates read on each context.
    func render(
        request: HTTPRequest,
        call: Int,
        now: Date,
        configure: (TemplateContext) -> Void
    ) -> [Push]
}

/// Which of a session's open WebSockets or event streams a push reaches, by the path the app opened.
public struct ConnectionSelector: Sendable, CustomStringConvertible {
    private let test: @Sendable (String) -> Bool
    /// How the selector was written: the path (rendered), `~REGEX`, or `*`.
    public let description: String

    /// Every connection of the session.
    public static let every = ConnectionSelector(description: "*") { _ in true }

    /// A selector named `description` that takes the connections whose path `test` accepts.
    public init(description: String, matching test: @escaping @Sendable (String) -> Bool) {
        self.description = description
        self.test = test
    }

    /// Whether a connection opened on `path` (the request's path, without its query) is selected.
    public func matches(_ path: String) -> Bool { test(path) }
}

/// Where a push comes from, for the journal: the session, the journal entry that caused it (the request, or the app's
/// WebSocket message), and the stub or override that declared it.
public struct PushCause: Sendable {
    public let session: String
    /// The causing entry's sequence number in the session's journal; `nil` for a push from the control API.
    public let sequence: Int?
    public let emittedBy: String?
    /// Said in the journal entries of the pushes (`POST /__mockd/emit` for one from a test).
    public let note: String?
    /// When the cause is itself a webhook mockd sent (its `X-Mockd-Webhook-Depth`): its place in the chain; 0 otherwise.
    public let webhookDepth: Int

    public init(session: String, sequence: Int?, emittedBy: String?, note: String? = nil, webhookDepth: Int = 0) {
        self.session = session
        self.sequence = sequence
        self.emittedBy = emittedBy
        self.note = note
        self.webhookDepth = webhookDepth
    }
}

/// Where a webhook may go: parsed from its URL, and checked against the loopback rule and `--webhook-allow`.
public struct WebhookTarget: Sendable, Equatable {
    /// `http` or `https`.
    public let scheme: String
    /// Lower case; an IPv6 address without brackets.
    public let host: String
    public let port: Int?
    /// Path and query as written (`/` when empty).
    public let target: String

    /// `scheme://host[:port]`, an IPv6 host in brackets.
    public var origin: String {
        "\(scheme)://\(host.contains(":") ? "[\(host)]" : host)" + (port.map { ":\($0)" } ?? "")
    }

    /// The parts of an `http(s)://` URL with a host and no user info or fragment; `nil` for anything else.
    public static func parse(_ url: String) -> WebhookTarget? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", var host = components.host?.lowercased(), !host.isEmpty,
            components.user == nil, components.password == nil, components.fragment == nil
        else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        let query = components.percentEncodedQuery.map { "?" + $0 } ?? ""
        return WebhookTarget(scheme: scheme, host: host, port: components.port, target: path + query)
    }

    /// Whether the host is this machine's loopback interface: `localhost`, `127.0.0.0/8`, `::1`.
    public var isLoopback: Bool {
        if host == "localhost" || host == "::1" || host == "0:0:0:0:0:0:0:1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// Whether `allowed` (`--webhook-allow` entries: `host` or `host:port`, `[v6]:port`) names this target's host,
    /// and its port when the entry gives one.
    public func isAllowed(by allowed: [String]) -> Bool {
        allowed.contains { entry in
            let (allowedHost, allowedPort) = WebhookTarget.hostAndPort(entry)
            guard allowedHost == host else { return false }
            return allowedPort == nil || allowedPort == (port ?? (scheme == "https" ? 443 : 80))
        }
    }

    /// `host[:port]` (`[v6]:port`) split, the host lower-cased without brackets.
    public static func hostAndPort(_ entry: String) -> (host: String, port: Int?) {
        let text = entry.trimmingCharacters(in: .whitespaces).lowercased()
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            let host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            return (host, rest.hasPrefix(":") ? Int(rest.dropFirst()) : nil)
        }
        if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":"),
            let port = Int(text[text.index(after: colon)...])
        {
            return (String(text[..<colon]), port)
        }
        return (text, nil)
    }
}
