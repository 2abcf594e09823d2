import CMicroHTTPD
import Foundation
import MockdCore
import MockdPlatform

extension ResponseWriter {
    /// Queues a response whose body is served from its file (`FileBody`), in bounded memory.
    ///
    /// The file is opened for this answer. The whole file or one range goes through
    /// `MHD_create_response_from_fd_at_offset64` (libmicrohttpd sends it with `sendfile`, or reads it in blocks over
    /// TLS); several ranges (`multipart/byteranges`) or a throttled body are read with `pread` as they are sent
    /// (`FileSegments`). A file that is gone, unreadable or no longer of the size it had at load is answered with a
    /// 500 naming it, never a crash or a body of the wrong length.
    static func queueFile(
        _ response: MockResponse,
        _ file: FileBody,
        bytesPerSecond: Int?,
        on connection: OpaquePointer,
        suspensions: Suspensions,
        logger: Logger
    ) -> MHD_Result {
        let descriptor: Int32
        do {
            // Without waiting: a FIFO put in the file's place would hold the worker until something wrote to it.
            descriptor = try FileDescriptor.open(file.path, .readWithoutWaiting).rawValue
        } catch {
            let reason = FileDescriptor.message(of: error)
            return failed(
                response,
                "body file '\(file.path)' cannot be opened (\(reason))",
                on: connection,
                logger: logger
            )
        }
        // A FIFO, a device or a folder put in the file's place is never read: it could block or never end.
        let size = FileDescriptor(rawValue: descriptor).regularFileSize()
        guard size == file.size else {
            FileDescriptor(rawValue: descriptor).close()
            let change =
                size == nil ? "is no longer a regular file" : "changed size since it was loaded (\(file.size) bytes)"
            return failed(
                response,
                "body file '\(file.path)' \(change); reload the mock set (SIGHUP or POST /__mockd/reload)",
                on: connection,
                logger: logger
            )
        }
        if bytesPerSecond == nil, file.parts.count == 1, case .file(let offset, let count) = file.parts[0] {
            // libmicrohttpd owns the descriptor from here and closes it with the response.
            guard let created = MHD_create_response_from_fd_at_offset64(UInt64(count), descriptor, UInt64(offset))
            else {
                FileDescriptor(rawValue: descriptor).close()
                return .NO
            }
            defer { MHD_destroy_response(created) }
            addHeaders(response, to: created, logger: logger)
            return MHD_queue_response(connection, UInt32(response.status), created)
        }
        let source = FileSegments(descriptor: descriptor, parts: file.parts)
        let body: StreamingBody
        let blockSize: Int
        if let bytesPerSecond {
            let throttled = ThrottledBody(
                body: source,
                bytesPerSecond: bytesPerSecond,
                connection: connection,
                suspensions: suspensions
            )
            (body, blockSize) = (throttled, throttled.chunkSize)
        } else {
            (body, blockSize) = (SourceBody(source), 64 * 1024)
        }
        return queueStreaming(
            response,
            body: body,
            size: UInt64(source.count),
            blockSize: blockSize,
            on: connection,
            logger: logger
        )
    }

    /// The 500 for a body file that cannot be served, logged once per answer.
    private static func failed(
        _ response: MockResponse,
        _ message: String,
        on connection: OpaquePointer,
        logger: Logger
    ) -> MHD_Result {
        logger.error("\(message) (stub \(response.stubID ?? "-"))")
        var error = MockResponse.jsonError(status: 500, code: "body_file_unavailable", message: message)
        error.stubID = response.stubID
        return queue(error, on: connection, logger: logger)
    }
}
