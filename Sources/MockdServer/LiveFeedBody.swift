import CMicroHTTPD
import Dispatch
import Foundation
import MockdCore

/// Streams a `LiveFeed` (the live journal) through a libmicrohttpd callback response for as long as the client
/// stays: what the feed has is sent, and with nothing to send the connection is suspended for the feed's poll
/// interval, so a viewer holds no worker thread.
///
/// A suspended connection does not notice its client leaving, and a feed with nothing to say writes nothing that
/// could fail; so each time there is nothing to send the socket is peeked at, and a client that left (EOF or an
/// error) ends the stream at once: libmicrohttpd closes the connection and releases this body and its feed. A
/// graceful shutdown ends the stream cleanly (the suspension ends at the drain); a hard stop ends it with an error.
final class LiveFeedBody: StreamingBody {
    private let feed: any LiveFeed
    private let connection: OpaquePointer
    private let suspensions: Suspensions
    private var pending = Data()

    init(feed: any LiveFeed, connection: OpaquePointer, suspensions: Suspensions) {
        self.feed = feed
        self.connection = connection
        self.suspensions = suspensions
    }

    override func read(position: UInt64, into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
        if suspensions.isStopping { return -2 }
        if pending.isEmpty {
            if suspensions.isDraining, !feed.hasEnd { return -1 }
            guard let next = feed.next(now: DispatchTime.now().uptimeNanoseconds) else {
                if feed.isFinished { return -1 }
                if Self.clientLeft(connection) { return -2 }
                if suspensions.suspend(connection, resumeAfter: feed.pollMs, endsAtDrain: true) { return 0 }
                return suspensions.isStopping ? -2 : -1
            }
            pending = next
        }
        let count = min(capacity, pending.count)
        pending.withUnsafeBytes { UnsafeMutableRawPointer(buffer).copyMemory(from: $0.baseAddress!, byteCount: count) }
        pending.removeFirst(count)
        return count
    }
}
