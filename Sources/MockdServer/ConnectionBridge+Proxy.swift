import CMicroHTTPD
import MockdCore

/// Unmatched requests answered by the upstream: the connection is suspended while the upstream client
/// works, and resumed when its answer (or failure) arrives, so no worker thread waits on the network.
extension ConnectionBridge {
    /// Suspends the connection and sends the request upstream.
    func forwardUpstream(_ outcome: EngineOutcome, context: RequestContext, connection: OpaquePointer) -> MHD_Result {
        guard let proxy else { return deliver(outcome, context: context, connection: connection) }
        if let refused = proxy.refusal(of: outcome, absoluteForm: context.absoluteForm) {
            return deliver(refused, context: context, connection: connection)
        }
        let pending = PendingUpstream()
        context.upstream = pending
        // The upstream client calls back exactly once (its timeout, or its stop, guarantees it).
        guard let token = suspensions.suspendUntilAnswered(connection) else { return .NO }
        let suspensions = suspensions
        proxy.forward(outcome) { answered in
            pending.set(answered)
            suspensions.resume(token: token)
        }
        return .YES
    }

    /// Resumed: send the upstream's answer, or close the connection when it was resumed without one (the
    /// client left, or the daemon is stopping).
    func resumeProxied(_ pending: PendingUpstream, context: RequestContext, connection: OpaquePointer) -> MHD_Result {
        guard let answered = pending.take() else { return .NO }
        context.upstream = nil
        context.outcome = answered
        return deliver(answered, context: context, connection: connection)
    }
}
