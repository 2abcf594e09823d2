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

    init(engine: MockEngine, logger: Logger, maxBodyBytes: Int) {
        self.engine = engine
        self.logger = logger
        self.maxBodyBytes = maxBodyBytes
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
        let response: MockResponse
        if context.bodyTooLarge {
            response = MockResponse(
                status: 413,
                headers: HTTPHeaders([("Content-Type", "application/json; charset=utf-8")]),
                body: Data("{\"error\":\"payload_too_large\",\"message\":\"request body exceeds \(maxBodyBytes) bytes\"}\n".utf8)
            )
        } else {
            let request = HTTPRequest(method: context.method, target: context.target, headers: context.headers, body: context.body)
            response = engine.respond(to: request)
        }
        let result = ResponseWriter.queue(response, on: connection, logger: logger)
        if logger.isEnabled(.info) {
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - context.startNanoseconds) / 1_000_000
            logger.info(
                "\(context.method) \(context.target) \(response.status) \(response.stubID ?? "unmatched") \(String(format: "%.2f", elapsed))ms"
            )
        }
        return result
    }

    /// Forwards libmicrohttpd's own error messages to the log.
    func log(_ message: UnsafePointer<CChar>?) {
        guard let message else { return }
        logger.warning("libmicrohttpd: \(String(cString: message))")
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
        defer { MHD_destroy_response(mhdResponse) }
        for field in response.headers where MHD_add_response_header(mhdResponse, field.name, field.value) == .NO {
            logger.warning("header '\(field.name)' of stub \(response.stubID ?? "-") was refused by libmicrohttpd and not sent")
        }
        return MHD_queue_response(connection, UInt32(response.status), mhdResponse)
    }
}
