/// The import report as text, printed at the end of `mockd import-har`.
extension ImportReport {
    /// The report as printed at the end of `mockd import-har`, in sections: the counts, skipped entries grouped by
    /// reason, hosts, requests answered with a reservation (304 only, 206 only, ambiguous bodies, sequences of
    /// differing requests, several hosts), redactions, unstable headers, 304s, GraphQL operations, recorded dates,
    /// then notes, body notes and warnings.
    public func rendered(source: String, destination: String) -> String {
        var lines = ["imported \(source) into \(destination)"]
        appendCounts(to: &lines)
        appendSkipped(to: &lines)
        appendKeptHosts(to: &lines)
        appendReservations(to: &lines)
        appendRedactions(to: &lines)
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
        appendGraphQL(to: &lines)
        appendDates(to: &lines)
        lines += notes.map { "  note: \($0)" }
        lines += bodyNotes.map { "  body: \($0.note) (\(ImportReport.entryList($0.entries)))" }
        lines += warnings.map { "  warning: \($0)" }
        return lines.joined(separator: "\n")
    }

    /// Entries read, stubs written, and entries `--host` left out.
    private func appendCounts(to lines: inout [String]) {
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
    }

    /// The skipped entries, grouped by reason in the order the reasons first came up, 12 entries shown per reason.
    private func appendSkipped(to lines: inout [String]) {
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
    }

    /// With several hosts kept: the five with most entries, and whether a request naming no host still matches.
    private func appendKeptHosts(to lines: inout [String]) {
        guard keptHosts.count > 1 else { return }
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

    /// The requests answered with a reservation, one section each (omitted when empty), 12 lines shown of each.
    private func appendReservations(to lines: inout [String]) {
        let sections: [(heading: String, items: [String])] = [
            (
                "recorded only as 304 (answered to conditional requests; a plain request misses, saying why):",
                notModifiedOnly
            ),
            (
                "recorded only as 304 with the client's cached copy (answered 304 to conditional requests; others get the copy as 200):",
                notModifiedWithCachedCopy
            ),
            (
                "recorded only as 206 Partial Content (answered to range requests inside the recorded bytes; others miss, saying why):",
                partialOnly
            ),
            (
                "ambiguous request bodies (binary written as the same text, answered differently; each request misses, saying why):",
                ambiguousBodies
            ),
            ("sequences of requests that differed (only in what the key leaves out):", sequenceNotes),
            ("recorded on several hosts (requests name one: /__host/NAME/ or X-Forwarded-Host):", sharedKeys),
            ("host collisions (same request on several hosts, merged into one sequence):", hostCollisions),
        ]
        for (heading, items) in sections where !items.isEmpty {
            lines.append("  \(heading)")
            lines += items.prefix(12).map { "    \($0)" }
            if items.count > 12 { lines.append("    … (\(items.count) in all)") }
        }
    }

    /// What hygiene replaced, by kind, with the entries it was found in.
    private func appendRedactions(to lines: inout [String]) {
        guard !redactions.isEmpty else {
            lines.append("  redacted:       nothing")
            return
        }
        lines.append(
            "  redacted:       \(redactions.total) value\(redactions.total == 1 ? "" : "s") (--keep-secrets keeps them)"
        )
        for item in redactions.items {
            lines.append("    \(item.description) ×\(item.count) (\(ImportReport.entryList(item.entries)))")
        }
    }

    /// The GraphQL requests as operations (30 shown), each with its requests and stubs.
    private func appendGraphQL(to lines: inout [String]) {
        guard !graphQLOperations.isEmpty else { return }
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

    /// The recorded dates found in answers, by kind, and how they are served.
    private func appendDates(to lines: inout [String]) {
        guard !dates.isEmpty else { return }
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
}
