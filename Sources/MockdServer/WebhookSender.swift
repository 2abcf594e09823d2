import Dispatch
import Foundation
import MockdCore
import MockdPlatform

/// Sends webhooks (`emit[].webhook`) through libcurl (`UpstreamClient`, one per origin and timeout) and journals each
/// as a `WEBHOOK` entry linked to its cause: the receiver's status and answer, or why there was none.
///
/// Only to this machine's loopback addresses (`localhost`, `127.0.0.0/8`, `::1`) unless `--webhook-allow` names the
/// host: a scenario file or a runtime stub can then never make the daemon reach into the network it runs in. Redirects
/// are not followed. A webhook that mockd itself answers with another webhook carries `X-Mockd-Webhook-Depth`, and past
/// `maxDepth` the chain is cut (journaled), so a stub that calls itself cannot loop forever.
final class WebhookSender: @unchecked Sendable {
    /// The longest chain of webhooks answered by webhooks.
    static let maxDepth = 8
    /// The most origins (and timeouts) kept with a client each.
    static let maxClients = 32
    /// The request header giving a webhook's place in a chain (1 for the first).
    static let depthHeader = "X-Mockd-Webhook-Depth"

    private let engine: MockEngine
    private let logger: Logger
    private let allowed: [String]
    private let clients = Mutex<(byKey: [String: UpstreamClient], stopped: Bool)>(([:], false))

    init(engine: MockEngine, logger: Logger, allowed: [String]) {
        self.engine = engine
        self.logger = logger
        self.allowed = allowed
    }

    func send(_ webhook: Push.Webhook, cause: PushCause) {
        let described = "\(webhook.method) \(webhook.url)"
        func refuse(_ why: String) {
            logger.warning("webhook \(described) not sent: \(why)")
            engine.journalPush(
                "WEBHOOK",
                target: described,
                headers: webhook.headers,
                body: webhook.body,
                cause: cause,
                stubID: nil,
                note: "not sent: \(why)"
            )
        }
        guard let target = WebhookTarget.parse(webhook.url) else {
            return refuse("'\(webhook.url)' is not an http:// or https:// URL with a host")
        }
        guard target.isLoopback || target.isAllowed(by: allowed) else {
            return refuse(
                "\(target.host) is not a loopback address; start mockd with --webhook-allow \(target.host) to send webhooks there"
            )
        }
        let depth = cause.webhookDepth + 1
        guard depth <= Self.maxDepth else {
            return refuse("a chain of \(Self.maxDepth) webhooks answered by webhooks was cut (a stub calling itself?)")
        }
        let key = "\(target.origin) \(webhook.timeoutMs)"
        let client: UpstreamClient? = clients.withLock { clients in
            if let existing = clients.byKey[key] { return existing }
            guard !clients.stopped, clients.byKey.count < Self.maxClients else { return nil }
            let created = UpstreamClient(
                configuration: .init(origin: target.origin, timeoutSeconds: webhook.timeoutMs / 1000)
            )
            clients.byKey[key] = created
            return created
        }
        guard let client else {
            return refuse("mockd is stopping, or already sends webhooks to \(Self.maxClients) origins")
        }
        var headers = webhook.headers
        if headers["user-agent"] == nil {
            headers.add(name: "User-Agent", value: "mockd/\(MockdVersion.current) webhook")
        }
        headers.add(name: Self.depthHeader, value: String(depth))
        let started = DispatchTime.now().uptimeNanoseconds
        let sent = headers
        client.send(
            UpstreamClient.Request(
                method: webhook.method,
                target: target.target,
                headers: headers,
                body: webhook.body,
                hasBody: !webhook.body.isEmpty || !["GET", "HEAD"].contains(webhook.method)
            )
        ) { [engine, logger] result in
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1_000_000
            switch result {
            case .success(let answer):
                var response = MockResponse(status: answer.status, headers: answer.headers)
                response.body = Data(answer.body.prefix(RequestJournal.bodyLimit))
                engine.journalPush(
                    "WEBHOOK",
                    target: described,
                    headers: sent,
                    body: webhook.body,
                    status: answer.status,
                    response: response,
                    durationMs: elapsed,
                    cause: cause,
                    stubID: nil
                )
            case .failure(let failure):
                logger.warning("webhook \(described) got no answer: \(failure.message)")
                engine.journalPush(
                    "WEBHOOK",
                    target: described,
                    headers: sent,
                    body: webhook.body,
                    durationMs: elapsed,
                    cause: cause,
                    stubID: nil,
                    note: "no answer: \(failure.message)"
                )
            }
        }
    }

    func stop() {
        let all = clients.withLock { clients in
            clients.stopped = true
            defer { clients.byKey.removeAll() }
            return Array(clients.byKey.values)
        }
        for client in all { client.stop() }
    }
}
