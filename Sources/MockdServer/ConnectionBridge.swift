import CMicroHTTPD
import Foundation
import MockdCore

/// Per-request state, created when libmicrohttpd has read the request line and released when it reports
/// the request complete. Only the connection's own MHD thread touches it.
final class RequestContext {
    /// The raw request-target as sent (MHD hands the handler a percent-decoded path; matching needs the raw one).
    let target: String
    let startNanoseconds: UInt64
    var headersRead = false
    var method = ""
    var headers = HTTPHeaders()
    var body = Data()
    var bodyTooLarge = false
    /// Set once the engine has answered; a delayed response waits here while the connection is suspended.
    var plan: PlannedResponse?

    init(target: String) {
        self.target = target
        self.startNanoseconds = DispatchTime.now().uptimeNanoseconds
    }
}

/// The Swift side of libmicrohttpd's callbacks: reads requests, asks the engine, writes responses.
///
/// Passed to C unretained; `MicroHTTPDServer` keeps it alive for the daemon's lifetime.
final class ConnectionBridge: @unchecked Sendable {
    let engine: MockEngine
    let logger: Logger
    let maxBodyBytes: Int
    let suspensions = Suspensions()
    /// How long a `noResponse` fault holds a connection before closing it, in ms.
    let noResponseHoldMilliseconds: Double

    init(engine: MockEngine, logger: Logger, maxBodyBytes: Int, noResponseHoldMilliseconds: Double = 600_000) {
        self.engine = engine
        self.logger = logger
        self.maxBodyBytes = maxBodyBytes
        self.noResponseHoldMilliseconds = noResponseHoldMilliseconds
    }

    /// `MHD_OPTION_URI_LOG_CALLBACK`: the first sight of a request, with its raw target.
    func beginRequest(target: UnsafePointer<CChar>?) -> UnsafeMutableRawPointer {
        let context = RequestContext(target: target.map { String(cString: $0) } ?? "/")
        return Unmanaged.passRetained(context).toOpaque()
    }

    /// `MHD_OPTION_NOTIFY_COMPLETED`: the one place a request context is released.
    func endRequest(_ slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) {
        guard let slot, let pointer = slot.pointee else { return }
        Unmanaged<RequestContext>.fromOpaque(pointer).release()
        slot.pointee = nil
    }

    /// The access handler, called at least twice per request: once after the headers, then with each piece
    /// of the body, then once with no data. The response is queued only on the last call: queueing on the
    /// first makes libmicrohttpd 0.9.75 close the connection, which kills keep-alive.
    func handle(
        connection: OpaquePointer,
        method: UnsafePointer<CChar>?,
        uploadData: UnsafePointer<CChar>?,
        uploadDataSize: UnsafeMutablePointer<Int>,
        slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        guard let pointer = slot.pointee else { return .NO }
        let context = Unmanaged<RequestContext>.fromOpaque(pointer).takeUnretainedValue()
        if !context.headersRead {
            context.headersRead = true
            context.method = method.map { String(cString: $0) } ?? "GET"
            RequestReader.readHeaders(of: connection, into: context)
            if let length = context.headers["content-length"].flatMap(Int.init), length > maxBodyBytes {
                context.bodyTooLarge = true
            }
            return .YES
        }
        if uploadDataSize.pointee > 0 {
            if !context.bodyTooLarge, let uploadData {
                if context.body.count + uploadDataSize.pointee > maxBodyBytes {
                    context.bodyTooLarge = true
                    context.body = Data()
                } else {
                    context.body.append(UnsafeRawPointer(uploadData).assumingMemoryBound(to: UInt8.self), count: uploadDataSize.pointee)
                }
            }
            uploadDataSize.pointee = 0
            return .YES
        }
        if suspensions.isStopping { return .NO }
        if let plan = context.plan {
            // Resumed after the planned delay (or after a `noResponse` hold, which ends by closing).
            if plan.fault == .noResponse { return .NO }
            return deliver(plan, context: context, connection: connection)
        }
        let plan: PlannedResponse
        if context.bodyTooLarge {
            plan = PlannedResponse(
                response: MockResponse(
                    status: 413,
                    headers: HTTPHeaders([("Content-Type", "application/json; charset=utf-8")]),
                    body: Data("{\"error\":\"payload_too_large\",\"message\":\"request body exceeds \(maxBodyBytes) bytes\"}\n".utf8)
                )
            )
        } else {
            let request = HTTPRequest(method: context.method, target: context.target, headers: context.headers, body: context.body)
            plan = engine.plan(request)
        }
        context.plan = plan
        if plan.fault == .noResponse {
            log(context, status: nil, plan: plan)
            return suspensions.suspend(connection, resumeAfter: noResponseHoldMilliseconds) ? .YES : .NO
        }
        if plan.delayMs > 0 {
            return suspensions.suspend(connection, resumeAfter: plan.delayMs) ? .YES : .NO
        }
        return deliver(plan, context: context, connection: connection)
    }

    /// Sends the planned response: a fault at the socket, a throttled body, or a buffered response.
    private func deliver(_ plan: PlannedResponse, context: RequestContext, connection: OpaquePointer) -> MHD_Result {
        if let fault = plan.fault {
            FaultInjector.inject(fault, response: plan.response, connection: connection)
            log(context, status: nil, plan: plan)
            return .NO
        }
        let result: MHD_Result
        if let rate = plan.throttleBytesPerSecond, !plan.response.body.isEmpty, context.method != "HEAD" {
            result = ResponseWriter.queueThrottled(plan.response, bytesPerSecond: rate, on: connection, suspensions: suspensions, logger: logger)
        } else {
            result = ResponseWriter.queue(plan.response, on: connection, logger: logger)
        }
        log(context, status: plan.response.status, plan: plan)
        return result
    }

    private func log(_ context: RequestContext, status: Int?, plan: PlannedResponse) {
        guard logger.isEnabled(.info) else { return }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - context.startNanoseconds) / 1_000_000
        let outcome = plan.fault.map { "fault=\($0.rawValue)" } ?? String(status ?? 0)
        logger.info(
            "\(context.method) \(context.target) \(outcome) \(plan.response.stubID ?? "unmatched") \(String(format: "%.2f", elapsed))ms"
        )
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

/// Converts libmicrohttpd's request data to Swift values, once, at the edge.
enum RequestReader {
    static func readHeaders(of connection: OpaquePointer, into context: RequestContext) {
        let contextPointer = Unmanaged.passUnretained(context).toOpaque()
        _ = MHD_get_connection_values(
            connection, .HEADER_KIND,
            { cls, _, key, value in
                guard let cls, let key else { return .YES }
                let context = Unmanaged<RequestContext>.fromOpaque(cls).takeUnretainedValue()
                context.headers.add(name: String(cString: key), value: value.map { String(cString: $0) } ?? "")
                return .YES
            },
            contextPointer
        )
    }
}

/// Turns a `MockResponse` into a queued libmicrohttpd response.
enum ResponseWriter {
    static func queue(_ response: MockResponse, on connection: OpaquePointer, logger: Logger) -> MHD_Result {
        let created = response.body.withUnsafeBytes { buffer in
            MHD_create_response_from_buffer(buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let mhdResponse = created else { return .NO }
        return queue(mhdResponse, response, on: connection, logger: logger)
    }

    /// Queues a response whose body is read at `bytesPerSecond` (see `ThrottledBody`).
    static func queueThrottled(
        _ response: MockResponse, bytesPerSecond: Int, on connection: OpaquePointer, suspensions: Suspensions, logger: Logger
    ) -> MHD_Result {
        let body = ThrottledBody(body: response.body, bytesPerSecond: bytesPerSecond, connection: connection, suspensions: suspensions)
        let created = MHD_create_response_from_callback(
            UInt64(response.body.count), body.chunkSize,
            { cls, position, buffer, capacity in
                guard let cls, let buffer else { return -2 }
                return Unmanaged<ThrottledBody>.fromOpaque(cls).takeUnretainedValue().read(position: position, into: buffer, capacity: capacity)
            },
            Unmanaged.passRetained(body).toOpaque(),
            { cls in
                guard let cls else { return }
                Unmanaged<ThrottledBody>.fromOpaque(cls).release()
            }
        )
        guard let mhdResponse = created else { return .NO }
        return queue(mhdResponse, response, on: connection, logger: logger)
    }

    private static func queue(_ mhdResponse: OpaquePointer, _ response: MockResponse, on connection: OpaquePointer, logger: Logger)
        -> MHD_Result
    {
        defer { MHD_destroy_response(mhdResponse) }
        for field in response.headers where MHD_add_response_header(mhdResponse, field.name, field.value) == .NO {
            logger.warning("header '\(field.name)' of stub \(response.stubID ?? "-") was refused by libmicrohttpd and not sent")
        }
        return MHD_queue_response(connection, UInt32(response.status), mhdResponse)
    }
}
