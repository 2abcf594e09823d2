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
/// entry and the response bytes are the same.
struct AnswerCache {
    /// Slots, a power of two: a request hashes to one by its target, and a later request with the same slot replaces it.
    static let slotCount = 1024

    private struct Entry {
        var method = ""
        var target = ""
        var routedHost: String?
        var headers = HTTPHeaders()
        /// -1: a free slot.
        var ordinal = -1
    }

    private var scenario: ObjectIdentifier?
    private var entries: ContiguousArray<Entry> = []
    /// The slot of the request being answered when it missed and may be remembered, else -1.
    private var pendingSlot = -1

    /// Uses the answers of `scenario`, starting empty when they were another scenario's. The caller keeps the scenario
    /// the answers belong to alive (and starts a new cache when it lets it go), so an identity is never reused here.
    mutating func bind(to scenario: Scenario) {
        guard self.scenario != ObjectIdentifier(scenario) else { return }
        self.scenario = ObjectIdentifier(scenario)
        entries = scenario.index.graphQL == nil ? ContiguousArray(repeating: Entry(), count: AnswerCache.slotCount) : []
        pendingSlot = -1
    }

    /// The ordinal of the stub that answered this very request before, or `nil` (then `remember(_:for:)` keeps the
    /// answer routing finds, when the request can be cached).
    mutating func ordinal(for request: HTTPRequest) -> Int? {
        pendingSlot = -1
        guard !entries.isEmpty, request.body.isEmpty else { return nil }
        let slot = AnswerCache.slot(of: request.target)
        let hit = entries.withUnsafeBufferPointer { entries in
            entries[slot].ordinal >= 0 && entries[slot].target == request.target
                && entries[slot].method == request.method && entries[slot].routedHost == request.routedHost
                && entries[slot].headers.hasSameFields(as: request.headers)
        }
        if hit { return entries[slot].ordinal }
        pendingSlot = slot
        return nil
    }

    /// Keeps `ordinal` as the answer to `request`, which `ordinal(for:)` just missed.
    mutating func remember(_ ordinal: Int, for request: HTTPRequest) {
        guard pendingSlot >= 0 else { return }
        entries[pendingSlot] = Entry(
            method: request.method,
            target: request.target,
            routedHost: request.routedHost,
            headers: request.headers,
            ordinal: ordinal
        )
        pendingSlot = -1
    }

    /// An FNV-1a-style hash of the target's bytes taken eight at a time (the last word zero-padded), ended with
    /// MurmurHash3's finaliser so the slot's low bits depend on every byte. (A shift-fold ending let a word's high
    /// byte reach one slot bit: `/bench/0` … `/bench/9` shared two slots and 80% of those requests were routed.)
    static func slot(of target: String) -> Int {
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
        return Int(truncatingIfNeeded: value) & (slotCount - 1)
    }
}
