import Foundation
import MockdFormat

/// `HARCompiler.finish`'s report: what the import changed, left out or could not tell apart, each kind noted once
/// for all entries it concerns, in the report's order.
extension HARCompiler {
    /// Notes entries answered as a later step of an earlier entry's sequence although their query or body differed
    /// in what the set's rules leave out: the user sees which requests became one sequence.
    func noteSequencesDifferingInLeftOutFields(_ groups: [Group], report: inout ImportReport) {
        // A GraphQL operation's requests differ in their text by design (whitespace, member order, the document):
        // one sequence per set of variables, nothing to note.
        for group in groups where group.entries.count > 1 && group.graphQLOperations.isEmpty {
            // Entries are one sequence when their canonical bodies agree: the first entry of each body is the one
            // later entries are compared with.
            var firstByBody: [Data: (entry: Int, bytes: Data)] = [:]
            for later in group.entries {
                guard let first = firstByBody[later.body.canonical] else {
                    firstByBody[later.body.canonical] = (later.entry, later.body.bytes)
                    continue
                }
                var differed: [String] = []
                if sentQueries[later.entry, default: ""] != sentQueries[first.entry, default: ""] {
                    differed.append(
                        "its query (\(sentQueries[later.entry] ?? "") vs \(sentQueries[first.entry] ?? ""))"
                    )
                }
                if later.body.bytes != first.bytes { differed.append("its body (in fields the rules leave out)") }
                guard !differed.isEmpty else { continue }
                report.sequenceNotes.append(
                    "entry \(later.entry + 1) answers as a later step of entry \(first.entry + 1)'s \(group.key.method) \(group.key.path) although \(differed.joined(separator: " and ")) differed; the set's normalize rules leave that out"
                )
            }
        }
    }

    /// With hosts kept in keys: the keys recorded on several hosts (`GET /a recorded on a.test, b.test`), the only
    /// ones whose requests need to name their host; every other key has one host that recorded it.
    static func keysOnSeveralHosts(_ groups: [Group]) -> [String] {
        var hostsByKey: [RequestKey: [String]] = [:]
        var order: [RequestKey] = []
        for group in groups {
            let key = group.key.with(host: "")
            if hostsByKey[key] == nil { order.append(key) }
            if !hostsByKey[key, default: []].contains(group.key.host) {
                hostsByKey[key, default: []].append(group.key.host)
            }
        }
        return order.filter { hostsByKey[$0]!.count > 1 }.map {
            "\($0) recorded on \(hostsByKey[$0]!.sorted().joined(separator: ", "))"
        }
    }

    /// Folds host-keyed groups into host-less ones (one recorded host, or `--flatten-hosts`); a key recorded
    /// on several hosts is reported, its responses kept in recording order as one sequence.
    static func mergingHosts(_ groups: inout [Group], report: inout ImportReport, warn: Bool) {
        // All on one host (the usual recording): no two groups fold together, and each loses its host where it is,
        // without a second table and array of every group beside the first (at 100,000 entries the import's peak).
        let firstHost = groups.first?.key.host
        if groups.allSatisfy({ $0.key.host == firstHost }) {
            for position in groups.indices { groups[position].key = groups[position].key.with(host: "") }
            return
        }
        groups = folding(groups, report: &report, warn: warn)
    }

    /// `mergingHosts` for groups recorded on several hosts.
    private static func folding(_ groups: [Group], report: inout ImportReport, warn: Bool) -> [Group] {
        var positions: [GroupKey: Int] = [:]
        var hostsByKey: [Int: [String]] = [:]
        var merged: [Group] = []
        for group in groups {
            let key = group.key.with(host: "")
            let groupKey = GroupKey(
                key: key,
                constraints: group.constraints,
                graphQL: group.graphQLOperations.first?.identity
            )
            if let position = positions[groupKey] {
                merged[position].entries += group.entries
                merged[position].graphQLOperations += group.graphQLOperations
                let order = merged[position].entries.indices.sorted {
                    merged[position].entries[$0].entry < merged[position].entries[$1].entry
                }
                merged[position].entries = order.map { merged[position].entries[$0] }
                if !merged[position].graphQLOperations.isEmpty {
                    merged[position].graphQLOperations = order.map { merged[position].graphQLOperations[$0] }
                }
                if !hostsByKey[position]!.contains(group.key.host) { hostsByKey[position]!.append(group.key.host) }
            } else {
                positions[groupKey] = merged.count
                hostsByKey[merged.count] = [group.key.host]
                var flattened = Group(
                    key: key,
                    constraintLines: group.constraintLines,
                    constraints: group.constraints,
                    entries: group.entries
                )
                flattened.graphQLMethod = group.graphQLMethod
                flattened.graphQLOperations = group.graphQLOperations
                merged.append(flattened)
            }
        }
        if warn {
            for (position, hosts) in hostsByKey.sorted(by: { $0.key < $1.key }) where hosts.count > 1 {
                report.hostCollisions.append("\(merged[position].key) recorded on \(hosts.joined(separator: ", "))")
            }
        }
        return merged
    }
    /// Response headers left out: those mockd computes or never sends (a warning, by name and why), unstable ones.
    func noteDroppedHeaders(in report: inout ImportReport) {
        if !droppedHeaders.isEmpty {
            let parts = droppedHeaders.sorted { $0.key < $1.key }.map { name, count in
                let why =
                    name == "content-encoding"
                    ? "bodies are stored decoded"
                    : name == "content-length"
                        ? "recomputed when served" : name.hasPrefix("(") ? "not an HTTP field name" : "hop-by-hop"
                return "\(name) ×\(count) (\(why))"
            }
            report.warnings.append("response headers not stored: " + parts.joined(separator: ", "))
        }
        if !unstableDropped.isEmpty {
            report.unstableHeadersDropped = unstableDropped
        }
    }

    /// Entries a producer marked failed that are served all the same: answers needing no body, and failed attempts
    /// kept (`--failed keep`) as the client fault they name.
    func noteFailedEntries(in report: inout ImportReport) {
        if !failedButComplete.isEmpty {
            report.notes.append(
                "\(failedButComplete.count) answer\(failedButComplete.count == 1 ? "" : "s") without a body (HEAD, 204, 205, 304, a redirect) marked failed by the producer (_error, _failureText: Chrome's net::ERR_ABORTED) served as recorded: status and headers arrived, and are the whole answer (\(ImportReport.entryList(failedButComplete)))"
            )
        }
        if !keptClientFaults.isEmpty {
            let parts = keptClientFaults.sorted { $0.key.rawValue < $1.key.rawValue }.map {
                "\($0.key.rawValue) (\(ImportReport.entryList($0.value)))"
            }
            report.notes.append(
                "failed attempts replayed as the failure the client saw, which MockdAppRedirect raises as its URLError (other clients get a reset, or no answer for timeout): "
                    + parts.joined(separator: ", ")
            )
        }
    }

    /// Response headers a producer wrote in a form the server never sent: colon-less pseudo-headers (left out), and
    /// a redirect's `Location` it kept only as `redirectURL` (stored).
    func notePseudoHeadersAndLocations(in report: inout ImportReport) {
        if !pseudoHeaders.isEmpty {
            let names = pseudoHeaders.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(
                separator: ", "
            )
            report.notes.append(
                "SPDY/HTTP/2 pseudo-headers written without their colon not stored (the status line says them): \(names)"
            )
        }
        if !locationsFromRedirectURL.isEmpty {
            report.notes.append(
                "Location taken from the HAR's redirectURL where the redirect's headers had none (\(ImportReport.entryList(locationsFromRedirectURL)))"
            )
        }
    }

    /// Request bodies matched on something other than the bytes sent: text with U+FFFD, decoded `Content-Encoding`,
    /// and coded bodies that do not decode.
    func noteRequestBodies(in report: inout ImportReport) {
        if !lossyRequestBodies.isEmpty {
            report.warnings.append(
                "request bodies written as text with U+FFFD replacement characters (the exporter lost bytes that were not UTF-8): \(ImportReport.entryList(lossyRequestBodies)); they match a request whose body reads as the same text"
            )
        }
        if let entries = codedRequestBodies[.decoded] {
            report.notes.append(
                "request bodies recorded with Content-Encoding stored decoded; a request is matched on its decoded body (\(ImportReport.entryList(entries)))"
            )
        }
        if let entries = codedRequestBodies[.undecodable] {
            report.warnings.append(
                "request bodies recorded with Content-Encoding that do not decode (compressed bytes written as text): \(ImportReport.entryList(entries)); a live request is matched on its decoded body, which this text is not, so re-export with base64 request bodies"
            )
        }
    }

    /// What became of answers' bodies: whole 206s stored as 200, how bodies were read, WebSockets without frames,
    /// and bodies the HAR did not capture.
    func noteResponseBodies(in report: inout ImportReport) {
        if !wholePartials.isEmpty {
            report.notes.append(
                "206 answers holding every byte of the representation stored as 200 (a range request is cut from them) (\(ImportReport.entryList(wholePartials)))"
            )
        }
        for note in bodyNoteOrder {
            report.bodyNotes.append(.init(note: note, entries: bodyNotes[note] ?? []))
        }
        if webSocketsWithoutFrames > 0 {
            report.warnings.append(
                "\(webSocketsWithoutFrames) WebSocket entr\(webSocketsWithoutFrames == 1 ? "y has" : "ies have") no recorded frames (_webSocketMessages); the endpoint accepts connections and sends nothing"
            )
        }
        if !missingBodies.isEmpty {
            let count = missingBodies.count
            report.warnings.append(
                "\(count) response\(count == 1 ? " has" : "s have") a recorded size but no captured body (\(ImportReport.entryList(missingBodies))); "
                    + (options.missingBodies == .miss
                        ? "answered as a miss that says so (--missing-bodies empty serves them empty)" : "served empty")
            )
        }
    }
}
