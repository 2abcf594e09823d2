public import Foundation
import MockdPlatform

/// One session's journal as a live Server-Sent Events feed (`GET /__mockd/journal/stream`), read by the dashboard.
///
/// The feed holds a cursor, not a subscription: the server bridge asks for `next(now:)` when the connection may
/// send, and suspends the connection for `pollMs` (200) when there is nothing to say, so no worker thread waits
/// for a viewer (`LiveFeed`). Events:
/// - `event: entry` with `id: <sequence>` and one journal row as JSON (`JournalJSON.row`), in arrival order, at
///   most `batchLimit` per call;
/// - `event: reset` when the session's journal was cleared (a reset) or the session was replaced (`reset?all=true`,
///   expiry): the rows shown so far are gone and numbering starts over;
/// - a `: keep-alive` comment after `keepAliveSeconds` of silence, so proxies and idle timeouts leave it open.
///
/// At most `maxOpen` feeds are open at once (`open(engine:sessionID:after:)` refuses more); a feed is counted
/// from its creation to its release, which the bridge does when the client leaves or the daemon stops.
public final class JournalFeed: LiveFeed {
    /// The most feeds open at once across the daemon.
    public static let maxOpen = 32
    /// Entries sent per `next(now:)` call at most (a full journal is sent in several writes).
    public static let batchLimit = 200
    /// How long the bridge waits before asking again when there was nothing new, in ms.
    public var pollMs: Double { 200 }
    /// Silence after which a comment line is sent.
    public static let keepAliveSeconds: UInt64 = 15

    private static let openFeeds = Atomic<Int>(0)

    /// Feeds open right now (created and not yet released).
    public static var openCount: Int { openFeeds.load(ordering: .acquiring) }

    private struct Cursor {
        var session: Session?
        var clears: Int
        var after: Int
        var lastWriteNanoseconds: UInt64
        var started = false
    }

    private let engine: MockEngine
    private let sessionID: String?
    private let cursor: Mutex<Cursor>

    /// A feed of `sessionID`'s journal from the entry after sequence `after`, or `nil` when `maxOpen` feeds are open.
    static func open(engine: MockEngine, sessionID: String?, after: Int) -> JournalFeed? {
        var current = openFeeds.load(ordering: .relaxed)
        while current < maxOpen {
            let (exchanged, original) = openFeeds.compareExchange(
                expected: current,
                desired: current + 1,
                ordering: .acquiringAndReleasing
            )
            if exchanged { return JournalFeed(engine: engine, sessionID: sessionID, after: after) }
            current = original
        }
        return nil
    }

    private init(engine: MockEngine, sessionID: String?, after: Int) {
        self.engine = engine
        self.sessionID = sessionID
        let session = engine.sessions.existing(sessionID)
        cursor = Mutex(
            Cursor(
                session: session,
                clears: session?.journal.position.clears ?? 0,
                after: after,
                lastWriteNanoseconds: DispatchTime.now().uptimeNanoseconds
            )
        )
    }

    deinit {
        JournalFeed.openFeeds.subtract(1, ordering: .releasing)
    }

    /// The bytes to send now, or `nil` when there is nothing yet (ask again after `pollMs`).
    /// - Parameter now: Monotonic time in ns (`DispatchTime.now().uptimeNanoseconds`).
    /// - Complexity: O(n) in the journal's length when there are new entries (`RequestJournal.page`), O(1) otherwise.
    public func next(now: UInt64) -> Data? {
        cursor.withLock { cursor in
            var out = Data()
            if !cursor.started {
                // At once, so that the client sees the headers and knows the stream is open.
                cursor.started = true
                out += Data("event: hello\ndata: ".utf8) + JournalJSON.line(["session": sessionID ?? "default"])
                out += Data("\n\n".utf8)
            }
            let session = engine.sessions.existing(sessionID)
            if session !== cursor.session {
                // A session made again (reset of all sessions, expiry) is a new journal.
                if cursor.session != nil || cursor.after > 0 { out += Data("event: reset\ndata: {}\n\n".utf8) }
                cursor.session = session
                cursor.clears = session?.journal.position.clears ?? 0
                cursor.after = 0
            }
            if let session {
                let position = session.journal.position
                if position.clears != cursor.clears {
                    out += Data("event: reset\ndata: {}\n\n".utf8)
                    cursor.clears = position.clears
                    cursor.after = 0
                }
                if position.newest > cursor.after {
                    let page = session.journal.page(after: cursor.after, limit: JournalFeed.batchLimit) { _ in true }
                    for entry in page.entries {
                        out += Data("id: \(entry.sequence)\nevent: entry\ndata: ".utf8)
                        out += JournalJSON.line(JournalJSON.row(entry))
                        out += Data("\n\n".utf8)
                        cursor.after = entry.sequence
                    }
                }
            }
            if out.isEmpty, now &- cursor.lastWriteNanoseconds >= JournalFeed.keepAliveSeconds * 1_000_000_000 {
                out = Data(": keep-alive\n\n".utf8)
            }
            guard !out.isEmpty else { return nil }
            cursor.lastWriteNanoseconds = now
            return out
        }
    }
}
