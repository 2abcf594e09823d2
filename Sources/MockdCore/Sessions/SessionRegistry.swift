import Dispatch
import Synchronization

/// The sessions of the daemon: the default one plus those created on first use.
///
/// Creating a session is one small allocation. Sessions idle longer than `idleTimeoutMs` are removed when
/// a new one is created; beyond `maxSessions` the least recently used one is removed. The default session
/// is never removed.
final class SessionRegistry: Sendable {
    static let defaultID = "default"

    let defaultSession: Session
    /// `defaultSession`, for use without a retain (`_withUnsafeGuaranteedRef`): the compiler retained the session
    /// around each call on it, and as every worker thread did so on every request, its reference count moved its
    /// cache line between the cores. Valid as long as the registry.
    let borrowedDefaultSession: Unmanaged<Session>
    private let sessions = Mutex<[String: Session]>([:])
    let maxSessions: Int
    let idleTimeoutMs: Double
    let journalLimit: Int
    /// Monotonic ms (the engine's clock): when sessions were last used. Tests move a manual clock.
    let clock: @Sendable () -> Double

    init(
        scenario: Scenario,
        maxSessions: Int,
        idleTimeoutMs: Double,
        journalLimit: Int,
        clock: @escaping @Sendable () -> Double = MonotonicClock.milliseconds
    ) {
        self.clock = clock
        defaultSession = Session(
            id: SessionRegistry.defaultID,
            scenario: scenario,
            journalLimit: journalLimit,
            nowMs: clock()
        )
        borrowedDefaultSession = Unmanaged.passUnretained(defaultSession)
        self.maxSessions = max(1, maxSessions)
        self.idleTimeoutMs = idleTimeoutMs
        self.journalLimit = journalLimit
    }

    /// Marks `session` used now.
    func touch(_ session: Session) {
        session.touch(nowMs: clock())
    }

    /// A session that is not kept (what a control request reading an unknown session sees).
    func transient(_ id: String?, scenario: Scenario) -> Session {
        Session(id: id ?? SessionRegistry.defaultID, scenario: scenario, journalLimit: 1, nowMs: clock())
    }

    /// The session `id` (the default one for `nil`), created with `scenario()` when new.
    func session(_ id: String?, create scenario: () -> Scenario) -> Session {
        guard let id, id != SessionRegistry.defaultID else { return defaultSession }
        return sessions.withLock { sessions in
            if let existing = sessions[id] { return existing }
            expire(&sessions)
            if sessions.count >= maxSessions - 1,
                let oldest = sessions.values.min(by: {
                    $0.lastUsed.load(ordering: .relaxed) < $1.lastUsed.load(ordering: .relaxed)
                })
            {
                sessions.removeValue(forKey: oldest.id)
            }
            let session = Session(id: id, scenario: scenario(), journalLimit: journalLimit, nowMs: clock())
            sessions[id] = session
            return session
        }
    }

    /// An existing session, without creating one.
    func existing(_ id: String?) -> Session? {
        guard let id, id != SessionRegistry.defaultID else { return defaultSession }
        return sessions.withLock { $0[id] }
    }

    /// Every session, the default one first.
    var all: [Session] {
        [defaultSession] + sessions.withLock { $0.values.sorted { $0.id < $1.id } }
    }

    /// Removes every session but the default one.
    func removeAll() {
        sessions.withLock { $0.removeAll() }
    }

    private func expire(_ sessions: inout [String: Session]) {
        let now = Session.microseconds(clock())
        let limit = Session.microseconds(idleTimeoutMs)
        sessions = sessions.filter { now - min(now, $0.value.lastUsed.load(ordering: .relaxed)) < limit }
    }
}

/// Finds a request's session and strips a `/__session/ID` prefix.
enum SessionRouting {
    static let header = "X-Mockd-Session"
    static let cookie = "mockd_session"
    static let pathPrefix = "/__session/"

    /// The session id and the request as it should be matched (prefix removed).
    /// - Returns: `nil` id for the default session; `.failure` when an id is not a valid session name.
    static func route(_ request: HTTPRequest) -> Result<(id: String?, request: HTTPRequest), RoutingError> {
        var request = request
        return route(&request).map { ($0, request) }
    }

    /// The session id, with a `/__session/ID` prefix removed from `request` in place (no copy of the request on the
    /// way).
    static func route(_ request: inout HTTPRequest) -> Result<String?, RoutingError> {
        var id: String?
        if request.hasReservedPrefix, request.target.hasPrefix(pathPrefix) {
            let rest = request.target.dropFirst(pathPrefix.count)
            let end = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
            id = String(rest[..<end])
            let remainder = rest[end...]
            request.target = remainder.hasPrefix("/") ? String(remainder) : "/" + remainder
        } else if let header = request.headers[header] {
            id = header.trimming([" ", "\t"])
        } else if request.headers.contains(name: "cookie"),
            let value = request.headers.values(named: "cookie").lazy.compactMap({ cookieValue($0, named: cookie) })
                .first, isValidID(value)
        {
            // Every Cookie field counts (HTTP/2 clients and proxies may split them, RFC 9113 §8.2.3); a cookie
            // the app did not set on purpose (empty, garbled) never breaks its requests.
            id = value
        }
        if let id, !isValidID(id) { return .failure(RoutingError(id: id)) }
        return .success(id)
    }

    static func isValidID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 128 && id.utf8.allSatisfy { URLEncoding.isUnreserved($0) }
    }

    static func cookieValue(_ header: String, named name: String) -> String? {
        for pair in header.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, String(parts[0]).trimming([" "]) == name {
                return String(parts[1]).trimming([" ", "\""])
            }
        }
        return nil
    }

    struct RoutingError: Error {
        let id: String
    }
}

extension String {
    func trimming(_ characters: Set<Character>) -> String {
        var result = Substring(self)
        while let first = result.first, characters.contains(first) { result = result.dropFirst() }
        while let last = result.last, characters.contains(last) { result = result.dropLast() }
        return String(result)
    }
}
