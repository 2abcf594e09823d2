import CMicroHTTPD
import Dispatch
import Foundation

/// A response body delivered at a fixed rate through `MHD_create_response_from_callback`.
///
/// When the reader is ahead of the rate, it suspends the connection until the next chunk is due and
/// returns 0 (libmicrohttpd calls again after the resume), so no worker thread waits. `Content-Length` is
/// the full size.
final class ThrottledBody: StreamingBody {
    /// The body: in memory, or parts of a file served from disk (`FileSegments`).
    let body: any ByteSource
    let bytesPerSecond: Int
    /// Bytes per step: a 20th of a second's worth, at least 1 byte, at most 64 KiB.
    let chunkSize: Int
    let connection: OpaquePointer
    let suspensions: Suspensions
    private var startNanoseconds: UInt64?

    init(body: any ByteSource, bytesPerSecond: Int, connection: OpaquePointer, suspensions: Suspensions) {
        self.body = body
        self.bytesPerSecond = max(1, bytesPerSecond)
        self.chunkSize = min(64 * 1024, max(1, self.bytesPerSecond / 20))
        self.connection = connection
        self.suspensions = suspensions
    }

    /// Fills `buffer` with the bytes due by now; 0 after suspending; -2 (`MHD_CONTENT_READER_END_WITH_ERROR`)
    /// when the daemon stops.
    override func read(position: UInt64, into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
        let now = DispatchTime.now().uptimeNanoseconds
        let start = startNanoseconds ?? now
        startNanoseconds = start
        let offset = Int(position)
        guard offset < body.count else { return -1 }  // MHD_CONTENT_READER_END_OF_STREAM
        if suspensions.isStopping { return -2 }
        let elapsedSeconds = Double(now - start) / 1_000_000_000
        // The first chunk goes at once; then the bytes sent never run ahead of elapsed time × rate.
        let due = chunkSize + Int(min(elapsedSeconds * Double(bytesPerSecond), Double(body.count)))
        if offset >= due {
            let waitMs =
                Double(offset + 1 - chunkSize) / Double(bytesPerSecond) * 1000 - elapsedSeconds * 1000
            return suspensions.suspend(connection, resumeAfter: max(1, waitMs)) ? 0 : -2
        }
        let count = min(capacity, chunkSize, due - offset, body.count - offset)
        let copied = body.copy(from: offset, into: UnsafeMutableRawPointer(buffer), capacity: count)
        return copied > 0 ? copied : -2
    }
}
