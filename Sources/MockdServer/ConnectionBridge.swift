import CMicroHTTPD
import Foundation
import MockdCore
import MockdFormat
import MockdPlatform

/// The Swift side of libmicrohttpd's callbacks: reads requests, asks the engine, writes responses.
///
/// Passed to C unretained; `MicroHTTPDServer` keeps it alive for the daemon's lifetime.
final class ConnectionBridge: ServerStatus, @unchecked Sendable {
    let engine: MockEngine
    let logger: Logger
    let maxBodyBytes: Int
    let suspensions = Suspensions()
    /// Runs upgraded WebSocket connections; set by the server before the daemon starts.
    var webSockets: WebSocketReactor?
    /// Answers unmatched requests from the upstream; set by the server before the daemon starts.
    var proxy: UpstreamProxy?
    /// Carries out the pushes answers cause (`emit`); set by the server before the daemon starts.
    var pushes: PushDispatcher?
    /// How long an open-ended answer holds its connection at most, in ms: a `noResponse` fault (then closed) and an
    /// event stream kept open after its last event.
    let longestHoldMs: Double
    /// Requests whose headers have arrived and whose exchange has not completed. In an object of its own: every
    /// worker thread writes it twice per request, and inline it shared a cache line with the fields above, which
    /// every request reads.
    private let inFlightCount = IsolatedCounter()
    /// Set by `beginDrain()`: answers then close their connection.
    private let draining = Atomic<Bool>(false)
    /// Whether the reactor still takes upgraded sockets; guards adopting against `stopWebSockets()`.
    private let webSocketsOpen = Mutex(true)
    /// `RequestCheck.legacyHeadParser`, read on every request: a stored copy spares its lazy global's check.
    private let legacyHeadParser = RequestCheck.legacyHeadParser

    init(engine: MockEngine, logger: Logger, maxBodyBytes: Int, longestHoldMs: Double = 600_000) {
        self.engine = engine
        self.logger = logger
        self.maxBodyBytes = maxBodyBytes
        self.longestHoldMs = longestHoldMs
    }

    /// `MHD_OPTION_NOTIFY_COMPLETED`: the one place a request context is given back: kept, cleared, by its connection
    /// for the next request when nothing else holds it (a WebSocket upgrade's does not come back), else released.
    func endRequest(_ slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) {
        guard let slot, let pointer = slot.pointee else { return }
        slot.pointee = nil
        // The slot's reference, taken over (no count change).
        var context = Unmanaged<RequestContext>.fromOpaque(pointer).takeRetainedValue()
        let watched = context.watched
        ConnectionWatch.requestCompleted(watched)
        if context.inFlight { inFlightCount.value.subtract(1, ordering: .relaxed) }
        // Kept only when no one else holds it (the bridge keeps none past a callback): nothing can see it change.
        guard context.webSocket == nil, isKnownUniquelyReferenced(&context) else { return }
        context.clear()
        let retained = Unmanaged.passRetained(context).toOpaque()
        if !ConnectionWatch.keepIdleRequest(retained, in: watched) {
            Unmanaged<RequestContext>.fromOpaque(retained).release()
        }
    }

    /// Requests being answered now: headers read, exchange not complete — including those waiting on
    /// simulated latency, throttling or a hold. Idle keep-alive connections and open WebSockets are not counted.
    var requestsInFlight: Int { inFlightCount.value.load(ordering: .relaxed) }

    /// Whether a graceful shutdown has begun.
    var isDraining: Bool { draining.load(ordering: .relaxed) }

    /// Starts a graceful shutdown (the listening socket is already closed): every answer from now on closes
    /// its connection, WebSockets get 1001 "going away", long-poll holds and other open-ended waits end (see
    /// `Suspensions.beginDrain()`); requests waiting on time alone are answered when due.
    func beginDrain() {
        draining.store(true, ordering: .relaxed)
        stopWebSockets()
        suspensions.beginDrain()
    }

    /// Closes every WebSocket with 1001 and ends the reactor thread, once; later upgrades are closed at once.
    func stopWebSockets() {
        let reactor: WebSocketReactor? = webSocketsOpen.withLock { open in
            defer { open = false }
            return open ? webSockets : nil
        }
        reactor?.stop()
    }

    /// The access handler, called at least twice per request: once after the headers, then with each piece
    /// of the body, then once with no data. The response is queued only on the last call: queueing on the
    /// first makes libmicrohttpd 0.9.75 close the connection, which kills keep-alive.
    func handle(
        connection: OpaquePointer,
        url: UnsafePointer<CChar>?,
        method: UnsafePointer<CChar>?,
        version: UnsafePointer<CChar>?,
        uploadData: UnsafePointer<CChar>?,
        uploadDataSize: UnsafeMutablePointer<Int>,
        slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        guard let pointer = slot.pointee else {
            return didReceiveHead(connection: connection, url: url, method: method, version: version, slot: slot)
        }
        // The slot owns the context; borrowed here (a retain and release a request otherwise).
        return Unmanaged<RequestContext>.fromOpaque(pointer)._withUnsafeGuaranteedRef { context in
            if uploadDataSize.pointee > 0 {
                didReceiveBody(uploadData, count: uploadDataSize.pointee, context: context)
                uploadDataSize.pointee = 0
                return .YES
            }
            if suspensions.isStopping { return .NO }
            if let pending = context.upstream {
                return resumeProxied(pending, context: context, connection: connection)
            }
            if let outcome = context.outcome { return didResume(outcome, context: context, connection: connection) }
            return didReceiveRequest(context, connection: connection)
        }
    }

    /// First call: the head is complete. The context is created and kept in libmicrohttpd's slot; nothing is
    /// queued unless the head alone must be refused.
    private func didReceiveHead(
        connection: OpaquePointer,
        url: UnsafePointer<CChar>?,
        method: UnsafePointer<CChar>?,
        version: UnsafePointer<CChar>?,
        slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        let watched = ConnectionWatch.connection(of: connection)
        if let idle = ConnectionWatch.takeIdleRequest(watched) {
            slot.pointee = idle
        } else {
            slot.pointee = Unmanaged.passRetained(RequestContext(target: "")).toOpaque()
        }
        // The slot owns it; borrowed here.
        return Unmanaged<RequestContext>.fromOpaque(slot.pointee!)._withUnsafeGuaranteedRef { context in
            // The context's target is still its previous request's, which a repeat keeps, with what was found in it.
            if let target = RequestReader.target(of: connection, url: url, unlessItIs: context.target) {
                context.begin(
                    target: target,
                    pathHasWhitespace: legacyHeadParser && RequestReader.hasWhitespace(url)
                )
            } else {
                context.beginRepeatingTarget()
            }
            return didReceiveHead(
                context,
                watched: watched,
                connection: connection,
                url: url,
                method: method,
                version: version
            )
        }
    }

    private func didReceiveHead(
        _ context: RequestContext,
        watched: UnsafeMutableRawPointer?,
        connection: OpaquePointer,
        url: UnsafePointer<CChar>?,
        method: UnsafePointer<CChar>?,
        version: UnsafePointer<CChar>?
    ) -> MHD_Result {
        context.absoluteForm = RequestReader.isAbsoluteForm(url)
        inFlightCount.value.add(1, ordering: .relaxed)
        (context.method, context.methodIsKnownToken) = method.map(RequestReader.method) ?? ("GET", true)
        context.version = version.map(RequestReader.version) ?? ""
        RequestReader.readHeaders(of: connection, into: context)
        context.watched = watched
        guard let rejection = RequestCheck.rejection(of: context, maxBodyBytes: maxBodyBytes) else { return .YES }
        // Refused before the body is read: answering now makes libmicrohttpd close the connection after the response,
        // which is what a request whose body must not be read needs.
        let outcome = engine.reject(
            HTTPRequest(method: context.method, target: context.target, headers: context.headers),
            rejection,
            closing: true
        )
        context.outcome = outcome
        return deliver(outcome, context: context, connection: connection)
    }

    /// A piece of the body: kept up to the limit; past it the body is dropped and the request answered with 413.
    private func didReceiveBody(_ bytes: UnsafePointer<CChar>?, count: Int, context: RequestContext) {
        guard !context.bodyTooLarge, let bytes else { return }
        if context.body.count + count > maxBodyBytes {
            context.bodyTooLarge = true
            context.body = Data()
        } else {
            context.body.append(UnsafeRawPointer(bytes).assumingMemoryBound(to: UInt8.self), count: count)
        }
    }

    /// Resumed after the planned delay (or after a `noResponse` hold, which ends by closing).
    private func didResume(_ outcome: EngineOutcome, context: RequestContext, connection: OpaquePointer) -> MHD_Result {
        if Self.wireFault(of: outcome) == .noResponse { return .NO }
        return deliver(outcome, context: context, connection: connection)
    }

    /// The fault to carry out at the socket: the plan's wire fault, or a client fault's wire fallback when the request
    /// did not come through `MockdAppRedirect` (which raises it in the app: `nil`).
    private static func wireFault(of outcome: EngineOutcome) -> Fault? {
        guard let fault = outcome.plan.fault else { return nil }
        return ClientFaultDelivery.wireFault(fault, for: outcome.request)
    }

    /// Last call: the whole request is in. The engine answers; a stub's response as loaded is sent at once, anything
    /// else may first wait (delay, hold, upstream).
    private func didReceiveRequest(_ context: RequestContext, connection: OpaquePointer) -> MHD_Result {
        ConnectionWatch.requestReceived(context.watched)
        let request = context.takeRequest()
        if context.bodyTooLarge {
            return schedule(
                engine.reject(request, .payloadTooLarge(limitBytes: maxBodyBytes)),
                context: context,
                connection: connection
            )
        }
        let outcome = engine.handle(consume request)
        // A stub's response as loaded: nothing to hold or delay, so no plan is read (see `servedStub`).
        if let stub = outcome.borrowedServedStub, !isDraining {
            return deliverShared(stub, outcome: outcome, context: context, connection: connection)
        }
        if proxy != nil, outcome.isUnmatched {
            return forwardUpstream(outcome, context: context, connection: connection)
        }
        return schedule(outcome, context: context, connection: connection)
    }

    /// Waits as the plan says (suspending the connection, never a worker): a `noResponse` fault until the client
    /// gives up, a long-poll hold until released, a delay; or delivers at once.
    private func schedule(_ outcome: EngineOutcome, context: RequestContext, connection: OpaquePointer) -> MHD_Result {
        // Kept in the context only for a suspended connection, which is answered from it when resumed.
        if Self.wireFault(of: outcome) == .noResponse {
            context.outcome = outcome
            finish(outcome, context: context, status: nil)
            return suspensions.suspend(connection, resumeAfter: longestHoldMs, endsAtDrain: true)
                ? .YES : .NO
        }
        if let hold = outcome.plan.holdMs {
            // Long-poll: answered when the hold ends or the control API releases it.
            context.outcome = outcome
            let heldFor = (outcome.sessionID ?? "default", String(outcome.request.path))
            if suspensions.suspend(connection, resumeAfter: hold, heldFor: heldFor) { return .YES }
            // Not held while the daemon drains: answered at once (and closed when it stops outright).
            return suspensions.isStopping ? .NO : deliver(outcome, context: context, connection: connection)
        }
        if outcome.plan.delayMs > 0 {
            context.outcome = outcome
            return suspensions.suspend(connection, resumeAfter: outcome.plan.delayMs) ? .YES : .NO
        }
        return deliver(outcome, context: context, connection: connection)
    }

    /// Sends the planned response, then journals and logs the exchange.
    func deliver(_ outcome: EngineOutcome, context: RequestContext, connection: OpaquePointer) -> MHD_Result {
        if let stub = outcome.borrowedServedStub, !isDraining {
            return deliverShared(stub, outcome: outcome, context: context, connection: connection)
        }
        if let slot = outcome.plan.nativeSlot, !isDraining, outcome.plan.fault == nil,
            outcome.plan.throttleBytesPerSecond == nil,
            outcome.plan.response.webSocket == nil, outcome.plan.response.eventStream == nil,
            outcome.plan.response.fileBody == nil
        {
            // A stub's step as loaded, sent as is: its shared native response, without copying the plan.
            let result = ResponseWriter.queueShared(outcome.plan.response, slot: slot, on: connection, logger: logger)
            finish(outcome, context: context, status: outcome.plan.response.status, pushes: outcome.plan.pushes)
            return result
        }
        return deliverPlanned(outcome, context: context, connection: connection)
    }

    /// A stub's first response exactly as loaded: the stub's shared native response.
    private func deliverShared(
        _ stub: Unmanaged<Stub>,
        outcome: EngineOutcome,
        context: RequestContext,
        connection: OpaquePointer
    ) -> MHD_Result {
        // The outcome owns the stub; a retained copy here was one more write to a count all threads share.
        stub._withUnsafeGuaranteedRef { stub in
            let result = ResponseWriter.queueShared(stub: stub, on: connection, logger: logger)
            finish(outcome, context: context, status: stub.loadedStatus)
            return result
        }
    }

    /// Everything else: a fault at the socket, a WebSocket upgrade, an event stream, a throttled body or a buffered
    /// response; while the daemon stops, each closes its connection.
    private func deliverPlanned(
        _ outcome: EngineOutcome,
        context: RequestContext,
        connection: OpaquePointer
    ) -> MHD_Result {
        var plan = outcome.plan
        if isDraining {
            // Shutting down: answer, then close the connection so a keep-alive client does not send more.
            plan.nativeSlot = nil
            if plan.response.webSocket != nil, plan.fault == nil {
                plan.response = .jsonError(status: 503, code: "stopping", message: "mockd is shutting down")
            }
            plan.response.headers.add(name: "Connection", value: "close")
        }
        if let script = plan.response.webSocket, plan.fault == nil {
            let result = upgrade(outcome, script: script, context: context, connection: connection)
            finish(outcome, context: context, status: result.status)
            return result.result
        }
        if let fault = plan.fault {
            guard let wire = ClientFaultDelivery.wireFault(fault, for: outcome.request) else {
                // MockdAppRedirect raises it in the app, told by this answer's header.
                let result = ResponseWriter.queue(
                    ClientFaultDelivery.redirectAnswer(fault),
                    on: connection,
                    logger: logger
                )
                finish(outcome, context: context, status: nil)
                return result
            }
            FaultInjector.inject(wire, response: plan.response, connection: connection)
            finish(outcome, context: context, status: nil)
            return .NO
        }
        let result: MHD_Result
        if let feed = plan.response.liveFeed, context.method != "HEAD" {
            result = ResponseWriter.queueLiveFeed(
                plan.response,
                feed: feed,
                on: connection,
                suspensions: suspensions,
                logger: logger
            )
        } else if let stream = plan.response.eventStream, context.method != "HEAD" {
            let events = stream.events(after: outcome.request.headers["last-event-id"])
            let streams = pushes?.eventStreams
            let session = outcome.sessionID ?? "default"
            let path = String(outcome.request.path)
            let stubID = plan.response.stubID
            result = ResponseWriter.queueEventStream(
                plan.response,
                events: Array(events),
                keepOpen: stream.keepOpen == true,
                holdMs: longestHoldMs,
                on: connection,
                suspensions: suspensions,
                logger: logger
            ) { body in streams?.register(body, session: session, path: path, stubID: stubID) }
        } else if let file = plan.response.fileBody {
            result = ResponseWriter.queueFile(
                plan.response,
                file,
                bytesPerSecond: context.method == "HEAD" ? nil : plan.throttleBytesPerSecond,
                on: connection,
                suspensions: suspensions,
                logger: logger
            )
        } else if let rate = plan.throttleBytesPerSecond, !plan.response.body.isEmpty, context.method != "HEAD" {
            result = ResponseWriter.queueThrottled(
                plan.response,
                bytesPerSecond: rate,
                on: connection,
                suspensions: suspensions,
                logger: logger
            )
        } else if let slot = plan.nativeSlot {
            result = ResponseWriter.queueShared(plan.response, slot: slot, on: connection, logger: logger)
        } else {
            result = ResponseWriter.queue(plan.response, on: connection, logger: logger)
        }
        finish(outcome, context: context, status: plan.response.status, pushes: plan.pushes)
        return result
    }

    /// Answers a WebSocket handshake (RFC 6455 §4.2.2) with 101, or 426 when the request is not a valid
    /// upgrade; the reactor takes the socket over in `upgraded(…)`.
    private func upgrade(
        _ outcome: EngineOutcome,
        script: WebSocketScript,
        context: RequestContext,
        connection: OpaquePointer
    )
        -> (result: MHD_Result, status: Int)
    {
        let request = outcome.request
        if let problem = context.version == "HTTP/1.1"
            ? WebSocketHandshake.problem(request) : "a WebSocket handshake needs HTTP/1.1"
        {
            var response = MockResponse.jsonError(status: 426, code: "upgrade_required", message: problem)
            response.headers.add(name: "Upgrade", value: "websocket")
            response.headers.add(name: "Sec-WebSocket-Version", value: "13")
            return (ResponseWriter.queue(response, on: connection, logger: logger), 426)
        }
        let path = String(request.path)
        context.webSocket = WebSocketUpgrade(script: script, outcome: outcome, path: path)
        ConnectionWatch.exempt(context.watched)
        guard
            let response = MHD_create_response_for_upgrade(
                { cls, _, requestContext, extra, extraSize, socket, handle in
                    guard let cls, let requestContext, let handle else { return }
                    Unmanaged<ConnectionBridge>.fromOpaque(cls).takeUnretainedValue().upgraded(
                        Unmanaged<RequestContext>.fromOpaque(requestContext).takeUnretainedValue(),
                        extra: extra.map { Data(bytes: $0, count: extraSize) } ?? Data(),
                        socket: socket,
                        handle: handle
                    )
                },
                Unmanaged.passUnretained(self).toOpaque()
            )
        else { return (.NO, 500) }
        defer { MHD_destroy_response(response) }
        MHD_add_response_header(response, "Upgrade", "websocket")
        MHD_add_response_header(
            response,
            "Sec-WebSocket-Accept",
            WebSocketHandshake.accept(key: request.headers["sec-websocket-key"] ?? "")
        )
        if let subprotocol = WebSocketHandshake.subprotocol(for: request, supported: script.subprotocols) {
            MHD_add_response_header(response, "Sec-WebSocket-Protocol", subprotocol)
        }
        return (MHD_queue_response(connection, 101, response), 101)
    }

    /// libmicrohttpd sent the 101 and hands over the socket.
    func upgraded(_ context: RequestContext, extra: Data, socket: Int32, handle: OpaquePointer) {
        guard let webSocket = context.webSocket, let reactor = webSockets else {
            _ = CMicroHTTPD_upgradeClose(handle)
            return
        }
        // The HTTP exchange is over; the socket is the reactor's now.
        if context.inFlight {
            context.inFlight = false
            inFlightCount.value.subtract(1, ordering: .relaxed)
        }
        let adopted = webSocketsOpen.withLock { open -> Bool in
            guard open else { return false }
            // Counted only once the upgrade really happened, so a failed handshake never shifts later scripts.
            let number = engine.openWebSocket(webSocket.outcome, path: webSocket.path)
            reactor.adopt(
                socket: socket,
                handle: handle,
                extra: extra,
                session: webSocket.outcome.sessionID ?? "default",
                path: webSocket.path,
                stubID: webSocket.outcome.plan.response.stubID,
                script: webSocket.script,
                number: number
            )
            return true
        }
        if !adopted { _ = CMicroHTTPD_upgradeClose(handle) }
    }

    /// Journals the exchange in its session, schedules the pushes its answer causes (linked to its journal entry), and
    /// writes the request log line.
    private func finish(_ outcome: EngineOutcome, context: RequestContext, status: Int?, pushes batch: PushBatch? = nil)
    {
        let elapsed = Double(RequestContext.monotonicNanoseconds() &- context.startNanoseconds) / 1_000_000
        let sequence = engine.journal(outcome, durationMs: elapsed)
        if let batch, let pushes {
            pushes.schedule(
                batch.pushes,
                cause: PushCause(
                    session: outcome.sessionID ?? "default",
                    sequence: sequence,
                    emittedBy: batch.emittedBy,
                    webhookDepth: outcome.request.headers["x-mockd-webhook-depth"].flatMap { Int($0) } ?? 0
                )
            )
        }
        guard logger.isEnabled(.info) else { return }
        // A stub's first response as loaded: its id's bytes, without building the plan (a copy of its response) or a
        // string.
        if let stub = outcome.borrowedServedStub {
            stub._withUnsafeGuaranteedRef { stub in
                stub.withID { id in
                    logger.request(
                        RequestLogLine(
                            method: context.method,
                            target: context.target,
                            status: status ?? 0,
                            stubID: id,
                            elapsedMs: elapsed
                        )
                    )
                }
            }
            return
        }
        let plan = outcome.plan
        logger.request(
            RequestLogLine(
                method: context.method,
                target: context.target,
                status: status ?? 0,
                fault: plan.fault?.rawValue,
                answeredBy: answeredBy(outcome, plan: plan, context: context),
                elapsedMs: elapsed
            )
        )
    }

    /// Who answered, for the log line: the stub or override id, `upstream`, `control` (the control API), `refused`
    /// (an invalid session id or a request the bridge refused before matching) or `unmatched`.
    private func answeredBy(_ outcome: EngineOutcome, plan: PlannedResponse, context: RequestContext) -> String {
        if let id = plan.response.stubID { return id }
        if outcome.proxied { return "upstream" }
        // In a session without a stub: the bridge's fixed answers (400, 413) or the engine's miss (404, or a CORS
        // preflight it answered).
        guard outcome.sessionID == nil else {
            return [400, 413].contains(plan.response.status) ? "refused" : "unmatched"
        }
        return context.target.hasPrefix("/__mockd") ? "control" : "refused"
    }

    /// Forwards libmicrohttpd's own error messages to the log.
    func log(_ message: UnsafePointer<CChar>?) {
        guard let message else { return }
        let text = String(cString: message)
        // Faults and shutdown end connections on purpose by returning MHD_NO; MHD calls that an internal error.
        let level: Logger.Level = text.hasPrefix("Application reported internal error") ? .debug : .warning
        logger.log(level, "libmicrohttpd: \(text)")
    }
}
