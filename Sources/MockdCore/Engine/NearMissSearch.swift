import Foundation

/// The near-miss search over `NearMissIndex`: depth first through the route trie, nodes of the request's own path
/// segments first, every subtree skipped whose lower bound on the distance cannot beat the nearest found so far (or
/// can only tie it with later stubs: ties keep stub order). Exact: it names the stubs the exhaustive search names.
///
/// The bound of a subtree adds, in `Assessment.assess`'s order, 1 for a host or a method no stub below has, the path's
/// share from the Levenshtein row of the subtree's prefix (`min_j row[j] + |(n - depth) - (m - j)|` segments at least
/// for a stub of `n` segments, over the subtree's segment counts), and the smallest header share of the constraint
/// lists below; the query counts its whole 1 where the subtree's query filter shares no bit with the request's (and,
/// for many stubs ending at one node, for a stub sharing no query pair with the request), else 0; the body 0.
/// Floating-point addition is monotonic, so a bound never exceeds the distance it
/// bounds, and equals it bit for bit when every part does.
struct PrunedSearch {
    let assessment: NearMissCalculator.Assessment
    let trie: NearMissIndex
    private let segments: [Substring]
    private let methodBit: UInt64
    private let hostBits: UInt64
    /// `NearMissIndex.queryBits` of the request.
    private let requestQueryBits: UInt64
    /// Header share per constraint list, worked out on first need.
    private let listDistances: ListDistances

    final class ListDistances {
        var values: [Double?]
        init(count: Int) { values = Array(repeating: nil, count: count) }
    }

    init(assessment: NearMissCalculator.Assessment, trie: NearMissIndex) {
        requestQueryBits = NearMissIndex.queryBits(pairs: assessment.requestPairs, query: assessment.key.query)
        self.assessment = assessment
        self.trie = trie
        segments = assessment.requestSegments
        let method = trie.methodIDs[assessment.key.method]
        methodBit = NearMissIndex.overflowBit | (method.map { $0 < 63 ? 1 << UInt64($0) : 0 } ?? 0)
        // A stub without a host, or of the request's host, adds nothing for the host.
        let host = assessment.requestHost.flatMap { trie.hostIDs[$0] }
        hostBits = NearMissIndex.overflowBit | 1 | (host.map { $0 < 63 ? 1 << UInt64($0) : 0 } ?? 0)
        listDistances = ListDistances(count: trie.constraintLists.count)
    }

    func run(into ranking: inout NearMissCalculator.Ranking) {
        let root = Array(0...segments.count)
        visit(0, row: root, into: &ranking)
    }

    /// The smallest header share among the lists of `mask` (0 when the mask has more lists than bits).
    private func headerBound(_ mask: UInt64) -> Double {
        if mask & NearMissIndex.overflowBit != 0 { return 0 }
        var bits = mask
        var smallest = Double.infinity
        while bits != 0 {
            let id = bits.trailingZeroBitCount
            bits &= bits - 1
            let share: Double
            if let known = listDistances.values[id] {
                share = known
            } else {
                share = assessment.headerDistance(trie.constraintLists[id])
                listDistances.values[id] = share
            }
            smallest = min(smallest, share)
            if smallest == 0 { break }
        }
        return smallest.isFinite ? smallest : 0
    }

    /// The least Levenshtein distance of a stub of `length` segments below a node whose prefix gives `row`.
    @inline(__always)
    private func levenshteinBound(_ row: [Int], depth: Int, length: Int) -> Int {
        let m = segments.count
        var best = Int.max
        for j in 0...m {
            best = min(best, row[j] + abs((length - depth) - (m - j)))
        }
        return best
    }

    /// The path's share at least, over the segment counts `lengths`.
    private func pathBound(_ row: [Int], depth: Int, lengths: ClosedRange<Int>) -> Double {
        let m = segments.count
        var smallest = Double.infinity
        for length in lengths {
            let longest = max(length, m)
            let edits = levenshteinBound(row, depth: depth, length: length)
            let share = longest == 0 ? 0 : 2 * (Double(edits) / Double(longest))
            smallest = min(smallest, share)
        }
        return smallest.isFinite ? smallest : 0
    }

    /// The lower bound for the stubs below node `node` whose path prefix of `depth` segments (the node's own depth
    /// unless given) gives `row`, the query counted as `query` (0, or 1 for stubs sharing no pair), in `assess`'s
    /// order.
    private func bound(
        _ node: Int,
        row: [Int],
        depth: Int? = nil,
        lengths: ClosedRange<Int>? = nil,
        query: Double = 0
    ) -> Double {
        var bound = 0.0
        if trie.hosts[node] & hostBits == 0 { bound += 1 }
        if trie.methods[node] & methodBit == 0 { bound += 1 }
        let span = lengths ?? Int(trie.minLength[node])...Int(trie.maxLength[node])
        bound += pathBound(row, depth: depth ?? Int(trie.depth[node]), lengths: span)
        // A whole query apart from every stub below (the filter shares no bit with the request's), or as the caller
        // knows.
        bound += trie.queryBits[node] & requestQueryBits == 0 ? 1 : query
        bound += headerBound(trie.lists[node])
        return bound
    }

    /// The Levenshtein row one segment deeper, for a child whose segment is `matching` (or, `nil`, one equal to no
    /// segment of the request).
    private func nextRow(_ row: [Int], matching: Substring?) -> [Int] {
        var next = row
        next[0] = row[0] + 1
        for j in stride(from: 1, through: segments.count, by: 1) {
            let cost = matching.map { $0 == segments[j - 1] ? 0 : 1 } ?? 1
            next[j] = min(row[j] + 1, next[j - 1] + 1, row[j - 1] + cost)
        }
        return next
    }

    private func visit(_ node: Int, row: [Int], into ranking: inout NearMissCalculator.Ranking) {
        if trie.terminalCount[node] > 0 { visitTerminals(node, row: row, into: &ranking) }
        guard trie.firstChild[node] >= 0 else { return }
        // Children named by a segment of the request first (the nearest are usually among them), then the others in
        // the order of their first stub, which all share one row.
        var special: [(child: Int32, row: [Int])] = []
        for segment in Set(segments) {
            if let child = trie.child(of: Int32(node), segment: segment) {
                special.append((child, nextRow(row, matching: segment)))
            }
        }
        special.sort { trie.minOrdinal[Int($0.child)] < trie.minOrdinal[Int($1.child)] }
        for (child, childRow) in special {
            let index = Int(child)
            if !ranking.excludes(bound(index, row: childRow), from: Int(trie.minOrdinal[index])) {
                visit(index, row: childRow, into: &ranking)
            }
        }
        let otherRow = nextRow(row, matching: nil)
        // Every other child is below this node, one segment deeper: the node's masks with that row and depth bound
        // them all.
        let childDepth = Int(trie.depth[node]) + 1
        let allOthers = bound(
            node,
            row: otherRow,
            depth: childDepth,
            lengths: max(Int(trie.minLength[node]), childDepth)...max(Int(trie.maxLength[node]), childDepth)
        )
        let specials = Set(special.map(\.child))
        var child = trie.firstChild[node]
        while child >= 0 {
            let index = Int(child)
            if ranking.excludes(allOthers, from: Int(trie.minOrdinal[index])) { break }
            if !specials.contains(child),
                !ranking.excludes(bound(index, row: otherRow), from: Int(trie.minOrdinal[index]))
            {
                visit(index, row: otherRow, into: &ranking)
            }
            child = trie.nextSibling[index]
        }
    }

    /// The stubs whose path ends at `node` (their path share is exact: `row[m]`), in ordinal order.
    private func visitTerminals(_ node: Int, row: [Int], into ranking: inout NearMissCalculator.Ranking) {
        let depth = Int(trie.depth[node])
        let lengths = depth...depth
        let terminalBound = bound(node, row: row, lengths: lengths)
        guard let postings = trie.queryPostings[Int32(node)] else {
            var ordinal = trie.firstTerminal[node]
            while ordinal >= 0 {
                if ranking.excludes(terminalBound, from: Int(ordinal)) { break }
                ranking.offer(assessment.assess(Int(ordinal), collect: false).distance, Int(ordinal))
                ordinal = trie.nextTerminal[Int(ordinal)]
            }
            return
        }
        // Stubs sharing a query pair with the request (or having none, or its very query) may differ by less than a
        // whole query.
        var candidates = Set(postings.withoutPairs)
        candidates.formUnion(postings.byQuery[assessment.key.query] ?? [])
        for pair in assessment.requestPairs { candidates.formUnion(postings.byPair[pair] ?? []) }
        for ordinal in candidates.sorted() {
            if ranking.excludes(terminalBound, from: Int(ordinal)) { break }
            ranking.offer(assessment.assess(Int(ordinal), collect: false).distance, Int(ordinal))
        }
        // Every other one differs by its whole query (its query is another string, sharing no pair: 1 − 0).
        let restBound = bound(node, row: row, lengths: lengths, query: 1)
        var ordinal = trie.firstTerminal[node]
        while ordinal >= 0 {
            if ranking.excludes(restBound, from: Int(ordinal)) { break }
            if !candidates.contains(ordinal) {
                ranking.offer(assessment.assess(Int(ordinal), collect: false).distance, Int(ordinal))
            }
            ordinal = trie.nextTerminal[Int(ordinal)]
        }
    }
}
