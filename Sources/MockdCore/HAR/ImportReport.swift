/// What an import did: counts, skipped entries with reasons, and warnings.
public struct ImportReport: Sendable, Equatable {
    /// An entry that was not turned into a stub response.
    public struct Skip: Sendable, Equatable {
        /// Index in `log.entries`.
        public let index: Int
        public let reason: String
    }

    public var entriesRead = 0
    public var stubsWritten = 0
    /// Stubs with more than one response.
    public var sequences = 0
    public var responsesWritten = 0
    public var skipped: [Skip] = []
    /// Entries left out by `--host`, per host.
    public var otherHosts: [String: Int] = [:]
    /// Entries kept, per host.
    public var keptHosts: [String: Int] = [:]
    public var warnings: [String] = []
    /// What hygiene replaced.
    public var redactions = RedactionLog()
    /// Unstable response headers left out, by lower-case name.
    public var unstableHeadersDropped: [String: Int] = [:]
    /// Producer quirks handled while reading bodies, with the entries concerned.
    public var bodyNotes: [BodyNote] = []
    /// 304 responses left out because the same request also has a full response (served to conditional requests).
    public var notModifiedAsConditional = 0
    /// Request keys recorded on several hosts and merged into one stub (`--flatten-hosts`).
    public var hostCollisions: [String] = []
    /// Request keys recorded on several hosts in a set that keeps hosts apart: requests for them must name a host.
    public var sharedKeys: [String] = []
    /// Entries turned into one stub's sequence although their requests differed in what the key leaves out.
    public var sequenceNotes: [String] = []
    /// Request keys recorded only as `304 Not Modified`: served to conditional requests, a miss otherwise.
    public var notModifiedOnly: [String] = []
    /// Stubs recorded only as 304s that hold the client's cached copy (Chrome, Firefox): served as `200` to other requests.
    public var notModifiedWithCachedCopy: [String] = []
    /// Request keys recorded only as `206 Partial Content` of part of the representation: served to range requests
    /// inside the recorded bytes, a miss otherwise.
    public var partialOnly: [String] = []
    /// Request keys whose recorded bodies collapsed to the same text and were answered differently: a miss.
    public var ambiguousBodies: [String] = []
    /// What the import did that serves an answer the recording justifies although a producer wrote it unusually.
    public var notes: [String] = []

    /// Recorded dates found in answers, by where (`body /code/expiresAt`, `header Expires`) and how they are written
    /// (`ISO 8601`, `epoch ms`), with the entries: kept relative to each entry's time (`rebaseDates`).
    public struct DateFinding: Sendable, Equatable {
        public let location: String
        public let kind: String
        public var entries: [Int]
    }

    public var dates: [DateFinding] = []
    /// Answers holding at least one date.
    public var datedResponses = 0
    /// Whether the set was written with `rebaseDates: true`.
    public var rebaseDates = false

    mutating func noteDate(_ location: String, kind: String, entry: Int) {
        if let index = dates.firstIndex(where: { $0.location == location && $0.kind == kind }) {
            dates[index].entries.append(entry)
        } else {
            dates.append(DateFinding(location: location, kind: kind, entries: [entry]))
        }
    }

    /// A GraphQL operation the recording holds: `query GetUser`, its requests and the stubs they became (one per set
    /// of variables).
    public struct GraphQLOperationSummary: Sendable, Equatable {
        public let label: String
        public var requests: Int
        public var stubs: Int
    }

    public var graphQLOperations: [GraphQLOperationSummary] = []
    /// The paths GraphQL requests went to (`/graphql`).
    public var graphQLPaths: [String] = []

    mutating func noteGraphQL(_ operation: GraphQLOperation, path: String, requests: Int, stubs: Int) {
        if !graphQLPaths.contains(path) { graphQLPaths.append(path) }
        if let index = graphQLOperations.firstIndex(where: { $0.label == operation.label }) {
            graphQLOperations[index].requests += requests
            graphQLOperations[index].stubs += stubs
        } else {
            graphQLOperations.append(GraphQLOperationSummary(label: operation.label, requests: requests, stubs: stubs))
        }
    }

    public struct BodyNote: Sendable, Equatable {
        public let note: String
        public let entries: [Int]
    }

    public init() {}

    /// Whether hosts were left out of keys although several were kept.
    public var flattened = false

    /// `entry 3` / `entries 1, 4, 9, … (20 in all)`, numbered from 1 as HAR viewers list them (`entries` are indexes
    /// in `log.entries`, from 0).
    static func entryList(_ entries: [Int]) -> String {
        let shown = entries.prefix(8).map { String($0 + 1) }.joined(separator: ", ")
        return (entries.count == 1 ? "entry " : "entries ") + shown
            + (entries.count > 8 ? ", … (\(entries.count) in all)" : "")
    }
}
