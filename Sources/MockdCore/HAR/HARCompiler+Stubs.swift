import Foundation
import MockdFormat

/// `HARCompiler.finish`'s stubs: each group becomes its stubs (one per request body variant), their request and
/// response entries and the body files they name, and the set's rules and flags.
extension HARCompiler {
    /// Builds the set's stubs and body files group by group, in recording order.
    struct StubAssembly {
        private(set) var stubs: [MockSetFile.StubEntry] = []
        private(set) var files: [String: Data] = [:]
        /// Whether some 304 answers conditional requests beside the whole representation (the set's
        /// `conditionalRequests`).
        private(set) var conditionalRequests = false
        private var namer: FileNamer
        private let keepHosts: Bool
        /// Finds the recorded origins' URLs in bodies, to count those served pointing at the mock and those kept.
        private let rewrite: OriginRewrite?
        private var urls = (rewritten: 0, rewrittenEntries: [Int](), kept: 0, keptEntries: [Int]())

        init(groupCount: Int, origins: Set<String>, keepHosts: Bool) {
            // At least one stub and usually one body file per group: reserved once, not doubled (and copied) as
            // they grow.
            stubs.reserveCapacity(groupCount)
            files.reserveCapacity(groupCount)
            namer = FileNamer(reservingFor: groupCount)
            rewrite = OriginRewrite(origins: origins.sorted())
            self.keepHosts = keepHosts
        }

        /// Adds the stubs of `group`: one per request body variant, each with its sequence of steps.
        mutating func add(_ group: Group, report: inout ImportReport) {
            let graphQLByEntry = Dictionary(
                zip(group.entries.map(\.entry), group.graphQLOperations),
                uniquingKeysWith: { first, _ in first }
            )
            let variants = group.variants()
            if let first = group.graphQLOperations.first {
                report.noteGraphQL(first, path: group.key.path, requests: group.entries.count, stubs: variants.count)
            }
            for var variant in variants {
                HARCompiler.gateSteps(of: &variant, key: group.key, report: &report, conditional: &conditionalRequests)
                HARCompiler.refuseAmbiguousLossyBodies(&variant, key: group.key, report: &report)
                countOriginURLs(in: variant)
                let operation = variant.entries.first.flatMap { graphQLByEntry[$0] }
                let method = operation == nil ? group.key.method : group.graphQLMethod ?? "POST"
                let id = namer.uniqueID(
                    for: group.key.with(method: method),
                    label: operation.map { $0.operationName ?? "anonymous" }
                )
                let request = requestEntry(of: group, variant: variant, method: method, operation: operation, id: id)
                let responses = responseEntries(of: variant, id: id)
                report.stubsWritten += 1
                report.responsesWritten += responses.count
                if responses.count > 1 { report.sequences += 1 }
                stubs.append(MockSetFile.StubEntry(id: id, request: request, responses: responses))
            }
        }

        /// Counts the recorded origins' URLs in the variant's text bodies: served pointing at the mock, or kept as
        /// recorded where they are identifiers (`IdentifierURLs`).
        private mutating func countOriginURLs(in variant: Group.Variant) {
            guard let rewrite else { return }
            for (recorded, entry) in zip(variant.responses, variant.entries) where !recorded.body.isEmpty {
                let hits = rewrite.urlOffsets(in: recorded.body)
                guard !hits.isEmpty, String(data: recorded.body, encoding: .utf8) != nil else { continue }
                let identifiers = IdentifierURLs.offsets(in: recorded.body, mimeType: recorded.mimeType)
                let kept = hits.filter(identifiers.contains).count
                if kept > 0 {
                    urls.kept += kept
                    urls.keptEntries.append(entry)
                }
                if hits.count > kept {
                    urls.rewritten += hits.count - kept
                    urls.rewrittenEntries.append(entry)
                }
            }
        }

        /// The stub's request: method, path, query, header constraints, host (when kept), the body (a key when the
        /// group's requests differed by body, else what was sent) and the GraphQL operation.
        private mutating func requestEntry(
            of group: Group,
            variant: Group.Variant,
            method: String,
            operation: GraphQLOperation?,
            id: String
        ) -> MockSetFile.RequestEntry {
            var request = MockSetFile.RequestEntry(
                method: method,
                path: group.key.path,
                query: group.key.query.isEmpty ? nil : group.key.readableQuery,
                headers: group.constraintLines.isEmpty ? nil : group.constraintLines,
                host: keepHosts ? group.key.host : nil
            )
            if let body = variant.requestBody ?? variant.sentBody {
                let path = namer.uniqueFile("\(id).request", mimeType: body.contentType, body: body.bytes)
                files[path] = body.bytes
                let entry = MockSetFile.BodyEntry(
                    file: path,
                    contentType: MediaType.essence(of: body.contentType).nilIfEmpty
                )
                // Part of the key when the group's requests differed by body; otherwise kept as what was sent,
                // for `mockd refresh` to send again. A GraphQL operation's body is never its key.
                if variant.requestBody != nil, operation == nil {
                    request.body = entry
                } else {
                    request.recordedBody = entry
                }
            }
            if let operation { request.graphql = HARCompiler.entry(for: operation) }
            return request
        }

        /// The stub's steps, in recording order, each body in a file of its own (`<id>`, `<id>_2`…); an event stream
        /// is written as its events instead.
        private mutating func responseEntries(of variant: Group.Variant, id: String) -> [MockSetFile.ResponseEntry] {
            var responses: [MockSetFile.ResponseEntry] = []
            for (step, recorded) in variant.responses.enumerated() {
                var entry = MockSetFile.ResponseEntry(
                    status: recorded.fault == nil ? recorded.status : nil,
                    headers: recorded.headers.isEmpty ? nil : recorded.headers,
                    recordedTimeMs: recorded.time.map { $0.rounded() }
                )
                entry.websocket = recorded.webSocket
                entry.events = recorded.eventStream
                entry.fault = recorded.fault
                entry.miss = recorded.miss
                entry.conditionalOnly = recorded.conditionalOnly ? true : nil
                entry.validators = recorded.conditionalOnly && !recorded.validators.isEmpty ? recorded.validators : nil
                entry.rangeOnly = recorded.rangeOnly ? true : nil
                entry.cachedCopy = recorded.cachedCopy
                entry.dates = recorded.dates
                // Recorded bytes are literal: a `{{` in a recorded page must never be rendered as a placeholder.
                entry.templated = recorded.templated
                if !recorded.body.isEmpty, recorded.eventStream == nil {
                    let path = namer.uniqueFile(
                        id,
                        suffix: step == 0 ? "" : "_\(step + 1)",
                        mimeType: recorded.mimeType,
                        body: recorded.body
                    )
                    files[path] = recorded.body
                    entry.bodyFile = path
                }
                responses.append(entry)
            }
            return responses
        }

        /// The report's note on the recorded origins' URLs found in bodies, when there were any.
        func noteOriginURLs(in report: inout ImportReport) {
            guard urls.rewritten + urls.kept > 0 else { return }
            var line =
                "recorded origins' URLs in bodies: \(urls.rewritten) point at the mock when served, where a client fetches them"
            if !urls.rewrittenEntries.isEmpty { line += " (\(ImportReport.entryList(urls.rewrittenEntries.sorted())))" }
            line +=
                "; \(urls.kept) kept as recorded, identifiers compared as constants (RFC 9457 problem type, $schema, JSON-LD @context/@id, XML namespaces)"
            if !urls.keptEntries.isEmpty { line += " (\(ImportReport.entryList(urls.keptEntries.sorted())))" }
            report.notes.append(line)
        }
    }

    /// The set's index: the stubs with the options' rules (plus the `_` cache-buster when the recording used it,
    /// and the redactions' rules), CORS, conditional requests, origins and date rebasing.
    func mockSetFile(stubs: [MockSetFile.StubEntry], conditionalRequests: Bool) -> MockSetFile {
        var normalization = options.normalization
        if sawCacheBuster, !(normalization.ignoreQuery ?? []).contains("_") {
            // jQuery's `_=<epoch ms>` cache-buster: never part of what a request means.
            normalization.ignoreQuery = ["_"] + (normalization.ignoreQuery ?? [])
        }
        normalization = normalization.merged(with: redactor.rules)
        return MockSetFile(
            matchHeaders: options.matchHeaders == MockSetFile.defaultMatchHeaders ? nil : options.matchHeaders,
            normalize: normalization.isEmpty ? nil : normalization,
            cors: options.cors ? true : nil,
            conditionalRequests: conditionalRequests ? true : nil,
            origins: origins.isEmpty ? nil : origins.sorted(),
            rebaseDates: options.rebaseDates ? true : nil,
            stubs: stubs
        )
    }

    /// A GraphQL stub's `request.graphql`: its name, type, variables and persisted query; the document only when it is
    /// the key (no name, no persisted query).
    static func entry(for operation: GraphQLOperation) -> GraphQLEntry {
        let variables = try? JSONDecoder().decode(JSONValue.self, from: operation.variables)
        return GraphQLEntry(
            operationName: operation.operationName,
            operationType: operation.operationType,
            variables: variables == .object([:]) ? nil : variables,
            persistedQuery: operation.persistedQuery,
            document: operation.operationName == nil && operation.persistedQuery == nil ? operation.document : nil
        )
    }

    /// Marks the steps of `variant` that hold no whole answer (a 304, a 206 of part of the representation), in
    /// their place in the sequence (a conditional poll's 200, 304, 304, 200 stays that sequence):
    /// - a 304: answers a conditional request whose validator is the recorded request's own, the 304's or the
    ///   representation's (`conditionalOnly`, `validators`); a plain request gets the stub's whole representation
    ///   (its nearest 2xx step, earlier first), or without one a miss that says why. A 304 that a plain request
    ///   got, with no validator on either side, is what the server answers that request: a step like any other.
    /// - a 206 (`rangeOnly`): answers a `GET` whose `Range` lies in the recorded bytes; others get the
    ///   representation, or a miss.
    static func gateSteps(
        of variant: inout Group.Variant,
        key: RequestKey,
        report: inout ImportReport,
        conditional: inout Bool
    ) {
        let hasFull = variant.responses.contains(where: \.isWholeRepresentation)
        var notModified = 0
        var cachedCopies = 0
        for step in variant.responses.indices where variant.responses[step].miss == nil {
            let recorded = variant.responses[step]
            if recorded.status == 304 {
                let unconditional = recorded.validators.isEmpty && !recorded.hasValidators
                if unconditional && !hasFull { continue }
                notModified += 1
                variant.responses[step].conditionalOnly = true
                if !hasFull, !recorded.body.isEmpty {
                    // Browsers (Chrome, Firefox) write the copy the 304 confirmed into its content: what the client used.
                    variant.responses[step].cachedCopy =
                        recorded.mimeType.flatMap { $0.isEmpty ? nil : $0 } ?? "application/octet-stream"
                    cachedCopies += 1
                } else if !hasFull {
                    variant.responses[step].miss =
                        "recorded only as 304 Not Modified (the client had it cached, so the recording holds no body); a conditional request with the recorded validator (If-None-Match, If-Modified-Since) gets the 304"
                }
            } else if let partial = recorded.partial, !hasFull {
                variant.responses[step].miss = partial
                report.partialOnly.append("\(key)")
            }
        }
        guard notModified > 0 else { return }
        if hasFull {
            report.notModifiedAsConditional += notModified
            conditional = true
        } else if cachedCopies == notModified {
            report.notModifiedWithCachedCopy.append("\(key)")
        } else {
            report.notModifiedOnly.append("\(key)")
        }
    }

    /// Requests whose recorded bodies collapsed to the same text (binary written as text, U+FFFD for what was not
    /// UTF-8) and were answered differently: which answer belongs to which request is lost, so every step of the
    /// stub is a miss that says so. Answered alike, they are one answer whatever the bodies were.
    static func refuseAmbiguousLossyBodies(
        _ variant: inout Group.Variant,
        key: RequestKey,
        report: inout ImportReport
    ) {
        guard variant.lossy, variant.responses.count > 1,
            let first = variant.responses.first,
            variant.responses.dropFirst().contains(where: {
                $0.status != first.status || $0.headers != first.headers || $0.body != first.body
            })
        else { return }
        let entries = variant.entries.map { String($0 + 1) }.joined(separator: ", ")
        let reason =
            "ambiguous request: entries \(entries) recorded request bodies the HAR holds as the same text (bytes that were not UTF-8 written as U+FFFD), and they were answered differently; which answer belongs to which body is lost (re-export with base64 request bodies, or record with mockd record)"
        for step in variant.responses.indices {
            variant.responses[step].miss = reason
            variant.responses[step].conditionalOnly = false
            variant.responses[step].partial = nil
        }
        report.ambiguousBodies.append("\(key) (entries \(entries))")
    }
}
