import Foundation

/// One thread's answers of one scenario: which stub answers a request as loaded, keyed by the request's method,
/// target (as matched: session and host prefixes removed), the host a `/__host/NAME/` prefix named, and its header
/// fields. A repeated request then skips routing (its key, its normalising, the lookup and the header checks of
/// `StubIndex.match`).
///
/// The key holds every header field, byte for byte (one comparison of the packed fields), not only those the set
/// matches on: a superset, so a hit is always the answer routing would give; a client that varies a field the set does
/// not match on (a request id) is routed every time, as before.
///
/// Only answers that are a pure function of the request and the scenario are kept: a stub that answers with its first
/// response exactly as loaded for good (`Stub.answersAsLoadedForGood`: no sequence, placeholders, fault, stream,
/// pushes or rebased dates, and a deferred body read), in a scenario that serves stubs as loaded (no override, runtime
/// stub, defaults, conditional requests, CORS or resources: `ScenarioCache` checks that, with the session's
/// generation, on every request) and routes no GraphQL operations, for a request without a body. Everything else is
/// routed every time. The cache belongs to the scenario it was filled from, by identity (`ScenarioCache` keeps that
/// scenario alive and starts a new cache when it takes another): a session that switches scenario or reloads gets a
/// new scenario, and with it an empty cache. Sessions that share a scenario share its answers, which depend on nothing
/// of theirs (the session is chosen, and its prefix removed, before the scenario is asked).
///
/// A hit still counts the stub's use (coverage), and the answer is the same `.stub` routing gives, so the journal
/// entry and the response bytes are the same. While hits are rare (requests spread over many stubs) only one miss in
/// `sparseStride` is remembered, so a cache that cannot help costs next to nothing.
struct AnswerCache {
    /// Sets of two entries, a power of two: a request hashes to one set by its target. Two ways, so two hot targets
    /// whose hashes share a set (`/bench/1` and `/bench/8` do among ten) both stay, rather than pushing each other out
    /// and being routed every other time.
    static let setCount = 512
    static let ways = 2

    private struct Entry {
        var method = ""
        var target = ""
        var routedHost: String?
        var headers = HTTPHeaders()
        /// -1: a free entry.
        var ordinal = -1
    }

    private var scenario: ObjectIdentifier?
    /// Set `s` is entries `2s` (the one remembered last) and `2s + 1`.
    private var entries: ContiguousArray<Entry> = []
    /// The set of the request being answered when it missed and may be remembered, else -1.
    private var pendingSet = -1

    /// Lookups and hits of the current window (`window` lookups), for the hit rate.
    private var windowLookups = 0
    private var windowHits = 0
    /// Whether the last window's hits were rare (`rareHits`): then only one miss in `sparseStride` is remembered.
    /// Asked at random among 100,000 stubs, nearly every request missed, and remembering each one (releasing the
    /// strings and headers of an entry remembered a thousand requests ago, retaining the request's) cost ~15 reference
    /// count operations per request for hits that never came. A target asked again and again is still remembered
    /// within a few of its misses, and the next window with frequent hits remembers every miss again.
    private var remembersSparsely = false
    private var missesSinceRemembered = 0

    static let window = 1024
    /// At most this many hits per window (under 1 in 8) count as rare.
    static let rareHits = window / 8
    static let sparseStride = 16

    /// Uses the answers of `scenario`, starting empty when they were another scenario's. The caller keeps the scenario
    /// the answers belong to alive (and starts a new cache when it lets it go), so an identity is never reused here.
    mutating func bind(to scenario: Scenario) {
        guard self.scenario != ObjectIdentifier(scenario) else { return }
        self.scenario = ObjectIdentifier(scenario)
        entries =
            scenario.index.graphQL == nil
            ? ContiguousArray(repeating: Entry(), count: AnswerCache.setCount * AnswerCache.ways) : []
        pendingSet = -1
    }

    /// The ordinal of the stub that answered this very request before, or `nil` (then `remember(_:for:)` keeps the
    /// answer routing finds, when the request can be cached).
    mutating func ordinal(for request: HTTPRequest) -> Int? {
        pendingSet = -1
        guard !entries.isEmpty, request.body.isEmpty else { return nil }
        let set = AnswerCache.set(of: request.target)
        let hit = entries.withUnsafeBufferPointer { entries -> Int? in
            // Fields read in place (no copy of an entry, whose strings a copy would retain).
            for at in set &* AnswerCache.ways..<(set &+ 1) &* AnswerCache.ways
            where entries[at].ordinal >= 0 && entries[at].target == request.target
                && entries[at].method == request.method && entries[at].routedHost == request.routedHost
                && entries[at].headers.hasSameFields(as: request.headers)
            {
                return entries[at].ordinal
            }
            return nil
        }
        countLookup(hit: hit != nil)
        if let hit { return hit }
        if remembersSparsely {
            missesSinceRemembered &+= 1
            guard missesSinceRemembered >= AnswerCache.sparseStride else { return nil }
            missesSinceRemembered = 0
        }
        pendingSet = set
        return nil
    }

    /// Counts one lookup, and at the end of a window decides from its hits whether misses are remembered sparsely.
    @inline(__always)
    private mutating func countLookup(hit: Bool) {
        windowLookups &+= 1
        if hit { windowHits &+= 1 }
        guard windowLookups == AnswerCache.window else { return }
        remembersSparsely = windowHits <= AnswerCache.rareHits
        windowLookups = 0
        windowHits = 0
    }

    /// Whether misses are remembered one in `sparseStride` (the last window's hits were rare). For tests.
    var isRememberingSparsely: Bool { remembersSparsely }

    /// Keeps `ordinal` as the answer to `request`, which `ordinal(for:)` just missed: first in its set, the entry
    /// remembered before it second, the older one dropped.
    mutating func remember(_ ordinal: Int, for request: HTTPRequest) {
        guard pendingSet >= 0 else { return }
        let first = pendingSet &* AnswerCache.ways
        entries.withUnsafeMutableBufferPointer { entries in
            // Swapped in place (moved, not copied: `MutableCollection.swapAt` on the array retained every field).
            entries.swapAt(first, first + 1)
            entries[first] = Entry(
                method: request.method,
                target: request.target,
                routedHost: request.routedHost,
                headers: request.headers,
                ordinal: ordinal
            )
        }
        pendingSet = -1
    }

    /// An FNV-1a-style hash of the target's bytes taken eight at a time (the last word zero-padded), ended with
    /// MurmurHash3's finaliser so the set's bits depend on every byte. (A shift-fold ending let a word's high
    /// byte reach one bit: `/bench/0` … `/bench/9` shared two slots of a one-way cache and 80% of those requests were
    /// routed.)
    static func set(of target: String) -> Int {
        func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            guard let base = bytes.baseAddress else { return hash }
            let raw = UnsafeRawPointer(base)
            var at = 0
            while at + 8 <= bytes.count {
                hash = (hash ^ raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)) &* 0x0000_0100_0000_01b3
                at += 8
            }
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while at < bytes.count {
                tail |= UInt64(bytes[at]) << shift
                shift += 8
                at += 1
            }
            return ContentHash.finish(hash ^ tail ^ UInt64(truncatingIfNeeded: bytes.count) << 56)
        }
        let value =
            target.utf8.withContiguousStorageIfAvailable(hash) ?? Array(target.utf8).withUnsafeBufferPointer(hash)
        return Int(truncatingIfNeeded: value) & (setCount - 1)
    }
}
