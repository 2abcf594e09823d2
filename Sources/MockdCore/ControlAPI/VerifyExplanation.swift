import Foundation
import MockdControl

/// Why `POST /__mockd/verify` failed, in the words of the request key: the journaled requests closest to what the
/// test asked for, each with the parts (`method`, `host`, `path`) that differed — so that a test failing on
/// "expected 1 POST /v1/orders, journal has 0" also says that the app sent `PUT /v1/orders`.
///
/// A request is a candidate when it differs in at most two of the parts, and its path (when the path differs) is
/// within an edit distance of a third of the asked path (at least 3): unrelated requests are not listed. Only the
/// candidates differing in the fewest parts are reported.
struct VerifyExplanation {
    /// One journaled request and what differed from the verify's criteria.
    struct Candidate {
        let entry: JournalRecord
        let differs: [(part: String, expected: String, actual: String)]
        /// The edit distance between the paths (0 when they are equal).
        let pathDistance: Int

        /// As the 409 of `POST /__mockd/verify` lists it (`nearest`).
        var answer: VerifyCandidate {
            VerifyCandidate(
                sequence: entry.sequence,
                method: entry.method,
                target: entry.target,
                host: entry.host,
                differs: differs.map { NearMiss.Difference(part: $0.part, expected: $0.expected, actual: $0.actual) }
            )
        }

        /// `PUT /v1/orders (method: expected POST, got PUT)`.
        var summary: String {
            let parts = differs.map { "\($0.part): expected \($0.expected), got \($0.actual)" }
            return
                "\(entry.method) \(entry.host.map { "//\($0)" } ?? "")\(entry.target) (\(parts.joined(separator: "; ")))"
        }
    }

    /// The most candidates reported.
    static let limit = 3

    /// The closest requests of `entries` (oldest first) that do not meet `method`, `host` and `path` (already
    /// normalised), best first: fewest differing parts, then the nearest path, then the latest.
    /// - Complexity: O(n · p²) in the journal's entries and the path length (the edit distance), run only on a
    ///   failed verify.
    static func candidates(
        in entries: [JournalRecord],
        method: String?,
        host: String?,
        path: String,
        pathOf: (JournalRecord) -> String
    ) -> [Candidate] {
        let allowed = max(3, path.count / 3)
        var seen = Set<String>()
        var found: [Candidate] = []
        for entry in entries.reversed() {
            let entryPath = pathOf(entry)
            guard seen.insert("\(entry.method) \(entry.host ?? "") \(entryPath)").inserted else { continue }
            var differs: [(part: String, expected: String, actual: String)] = []
            if let method, entry.method != method { differs.append(("method", method, entry.method)) }
            if let host, entry.host != host { differs.append(("host", host, entry.host ?? "(none)")) }
            var distance = 0
            if entryPath != path {
                distance = editDistance(Array(path.utf8), Array(entryPath.utf8), limit: allowed)
                guard distance <= allowed else { continue }
                differs.append(("path", path, entryPath))
            }
            guard !differs.isEmpty, differs.count <= 2 else { continue }
            found.append(Candidate(entry: entry, differs: differs, pathDistance: distance))
        }
        // Only those with the fewest differing parts; stable: among equals the latest (found first) stays first.
        let fewest = found.map(\.differs.count).min() ?? 0
        let ranked = found.filter { $0.differs.count == fewest }.enumerated().sorted { left, right in
            (left.element.differs.count, left.element.pathDistance, left.offset)
                < (right.element.differs.count, right.element.pathDistance, right.offset)
        }
        return ranked.prefix(limit).map(\.element)
    }

    /// Levenshtein distance of `a` and `b`, or `limit + 1` as soon as it must exceed `limit`.
    static func editDistance(_ a: [UInt8], _ b: [UInt8], limit: Int) -> Int {
        if abs(a.count - b.count) > limit { return limit + 1 }
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            var rowMinimum = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                rowMinimum = min(rowMinimum, current[j])
            }
            if rowMinimum > limit { return limit + 1 }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
