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

    public init() {}

    /// The report as printed at the end of `mockd import-har`; skipped entries are grouped by reason.
    public func rendered(source: String, destination: String) -> String {
        var lines = ["imported \(source) into \(destination)"]
        lines.append("  entries read:   \(entriesRead)")
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
            let shown = indexes.prefix(12).map(String.init).joined(separator: ", ")
            let more = indexes.count > 12 ? ", … (\(indexes.count) in all)" : ""
            lines.append("    \(reason): entr\(indexes.count == 1 ? "y" : "ies") \(shown)\(more)")
        }
        for warning in warnings {
            lines.append("  warning: \(warning)")
        }
        return lines.joined(separator: "\n")
    }
}
