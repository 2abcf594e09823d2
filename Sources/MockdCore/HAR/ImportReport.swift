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

    /// The report as printed at the end of `mockd import-har`; skipped entries are grouped by reason.
    public func rendered(source: String, destination: String) -> String {
        var lines = ["imported \(source) into \(destination)"]
        // HAR viewers (browsers' network panels, HAR Viewer, Charles) list entries from 1; so does this report.
        lines.append(
            "  entries read:   \(entriesRead)"
                + (entriesRead > 0 ? " (numbered from 1 below: entry 1 is log.entries[0])" : "")
        )
        lines.append(
            "  stubs written:  \(stubsWritten) (\(responsesWritten) responses, \(sequences) sequence\(sequences == 1 ? "" : "s"))"
        )
        if !otherHosts.isEmpty {
            let hosts = otherHosts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            lines.append(
                "  other hosts:    \(otherHosts.values.reduce(0, +)) entries left out by --host ("
                    + hosts.prefix(5).map { "\($0.key) \($0.value)" }.joined(separator: ", ")
                    + (hosts.count > 5 ? ", …" : "") + ")"
            )
        }
        lines.append("  skipped:        \(skipped.count)")
        var order: [String] = []
        var byReason: [String: [Int]] = [:]
        for skip in skipped {
            if byReason[skip.reason] == nil { order.append(skip.reason) }
            byReason[skip.reason, default: []].append(skip.index)
        }
        for reason in order {
            let indexes = byReason[reason]!
            let shown = indexes.prefix(12).map { String($0 + 1) }.joined(separator: ", ")
            let more = indexes.count > 12 ? ", … (\(indexes.count) in all)" : ""
            lines.append("    \(reason): entr\(indexes.count == 1 ? "y" : "ies") \(shown)\(more)")
        }
        if keptHosts.count > 1 {
            let hosts = keptHosts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            lines.append(
                "  hosts:          \(hosts.count) ("
                    + hosts.prefix(5).map { "\($0.key) \($0.value)" }.joined(separator: ", ")
                    + (hosts.count > 5 ? ", …" : "")
                    + (hostCollisions.isEmpty && !flattened
                        ? "); a request naming no host is answered by the only host that recorded it"
                        : "); hosts left out of keys")
            )
        }
        if !notModifiedOnly.isEmpty {
            lines.append(
                "  recorded only as 304 (answered to conditional requests; a plain request misses, saying why):"
            )
            for key in notModifiedOnly.prefix(12) { lines.append("    \(key)") }
            if notModifiedOnly.count > 12 { lines.append("    … (\(notModifiedOnly.count) in all)") }
        }
        if !notModifiedWithCachedCopy.isEmpty {
            lines.append(
                "  recorded only as 304 with the client's cached copy (answered 304 to conditional requests; others get the copy as 200):"
            )
            for key in notModifiedWithCachedCopy.prefix(12) { lines.append("    \(key)") }
            if notModifiedWithCachedCopy.count > 12 {
                lines.append("    … (\(notModifiedWithCachedCopy.count) in all)")
            }
        }
        if !partialOnly.isEmpty {
            lines.append(
                "  recorded only as 206 Partial Content (answered to range requests inside the recorded bytes; others miss, saying why):"
            )
            for key in partialOnly.prefix(12) { lines.append("    \(key)") }
            if partialOnly.count > 12 { lines.append("    … (\(partialOnly.count) in all)") }
        }
        if !ambiguousBodies.isEmpty {
            lines.append(
                "  ambiguous request bodies (binary written as the same text, answered differently; each request misses, saying why):"
            )
            for key in ambiguousBodies.prefix(12) { lines.append("    \(key)") }
            if ambiguousBodies.count > 12 { lines.append("    … (\(ambiguousBodies.count) in all)") }
        }
        if !sequenceNotes.isEmpty {
            lines.append("  sequences of requests that differed (only in what the key leaves out):")
            for note in sequenceNotes.prefix(12) { lines.append("    \(note)") }
            if sequenceNotes.count > 12 { lines.append("    … (\(sequenceNotes.count) in all)") }
        }
        if !sharedKeys.isEmpty {
            lines.append("  recorded on several hosts (requests name one: /__host/NAME/ or X-Forwarded-Host):")
            for shared in sharedKeys.prefix(12) { lines.append("    \(shared)") }
            if sharedKeys.count > 12 { lines.append("    … (\(sharedKeys.count) in all)") }
        }
        if !hostCollisions.isEmpty {
            lines.append("  host collisions (same request on several hosts, merged into one sequence):")
            for collision in hostCollisions.prefix(12) { lines.append("    \(collision)") }
            if hostCollisions.count > 12 { lines.append("    … (\(hostCollisions.count) in all)") }
        }
        if redactions.isEmpty {
            lines.append("  redacted:       nothing")
        } else {
            lines.append(
                "  redacted:       \(redactions.total) value\(redactions.total == 1 ? "" : "s") (--keep-secrets keeps them)"
            )
            for item in redactions.items {
                lines.append("    \(item.description) ×\(item.count) (\(ImportReport.entryList(item.entries)))")
            }
        }
        if !unstableHeadersDropped.isEmpty {
            lines.append(
                "  unstable headers not stored: "
                    + unstableHeadersDropped.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(
                        separator: ", "
                    )
                    + " (--keep-header NAME keeps one)"
            )
        }
        if notModifiedAsConditional > 0 {
            lines.append(
                "  304 responses:  \(notModifiedAsConditional) kept in place in their sequences, answered to conditional requests; a plain request gets the recorded full response"
            )
        }
        if !graphQLOperations.isEmpty {
            let requests = graphQLOperations.reduce(0) { $0 + $1.requests }
            lines.append(
                "  GraphQL:        \(requests) request\(requests == 1 ? "" : "s") to \(graphQLPaths.joined(separator: ", ")) as \(graphQLOperations.count) operation\(graphQLOperations.count == 1 ? "" : "s"), matched by operation name and variables (not the body's text)"
            )
            for operation in graphQLOperations.prefix(30) {
                let stubs = operation.stubs == 1 ? "1 stub" : "\(operation.stubs) stubs (one per set of variables)"
                lines.append(
                    "    \(operation.label): \(operation.requests) request\(operation.requests == 1 ? "" : "s"), \(stubs)"
                )
            }
            if graphQLOperations.count > 30 { lines.append("    … (\(graphQLOperations.count) operations in all)") }
        }
        if !dates.isEmpty {
            let total = dates.reduce(0) { $0 + $1.entries.count }
            var kinds: [String: Int] = [:]
            for finding in dates { kinds[finding.kind, default: 0] += finding.entries.count }
            let byKind = kinds.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map {
                "\($0.key) ×\($0.value)"
            }
            lines.append(
                "  dates:          \(total) in \(datedResponses) response\(datedResponses == 1 ? "" : "s") (\(byKind.joined(separator: ", "))), kept relative to each entry's startedDateTime; "
                    + (rebaseDates
                        ? "served moved to the session's clock (rebaseDates: true)"
                        : "served as recorded until the set or a scenario says rebaseDates: true (import-har --rebase-dates)")
            )
            for finding in dates.prefix(12) {
                lines.append("    \(finding.location): \(finding.kind) (\(ImportReport.entryList(finding.entries)))")
            }
            if dates.count > 12 { lines.append("    … (\(dates.count) places in all)") }
        }
        for note in notes {
            lines.append("  note: \(note)")
        }
        for note in bodyNotes {
            lines.append("  body: \(note.note) (\(ImportReport.entryList(note.entries)))")
        }
        for warning in warnings {
            lines.append("  warning: \(warning)")
        }
        return lines.joined(separator: "\n")
    }
}
