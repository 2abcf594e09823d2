import Foundation
public import MockdCore
import MockdPlatform

/// Forwards the requests no stub answers to the upstream (`mockd record` serves an empty scenario, so that
/// is every request; capture-on-miss serves mocks first), answers the client with the upstream's answer, and
/// hands each exchange to the recorder when there is one.
///
/// Sent upstream: method, request-target as received (after a `/__session/ID` prefix is removed), header
/// fields without hop-by-hop fields, `Host`, `Content-Length`, `Expect` and `X-Mockd-Session`, and the body.
/// The client gets the upstream's status, headers (hop-by-hop fields and `Content-Length` recomputed) and
/// body bytes unchanged; when the upstream cannot be reached it gets 502, when it does not answer within
/// the timeout 504, each with a JSON body naming the upstream and the error. A request-target that is not a path and
/// query (`UpstreamTarget`: `@host/x`, `//host/x`, absolute-form…) gets 400 and is neither sent nor recorded.
public final class UpstreamProxy: Sendable {
    public let client: UpstreamClient
    /// Where exchanges go; `nil` proxies without recording (capture-on-miss without `--record-misses`).
    public let recorder: Recorder?
    /// `host[:port]` of the upstream, sent as `Host` and recorded in the HAR.
    private let hostHeader: String

    public init(client: UpstreamClient, recorder: Recorder?) {
        self.client = client
        self.recorder = recorder
        let origin = client.configuration.origin
        hostHeader = origin.range(of: "://").map { String(origin[$0.upperBound...]) } ?? origin
    }

    /// Fields never sent upstream besides the hop-by-hop ones: mockd's own session header, and what MockdAppRedirect
    /// tells mockd (`X-Mockd-Client-Faults`).
    private static let mockdFields: Set<String> = ["x-mockd-session", "x-mockd-client-faults"]

    /// The 400 answer for a request whose target is never sent upstream (`UpstreamTarget`), journaled as not
    /// proxied; `nil` when the target may go.
    /// - Parameter absoluteForm: The request line named a whole URL (`GET http://other/x`): a forward-proxy request,
    ///   refused too, since mockd forwards to its one upstream and the client asked for another host.
    func refusal(of outcome: EngineOutcome, absoluteForm: Bool = false) -> EngineOutcome? {
        let origin = client.configuration.origin
        let failure: UpstreamFailure
        if absoluteForm {
            failure = UpstreamFailure(
                .unsafeTarget,
                "the request line names a whole URL (absolute-form, as sent to a forward proxy); mockd sends only /path?query to its upstream \(origin)"
            )
        } else {
            do {
                _ = try UpstreamTarget.parts(of: outcome.request.target)
                return nil
            } catch {
                failure = UpstreamFailure(.unsafeTarget, error.description)
            }
        }
        return outcome.answered(byUpstream: .upstreamFailed(failure, upstream: origin), proxied: false)
    }

    /// Sends `outcome.request` upstream; `completion` (on the upstream client's thread) gets the outcome
    /// answered by the upstream, or by the 502/504 error, journaled as proxied; a refused target (see
    /// `refusal(of:)`) gets its 400 at once, on the calling thread.
    func forward(_ outcome: EngineOutcome, completion: @escaping @Sendable (EngineOutcome) -> Void) {
        let request = outcome.request
        let origin = client.configuration.origin
        guard let url = try? UpstreamTarget.url(origin: origin, target: request.target) else {
            return completion(refusal(of: outcome) ?? outcome)
        }
        let headers = ProxyHeaders.forwardable(request.headers, dropping: Self.mockdFields)
        let hasBody =
            !request.body.isEmpty || request.headers["content-length"] != nil
            || request.headers["transfer-encoding"] != nil
        let order = recorder?.nextOrder() ?? 0
        let startedAt = Date()
        let started = DispatchTime.now().uptimeNanoseconds
        let recorder = recorder
        let hostHeader = hostHeader
        client.send(
            UpstreamClient.Request(
                method: request.method,
                target: request.target,
                headers: headers,
                body: request.body,
                hasBody: hasBody
            )
        ) { result in
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1_000_000
            if let recorder {
                var recordedHeaders = HTTPHeaders([("Host", hostHeader)])
                for field in headers { recordedHeaders.add(name: field.name, value: field.value) }
                recorder.add(
                    ProxiedExchange(
                        order: order,
                        startedAt: startedAt,
                        elapsedMs: elapsed,
                        method: request.method,
                        url: url,
                        requestHeaders: recordedHeaders,
                        requestBody: request.body,
                        result: result
                    )
                )
            }
            switch result {
            case .success(let upstream): completion(outcome.answered(byUpstream: .proxied(upstream)))
            case .failure(let failure):
                completion(outcome.answered(byUpstream: .upstreamFailed(failure, upstream: origin)))
            }
        }
    }

    /// Stops the upstream client; requests still waiting fail with 502.
    public func stop() {
        client.stop()
    }
}

/// The upstream's answer for one suspended connection, handed from the upstream client's thread to the
/// connection's worker thread.
final class PendingUpstream: Sendable {
    private let answer = Mutex<EngineOutcome?>(nil)

    func set(_ outcome: EngineOutcome) {
        answer.withLock { $0 = outcome }
    }

    /// The answer, once; `nil` when the connection was resumed before it came (client gone, daemon stopping).
    func take() -> EngineOutcome? {
        answer.withLock { answer in
            defer { answer = nil }
            return answer
        }
    }
}
