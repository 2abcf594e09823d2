import Foundation

/// A `StubIndex`'s stubs arranged for the near-miss search (`NearMissCalculator`): a trie of their route paths by
/// segment (the route-prefix prefilter), each node knowing what the stubs below it can have in common with a request
/// (segment counts, methods, hosts, header-constraint lists, the first ordinal). A miss then looks only at the
/// subtrees whose lower bound on the distance can still beat the nearest stubs found so far, and names exactly the
/// stubs an exhaustive search names.
///
/// Built once per index, on its first miss (a few tens of milliseconds at 100,000 stubs), and immutable after.
final class NearMissIndex: Sendable {
    /// Segments of a route path as the distance counts them (`"/a/b"` → `["", "a", "b"]`, at most 64).
    static func segments(_ path: String) -> [Substring] {
        var bounds: [Range<Int>] = []
        segmentBounds(of: path, into: &bounds)
        let utf8 = path.utf8
        return bounds.map { range in
            Substring(
                utf8[
                    utf8.index(
                        utf8.startIndex,
                        offsetBy: range.lowerBound
                    )..<utf8.index(utf8.startIndex, offsetBy: range.upperBound)
                ]
            )
        }
    }

    /// The UTF-8 offsets of `path`'s segments (`segments(_:)`) into `bounds`, which is emptied first.
    ///
    /// An ASCII path (recorded paths are percent-encoded) is cut by byte: splitting by `Character` was half the cost of
    /// building the trie. A non-ASCII one keeps the `Character` split, where a `/` followed by a combining mark is no
    /// separator.
    static func segmentBounds(of path: String, into bounds: inout [Range<Int>]) {
        bounds.removeAll(keepingCapacity: true)
        let cut: Bool? = path.utf8.withContiguousStorageIfAvailable { bytes in
            var start = 0
            for position in 0..<bytes.count {
                let byte = bytes[position]
                if byte >= 0x80 { return false }
                if byte == UInt8(ascii: "/") {
                    bounds.append(start..<position)
                    if bounds.count == maxSegments { return true }
                    start = position + 1
                }
            }
            bounds.append(start..<bytes.count)
            return true
        }
        guard cut != true else { return }
        bounds.removeAll(keepingCapacity: true)
        let utf8 = path.utf8
        for segment in path.split(separator: "/", omittingEmptySubsequences: false).prefix(maxSegments) {
            let lower = utf8.distance(from: utf8.startIndex, to: segment.startIndex)
            bounds.append(lower..<(lower + segment.utf8.count))
        }
    }

    /// How many leading segments `path` (cut at `bounds`) and `previous` (cut at `previousBounds`) have byte for byte
    /// alike: those lead to the same trie nodes.
    private static func sharedSegments(
        _ path: String,
        _ bounds: [Range<Int>],
        _ previous: String,
        _ previousBounds: [Range<Int>]
    ) -> Int {
        let comparable = min(bounds.count, previousBounds.count)
        guard comparable > 0 else { return 0 }
        let shared: Int?? = path.utf8.withContiguousStorageIfAvailable { now in
            previous.utf8.withContiguousStorageIfAvailable { before in
                var shared = 0
                while shared < comparable, bounds[shared] == previousBounds[shared],
                    now[bounds[shared]].elementsEqual(before[bounds[shared]])
                {
                    shared += 1
                }
                return shared
            }
        }
        return (shared ?? nil) ?? 0
    }

    static let maxSegments = 64
    /// Bit 63 of a mask: "and others" (more distinct values than the mask holds): the bound then assumes a match.
    static let overflowBit: UInt64 = 1 << 63

    // Per node; node 0 is the root (the empty prefix).
    let depth: [UInt8]
    /// The smallest ordinal below the node (its own stubs included).
    let minOrdinal: [Int32]
    /// Segment counts of the stubs below.
    let minLength: [UInt8]
    let maxLength: [UInt8]
    /// Bits of the methods (`methodIDs`), hosts (`hostIDs`, bit 0: no host) and constraint lists (`constraintLists`) below.
    let methods: [UInt64]
    let hosts: [UInt64]
    let lists: [UInt64]
    /// A 64-bit filter of the queries below (`queryBits(pairs:query:)`): no bit shared with a request's means every
    /// stub below differs from it by a whole query.
    let queryBits: [UInt64]
    /// Children, in the order of their `minOrdinal`: the first, then each one's next sibling (-1: none).
    let firstChild: [Int32]
    let nextSibling: [Int32]
    /// The stubs whose path ends at the node, in ordinal order: the first, then `nextTerminal` by ordinal.
    let firstTerminal: [Int32]
    let terminalCount: [Int32]
    let nextTerminal: [Int32]
    /// `(parent, segment)` → child.
    private let children: [ChildKey: Int32]
    let methodIDs: [String: Int]
    /// Hosts by bit; `""` (a stub recorded without a host) is bit 0.
    let hostIDs: [String: Int]
    /// The distinct header-constraint lists of the stubs; a list's position is its bit.
    let constraintLists: [[HeaderConstraint]]
    /// For nodes with many stubs ending there: each query pair (`name=value`) → those stubs having it, each whole
    /// query → those stubs having it, and those whose query has no pair. A stub in none of them for a request differs
    /// from it by a whole query (1.0).
    let queryPostings: [Int32: QueryPostings]

    struct QueryPostings: Sendable {
        let byPair: [String: [Int32]]
        let byQuery: [String: [Int32]]
        let withoutPairs: [Int32]
    }

    private struct ChildKey: Hashable {
        let parent: Int32
        let segment: String
    }

    /// Nodes with more stubs ending there than this get query postings.
    static let postingsThreshold = 64

    init(_ index: StubIndex) {
        var depth: [UInt8] = [0]
        var minOrdinal: [Int32] = [Int32.max]
        var minLength: [UInt8] = [UInt8.max]
        var maxLength: [UInt8] = [0]
        var methods: [UInt64] = [0]
        var hosts: [UInt64] = [0]
        var lists: [UInt64] = [0]
        var queryBits: [UInt64] = [0]
        var firstChild: [Int32] = [-1]
        var lastChild: [Int32] = [-1]
        var nextSibling: [Int32] = [-1]
        var firstTerminal: [Int32] = [-1]
        var lastTerminal: [Int32] = [-1]
        var terminalCount: [Int32] = [0]
        var nextTerminal = [Int32](repeating: -1, count: index.stubs.count)
        var children: [ChildKey: Int32] = [:]
        // About one new node per stub in an imported set: growing the table step by step was a third of the build.
        children.reserveCapacity(index.stubs.count)
        var methodIDs: [String: Int] = [:]
        var hostIDs: [String: Int] = ["": 0]
        var listIDs: [[HeaderConstraint]: Int] = [:]
        func bit(_ id: Int) -> UInt64 { id < 63 ? 1 << UInt64(id) : NearMissIndex.overflowBit }
        /// `value`'s number in `ids`, the next one if it is new.
        func id<Value: Hashable>(_ value: Value, in ids: inout [Value: Int]) -> Int {
            if let known = ids[value] { return known }
            ids[value] = ids.count
            return ids.count - 1
        }
        // Neighbouring stubs mostly share a path prefix, a constraint list, a method and a host: the previous stub's
        // are compared first (cheap), and the dictionaries asked only for what differs.
        var previousPath = ""
        var previousBounds: [Range<Int>] = []
        var bounds: [Range<Int>] = []
        var previousNodes: [Int32] = []
        var previousQuery: (query: String, bits: UInt64)?
        var previous: (method: String, methodBit: UInt64, host: String, hostBit: UInt64)?
        var previousList: (list: [HeaderConstraint], bit: UInt64)?
        for ordinal in 0..<index.stubs.count {
            let key = index.routeKey(ordinal)
            NearMissIndex.segmentBounds(of: key.path, into: &bounds)
            let length = UInt8(bounds.count)
            let methodBit: UInt64
            let hostBit: UInt64
            if let known = previous, known.method == key.method, known.host == key.host {
                (methodBit, hostBit) = (known.methodBit, known.hostBit)
            } else {
                methodBit = bit(id(key.method, in: &methodIDs))
                hostBit = bit(id(key.host, in: &hostIDs))
                previous = (key.method, methodBit, key.host, hostBit)
            }
            let list = index.stubs[ordinal].headerConstraints
            let listBit: UInt64
            if let known = previousList, known.list == list {
                listBit = known.bit
            } else {
                listBit = bit(id(list, in: &listIDs))
                previousList = (list, listBit)
            }
            let stubQueryBits: UInt64
            if let known = previousQuery, known.query == key.query {
                stubQueryBits = known.bits
            } else {
                stubQueryBits = NearMissIndex.queryBits(
                    pairs: key.query.isEmpty ? [] : key.query.split(separator: "&").prefix(64).map(String.init),
                    query: key.query
                )
                previousQuery = (key.query, stubQueryBits)
            }
            var node: Int32 = 0
            func note(_ node: Int) {
                minOrdinal[node] = min(minOrdinal[node], Int32(ordinal))
                minLength[node] = min(minLength[node], length)
                maxLength[node] = max(maxLength[node], length)
                methods[node] |= methodBit
                hosts[node] |= hostBit
                lists[node] |= listBit
                queryBits[node] |= stubQueryBits
            }
            note(0)
            // Byte-equal segments are the same child (equal strings); others are looked up.
            let shared = NearMissIndex.sharedSegments(key.path, bounds, previousPath, previousBounds)
            var nodes: [Int32] = []
            swap(&nodes, &previousNodes)
            nodes.removeSubrange(shared...)
            if shared > 0 { node = nodes[shared - 1] }
            for onPath in nodes { note(Int(onPath)) }
            let utf8 = key.path.utf8
            for range in bounds[shared...] {
                let segment = utf8[
                    utf8.index(
                        utf8.startIndex,
                        offsetBy: range.lowerBound
                    )..<utf8.index(utf8.startIndex, offsetBy: range.upperBound)
                ]
                // One lookup that inserts the next node's number when the child is new.
                let newChild = Int32(depth.count)
                let child = NearMissIndex.claim(
                    &children[ChildKey(parent: node, segment: String(Substring(segment))), default: -1],
                    newChild
                )
                if child != newChild {
                    node = child
                } else {
                    depth.append(depth[Int(node)] + 1)
                    minOrdinal.append(Int32.max)
                    minLength.append(UInt8.max)
                    maxLength.append(0)
                    methods.append(0)
                    hosts.append(0)
                    lists.append(0)
                    queryBits.append(0)
                    firstChild.append(-1)
                    lastChild.append(-1)
                    nextSibling.append(-1)
                    firstTerminal.append(-1)
                    lastTerminal.append(-1)
                    terminalCount.append(0)
                    // Ordinals come in order, so children are appended in the order of their first stub.
                    if lastChild[Int(node)] < 0 {
                        firstChild[Int(node)] = child
                    } else {
                        nextSibling[Int(lastChild[Int(node)])] = child
                    }
                    lastChild[Int(node)] = child
                    node = child
                }
                note(Int(node))
                nodes.append(node)
            }
            previousPath = key.path
            swap(&bounds, &previousBounds)
            previousNodes = nodes
            if lastTerminal[Int(node)] < 0 {
                firstTerminal[Int(node)] = Int32(ordinal)
            } else {
                nextTerminal[Int(lastTerminal[Int(node)])] = Int32(ordinal)
            }
            lastTerminal[Int(node)] = Int32(ordinal)
            terminalCount[Int(node)] += 1
        }
        var queryPostings: [Int32: QueryPostings] = [:]
        for node in terminalCount.indices where terminalCount[node] > NearMissIndex.postingsThreshold {
            var byPair: [String: [Int32]] = [:]
            var byQuery: [String: [Int32]] = [:]
            var withoutPairs: [Int32] = []
            var ordinal = firstTerminal[node]
            while ordinal >= 0 {
                let query = index.routeKey(Int(ordinal)).query
                let pairs = query.isEmpty ? [] : query.split(separator: "&").prefix(64).map(String.init)
                if pairs.isEmpty { withoutPairs.append(ordinal) }
                // A stub whose query equals the request's adds nothing for it, whatever its pairs look like.
                byQuery[query, default: []].append(ordinal)
                for pair in Set(pairs) { byPair[pair, default: []].append(ordinal) }
                ordinal = nextTerminal[Int(ordinal)]
            }
            queryPostings[Int32(node)] = QueryPostings(byPair: byPair, byQuery: byQuery, withoutPairs: withoutPairs)
        }
        self.depth = depth
        self.minOrdinal = minOrdinal
        self.minLength = minLength
        self.maxLength = maxLength
        self.methods = methods
        self.hosts = hosts
        self.lists = lists
        self.queryBits = queryBits
        self.firstChild = firstChild
        self.nextSibling = nextSibling
        self.firstTerminal = firstTerminal
        self.terminalCount = terminalCount
        self.nextTerminal = nextTerminal
        self.children = children
        self.methodIDs = methodIDs
        self.hostIDs = hostIDs
        var constraintLists = [[HeaderConstraint]](repeating: [], count: listIDs.count)
        for (list, id) in listIDs { constraintLists[id] = list }
        self.constraintLists = constraintLists
        self.queryPostings = queryPostings
    }

    /// The query filter of a stub or a request: a bit for each pair (`name=value`, as the distance compares them, at
    /// most 64), one for the whole query, and one for "no pairs". Two queries sharing no bit are different strings
    /// with no pair in common and not both without pairs: the distance counts them a whole 1 apart.
    static func queryBits(pairs: some Sequence<String>, query: String) -> UInt64 {
        func bit(_ kind: Int, _ text: String) -> UInt64 {
            var hasher = Hasher()
            hasher.combine(kind)
            hasher.combine(text)
            return 1 << UInt64(UInt(bitPattern: hasher.finalize()) & 63)
        }
        var bits = bit(1, query)
        var empty = true
        for pair in pairs {
            bits |= bit(0, pair)
            empty = false
        }
        return empty ? bits | bit(2, "") : bits
    }

    /// `slot`, set to `new` when it holds no child yet (-1).
    private static func claim(_ slot: inout Int32, _ new: Int32) -> Int32 {
        if slot < 0 { slot = new }
        return slot
    }

    /// The child of `node` for `segment`, if any.
    func child(of node: Int32, segment: Substring) -> Int32? {
        children[ChildKey(parent: node, segment: String(segment))]
    }
}
