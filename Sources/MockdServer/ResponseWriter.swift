import CMicroHTTPD
import Foundation
import MockdCore
import MockdFormat

/// A response body produced while it is sent (throttled bodies, event streams): libmicrohttpd calls `read`
/// from its content-reader callback.
class StreamingBody {
    /// Fills `buffer` with up to `capacity` bytes from `position`; returns the count, 0 after suspending the
    /// connection, -1 at the end (`MHD_CONTENT_READER_END_OF_STREAM`), -2 on error (`…_END_WITH_ERROR`).
    func read(position: UInt64, into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
        preconditionFailure("subclasses read")
    }

    /// Whether the client of `connection` has left: its socket reports an error or a hang-up, or is readable with
    /// nothing to read (the end of the stream). A suspended connection does not notice its client leaving, and a
    /// stream with nothing to send writes nothing that could fail, so a body asks each time before it suspends.
    static func clientLeft(_ connection: OpaquePointer) -> Bool {
        let socket = CMicroHTTPD_connectionSocket(connection)
        guard socket >= 0 else { return false }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 0) > 0 else { return false }
        if descriptor.revents & Int16(POLLERR | POLLHUP) != 0 { return true }
        var byte: UInt8 = 0
        let peeked = recv(socket, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return peeked == 0 || (peeked < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
    }
}

/// Turns a `MockResponse` into a queued libmicrohttpd response.
enum ResponseWriter {
    /// Queues a response whose body is copied once into libmicrohttpd.
    static func queue(_ response: MockResponse, on connection: OpaquePointer, logger: Logger) -> MHD_Result {
        guard let mhdResponse = buffered(response, logger: logger) else { return .NO }
        defer { MHD_destroy_response(mhdResponse) }
        return MHD_queue_response(connection, UInt32(response.status), mhdResponse)
    }

    /// Queues a static stub response through one native response built on first use and kept in `slot`:
    /// libmicrohttpd reference-counts responses, so every connection can queue the same one.
    static func queueShared(
        _ response: MockResponse,
        slot: any NativeResponseSlot,
        on connection: OpaquePointer,
        logger: Logger
    ) -> MHD_Result {
        queueShared(status: response.status, building: response, slot: slot, on: connection, logger: logger)
    }

    /// `queueShared(_:slot:…)` for a stub's first response as loaded; the response is read only to build the
    /// native one, never copied per request.
    static func queueShared(stub: Stub, on connection: OpaquePointer, logger: Logger) -> MHD_Result {
        // Read directly once built: passing the stub as `any NativeResponseSlot` retained it.
        if let cached = stub.load() {
            return MHD_queue_response(connection, UInt32(stub.loadedStatus), OpaquePointer(cached))
        }
        return queueShared(
            status: stub.firstResponse.status,
            building: stub.firstResponse,
            slot: stub,
            on: connection,
            logger: logger
        )
    }

    private static func queueShared(
        status: Int,
        building response: @autoclosure () -> MockResponse,
        slot: any NativeResponseSlot,
        on connection: OpaquePointer,
        logger: Logger
    ) -> MHD_Result {
        if let cached = slot.load() {
            return MHD_queue_response(connection, UInt32(status), OpaquePointer(cached))
        }
        guard let mhdResponse = sharing(response(), logger: logger) else { return .NO }
        let kept = slot.store(UnsafeMutableRawPointer(mhdResponse), release: destroy)
        if kept != UnsafeMutableRawPointer(mhdResponse) { MHD_destroy_response(mhdResponse) }
        return MHD_queue_response(connection, UInt32(status), OpaquePointer(kept))
    }

    /// How a core slot releases the native response stored in it (see `NativeResponseSlot`).
    private static let destroy: NativeResponseRelease = { MHD_destroy_response(OpaquePointer($0)) }

    /// Queues a Server-Sent Events stream (chunked; see `EventStreamBody`).
    static func queueEventStream(
        _ response: MockResponse,
        events: [ServerSentEvent],
        keepOpen: Bool,
        holdMs: Double,
        on connection: OpaquePointer,
        suspensions: Suspensions,
        logger: Logger,
        register: (EventStreamBody) -> Void = { _ in }
    ) -> MHD_Result {
        let body = EventStreamBody(
            events: events,
            keepOpen: keepOpen,
            holdMs: holdMs,
            connection: connection,
            suspensions: suspensions
        )
        // Open to pushes from the moment its response is queued (`EventStreamHub`).
        register(body)
        // MHD_SIZE_UNKNOWN: chunked transfer coding.
        return queueStreaming(response, body: body, size: UInt64.max, blockSize: 4096, on: connection, logger: logger)
    }

    /// Queues a live feed (chunked; see `LiveFeedBody`).
    static func queueLiveFeed(
        _ response: MockResponse,
        feed: any LiveFeed,
        on connection: OpaquePointer,
        suspensions: Suspensions,
        logger: Logger
    ) -> MHD_Result {
        let body = LiveFeedBody(feed: feed, connection: connection, suspensions: suspensions)
        // MHD_SIZE_UNKNOWN: chunked transfer coding.
        return queueStreaming(response, body: body, size: UInt64.max, blockSize: 16384, on: connection, logger: logger)
    }

    /// Queues a response whose body is read at `bytesPerSecond` (see `ThrottledBody`).
    static func queueThrottled(
        _ response: MockResponse,
        bytesPerSecond: Int,
        on connection: OpaquePointer,
        suspensions: Suspensions,
        logger: Logger
    ) -> MHD_Result {
        let body = ThrottledBody(
            body: MemoryBytes(response.body),
            bytesPerSecond: bytesPerSecond,
            connection: connection,
            suspensions: suspensions
        )
        return queueStreaming(
            response,
            body: body,
            size: UInt64(response.body.count),
            blockSize: body.chunkSize,
            on: connection,
            logger: logger
        )
    }

    /// A callback response over `body`, retained by libmicrohttpd until its free callback.
    static func queueStreaming(
        _ response: MockResponse,
        body: StreamingBody,
        size: UInt64,
        blockSize: Int,
        on connection: OpaquePointer,
        logger: Logger
    ) -> MHD_Result {
        let created = MHD_create_response_from_callback(
            size,
            blockSize,
            { cls, position, buffer, capacity in
                guard let cls, let buffer else { return -2 }
                return Unmanaged<StreamingBody>.fromOpaque(cls).takeUnretainedValue().read(
                    position: position,
                    into: buffer,
                    capacity: capacity
                )
            },
            Unmanaged.passRetained(body).toOpaque(),
            { cls in
                guard let cls else { return }
                Unmanaged<StreamingBody>.fromOpaque(cls).release()
            }
        )
        guard let mhdResponse = created else { return .NO }
        defer { MHD_destroy_response(mhdResponse) }
        addHeaders(response, to: mhdResponse, logger: logger)
        return MHD_queue_response(connection, UInt32(response.status), mhdResponse)
    }

    /// A response with the body copied in and every header added; the caller owns (destroys) it.
    private static func buffered(_ response: MockResponse, logger: Logger) -> OpaquePointer? {
        if response.body.isEmpty, let length = recordedHeadLength(response) {
            return headAnswer(response, length: length, logger: logger)
        }
        let created = response.body.withUnsafeBytes { buffer in
            MHD_create_response_from_buffer(
                buffer.count,
                UnsafeMutableRawPointer(mutating: buffer.baseAddress),
                .RESPMEM_MUST_COPY
            )
        }
        guard let mhdResponse = created else { return nil }
        addHeaders(response, to: mhdResponse, logger: logger)
        return mhdResponse
    }

    /// A response over the stub's own body bytes, kept alive by libmicrohttpd until it frees the response;
    /// the caller owns (destroys) it. Stubs of a set share body files, so copying the body into every native
    /// response (`buffered`) held 100,000 copies of one 1 KB body after a benchmark touched every stub.
    ///
    /// `Data` keeps bodies of up to 14 bytes inline in the value (no stable address); longer ones live in a
    /// heap storage whose address is fixed while a `Data` referring to it is alive — the box below. Short
    /// bodies are copied.
    private static func sharing(_ response: MockResponse, logger: Logger) -> OpaquePointer? {
        guard response.body.count >= 64 else { return buffered(response, logger: logger) }
        let box = BodyBox(response.body)
        let created = box.body.withUnsafeBytes { buffer in
            MHD_create_response_from_buffer_with_free_callback_cls(
                buffer.count,
                UnsafeMutableRawPointer(mutating: buffer.baseAddress),
                { cls in
                    guard let cls else { return }
                    Unmanaged<BodyBox>.fromOpaque(cls).release()
                },
                Unmanaged.passRetained(box).toOpaque()
            )
        }
        guard let mhdResponse = created else {
            Unmanaged.passUnretained(box).release()
            return nil
        }
        addHeaders(response, to: mhdResponse, logger: logger)
        return mhdResponse
    }

    /// The `Content-Length` a recorded `HEAD` answer keeps (the loader keeps it for `HEAD` stubs only).
    private static func recordedHeadLength(_ response: MockResponse) -> UInt64? {
        guard let text = response.headers["content-length"] else { return nil }
        return UInt64(text.trimmingCharacters(in: .whitespaces))
    }

    /// A `HEAD` answer announcing `length` bytes (RFC 9110 §9.3.2): a callback response of that size, whose reader
    /// libmicrohttpd never calls for `HEAD` (it would end the response with an error if it did).
    private static func headAnswer(_ response: MockResponse, length: UInt64, logger: Logger) -> OpaquePointer? {
        guard
            let created = MHD_create_response_from_callback(
                length,
                4096,
                { _, _, _, _ in -2 },  // MHD_CONTENT_READER_END_WITH_ERROR
                nil,
                nil
            )
        else { return nil }
        addHeaders(response, to: created, logger: logger)
        return created
    }

    /// Keeps a body's bytes alive for libmicrohttpd (see `sharing`).
    private final class BodyBox {
        let body: Data
        init(_ body: Data) { self.body = body }
    }

    static func addHeaders(_ response: MockResponse, to mhdResponse: OpaquePointer, logger: Logger) {
        // libmicrohttpd refuses an empty value; one space is the same empty field value on the wire (RFC 9110 §5.5
        // excludes surrounding whitespace from the value).
        for field in response.headers {
            // A recorded HEAD answer's Content-Length is the response's size (`headAnswer`), never a header of its own.
            if field.name.utf8.count == 14, field.name.lowercased() == "content-length" { continue }
            // Through `withCString`: a short (inline) string passed as a C string argument was copied to the heap.
            let value = field.value.isEmpty ? " " : field.value
            let added = field.name.withCString { name in
                value.withCString { MHD_add_response_header(mhdResponse, name, $0) }
            }
            guard added == .NO else { continue }
            logger.warning(
                "header '\(field.name)' of stub \(response.stubID ?? "-") was refused by libmicrohttpd and not sent"
            )
        }
    }
}
