public import Foundation
import MockdFormat

/// Compiles HAR entries into a mock set, one entry at a time, so a reader can stream a large file
/// through it: one stub per request key (and header constraints), repeated requests as a sequence,
/// distinct request bodies as separate stubs.
///
/// Hygiene is on unless `options.keepSecrets`: secrets and personal data become placeholders (see
/// `Redactor`), with the matching rules written to the set's `normalize`; unstable headers (`Date`, trace
/// ids…) are never stored. Memory: the compiler keeps each kept entry's response body until `finish()`, which hands
/// them on in the set it builds.
///
/// The steps live beside this file: `HARCompiler+Request` (which entries are kept, and the request a stub matches),
/// `HARCompiler+Response` (the recorded answer as stored), `HARCompiler+Report` (what `finish()` tells the user) and
/// `HARCompiler+Stubs` (the stubs and body files written); `HARCompiler+Group` holds the building blocks.
public struct HARCompiler {
    let options: HARImportOptions
    let harDirectory: URL?
    let hostFilter: Set<String>
    /// The origins of the kept entries (`https://api.example.com`), written as the set's `origins`.
    var origins: Set<String> = []
    /// Each entry's query as sent (canonical encoding, secrets redacted, before the set's rules), by entry index (none
    /// for an empty one):
    /// to report entries that share a stub although their queries differed in what the rules leave out.
    var sentQueries: [Int: String] = [:]
    /// The user's rules; redaction rules are added to the written set, not used for grouping (redacted
    /// values are placeholders already).
    let normalizer: RequestNormalizer
    let unstableHeaders: Set<String>
    var report = ImportReport()
    var redactor = Redactor()
    var groups = GroupTable()
    var ordered: [Group] = []
    var droppedHeaders: [String: Int] = [:]
    var unstableDropped: [String: Int] = [:]
    /// How bodies were read (`RecordedBody.notes`) → the entries, and the notes in the order they first came, which
    /// the report keeps (a dictionary's order changes from run to run).
    var bodyNotes: [String: [Int]] = [:]
    var bodyNoteOrder: [String] = []
    /// Entries whose body the HAR did not capture.
    var missingBodies: [Int] = []
    var webSocketsWithoutFrames = 0
    /// Header lines and constraints recur on most entries: each distinct list is kept once, shared by its stubs
    /// (lines by their bytes: a recorded "é" as e + U+0301 is written as recorded, not as another entry's U+00E9).
    var sharedHeaderLines = ValueInterner<ByteKeys>()
    var sharedConstraints = ValueInterner<[HeaderConstraint]>()
    /// The same JSON Pointers and header names of recorded dates recur on most answers of an API: kept once.
    var sharedDateLocations = ValueInterner<ByteKeys>()
    var sawCacheBuster = false
    /// Entries a producer marked failed (`_error`, `_failureText`) whose answer needs no body: served as recorded.
    var failedButComplete: [Int] = []
    /// Failed attempts kept (`--failed keep`) as the client fault their recorded error names, by fault.
    var keptClientFaults: [Fault: [Int]] = [:]
    /// SPDY-era pseudo-headers written as plain `status`/`version` response headers, by name: never served.
    var pseudoHeaders: [String: Int] = [:]
    /// Redirects whose `Location` came from `redirectURL` (the producer kept no such header).
    var locationsFromRedirectURL: [Int] = []
    /// 206 answers that hold every byte of the representation, stored as the 200 they amount to.
    var wholePartials: [Int] = []
    /// Request bodies an exporter wrote as text although they were not UTF-8 (U+FFFD for each invalid sequence).
    var lossyRequestBodies: [Int] = []
    /// Request bodies recorded with a `Content-Encoding`, by what became of it.
    var codedRequestBodies: [RecordedRequestBody.Coding: [Int]] = [:]

    /// - Parameters:
    ///   - options: Host filter, match headers, hygiene, normalisation, failed-entry policy, WebSocket timing.
    ///   - harDirectory: The HAR file's folder, for Playwright `content._file` side files (never outside it).
    public init(options: HARImportOptions = HARImportOptions(), harDirectory: URL? = nil) {
        self.options = options
        self.harDirectory = harDirectory
        hostFilter = Set(options.hosts.map(HostName.normalized))
        // jQuery's `_=<epoch ms>` cache-buster never means anything: always left out of recorded keys (and
        // written to the set's rules when the recording used it).
        normalizer = RequestNormalizer(options.normalization.merged(with: RequestNormalization(ignoreQuery: ["_"])))
        unstableHeaders = Set(options.unstableHeaders.map(\.asciiLowercased))
    }

    /// Entries seen so far.
    public var entriesRead: Int { report.entriesRead }

    /// Adds `log.entries[entry.index]`; entries that cannot be replayed are recorded in the report.
    ///
    /// In steps: an HTTP(S) or WebSocket URL on a kept host; its query as recorded (redacted); a WebSocket entry
    /// becomes a script; an HTTP exchange needs an answer (or `--failed keep`); then the request a stub matches (key,
    /// header constraints, body, GraphQL operation) and the answer as stored, appended to its group.
    public mutating func add(_ entry: HAREntry) {
        report.entriesRead += 1
        guard let url = replayableURL(of: entry), isKeptHost(url) else { return }
        // Redacted before anything else is decided: the redaction log numbers what it replaced in entry order.
        let rawQuery = recordedQuery(of: url, entry: entry)
        if HARCompiler.isWebSocket(entry, url: url) { return addWebSocket(entry, url: url, rawQuery: rawQuery) }
        if entry.request.method == "CONNECT" {
            return skip(
                entry,
                "CONNECT tunnel (a proxy's TLS tunnel to \(url.hostAndPort), not an HTTP exchange; what went through it is recorded as entries of its own when the proxy decrypted it)"
            )
        }
        let failure = failure(of: entry)
        if let failure {
            guard options.failed == .keep else { return skip(entry, failure) }
        } else if let reason = HARCompiler.unreplayableAnswer(entry.response!, url: url) {
            return skip(entry, reason)
        }
        keep(url)
        let request = stubRequest(for: entry, url: url, rawQuery: rawQuery)
        guard let response = entry.response, failure == nil else {
            return append(request, failedAttempt(entry), entry: entry.index)
        }
        let body = decodedBody(of: response, entry: entry)
        if request.graphQL != nil, HARCompiler.isPersistedQueryNotFound(body) {
            unkeep(url)
            return skip(
                entry,
                "GraphQL automatic persisted query handshake (PersistedQueryNotFound): the mock answers the operation by its hash, so the app never needs to send the document again"
            )
        }
        append(request, recordedResponse(response, body: body, entry: entry, url: url), entry: entry.index)
    }

    /// The mock set to write and the report. The set may be empty; the caller decides whether that is an error.
    ///
    /// Ends the compilation: the recorded entries are let go as the set is built (so that they are not held
    /// beside it while it is written), and the compiler is left without them.
    ///
    /// In steps: sequences whose requests differed in what the rules leave out are noted; hosts are folded into
    /// the keys or left out of them; what the import changed is reported; each group becomes its stubs and body
    /// files; the set's rules and flags are written beside them.
    public mutating func finish() -> (MockSetBuild, ImportReport) {
        var report = report
        let keepHosts = report.keptHosts.count > 1 && !options.flattenHosts
        var groups = ordered
        ordered = []
        self.groups = GroupTable()
        noteSequencesDifferingInLeftOutFields(groups, report: &report)
        sentQueries = [:]
        if keepHosts {
            report.sharedKeys = HARCompiler.keysOnSeveralHosts(groups)
        } else {
            HARCompiler.mergingHosts(&groups, report: &report, warn: report.keptHosts.count > 1)
            report.flattened = report.keptHosts.count > 1
        }
        noteDroppedHeaders(in: &report)
        noteFailedEntries(in: &report)
        notePseudoHeadersAndLocations(in: &report)
        noteRequestBodies(in: &report)
        noteResponseBodies(in: &report)
        report.redactions = redactor.log

        var assembly = StubAssembly(groupCount: groups.count, origins: origins, keepHosts: keepHosts)
        for position in groups.indices {
            let group = groups[position]
            // Only this iteration holds the group's entries now: they go with it, their bodies kept in `files`.
            groups[position].entries = []
            assembly.add(group, report: &report)
        }
        assembly.noteOriginURLs(in: &report)
        let file = mockSetFile(stubs: assembly.stubs, conditionalRequests: assembly.conditionalRequests)
        report.rebaseDates = options.rebaseDates
        return (MockSetBuild(file: file, files: assembly.files), report)
    }

    mutating func skip(_ entry: HAREntry, _ reason: String) {
        report.skipped.append(.init(index: entry.index, reason: reason))
    }

    /// Adds an entry's answer to the group of its request: a new group the first time the request (key, header
    /// constraints, GraphQL operation) is seen, the next step of the group's sequence after that.
    mutating func append(_ request: StubRequest, _ recorded: RecordedResponse, entry: Int) {
        let groupKey = GroupKey(
            key: request.key,
            constraints: request.constraints,
            graphQL: request.graphQL?.operation.identity
        )
        let hash = groupKey.hashValue
        if let position = groups.position(of: groupKey, hash: hash, in: ordered) {
            ordered[position].entries.append((request.body, recorded, entry))
            if let graphQL = request.graphQL { ordered[position].graphQLOperations.append(graphQL.operation) }
        } else {
            let constraints = sharedConstraints.shared(request.constraints)
            let lines = sharedHeaderLines.shared(ByteKeys(request.constraintLines)).values
            groups.append(hash: hash)
            var group = Group(
                key: request.key,
                constraintLines: lines,
                constraints: constraints,
                entries: [(request.body, recorded, entry)]
            )
            if let graphQL = request.graphQL {
                group.graphQLMethod = graphQL.method
                group.graphQLOperations = [graphQL.operation]
            }
            ordered.append(group)
        }
    }
}
